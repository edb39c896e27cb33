package store

import (
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"interplab/engine"
)

// A second lab on the same data directory is refused, told who holds it;
// once released, the directory can be locked again.
func TestLock(t *testing.T) {
	dir := t.TempDir()
	first, err := Lock(dir, storeT0)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Lock(dir, storeT0)
	le, ok := errors.AsType[*LockedError](err)
	if !ok || !strings.Contains(le.Error(), "pid "+strconv.Itoa(os.Getpid())) || !strings.Contains(le.Error(), "2026-11-22T10:00:00Z") {
		t.Fatalf("second Lock = %v, want a *LockedError naming pid %d and its start", err, os.Getpid())
	}
	if err := first.Unlock(); err != nil {
		t.Fatal(err)
	}
	again, err := Lock(dir, storeT0)
	if err != nil {
		t.Fatalf("Lock after Unlock = %v", err)
	}
	again.Unlock()
}

// A zero-byte database is refused, never taken for a fresh one.
func TestOpenRefusesEmptyDatabase(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, dbFile), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(dir, storeT0); err == nil || !strings.Contains(err.Error(), "empty (0 bytes)") {
		t.Errorf("Open over a zero-byte lab.db = %v, want a refusal naming it empty", err)
	}
	if fi, _ := os.Stat(filepath.Join(dir, dbFile)); fi.Size() != 0 {
		t.Errorf("the refused file was written to: %d bytes", fi.Size())
	}
}

// damage writes garbage over the middle of the database file of dir.
func damage(t *testing.T, dir string) {
	t.Helper()
	path := filepath.Join(dir, dbFile)
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, _ := f.Stat()
	garbage := []byte(strings.Repeat("\xde\xad\xbe\xef", 2048))
	if _, err := f.WriteAt(garbage, fi.Size()/2/dbPageSize*dbPageSize); err != nil {
		t.Fatal(err)
	}
}

// A database whose pages are damaged is refused at open, naming the file
// and what to do, and left as it was.
func TestOpenRefusesDamagedDatabase(t *testing.T) {
	dir := t.TempDir()
	st := openTestStore(t, dir, storeT0)
	for i := range 300 {
		if _, err := st.Create(testDraft("session "+strconv.Itoa(i), nil), storeT0); err != nil {
			t.Fatal(err)
		}
	}
	st.Close() // checkpoints the WAL into the file
	damage(t, dir)
	before, _ := os.ReadFile(filepath.Join(dir, dbFile))
	_, err := Open(dir, storeT0)
	if err == nil || !strings.Contains(err.Error(), "is damaged") || !strings.Contains(err.Error(), "lab restore") {
		t.Fatalf("Open of a damaged database = %v, want a refusal saying it is damaged and how to restore", err)
	}
	after, _ := os.ReadFile(filepath.Join(dir, dbFile))
	if string(before) != string(after) {
		t.Error("the damaged database was changed by the refused Open")
	}
}

// A full disk (here the database's size cap) fails the write that meets
// it with ErrFull, and loses nothing saved before.
func TestFullDiskLosesNothing(t *testing.T) {
	dir := t.TempDir()
	st, err := OpenWith(dir, storeT0, OpenOptions{MaxBytes: 256 << 10})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	notes := strings.Repeat("n", 9000)
	var saved []Revision
	var full error
	for i := range 1000 {
		r, err := st.Create(Draft{Name: "s" + strconv.Itoa(i), Notes: notes, Settings: engine.Defaults()}, storeT0)
		if err != nil {
			full = err
			break
		}
		saved = append(saved, r)
	}
	if !errors.Is(full, ErrFull) {
		t.Fatalf("filling a 256 KiB database: %v after %d sessions, want ErrFull", full, len(saved))
	}
	if len(saved) < 5 {
		t.Fatalf("only %d sessions fit before the cap", len(saved))
	}
	// Updates meet it too, and say so.
	var err2 error
	for range 100 {
		if _, err2 = st.Save(saved[0].ID, Draft{Name: "more", Notes: notes, Settings: engine.Defaults()}, storeT0); err2 != nil {
			break
		}
	}
	if !errors.Is(err2, ErrFull) {
		t.Errorf("saving into a full database = %v, want ErrFull", err2)
	}
	for _, r := range saved {
		got, err := st.Revision(r.ID, 1)
		if err != nil || got.Name != r.Name || got.Notes != notes {
			t.Fatalf("after the disk filled, %s: %v, %q; want it as saved", r.ID, err, got.Name)
		}
	}
}

