package server

import (
	"database/sql"
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"interplab/cmd/lab/internal/store"
	"interplab/engine"
	"interplab/presets"
)

// A save that meets a full disk is a 507 saying so, and nothing saved
// before is lost.
func TestFullDiskIs507(t *testing.T) {
	list, _ := presets.All()
	st, err := store.OpenWith(t.TempDir(), storeT0, store.OpenOptions{MaxBytes: 256 << 10})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s, err := New(Deps{Presets: list, Assets: testAssets(t, false), Store: st})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	srv := serve(t, s)
	notes := strings.Repeat("n", 9000)
	var ids []string
	status := 0
	var body string
	for i := 0; i < 1000; i++ {
		resp, err := http.Post(srv.URL+"/api/sessions", "application/json",
			jsonBody(t, map[string]any{"name": "s", "notes": notes}))
		if err != nil {
			t.Fatal(err)
		}
		var r sessionRevisionJSON
		var e errorBody
		if resp.StatusCode == http.StatusCreated {
			decodeJSON(t, resp, &r)
			ids = append(ids, r.ID)
			continue
		}
		status = resp.StatusCode
		decodeJSON(t, resp, &e)
		body = e.Error
		break
	}
	if status != http.StatusInsufficientStorage || !strings.Contains(body, "full") {
		t.Fatalf("after %d saves: %d %q, want 507 saying the disk is full", len(ids), status, body)
	}
	for _, id := range ids {
		if _, err := st.Latest(id); err != nil {
			t.Fatalf("acknowledged session %s lost: %v", id, err)
		}
	}
}

// A session whose latest revision cannot be read is listed as damaged; the
// list is never a 500 for it, and its own page says what is wrong.
func TestDamagedSessionListed(t *testing.T) {
	dir := t.TempDir()
	s, st := testServer(t, testAssets(t, false), dir, nil)
	srv := serve(t, s)
	good, _ := st.Create(store.Draft{Name: "good", Settings: engine.Defaults()}, storeT0)
	bad, _ := st.Create(store.Draft{Name: "bad", Settings: engine.Defaults()}, storeT0)
	db, err := sql.Open("sqlite", filepath.Join(dir, "lab.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`UPDATE revisions SET settings = '{"latency": tru' WHERE session_id = ?`, bad.ID); err != nil {
		t.Fatal(err)
	}
	resp, page := get(t, srv.URL+"/sessions")
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(page), "damaged") || !strings.Contains(string(page), good.ID) {
		t.Errorf("GET /sessions with a damaged session = %d (damaged shown: %v), want 200 listing it as damaged and the rest",
			resp.StatusCode, strings.Contains(string(page), "damaged"))
	}
	resp, page = get(t, srv.URL+"/s/"+bad.ID)
	if resp.StatusCode != http.StatusInternalServerError || !strings.Contains(string(page), "cannot be read") {
		t.Errorf("GET /s/%s = %d, want 500 saying the revision cannot be read", bad.ID, resp.StatusCode)
	}
}

// A sweep's page outlives the server: its result is kept in the database,
// and a job that was running when the server stopped shows as interrupted.
func TestJobsSurviveRestart(t *testing.T) {
	dir := t.TempDir()
	s, _ := testServer(t, testAssets(t, false), dir, nil)
	srv := serve(t, s)
	short := `{"technique":"buffer","base":"q:entities=2&duration=2","x":{"name":"delay","min":0.05,"max":0.15,"steps":3}}`
	done := jobsStart(t, srv, "/api/sweeps", short)
	jobsFollow(t, jobsDial(t, srv, done))
	running := jobsStart(t, srv, "/api/sweeps", jobsLong)
	_, before := get(t, srv.URL+done.Page)
	srv.Close()
	s.Close() // the running job is cancelled with the server; its record says running

	// Mark it running again as a crash would have left it.
	db, err := sql.Open("sqlite", filepath.Join(dir, "lab.db"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`UPDATE jobs SET state = 'running', result = NULL WHERE id = ?`, running.ID); err != nil {
		t.Fatal(err)
	}
	db.Close()

	s2, _ := testServer(t, testAssets(t, false), dir, nil)
	srv2 := serve(t, s2)
	resp, after := get(t, srv2.URL+done.Page)
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(after), "sweep-chart") {
		t.Fatalf("after a restart GET %s = %d, want its page with the chart", done.Page, resp.StatusCode)
	}
	nonce := func(page []byte) string {
		p := string(page)
		if i := strings.Index(p, `nonce="`); i >= 0 {
			j := strings.Index(p[i+7:], `"`)
			return strings.ReplaceAll(p, p[i+7:i+7+j], "N")
		}
		return p
	}
	if nonce(before) != nonce(after) {
		t.Error("the finished sweep's page differs after the restart")
	}
	resp, csv := get(t, srv2.URL+done.Page+"/data.csv")
	if resp.StatusCode != http.StatusOK || strings.Count(string(csv), "\n") != 4 {
		t.Errorf("after a restart its CSV = %d with %d lines, want 200 with a header and 3 points", resp.StatusCode, strings.Count(string(csv), "\n"))
	}
	st := jobsStatus(t, srv2, running.ID)
	if st.State != "interrupted" {
		t.Errorf("a job running when the server stopped is %q after the restart, want interrupted", st.State)
	}
}

func decodeJSON(t *testing.T, resp *http.Response, v any) {
	t.Helper()
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatal(err)
	}
}
