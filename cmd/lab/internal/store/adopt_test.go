package store

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

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
	if fmt.Sprint(applied) != "[0 1 2 3 4 5 6 7 8 9]" {
		t.Errorf("goose's versions = %v, want [0 1 2 3 4 5 6 7 8 9]: each step once", applied)
	}
	var uv int
	st.db.QueryRow("PRAGMA user_version").Scan(&uv)
	if uv != 9 {
		t.Errorf("user_version = %d, want 9 (an older lab reads it)", uv)
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
