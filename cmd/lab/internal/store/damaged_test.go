package store

import (
	"database/sql"
	"errors"
	"path/filepath"
	"slices"
	"testing"

	"interplab/engine"
)

// damageRevision overwrites the stored settings of a revision with text
// that is not a settings object, in the database (dir as eachBackend
// gives it): on SQLite through another connection to the file, with a NUL
// byte, which PostgreSQL's text cannot hold.
func damageRevision(t *testing.T, dir, id string, rev int) {
	t.Helper()
	if IsPostgres(dir) {
		db, err := sql.Open("pgx", dir)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		if _, err := db.Exec(`UPDATE revisions SET settings = '{"latency": tr' WHERE session_id = $1 AND rev = $2`, id, rev); err != nil {
			t.Fatal(err)
		}
		return
	}
	db, err := sql.Open("sqlite", filepath.Join(dir, dbFile))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`UPDATE revisions SET settings = '{"latency": tr' || char(0) WHERE session_id = ? AND rev = ?`, id, rev); err != nil {
		t.Fatal(err)
	}
}

// A damaged revision costs only itself: the session opens at its latest
// readable revision, its history lists every revision with the damaged
// ones marked, and a save goes on from the latest readable one.
func TestDamagedRevisions(t *testing.T) {
	eachBackend(t, func(t *testing.T, dir string) {
		st := openTestStore(t, dir, storeT0)
		first, err := st.Create(testDraft("s", nil), storeT0)
		if err != nil {
			t.Fatal(err)
		}
		id := first.ID
		for _, loss := range []float64{0.01, 0.02, 0.03} { // revisions 2, 3, 4
			if _, err := st.Save(id, testDraft("s", func(s *engine.Settings) { s.Loss = loss }), storeT0); err != nil {
				t.Fatal(err)
			}
		}
		other, _ := st.Create(testDraft("other", nil), storeT0)

		// An older revision.
		damageRevision(t, dir, id, 2)
		s, err := st.Get(id)
		if err != nil {
			t.Fatalf("Get with revision 2 damaged = %v, want the session", err)
		}
		if s.Rev != 4 || s.Latest != 4 || s.Settings.Loss != 0.03 {
			t.Errorf("Get = rev %d of %d, loss %v; want rev 4 of 4, loss 0.03", s.Rev, s.Latest, s.Settings.Loss)
		}
		var damaged []int
		for _, h := range s.History {
			if h.Damaged != "" {
				damaged = append(damaged, h.Rev)
			}
		}
		if !slices.Equal(damaged, []int{2}) || len(s.History) != 4 || !slices.Equal(s.History[2].Changed, []string{"loss"}) {
			t.Errorf("history %+v: want 4 revisions, 2 damaged, 3 changing loss from revision 1", s.History)
		}
		if _, err := st.Revision(id, 2); !errors.Is(err, ErrDamaged) {
			t.Errorf("Revision(2) = %v, want ErrDamaged", err)
		}
		got, err := st.DamagedRevisions([]string{id, other.ID})
		if err != nil || len(got) != 1 || !slices.Equal(got[id], []int{2}) {
			t.Errorf("DamagedRevisions = %v, %v; want %s: [2]", got, err, id)
		}

		// The latest.
		damageRevision(t, dir, id, 4)
		s, err = st.Get(id)
		if err != nil || s.Rev != 3 || s.Latest != 4 || s.Settings.Loss != 0.02 || s.History[3].Damaged == "" {
			t.Fatalf("Get with revision 4 damaged = rev %d of %d, loss %v, %v; want rev 3 of 4, loss 0.02, 4 marked", s.Rev, s.Latest, s.Settings.Loss, err)
		}
		if r, err := st.Latest(id); err != nil || r.Rev != 3 {
			t.Errorf("Latest = rev %d, %v; want 3, the latest readable", r.Rev, err)
		}
		r, err := st.Update(id, storeT0, func(prev Revision) (Draft, error) {
			if prev.Rev != 3 {
				t.Errorf("Update's prev = rev %d, want 3", prev.Rev)
			}
			return Draft{Name: prev.Name, Settings: prev.Settings}, nil
		})
		if err != nil || r.Rev != 5 {
			t.Errorf("Update over a damaged latest = rev %d, %v; want 5", r.Rev, err)
		}
		if s, _ := st.Get(id); s.Rev != 5 || s.Latest != 5 {
			t.Errorf("after the save Get = rev %d of %d, want 5 of 5", s.Rev, s.Latest)
		}

		// Every revision.
		for rev := 1; rev <= 5; rev++ {
			damageRevision(t, dir, id, rev)
		}
		if _, err := st.Get(id); !errors.Is(err, ErrDamaged) {
			t.Errorf("Get with every revision damaged = %v, want ErrDamaged", err)
		}
		if _, err := st.Latest(id); !errors.Is(err, ErrDamaged) {
			t.Errorf("Latest with every revision damaged = %v, want ErrDamaged", err)
		}
		if _, err := st.Get(other.ID); err != nil {
			t.Errorf("Get(other session) = %v", err)
		}
	})
}
