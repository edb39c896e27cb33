package server

import (
	"database/sql"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
)

// damageRevisionFile overwrites a revision's stored settings in the
// database file with bytes that are not settings.
func damageRevisionFile(t *testing.T, dir, id string, rev int) {
	t.Helper()
	db, err := sql.Open("sqlite", filepath.Join(dir, "lab.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`UPDATE revisions SET settings = '{"loss": 0.0' || char(1, 0, 255) WHERE session_id = ? AND rev = ?`, id, rev); err != nil {
		t.Fatal(err)
	}
}

// A damaged revision costs only itself: the session (API and page) opens
// at its latest readable revision with a notice, its history page lists
// every revision with the damaged ones marked, the sessions page flags it,
// and a save goes on from the latest readable revision.
func TestDamagedRevisions(t *testing.T) {
	dir := t.TempDir()
	e := newSessionsEnv(t, dir)
	id := e.create(t, "harbor", nil).ID
	for rev, loss := range []float64{0.01, 0.02, 0.03} { // revisions 2 to 4
		e.must(t, http.StatusOK, "PUT", "/api/sessions/"+id, map[string]any{"rev": rev + 1, "settings": map[string]any{"loss": loss}}, nil)
	}
	check := func(when string, rev, latest int, notice string) {
		t.Helper()
		var s sessionJSON
		e.must(t, http.StatusOK, "GET", "/api/sessions/"+id, nil, &s)
		var marked []int
		for _, r := range s.Revisions {
			if r.Damaged != "" {
				marked = append(marked, r.Rev)
			}
		}
		if s.Rev != rev || s.Latest != latest || !strings.Contains(s.Notice, notice) || len(s.Revisions) != latest || len(marked) == 0 {
			t.Errorf("%s: GET /api/sessions/ID = rev %d of %d, notice %q, damaged %v; want rev %d of %d, a notice with %q",
				when, s.Rev, s.Latest, s.Notice, marked, rev, latest, notice)
		}
		for _, page := range []string{"/s/" + id, "/s/" + id + "/history", "/sessions"} {
			resp, body := get(t, e.srv.URL+page)
			if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "cannot be read") {
				t.Errorf("%s: GET %s = %d, want 200 saying what cannot be read", when, page, resp.StatusCode)
			}
			if page == "/s/"+id+"/history" && strings.Count(string(body), `data-damaged="true"`) != len(marked) {
				t.Errorf("%s: the history marks %d revisions damaged, want %d", when, strings.Count(string(body), `data-damaged="true"`), len(marked))
			}
		}
	}
	damageRevisionFile(t, dir, id, 2)
	check("revision 2 damaged", 4, 4, "revision 2 of this session cannot be read")

	damageRevisionFile(t, dir, id, 4)
	check("revisions 2 and 4 damaged", 3, 4, "this is revision 3, the latest that can")

	// The page saves the revision it shows: the save goes on from it.
	var saved sessionRevisionJSON
	e.must(t, http.StatusOK, "PUT", "/api/sessions/"+id, map[string]any{"rev": 3, "notes": "after the damage"}, &saved)
	if saved.Rev != 5 || saved.Settings.Loss != 0.02 {
		t.Errorf("save over revision 3 = rev %d, loss %v; want rev 5 with revision 3's loss 0.02", saved.Rev, saved.Settings.Loss)
	}
	// Its live sync opens, at the latest readable revision.
	if _, hello := e.dial(t, id); hello.Rev != 5 {
		t.Errorf("live sync opened at rev %d, want 5", hello.Rev)
	}
}
