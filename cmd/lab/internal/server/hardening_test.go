package server

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"interplab/cmd/lab/internal/store"
	"interplab/presets"

	"github.com/gorilla/websocket"
)

// The hardening issue's route rules, through a real server: every
// state-changing route checks Origin and the body's type and size, and
// every answer of the API is the one JSON error shape.

// hardenedServer is the whole lab server with a store.
func hardenedServer(t *testing.T) string {
	t.Helper()
	_, url := compareTraceServer(t)
	return url
}

// hardenedDo sends method path with the body's type and an Origin ("" for
// none) and returns the status and the decoded JSON error.
func hardenedDo(t *testing.T, method, url, contentType, origin, body string) (int, struct{ Error, Field string }) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	var e struct{ Error, Field string }
	if resp.StatusCode >= 400 {
		if err := json.Unmarshal(data, &e); err != nil || e.Error == "" {
			t.Errorf("%s %s = %d %q, want a JSON error", method, url, resp.StatusCode, data)
		}
	}
	return resp.StatusCode, e
}

// hardenedJob starts a long sweep the right way and returns its id.
func hardenedJob(t *testing.T, base string) string {
	t.Helper()
	resp, err := http.Post(base+"/api/sweeps", "application/json", strings.NewReader(jobsLong))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var acc struct{ ID string }
	if err := json.NewDecoder(resp.Body).Decode(&acc); err != nil || resp.StatusCode != http.StatusAccepted {
		t.Fatalf("start a sweep = %d, %v", resp.StatusCode, err)
	}
	return acc.ID
}

const evilOrigin = "http://evil.example"

// A page on another site can post text/plain without a preflight: no
// state-changing route may act on it.
func TestCrossSitePostsRefused(t *testing.T) {
	base := hardenedServer(t)
	id := hardenedJob(t, base)
	for _, path := range []string{"/api/sweeps", "/api/tunes", "/api/jobs/" + id + "/cancel", "/api/jobs/nope/cancel", "/api/sessions"} {
		status, _ := hardenedDo(t, "POST", base+path, "text/plain", evilOrigin, jobsLong)
		if status != http.StatusForbidden {
			t.Errorf("cross-site text/plain POST %s = %d, want 403", path, status)
		}
	}
	var st struct{ State string }
	resp, err := http.Get(base + "/api/jobs/" + id)
	if err != nil {
		t.Fatal(err)
	}
	json.NewDecoder(resp.Body).Decode(&st)
	resp.Body.Close()
	if st.State != "running" {
		t.Errorf("after a cross-site cancel the job is %q, want running", st.State)
	}
}

// The lab's own pages send JSON; any other declared type is a 415.
func TestStateChangingRoutesRequireJSON(t *testing.T) {
	base := hardenedServer(t)
	for _, path := range []string{"/api/sweeps", "/api/tunes", "/api/sessions", "/api/jobs/nope/cancel"} {
		status, _ := hardenedDo(t, "POST", base+path, "text/plain", base, `{}`)
		if status != http.StatusUnsupportedMediaType {
			t.Errorf("same-origin text/plain POST %s = %d, want 415", path, status)
		}
	}
}

func TestJobBodyOverCapIs413(t *testing.T) {
	base := hardenedServer(t)
	big := `{"technique":"buffer","base":"` + strings.Repeat("x", 64<<10) + `"}`
	for _, path := range []string{"/api/sweeps", "/api/tunes"} {
		if status, _ := hardenedDo(t, "POST", base+path, "application/json", "", big); status != http.StatusRequestEntityTooLarge {
			t.Errorf("POST %s with a %d-byte body = %d, want 413", path, len(big), status)
		}
	}
}

// encoding/json matches keys case-insensitively; the API does not.
func TestJSONKeysAreCaseSensitive(t *testing.T) {
	base := hardenedServer(t)
	tests := []struct{ path, body, field string }{
		{"/api/sessions", `{"Name":"harbor"}`, "Name"},
		{"/api/sessions", `{"name":"harbor","settings":{"Latency":0.1}}`, "Latency"},
		{"/api/sweeps", `{"Technique":"buffer","x":{"name":"delay","min":0,"max":0.2,"steps":3}}`, "Technique"},
		{"/api/tunes", `{"technique":"buffer","Budget":10}`, "Budget"},
	}
	for _, tt := range tests {
		status, e := hardenedDo(t, "POST", base+tt.path, "application/json", "", tt.body)
		if status != http.StatusBadRequest || e.Field != tt.field || !strings.Contains(e.Error, tt.field) {
			t.Errorf("POST %s %s = %d %+v, want 400 naming %q", tt.path, tt.body, status, e, tt.field)
		}
	}
}

