package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/stdlib"

	"interplab/cmd/lab/internal/pgtest"
	"interplab/engine"
)

// A database an older lab made, before goose (steps in PRAGMA
// user_version, no goose table), is adopted as having run its steps: they
// run never again, the later ones once, and its data is kept (step 7's Go
// rewrite included).
func TestAdoptUserVersion(t *testing.T) {
	dir := t.TempDir()
	raw, err := sql.Open("sqlite", filepath.Join(dir, dbFile))
	if err != nil {
		t.Fatal(err)
	}
	// Steps 1 to 6 as the hand-rolled migrator ran them: their SQL, then
	// the version in user_version.
	for v := 1; v <= 6; v++ {
		matches, _ := fsGlob(fmt.Sprintf("migrations/sqlite/%05d_*.sql", v))
		if len(matches) != 1 {
			t.Fatalf("step %d: %d files", v, len(matches))
		}
		body, _ := migrationFiles.ReadFile(matches[0])
		if _, err := raw.Exec(strings.Replace(string(body), "-- +goose Up", "", 1)); err != nil {
			t.Fatalf("step %d: %v", v, err)
		}
	}
	settings := engine.Defaults()
	settings.ScenarioText = "set latency=0.04"
	b, _ := settingsJSON(settings)
	if _, err := raw.Exec(`INSERT INTO sessions VALUES ('aaaaaaaaaaaa', 1, 1, NULL, 1, 'old', 'old');
		INSERT INTO revisions VALUES ('aaaaaaaaaaaa', 1, 'old', '', ?, 1);
		PRAGMA user_version = 6`, b); err != nil {
		t.Fatal(err)
	}
	raw.Close()

	st := openTestStore(t, dir, storeT0)
	if v, err := st.schemaVersion(); err != nil || v != latestVersion() {
		t.Errorf("schemaVersion() = %d, %v, want %d", v, err, latestVersion())
	}
	r, err := st.Latest("aaaaaaaaaaaa")
	if err != nil {
		t.Fatal(err)
	}
	if want := "set latency=0.04s"; r.Settings.ScenarioText != want {
		t.Errorf("scenario text after adoption = %q, want %q (step 7 ran once)", r.Settings.ScenarioText, want)
	}
	var applied []int64
	rows, err := st.db.Query(`SELECT version_id FROM goose_db_version ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var v int64
		rows.Scan(&v)
		applied = append(applied, v)
	}
	rows.Close()
	var steps []int64
	for v := range latestVersion() + 1 {
		steps = append(steps, v)
	}
	if fmt.Sprint(applied) != fmt.Sprint(steps) {
		t.Errorf("goose's versions = %v, want %v: each step once", applied, steps)
	}
	var uv int64
	st.db.QueryRow("PRAGMA user_version").Scan(&uv)
	if uv != latestVersion() {
		t.Errorf("user_version = %d, want %d (an older lab reads it)", uv, latestVersion())
	}
}

func fsGlob(pattern string) ([]string, error) {
	entries, err := migrationFiles.ReadDir(filepath.Dir(pattern))
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		p := filepath.Dir(pattern) + "/" + e.Name()
		if ok, _ := filepath.Match(pattern, p); ok {
			out = append(out, p)
		}
	}
	return out, nil
}

func settingsJSON(s engine.Settings) (string, error) {
	b, err := json.Marshal(s)
	return string(b), err
}

// Labs starting at once on a new PostgreSQL database migrate it once,
// one after the other (goose's advisory lock): each gets the schema, and
// each step is recorded once. Without the lock two of them create goose's
// table, or run a step, at once, and one fails.
func TestPostgresConcurrentMigrations(t *testing.T) {
	for round := range 3 {
		url := pgtest.New(t)
		const labs = 4
		var dbs []*DB
		for range labs {
			pool, err := newPool(context.Background(), url, DefaultConns)
			if err != nil {
				t.Fatal(err)
			}
			st := &DB{db: sqlDB{DB: stdlib.OpenDBFromPool(pool), pg: true}, pool: pool}
			t.Cleanup(func() { st.Close() })
			dbs = append(dbs, st)
		}
		start := make(chan struct{})
		errs := make(chan error, labs)
		for _, st := range dbs {
			go func() {
				<-start
				_, err := st.migrate()
				errs <- err
			}()
		}
		close(start) // all at once
		for range labs {
			if err := <-errs; err != nil {
				t.Errorf("round %d: a lab migrating with %d others: %v", round, labs-1, err)
			}
		}
		var n, distinct int
		if err := dbs[0].db.QueryRow(`SELECT count(*), count(DISTINCT version_id) FROM goose_db_version`).Scan(&n, &distinct); err != nil {
			t.Fatal(err)
		}
		if n != distinct || int64(distinct) != latestVersion()+1 {
			t.Errorf("round %d: goose's table has %d rows of %d versions, want each of the %d steps (and 0) once", round, n, distinct, latestVersion())
		}
	}
}
