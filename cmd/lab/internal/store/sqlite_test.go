package store

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pressly/goose/v3"
	"interplab/cmd/lab/internal/wire"

	"interplab/engine"
)

// storeT0 is the tests' clock origin.
var storeT0 = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

// openTestStore opens the store at dir: a data directory, or a
// PostgreSQL database's address (eachBackend).
func openTestStore(t testing.TB, dir string, now time.Time) *DB {
	t.Helper()
	var st *DB
	var err error
	if IsPostgres(dir) {
		st, err = OpenPostgres(context.Background(), dir, now)
	} else {
		st, err = Open(dir, now)
	}
	if err != nil {
		t.Fatalf("Open(%s) error: %v", dir, err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func testDraft(name string, mutate func(*engine.Settings)) Draft {
	s := engine.Defaults()
	if mutate != nil {
		mutate(&s)
	}
	return Draft{Name: name, Notes: "notes of " + name, Settings: s}
}

func TestStoreReopenKeepsEveryRevision(t *testing.T) {
	eachBackend(t, func(t *testing.T, dir string) {
		if !IsPostgres(dir) {
			dir = filepath.Join(dir, "nested", "data") // created on first run
		}
		st := openTestStore(t, dir, storeT0)
		r1, err := st.Create(testDraft("  harbor  ", nil), storeT0)
		if err != nil {
			t.Fatalf("Create error: %v", err)
		}
		if r1.Rev != 1 || r1.Name != "harbor" {
			t.Fatalf("Create = rev %d name %q, want rev 1 name %q (trimmed)", r1.Rev, r1.Name, "harbor")
		}
		want := []Revision{r1}
		for i := 1; i <= 4; i++ {
			d := testDraft("harbor", func(s *engine.Settings) { s.DisplayBehind = 0.1 * float64(i) })
			r, err := st.Save(r1.ID, d, storeT0.Add(time.Duration(i)*time.Minute))
			if err != nil {
				t.Fatalf("Save %d error: %v", i, err)
			}
			want = append(want, r)
		}
		r, err := st.Update(r1.ID, storeT0.Add(time.Hour), func(prev Revision) (Draft, error) {
			return Draft{Name: "harbor after", Notes: prev.Notes, Settings: prev.Settings}, nil
		})
		if err != nil {
			t.Fatalf("Update (a rename) error: %v", err)
		}
		want = append(want, r)
		if err := st.Close(); err != nil {
			t.Fatalf("Close error: %v", err)
		}

		st = openTestStore(t, dir, storeT0.Add(2*time.Hour))
		if v, err := st.schemaVersion(); err != nil || v != latestVersion() {
			t.Errorf("schemaVersion() = %d, %v, want %d", v, err, latestVersion())
		}
		for _, w := range want {
			got, err := st.Revision(w.ID, w.Rev)
			if err != nil {
				t.Fatalf("Revision(%s, %d) error: %v", w.ID, w.Rev, err)
			}
			if fmt.Sprint(got) != fmt.Sprint(w) {
				t.Errorf("Revision(%s, %d) after reopen =\n%+v\nwant\n%+v", w.ID, w.Rev, got, w)
			}
		}
		s, err := st.Get(r1.ID)
		if err != nil {
			t.Fatalf("Get error: %v", err)
		}
		if s.Rev != 6 || s.Name != "harbor after" || len(s.History) != 6 || !s.Created.Equal(storeT0) {
			t.Errorf("Get = rev %d name %q, %d revisions, created %v; want rev 6 %q, 6 revisions, created %v",
				s.Rev, s.Name, len(s.History), s.Created, "harbor after", storeT0)
		}
		wantChanged := [][]string{{}, {"displayBehind"}, {"displayBehind"}, {"displayBehind"}, {"displayBehind"}, {}}
		for i, h := range s.History {
			if h.Rev != i+1 || !slices.Equal(h.Changed, wantChanged[i]) {
				t.Errorf("History[%d] = rev %d changed %q, want rev %d changed %q", i, h.Rev, h.Changed, i+1, wantChanged[i])
			}
		}
	})
}

func TestStoreMigrations(t *testing.T) {
	dir := t.TempDir()
	// An empty database file, as left by an older tool or a crash before
	// the first migration committed.
	raw, err := sql.Open("sqlite", filepath.Join(dir, dbFile))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec("CREATE TABLE unrelated (x)"); err != nil {
		t.Fatal(err)
	}
	raw.Close()

	st, err := Open(dir, storeT0)
	if err != nil {
		t.Fatalf("openStore on an empty database: %v", err)
	}
	if v, err := st.schemaVersion(); err != nil || v != latestVersion() {
		t.Errorf("schemaVersion() = %d, %v, want %d", v, err, latestVersion())
	}
	var mode string
	if err := st.db.QueryRow("PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
		t.Errorf("journal_mode = %q, %v, want wal", mode, err)
	}
	var sync, fk int
	if err := st.db.QueryRow("PRAGMA synchronous").Scan(&sync); err != nil || sync != 2 {
		t.Errorf("synchronous = %d, %v, want 2 (FULL)", sync, err)
	}
	if err := st.db.QueryRow("PRAGMA foreign_keys").Scan(&fk); err != nil || fk != 1 {
		t.Errorf("foreign_keys = %d, %v, want 1", fk, err)
	}
	r, err := st.Create(testDraft("kept", nil), storeT0)
	if err != nil {
		t.Fatal(err)
	}
	st.Close()

	// Reopening runs no step twice and keeps the data.
	st = openTestStore(t, dir, storeT0)
	if got, err := st.Latest(r.ID); err != nil || got.Name != "kept" {
		t.Errorf("Latest after reopen = %q, %v, want %q", got.Name, err, "kept")
	}
	st.Close()

	// A later release's step applies once, on top of the data.
	extraSteps = []*goose.Migration{goose.NewGoMigration(latestVersion()+1, &goose.GoFunc{RunTx: func(_ context.Context, tx *sql.Tx) error {
		_, err := tx.Exec(`ALTER TABLE sessions ADD COLUMN pinned INTEGER NOT NULL DEFAULT 0`)
		return err
	}}, nil)}
	defer func() { extraSteps = nil }()
	for range 2 {
		st = openTestStore(t, dir, storeT0)
		var pinned int
		if err := st.db.QueryRow(`SELECT pinned FROM sessions WHERE id = ?`, r.ID).Scan(&pinned); err != nil {
			t.Errorf("after the new step: %v", err)
		}
		if v, err := st.schemaVersion(); err != nil || v != latestVersion() {
			t.Errorf("schemaVersion() after the new step = %d, %v, want %d", v, err, latestVersion())
		}
		st.Close()
	}
	extraSteps = nil

	// A database from a newer lab is refused, not damaged.
	raw, _ = sql.Open("sqlite", filepath.Join(dir, dbFile))
	if _, err := raw.Exec(fmt.Sprintf("PRAGMA user_version = %d", latestVersion()+5)); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	if st, err := Open(dir, storeT0); err == nil || !strings.Contains(err.Error(), "newer") {
		if st != nil {
			st.Close()
		}
		t.Errorf("openStore on a newer schema: error %v, want one saying it is newer", err)
	}
}

// Fifty goroutines save at once, half creating sessions and half adding
// revisions to one session, through two Store handles on the same file (as
// two processes would): no save is lost and revisions stay contiguous.
func TestStoreConcurrentSaves(t *testing.T) {
	eachBackend(t, func(t *testing.T, dir string) {
		st1 := openTestStore(t, dir, storeT0)
		st2 := openTestStore(t, dir, storeT0)
		shared, err := st1.Create(testDraft("shared", nil), storeT0)
		if err != nil {
			t.Fatal(err)
		}
		const n = 50
		var wg sync.WaitGroup
		errs := make(chan error, n)
		ids := make(chan string, n)
		for i := range n {
			st := st1
			if i%3 == 0 {
				st = st2
			}
			wg.Go(func() {
				now := storeT0.Add(time.Duration(i) * time.Second)
				if i%2 == 0 {
					r, err := st.Create(testDraft(fmt.Sprintf("new %d", i), nil), now)
					if err != nil {
						errs <- fmt.Errorf("create %d: %w", i, err)
						return
					}
					ids <- r.ID
					return
				}
				d := testDraft(fmt.Sprintf("shared by %d", i), func(s *engine.Settings) { s.Seed = i })
				if _, err := st.Save(shared.ID, d, now); err != nil {
					errs <- fmt.Errorf("save %d: %w", i, err)
				}
			})
		}
		wg.Wait()
		close(errs)
		close(ids)
		for err := range errs {
			t.Error(err)
		}
		var created []string
		for id := range ids {
			created = append(created, id)
		}
		if len(created) != n/2 {
			t.Errorf("%d sessions created, want %d", len(created), n/2)
		}
		s, err := st1.Get(shared.ID)
		if err != nil {
			t.Fatal(err)
		}
		if s.Rev != 1+n/2 || len(s.History) != 1+n/2 {
			t.Errorf("shared session has latest rev %d and %d revisions, want %d", s.Rev, len(s.History), 1+n/2)
		}
		seeds := map[int]bool{}
		for _, h := range s.History[1:] {
			r, err := st2.Revision(shared.ID, h.Rev)
			if err != nil {
				t.Fatal(err)
			}
			if r.Name != fmt.Sprintf("shared by %d", r.Settings.Seed) || seeds[r.Settings.Seed] {
				t.Errorf("revision %d: name %q with seed %d (duplicate %v)", h.Rev, r.Name, r.Settings.Seed, seeds[r.Settings.Seed])
			}
			seeds[r.Settings.Seed] = true
		}
		list, err := st2.List("", false)
		if err != nil {
			t.Fatal(err)
		}
		if len(list) != 1+n/2 {
			t.Errorf("List has %d sessions, want %d", len(list), 1+n/2)
		}
	})
}

// repeatReader returns the same bytes over and over, then what follows.
type repeatReader struct {
	chunks [][]byte
}

func (r *repeatReader) Read(p []byte) (int, error) {
	if len(r.chunks) == 0 {
		return 0, errors.New("out of randomness")
	}
	n := copy(p, r.chunks[0])
	r.chunks = r.chunks[1:]
	return n, nil
}

func TestStoreIDs(t *testing.T) {
	eachBackend(t, func(t *testing.T, dir string) {
		id, err := newSessionID(bytes.NewReader([]byte{0, 1, 2, 3, 4, 5, 30, 31, 32, 33, 255, 100}))
		if want := "abcdef67ab7e"; err != nil || id != want {
			t.Errorf("newSessionID = %q, %v, want %q", id, err, want)
		}
		if err := CheckSessionID(id); err != nil {
			t.Errorf("CheckSessionID(%q) = %v, want nil", id, err)
		}

		// A colliding id is retried with fresh randomness.
		st := openTestStore(t, dir, storeT0)
		same := bytes.Repeat([]byte{7}, SessionIDLen)
		st.Rand = &repeatReader{chunks: [][]byte{same, same, bytes.Repeat([]byte{9}, SessionIDLen)}}
		a, err := st.Create(testDraft("a", nil), storeT0)
		if err != nil {
			t.Fatal(err)
		}
		b, err := st.Create(testDraft("b", nil), storeT0)
		if err != nil {
			t.Fatalf("Create after a collision: %v", err)
		}
		if a.ID != "hhhhhhhhhhhh" || b.ID != "jjjjjjjjjjjj" {
			t.Errorf("ids = %q, %q, want %q, %q", a.ID, b.ID, "hhhhhhhhhhhh", "jjjjjjjjjjjj")
		}
		if _, err := st.Create(testDraft("c", nil), storeT0); err == nil {
			t.Errorf("Create with no randomness left: no error")
		}
	})
}

func TestStoreHostileInput(t *testing.T) {
	eachBackend(t, func(t *testing.T, dir string) {
		st := openTestStore(t, dir, storeT0)
		ok, err := st.Create(testDraft("ok", nil), storeT0)
		if err != nil {
			t.Fatal(err)
		}
		long := strings.Repeat("é", MaxNameRunes+1)
		tests := []struct {
			name  string
			id    string // "" means create
			draft Draft
			field string
		}{
			{name: "empty name", draft: Draft{Name: "  \t", Settings: engine.Defaults()}, field: "name"},
			{name: "name too long", draft: Draft{Name: long, Settings: engine.Defaults()}, field: "name"},
			{name: "control char in name", draft: Draft{Name: "a\x00b", Settings: engine.Defaults()}, field: "name"},
			{name: "newline in name", draft: Draft{Name: "a\nb", Settings: engine.Defaults()}, field: "name"},
			{name: "invalid utf-8 name", draft: Draft{Name: "a\xffb", Settings: engine.Defaults()}, field: "name"},
			{name: "notes too long", draft: Draft{Name: "n", Notes: strings.Repeat("x", MaxNotesRunes+1), Settings: engine.Defaults()}, field: "notes"},
			{name: "escape in notes", draft: Draft{Name: "n", Notes: "\x1b[31m", Settings: engine.Defaults()}, field: "notes"},
			{name: "out of range", draft: testDraft("n", func(s *engine.Settings) { s.Loss = 2 }), field: "loss"},
			{name: "unknown technique", draft: testDraft("n", func(s *engine.Settings) { s.Techniques = []string{"magic"} }), field: "techniques"},
			{name: "cross-field", draft: testDraft("n", func(s *engine.Settings) { s.SendRate, s.TickRate = 60, 30 }), field: "sendRate"},
			{name: "dot-dot id", id: "../../etc/pa", draft: testDraft("n", nil), field: "id"},
			{name: "upper-case id", id: strings.ToUpper(ok.ID), draft: testDraft("n", nil), field: "id"},
			{name: "short id", id: ok.ID[:11], draft: testDraft("n", nil), field: "id"},
			{name: "quote id", id: "aaaaaaaaaa'", draft: testDraft("n", nil), field: "id"},
			{name: "bad save on a good id", id: ok.ID, draft: Draft{Name: "", Settings: engine.Defaults()}, field: "name"},
		}
		for _, tt := range tests {
			var err error
			if tt.id == "" {
				_, err = st.Create(tt.draft, storeT0)
			} else {
				_, err = st.Save(tt.id, tt.draft, storeT0)
			}
			if _, field := wire.Text(err); err == nil || field != tt.field {
				t.Errorf("%s: error %v, want an error naming %q", tt.name, err, tt.field)
			}
		}
		// Nothing of that reached the database.
		if s, err := st.Get(ok.ID); err != nil || s.Rev != 1 {
			t.Errorf("after hostile saves: rev %d, %v, want 1", s.Rev, err)
		}
		if list, _ := st.List("", true); len(list) != 1 {
			t.Errorf("after hostile creates: %d sessions, want 1", len(list))
		}
		// Valid but tricky text is kept as is.
		tricky := Draft{Name: `<script>alert("x")</script> ' OR 1=1; --`, Notes: "line 1\nline\t2", Settings: engine.Defaults()}
		r, err := st.Create(tricky, storeT0)
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := st.Latest(r.ID); got.Name != tricky.Name || got.Notes != tricky.Notes {
			t.Errorf("tricky text came back as %q, %q", got.Name, got.Notes)
		}
		if _, err := st.Latest("zzzzzzzzzzzz"); !errors.Is(err, ErrSessionNotFound) {
			t.Errorf("Latest(unknown) error %v, want ErrSessionNotFound", err)
		}
		if _, err := st.Revision(ok.ID, 2); !errors.Is(err, ErrRevNotFound) {
			t.Errorf("Revision(id, 2) error %v, want ErrRevNotFound", err)
		}
		if _, err := st.Revision(ok.ID, 0); err == nil {
			t.Errorf("Revision(id, 0): no error")
		}
	})
}

func TestStoreCanonicalSettings(t *testing.T) {
	eachBackend(t, func(t *testing.T, dir string) {
		st := openTestStore(t, dir, storeT0)
		d := testDraft("t", func(s *engine.Settings) { s.Techniques = []string{"hermite", "epic", "hermite"} })
		r, err := st.Create(d, storeT0)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := st.Latest(r.ID)
		if want := []string{"epic", "hermite"}; !slices.Equal(got.Settings.Techniques, want) {
			t.Errorf("techniques saved as %q, want %q", got.Settings.Techniques, want)
		}
	})
}

// A revision saved before a parameter existed reads it as its default.
func TestStoreOldRevisionTakesNewDefaults(t *testing.T) {
	eachBackend(t, func(t *testing.T, dir string) {
		st := openTestStore(t, dir, storeT0)
		r, err := st.Create(testDraft("old", func(s *engine.Settings) { s.Latency = 0.123 }), storeT0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := st.db.Exec(`UPDATE revisions SET settings = '{"latency":0.123}' WHERE session_id = ?`, r.ID); err != nil {
			t.Fatal(err)
		}
		got, err := st.Latest(r.ID)
		if err != nil {
			t.Fatal(err)
		}
		want := engine.Defaults()
		want.Latency = 0.123
		if fmt.Sprint(got.Settings) != fmt.Sprint(want) {
			t.Errorf("old revision settings = %+v, want defaults with latency 0.123", got.Settings)
		}
	})
}

func TestStoreListSearch(t *testing.T) {
	eachBackend(t, func(t *testing.T, dir string) {
		st := openTestStore(t, dir, storeT0)
		names := []string{"Harbor before", "harbor AFTER", "Ärger im Hafen", "100% loss", "snake_case"}
		ids := map[string]string{}
		for i, n := range names {
			r, err := st.Create(testDraft(n, nil), storeT0.Add(time.Duration(i)*time.Minute))
			if err != nil {
				t.Fatal(err)
			}
			ids[n] = r.ID
		}
		tests := []struct {
			q    string
			want []string // newest first
		}{
			{q: "", want: []string{"snake_case", "100% loss", "Ärger im Hafen", "harbor AFTER", "Harbor before"}},
			{q: "HARBOR", want: []string{"harbor AFTER", "Harbor before"}},
			{q: "bor af", want: []string{"harbor AFTER"}},
			{q: "ärger", want: []string{"Ärger im Hafen"}},
			{q: "%", want: []string{"100% loss"}},
			{q: "_", want: []string{"snake_case"}},
			{q: "nothing", want: []string{}},
		}
		for _, tt := range tests {
			list, err := st.List(tt.q, false)
			if err != nil {
				t.Fatal(err)
			}
			got := []string{}
			for _, s := range list {
				got = append(got, s.Name)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("List(%q) = %q, want %q", tt.q, got, tt.want)
			}
		}
		// A new revision moves a session to the top.
		if _, err := st.Rename(ids["Harbor before"], "Harbor before (renamed)", storeT0.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		if list, _ := st.List("", false); list[0].Name != "Harbor before (renamed)" || list[0].Rev != 2 {
			t.Errorf("List()[0] = %q rev %d, want the renamed session at rev 2", list[0].Name, list[0].Rev)
		}
	})
}

func TestStoreDeleteRestorePurge(t *testing.T) {
	eachBackend(t, func(t *testing.T, dir string) {
		st := openTestStore(t, dir, storeT0)
		a, _ := st.Create(testDraft("a", nil), storeT0)
		b, _ := st.Create(testDraft("b", nil), storeT0)
		day := 24 * time.Hour

		if err := st.Delete(a.ID, storeT0.Add(day)); err != nil {
			t.Fatal(err)
		}
		if err := st.Delete(a.ID, storeT0.Add(2*day)); err != nil { // keeps the first time
			t.Fatal(err)
		}
		if _, err := st.Latest(a.ID); !errors.Is(err, ErrSessionDeleted) {
			t.Errorf("Latest(deleted) error %v, want ErrSessionDeleted", err)
		}
		if _, err := st.Save(a.ID, testDraft("a2", nil), storeT0.Add(day)); !errors.Is(err, ErrSessionDeleted) {
			t.Errorf("Save(deleted) error %v, want ErrSessionDeleted", err)
		}
		if s, err := st.Get(a.ID); err != nil || !s.Deleted.Equal(storeT0.Add(day)) {
			t.Errorf("Get(deleted) = deleted %v, %v, want deleted %v", s.Deleted, err, storeT0.Add(day))
		}
		if list, _ := st.List("", false); len(list) != 1 || list[0].ID != b.ID {
			t.Errorf("List without deleted = %v, want only b", list)
		}
		if list, _ := st.List("", true); len(list) != 2 {
			t.Errorf("List with deleted has %d sessions, want 2", len(list))
		}

		// Restorable within 30 days of the deletion.
		if err := st.Restore(a.ID, storeT0.Add(day+RestoreWindow)); err != nil {
			t.Errorf("Restore on the 30th day: %v", err)
		}
		if _, err := st.Latest(a.ID); err != nil {
			t.Errorf("Latest after Restore: %v", err)
		}
		if err := st.Restore(a.ID, storeT0); err != nil {
			t.Errorf("Restore of a live session: %v, want nil", err)
		}

		// Not after; and purged at the next open.
		if err := st.Delete(b.ID, storeT0); err != nil {
			t.Fatal(err)
		}
		late := storeT0.Add(RestoreWindow + time.Second)
		if err := st.Restore(b.ID, late); !errors.Is(err, ErrSessionNotFound) {
			t.Errorf("Restore after 30 days: %v, want ErrSessionNotFound", err)
		}
		st.Close()
		st = openTestStore(t, dir, late)
		if _, err := st.Get(b.ID); !errors.Is(err, ErrSessionNotFound) {
			t.Errorf("Get(b) after purge at open: %v, want ErrSessionNotFound", err)
		}
		var revs int
		st.db.QueryRow(`SELECT count(*) FROM revisions WHERE session_id = ?`, b.ID).Scan(&revs)
		if revs != 0 {
			t.Errorf("%d revisions of the purged session left, want 0", revs)
		}
		if _, err := st.Get(a.ID); err != nil {
			t.Errorf("Get(a) after purge: %v", err)
		}
		if n, err := st.Purge(late); err != nil || n != 0 {
			t.Errorf("Purge again = %d, %v, want 0", n, err)
		}
		if err := st.Delete("zzzzzzzzzzzz", late); !errors.Is(err, ErrSessionNotFound) {
			t.Errorf("Delete(unknown) = %v, want ErrSessionNotFound", err)
		}
	})
}