// The origin is checked before anything about the job is told.
func TestJobsWebSocketForeignOriginBeforeLookup(t *testing.T) {
	base := hardenedServer(t)
	ws := "ws" + strings.TrimPrefix(base, "http")
	for _, id := range []string{"nope", hardenedJob(t, base)} {
		_, resp, err := websocket.DefaultDialer.Dial(ws+"/ws/jobs/"+id, http.Header{"Origin": {evilOrigin}})
		if err == nil || resp == nil || resp.StatusCode != http.StatusForbidden {
			status := 0
			if resp != nil {
				status = resp.StatusCode
			}
			t.Errorf("dial /ws/jobs/%s from %s = %d, %v; want 403", id, evilOrigin, status, err)
		}
	}
}

func TestStaticDistUnknownIs404(t *testing.T) {
	for _, built := range []bool{true, false} {
		_, ts := newTestServer(t, built)
		resp, _ := get(t, ts.URL+"/static/dist/x")
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("GET /static/dist/x (wasm built %v) = %s, want 404", built, resp.Status)
		}
	}
}

// panickyStore is a store whose session list has a bug.
type panickyStore struct{ store.Store }

func (panickyStore) List(string, bool) ([]store.Summary, error) { panic("a bug in the store") }

// A fault in a handler is a 500 in the API's words, and the server serves on.
func TestHandlerPanicIs500(t *testing.T) {
	_, st := testServer(t, testAssets(t, false), t.TempDir(), nil)
	list, _ := presets.All()
	s, err := New(Deps{Presets: list, Assets: testAssets(t, false), Store: panickyStore{st}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	ts := serve(t, s)
	status, e := hardenedDo(t, "GET", ts.URL+"/api/sessions", "", "", "")
	if status != http.StatusInternalServerError || e.Error != "internal error" {
		t.Errorf("GET /api/sessions with a panicking store = %d %+v, want 500 with the JSON error", status, e)
	}
	client := &http.Client{Timeout: 5 * time.Second}
	resp, err := client.Get(ts.URL + "/api/params")
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /api/params after the panic = %v, %v", resp, err)
	}
	resp.Body.Close()
}

// An origin of Deps.AllowOrigins may change state and open the live sync,
// as the lab's own pages may; any other foreign origin may not.
func TestAllowOrigins(t *testing.T) {
	_, st := testServer(t, testAssets(t, false), t.TempDir(), nil)
	list, _ := presets.All()
	s, err := New(Deps{Presets: list, Assets: testAssets(t, false), Store: st, AllowOrigins: []string{"https://tools.example.com"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	ts := serve(t, s)
	resp, err := http.Post(ts.URL+"/api/sessions", "application/json", strings.NewReader(`{"name":"shared"}`))
	if err != nil {
		t.Fatal(err)
	}
	var r struct{ ID string }
	json.NewDecoder(resp.Body).Decode(&r)
	resp.Body.Close()
	for origin, want := range map[string]int{"https://tools.example.com": 201, evilOrigin: 403} {
		if status, _ := hardenedDo(t, "POST", ts.URL+"/api/sessions", "application/json", origin, `{"name":"x"}`); status != want {
			t.Errorf("POST /api/sessions from %s = %d, want %d", origin, status, want)
		}
		ws := "ws" + strings.TrimPrefix(ts.URL, "http") + "/ws/sessions/" + r.ID
		c, resp, err := websocket.DefaultDialer.Dial(ws, http.Header{"Origin": {origin}})
		if want == 201 && err != nil || want == 403 && (err == nil || resp.StatusCode != 403) {
			t.Errorf("live sync from %s: %v, want it open only to the allowed origin", origin, err)
		}
		if c != nil {
			c.Close()
		}
	}
}