// A backup taken while saves go on is a consistent database that passes
// the checks, and restoring it gives back what it held, the replaced
// database kept aside.
func TestBackupAndRestore(t *testing.T) {
	dir := t.TempDir()
	st := openTestStore(t, dir, storeT0)
	first, err := st.Create(testDraft("kept", nil), storeT0)
	if err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := st.Save(first.ID, testDraft("save "+strconv.Itoa(i), nil), storeT0); err != nil {
				t.Error(err)
				return
			}
		}
	})
	time.Sleep(20 * time.Millisecond)
	backup := filepath.Join(t.TempDir(), "lab-backup.db")
	if err := st.Backup(backup); err != nil {
		t.Fatal(err)
	}
	close(stop)
	wg.Wait()
	if err := st.Backup(backup); err == nil {
		t.Error("Backup over an existing file: no error")
	}
	later, err := st.Create(testDraft("after the backup", nil), storeT0)
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	if err := CheckBackup(backup); err != nil {
		t.Fatalf("CheckBackup = %v", err)
	}
	kept, err := Restore(dir, backup, storeT0.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(kept, "lab.db.before-restore-20261122T110000Z") {
		t.Errorf("the replaced database is kept as %q", kept)
	}
	st = openTestStore(t, dir, storeT0)
	defer st.Close()
	if _, err := st.Latest(first.ID); err != nil {
		t.Errorf("after restore the session saved before the backup: %v", err)
	}
	if _, err := st.Latest(later.ID); !errors.Is(err, ErrSessionNotFound) {
		t.Errorf("after restore the session saved after the backup: %v, want not found", err)
	}
	// What was replaced is still there to go back to.
	old, err := sql.Open("sqlite", "file:"+kept+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer old.Close()
	var n int
	if err := old.QueryRow(`SELECT count(*) FROM sessions`).Scan(&n); err != nil || n != 2 {
		t.Errorf("the kept database has %d sessions (%v), want 2", n, err)
	}

	// Not a backup: refused, nothing replaced.
	junk := filepath.Join(t.TempDir(), "junk.db")
	os.WriteFile(junk, []byte("not a database at all, just text"), 0o644)
	if _, err := Restore(dir, junk, storeT0); err == nil {
		t.Error("Restore of a text file: no error")
	}
}

// Job records round-trip, and a job recorded as running is marked
// interrupted by the next server.
func TestJobRecords(t *testing.T) {
	eachBackend(t, func(t *testing.T, dir string) {
		st := openTestStore(t, dir, storeT0)
		defer st.Close()
		run := Job{ID: "0123456789abcdef", Kind: "sweep", State: "running", Total: 4, Spec: []byte(`{"x":1}`), Created: storeT0}
		if err := st.SaveJob(run); err != nil {
			t.Fatal(err)
		}
		done := run
		done.ID, done.State, done.Done, done.Result, done.Ended = "fedcba9876543210", "done", 4, []byte(`[1,2]`), storeT0.Add(time.Minute)
		if err := st.SaveJob(done); err != nil {
			t.Fatal(err)
		}
		if got, err := st.LoadJob(done.ID); err != nil || string(got.Result) != "[1,2]" || got.State != "done" || !got.Ended.Equal(done.Ended) {
			t.Errorf("LoadJob = %+v, %v; want it as saved", got, err)
		}
		if n, err := st.InterruptJobs(storeT0.Add(time.Hour)); n != 1 || err != nil {
			t.Errorf("InterruptJobs = %d, %v; want the one running job", n, err)
		}
		if got, _ := st.LoadJob(run.ID); got.State != "interrupted" || got.Error == "" {
			t.Errorf("after InterruptJobs the running job is %q (%q)", got.State, got.Error)
		}
		if _, err := st.LoadJob("nope"); !errors.Is(err, ErrJobNotFound) {
			t.Errorf("LoadJob(nope) = %v, want ErrJobNotFound", err)
		}
		// Only the newest MaxJobs are kept.
		for i := range MaxJobs + 5 {
			j := run
			j.ID, j.Created = "job"+strconv.Itoa(i), storeT0.Add(time.Duration(i)*time.Second)
			if err := st.SaveJob(j); err != nil {
				t.Fatal(err)
			}
		}
		var n int
		st.db.QueryRow(`SELECT count(*) FROM jobs`).Scan(&n)
		if n != MaxJobs {
			t.Errorf("%d job records kept, want %d", n, MaxJobs)
		}
	})
}
