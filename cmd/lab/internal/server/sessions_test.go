package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"interplab/cmd/lab/internal/jsonapi"
	"interplab/cmd/lab/internal/store"
	"interplab/engine"
)

// storeT0 is the clock of the tests' stores at their start.
var storeT0 = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

// sessionsEnv is the lab's server on a real database file, with a clock
// that advances a second a call.
type sessionsEnv struct {
	server *Server
	srv    *httptest.Server
	st     *store.SQLite

	mu   sync.Mutex
	now  time.Time     // the server's clock, advanced by step per call
	step time.Duration // a second unless told
}

func newSessionsEnv(t testing.TB, dir string) *sessionsEnv {
	t.Helper()
	return newSessionsEnvStep(t, dir, time.Second)
}

// newSessionsEnvStep is newSessionsEnv with a clock that advances step a
// call.
func newSessionsEnvStep(t testing.TB, dir string, step time.Duration) *sessionsEnv {
	t.Helper()
	e := &sessionsEnv{now: storeT0, step: step}
	e.server, e.st = testServer(t, testAssets(t, false), dir, e.clock)
	e.srv = serve(t, e.server)
	t.Cleanup(e.close)
	return e
}

func (e *sessionsEnv) clock() time.Time {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.now = e.now.Add(e.step)
	return e.now
}

// close stops the server as a restart would; it may run twice.
func (e *sessionsEnv) close() {
	e.server.Close()
	e.srv.Close()
	e.st.Close()
}

// do sends a request with a JSON body (nil for none) and returns the status
// and the body.
func (e *sessionsEnv) do(t testing.TB, method, path string, body any) (int, []byte) {
	t.Helper()
	var r io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		r = strings.NewReader(b)
	case []byte:
		r = bytes.NewReader(b)
	default:
		data, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		r = bytes.NewReader(data)
	}
	req, err := http.NewRequest(method, e.srv.URL+path, r)
	if err != nil {
		t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: read body: %v", method, path, err)
	}
	return resp.StatusCode, data
}

// must sends a request that must answer want, and decodes the answer into out.
func (e *sessionsEnv) must(t testing.TB, want int, method, path string, body, out any) {
	t.Helper()
	status, data := e.do(t, method, path, body)
	if status != want {
		t.Fatalf("%s %s = %d %s, want %d", method, path, status, data, want)
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			t.Fatalf("%s %s: decode %s: %v", method, path, data, err)
		}
	}
}

func (e *sessionsEnv) create(t testing.TB, name string, settings map[string]any) sessionRevisionJSON {
	t.Helper()
	var r sessionRevisionJSON
	e.must(t, http.StatusCreated, "POST", "/api/sessions", map[string]any{"name": name, "settings": settings}, &r)
	return r
}

func TestSessionsAPI(t *testing.T) {
	e := newSessionsEnv(t, t.TempDir())

	status, data := e.do(t, "POST", "/api/sessions",
		`{"name":"Harbor","notes":"first try","settings":{"latency":0.08,"jitterDist":"pareto","techniques":["buffer","epic"]}}`)
	if status != http.StatusCreated {
		t.Fatalf("create = %d %s, want 201", status, data)
	}
	var r1 sessionRevisionJSON
	json.Unmarshal(data, &r1)
	want := engine.Defaults()
	want.Latency, want.JitterDist, want.Techniques = 0.08, "pareto", []string{"epic", "buffer"}
	if r1.Rev != 1 || r1.Name != "Harbor" || r1.Notes != "first try" || fmt.Sprint(r1.Settings) != fmt.Sprint(want) {
		t.Errorf("create = %+v, want rev 1 Harbor with defaults + latency, jitterDist, techniques", r1)
	}
	path := "/api/sessions/" + r1.ID

	// A save changes what it names and keeps the rest.
	var r2 sessionRevisionJSON
	e.must(t, http.StatusOK, "PUT", path, map[string]any{"rev": 1, "settings": map[string]any{"displayBehind": 0.12, "adaptive": true}}, &r2)
	want.DisplayBehind, want.Adaptive = 0.12, true
	if r2.Rev != 2 || r2.Name != "Harbor" || r2.Notes != "first try" || fmt.Sprint(r2.Settings) != fmt.Sprint(want) {
		t.Errorf("save = %+v, want rev 2 with displayBehind and adaptive changed", r2)
	}
	var r3 sessionRevisionJSON
	e.must(t, http.StatusOK, "PUT", path, map[string]any{"rev": 2, "name": "Harbor (tuned)"}, &r3)
	if r3.Rev != 3 || r3.Name != "Harbor (tuned)" || fmt.Sprint(r3.Settings) != fmt.Sprint(want) {
		t.Errorf("rename = %+v, want rev 3 with the same settings", r3)
	}

	var s sessionJSON
	e.must(t, http.StatusOK, "GET", path, nil, &s)
	if s.Rev != 3 || s.Name != "Harbor (tuned)" || len(s.Revisions) != 3 || s.Deleted != nil {
		t.Fatalf("get = rev %d %q, %d revisions, deleted %v; want rev 3, 3 revisions, not deleted", s.Rev, s.Name, len(s.Revisions), s.Deleted)
	}
	wantChanged := [][]string{{}, {"displayBehind", "adaptive"}, {}}
	for i, h := range s.Revisions {
		if h.Rev != i+1 || !slices.Equal(h.Changed, wantChanged[i]) {
			t.Errorf("revisions[%d] = rev %d changed %q, want rev %d changed %q", i, h.Rev, h.Changed, i+1, wantChanged[i])
		}
	}
	var old sessionRevisionJSON
	e.must(t, http.StatusOK, "GET", path+"/revisions/1", nil, &old)
	if old.Rev != 1 || old.Settings.Adaptive || old.Name != "Harbor" {
		t.Errorf("revision 1 = %+v, want the first save", old)
	}

	other := e.create(t, "LAN party", nil)
	var list struct{ Sessions []sessionSummaryJSON }
	e.must(t, http.StatusOK, "GET", "/api/sessions?q=harb", nil, &list)
	if len(list.Sessions) != 1 || list.Sessions[0].ID != r1.ID || list.Sessions[0].Rev != 3 {
		t.Errorf("list ?q=harb = %+v, want only the harbor session at rev 3", list.Sessions)
	}
	e.must(t, http.StatusOK, "GET", "/api/sessions", nil, &list)
	if len(list.Sessions) != 2 || list.Sessions[0].ID != other.ID {
		t.Errorf("list = %+v, want both, newest first", list.Sessions)
	}

	// Delete, then restore.
	e.must(t, http.StatusOK, "DELETE", path, nil, nil)
	if status, data := e.do(t, "GET", path, nil); status != http.StatusGone {
		t.Errorf("get deleted = %d %s, want 410", status, data)
	}
	if status, data := e.do(t, "PUT", path, map[string]any{"rev": 3, "name": "x"}); status != http.StatusGone {
		t.Errorf("save deleted = %d %s, want 410", status, data)
	}
	e.must(t, http.StatusOK, "GET", "/api/sessions", nil, &list)
	if len(list.Sessions) != 1 {
		t.Errorf("list after delete has %d sessions, want 1", len(list.Sessions))
	}
	e.must(t, http.StatusOK, "GET", "/api/sessions?deleted=1", nil, &list)
	if len(list.Sessions) != 2 || list.Sessions[1].Deleted == nil {
		t.Errorf("list ?deleted=1 = %+v, want both, the harbor one deleted", list.Sessions)
	}
	e.must(t, http.StatusOK, "POST", path+"/restore", nil, &s)
	if s.Deleted != nil || s.Rev != 3 {
		t.Errorf("restore = deleted %v rev %d, want live at rev 3", s.Deleted, s.Rev)
	}
}

// Save, restart the server on the same directory: every revision is there.
func TestSessionsSurviveRestart(t *testing.T) {
	dir := t.TempDir()
	e := newSessionsEnv(t, dir)
	type saved struct {
		id    string
		rev   int
		delay float64
	}
	var all []saved
	for i := range 3 {
		r := e.create(t, fmt.Sprintf("session %d", i), nil)
		all = append(all, saved{r.ID, 1, r.Settings.Delay})
		for rev := 2; rev <= 4; rev++ {
			var got sessionRevisionJSON
			delay := float64(i*10+rev) / 1000
			e.must(t, http.StatusOK, "PUT", "/api/sessions/"+r.ID, map[string]any{"rev": rev - 1, "settings": map[string]any{"delay": delay}}, &got)
			all = append(all, saved{r.ID, got.Rev, delay})
		}
	}
	e.close()

	e = newSessionsEnv(t, dir)
	for _, s := range all {
		var got sessionRevisionJSON
		e.must(t, http.StatusOK, "GET", fmt.Sprintf("/api/sessions/%s/revisions/%d", s.id, s.rev), nil, &got)
		if got.Settings.Delay != s.delay {
			t.Errorf("after restart, %s rev %d has delay %v, want %v", s.id, s.rev, got.Settings.Delay, s.delay)
		}
	}
}

// Fifty clients save at once over HTTP: creates, and revisions of one
// session, each saved over the latest revision it knows and saved again
// over the newer one when another came first (409): every save lands, none
// overwrites another.
func TestSessionsConcurrentSaves(t *testing.T) {
	e := newSessionsEnv(t, t.TempDir())
	shared := e.create(t, "shared", nil)
	const n = 50
	var wg sync.WaitGroup
	statuses := make(chan string, n)
	for i := range n {
		wg.Go(func() {
			var status int
			var data []byte
			if i%2 == 0 {
				status, data = e.do(t, "POST", "/api/sessions", map[string]any{"name": fmt.Sprint("new ", i)})
				if status != http.StatusCreated {
					statuses <- fmt.Sprintf("create %d = %d %s", i, status, data)
				}
				return
			}
			// 1000+i: never the default seed, so no save repeats the
			// settings it is based on (an unchanged save adds no revision).
			base := shared.Rev
			for try := 0; ; try++ {
				status, data = e.do(t, "PUT", "/api/sessions/"+shared.ID, map[string]any{"rev": base, "settings": map[string]any{"seed": 1000 + i}})
				if status == http.StatusOK {
					return
				}
				var conflict struct{ Current sessionRevisionJSON }
				if status != http.StatusConflict || json.Unmarshal(data, &conflict) != nil || try == n {
					statuses <- fmt.Sprintf("save %d = %d %s", i, status, data)
					return
				}
				base = conflict.Current.Rev
			}
		})
	}
	wg.Wait()
	close(statuses)
	for s := range statuses {
		t.Error(s)
	}
	var s sessionJSON
	e.must(t, http.StatusOK, "GET", "/api/sessions/"+shared.ID, nil, &s)
	if s.Rev != 1+n/2 || len(s.Revisions) != 1+n/2 {
		t.Errorf("shared session at rev %d with %d revisions, want %d", s.Rev, len(s.Revisions), 1+n/2)
	}
	var list struct{ Sessions []sessionSummaryJSON }
	e.must(t, http.StatusOK, "GET", "/api/sessions", nil, &list)
	if len(list.Sessions) != 1+n/2 {
		t.Errorf("%d sessions, want %d", len(list.Sessions), 1+n/2)
	}
}

// Hostile input gets a 4xx with a JSON message naming the field, never a 5xx.
func TestSessionsHostileInput(t *testing.T) {
	e := newSessionsEnv(t, t.TempDir())
	ok := e.create(t, "ok", nil)
	path := "/api/sessions/" + ok.ID
	port := e.srv.URL[strings.LastIndex(e.srv.URL, ":")+1:]
	tests := []struct {
		name        string
		method      string
		path        string
		contentType string // "" means application/json when there is a body
		origin      string
		host        string // the Host header, PORT for the server's port; "" for the server's own
		body        string
		status      int
		field       string // "-" when the answer need not be JSON (the mux's own 404)
		chunked     bool   // the body is sent without a length
	}{
		{name: "bad JSON", method: "POST", path: "/api/sessions", body: `{"name":`, status: 400},
		{name: "not an object", method: "POST", path: "/api/sessions", body: `[1,2]`, status: 400},
		{name: "empty body", method: "POST", path: "/api/sessions", body: ` `, status: 400},
		{name: "trailing data", method: "POST", path: "/api/sessions", body: `{"name":"a"} {}`, status: 400},
		{name: "unknown key", method: "POST", path: "/api/sessions", body: `{"name":"a","nmae":"b"}`, status: 400, field: "nmae"},
		{name: "unknown setting", method: "POST", path: "/api/sessions", body: `{"name":"a","settings":{"latncy":0.1}}`, status: 400, field: "latncy"},
		{name: "bare NaN", method: "POST", path: "/api/sessions", body: `{"name":"a","settings":{"latency":NaN}}`, status: 400},
		{name: "NaN string", method: "POST", path: "/api/sessions", body: `{"name":"a","settings":{"latency":"NaN"}}`, status: 400, field: "latency"},
		{name: "infinite number", method: "POST", path: "/api/sessions", body: `{"name":"a","settings":{"latency":1e999}}`, status: 400, field: "latency"},
		{name: "out of range", method: "POST", path: "/api/sessions", body: `{"name":"a","settings":{"latency":5}}`, status: 400, field: "latency"},
		{name: "negative", method: "PUT", path: path, body: `{"rev":1,"settings":{"loss":-0.1}}`, status: 400, field: "loss"},
		{name: "send above tick", method: "PUT", path: path, body: `{"rev":1,"settings":{"sendRate":100,"tickRate":30}}`, status: 400, field: "sendRate"},
		{name: "fractional int", method: "POST", path: "/api/sessions", body: `{"name":"a","settings":{"seed":1.5}}`, status: 400, field: "seed"},
		{name: "unknown technique", method: "POST", path: "/api/sessions", body: `{"name":"a","settings":{"techniques":["magic"]}}`, status: 400, field: "techniques"},
		{name: "no technique", method: "POST", path: "/api/sessions", body: `{"name":"a","settings":{"techniques":[]}}`, status: 400, field: "techniques"},
		{name: "settings not an object", method: "POST", path: "/api/sessions", body: `{"name":"a","settings":"fast"}`, status: 400, field: "settings"},
		{name: "bad enum", method: "POST", path: "/api/sessions", body: `{"name":"a","settings":{"motion":"teleport"}}`, status: 400, field: "motion"},
		{name: "missing name", method: "POST", path: "/api/sessions", body: `{"settings":{}}`, status: 400, field: "name"},
		{name: "name not a string", method: "POST", path: "/api/sessions", body: `{"name":5}`, status: 400, field: "name"},
		{name: "long name", method: "POST", path: "/api/sessions", body: `{"name":"` + strings.Repeat("n", 201) + `"}`, status: 400, field: "name"},
		{name: "control in name", method: "POST", path: "/api/sessions", body: `{"name":"a\u0007b"}`, status: 400, field: "name"},
		{name: "long notes", method: "PUT", path: path, body: `{"rev":1,"notes":"` + strings.Repeat("n", 10001) + `"}`, status: 400, field: "notes"},
		{name: "10 MB body", method: "POST", path: "/api/sessions", body: `{"name":"` + strings.Repeat("x", 10<<20) + `"}`, status: 413},
		{name: "form body", method: "POST", path: "/api/sessions", contentType: "application/x-www-form-urlencoded", body: `name=a`, status: 415},
		{name: "foreign origin", method: "POST", path: "/api/sessions", origin: "http://evil.example", body: `{"name":"a"}`, status: 403},
		{name: "foreign origin delete", method: "DELETE", path: path, origin: "http://evil.example", status: 403},
		{name: "rebinding list", method: "GET", path: "/api/sessions", host: "evil.example:PORT", origin: "http://evil.example:PORT", status: 421, field: "Host"},
		{name: "rebinding read", method: "GET", path: path, host: "evil.example:PORT", status: 421, field: "Host"},
		{name: "rebinding create", method: "POST", path: "/api/sessions", host: "evil.example:PORT", origin: "http://evil.example:PORT", body: `{"name":"a"}`, status: 421, field: "Host"},
		{name: "rebinding save", method: "PUT", path: path, host: "evil.example:PORT", origin: "http://evil.example:PORT", body: `{"rev":1,"notes":"x"}`, status: 421, field: "Host"},
		{name: "rebinding delete", method: "DELETE", path: path, host: "evil.example:PORT", origin: "http://evil.example:PORT", status: 421, field: "Host"},
		{name: "rebinding live sync", method: "GET", path: "/ws" + strings.TrimPrefix(path, "/api"), host: "evil.example:PORT", status: 421, field: "Host"},
		{name: "loopback name, another port", method: "DELETE", path: path, host: "localhost:1", status: 421, field: "Host"},
		{name: "origin of the lab's name on another port", method: "DELETE", path: path, origin: "http://127.0.0.1:1", status: 403, field: "Origin"},
		{name: "empty host", method: "GET", path: "/api/sessions", host: " ", status: 421, field: "Host"},
		{name: "encoded ../ id", method: "GET", path: "/api/sessions/..%2F..%2Fetc%2Fpasswd", status: 404, field: "id"},
		{name: "raw ../ path", method: "GET", path: "/api/sessions/../../etc/passwd", status: 404, field: "-"},
		{name: "quote id", method: "PUT", path: "/api/sessions/abc'%20OR%201", body: `{"name":"a"}`, status: 404, field: "id"},
		{name: "unknown id", method: "PUT", path: "/api/sessions/zzzzzzzzzzzz", body: `{"rev":1,"name":"a"}`, status: 404, field: "id"},
		{name: "save naming no revision", method: "PUT", path: path, body: `{"notes":"blind"}`, status: 428, field: "rev"},
		{name: "save of a revision to come", method: "PUT", path: path, body: `{"rev":7,"notes":"early"}`, status: 409, field: "rev"},
		{name: "rev not a number", method: "PUT", path: path, body: `{"rev":"latest","notes":"x"}`, status: 400, field: "rev"},
		{name: "delete unknown", method: "DELETE", path: "/api/sessions/zzzzzzzzzzzz", status: 404, field: "id"},
		{name: "restore unknown", method: "POST", path: "/api/sessions/zzzzzzzzzzzz/restore", status: 404, field: "id"},
		{name: "rev zero", method: "GET", path: path + "/revisions/0", status: 400, field: "rev"},
		{name: "rev text", method: "GET", path: path + "/revisions/latest", status: 400, field: "rev"},
		{name: "rev padded", method: "GET", path: path + "/revisions/01", status: 400, field: "rev"},
		{name: "rev huge", method: "GET", path: path + "/revisions/99999999999999999999999", status: 400, field: "rev"},
		{name: "rev unknown", method: "GET", path: path + "/revisions/2", status: 404, field: "rev"},
		{name: "long query", method: "GET", path: "/api/sessions?q=" + strings.Repeat("q", 201), status: 400, field: "q"},
		{name: "bad deleted flag", method: "GET", path: "/api/sessions?deleted=maybe", status: 400, field: "deleted"},
		{name: "ws unknown session", method: "GET", path: "/ws/sessions/zzzzzzzzzzzz", status: 404, field: "id"},
		{name: "ws bad id", method: "GET", path: "/ws/sessions/%3Cscript%3E", status: 404, field: "id"},
		{name: "ws without upgrade", method: "GET", path: "/ws" + strings.TrimPrefix(path, "/api"), status: 400},
		// The second hardening round's (issue 21).
		{name: "duplicate key", method: "POST", path: "/api/sessions", body: `{"name":"a","name":"b"}`, status: 400, field: "name"},
		{name: "duplicate setting", method: "PUT", path: path, body: `{"rev":1,"settings":{"loss":0.1,"loss":0.9}}`, status: 400, field: "loss"},
		{name: "invalid UTF-8", method: "POST", path: "/api/sessions", body: "{\"name\":\"\xc0\xaf\"}", status: 400, field: "name"},
		{name: "scenario text that does not parse", method: "POST", path: "/api/sessions",
			body: `{"name":"a","settings":{"scenario":"custom","scenarioText":"outage at=1 for=soon"}}`, status: 400, field: "scenarioText"},
		{name: "endless outage", method: "PUT", path: path,
			body: `{"rev":1,"settings":{"scenario":"custom","scenarioText":"outage at=1 for=1e308"}}`, status: 400, field: "scenarioText"},
		{name: "notes over the cap", method: "PUT", path: path, body: `{"rev":1,"notes":"` + strings.Repeat("n", 70000) + `"}`, status: 400, field: "notes"},
		{name: "chunked delete over the cap", method: "DELETE", path: path, body: `{"x":"` + strings.Repeat("x", 196<<10) + `"}`, chunked: true, status: 413},
		{name: "chunked save over the cap", method: "PUT", path: path, body: `{"rev":1,"notes":"` + strings.Repeat("x", 300<<10) + `"}`, chunked: true, status: 413},
	}
	for _, tt := range tests {
		var body io.Reader
		if tt.body != "" {
			body = strings.NewReader(tt.body)
			if tt.chunked {
				body = io.MultiReader(body) // no length: sent chunked
			}
		}
		req, err := http.NewRequest(tt.method, e.srv.URL+tt.path, body)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if tt.body != "" {
			ct := tt.contentType
			if ct == "" {
				ct = "application/json"
			}
			req.Header.Set("Content-Type", ct)
		}
		if tt.origin != "" {
			req.Header.Set("Origin", strings.ReplaceAll(tt.origin, "PORT", port))
		}
		if tt.host != "" {
			req.Host = strings.ReplaceAll(tt.host, "PORT", port)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		data, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tt.status {
			t.Errorf("%s: %s %s = %d %s, want %d", tt.name, tt.method, jsonapi.Clip(tt.path, 60), resp.StatusCode, jsonapi.Clip(string(data), 200), tt.status)
			continue
		}
		t.Logf("%s: %d %s", tt.name, resp.StatusCode, jsonapi.Clip(strings.TrimSpace(string(data)), 160))
		if tt.field == "-" {
			continue
		}
		var answer struct{ Error, Field string }
		if err := json.Unmarshal(data, &answer); err != nil || answer.Error == "" {
			t.Errorf("%s: body %q, want JSON with an error message", tt.name, jsonapi.Clip(string(data), 200))
		}
		if tt.field != "" && answer.Field != tt.field {
			t.Errorf("%s: field %q (%s), want %q", tt.name, answer.Field, answer.Error, tt.field)
		}
	}
	// None of it changed anything.
	var s sessionJSON
	e.must(t, http.StatusOK, "GET", path, nil, &s)
	if s.Rev != 1 {
		t.Errorf("after hostile input the session is at rev %d, want 1", s.Rev)
	}
	var list struct{ Sessions []sessionSummaryJSON }
	e.must(t, http.StatusOK, "GET", "/api/sessions", nil, &list)
	if len(list.Sessions) != 1 {
		t.Errorf("after hostile input there are %d sessions, want 1", len(list.Sessions))
	}
}

// Markup in a name is stored as text and never sent as markup.
func TestSessionsNameIsNotMarkup(t *testing.T) {
	e := newSessionsEnv(t, t.TempDir())
	name := `<script>alert("pwn")</script> & <img src=x onerror=alert(1)>`
	r := e.create(t, name, nil)
	status, data := e.do(t, "GET", "/api/sessions/"+r.ID, nil)
	if status != http.StatusOK {
		t.Fatalf("get = %d %s", status, data)
	}
	if bytes.Contains(data, []byte("<script")) || bytes.Contains(data, []byte("<img")) {
		t.Errorf("response carries raw markup: %s", data)
	}
	var s sessionJSON
	json.Unmarshal(data, &s)
	if s.Name != name {
		t.Errorf("name came back as %q, want %q", s.Name, name)
	}
}

// Whatever the body, decoding a save never panics, and what it accepts is
// valid settings that survive a JSON round trip.
func FuzzSessionRequest(f *testing.F) {
	for _, seed := range []string{
		`{"name":"a","notes":"b","settings":{"latency":0.08,"techniques":["buffer","epic"]}}`,
		`{"name":"a","settings":{"latency":1e999}}`,
		`{"name":"a","settings":{"seed":1.5,"motion":"turn"}}`,
		`{"settings":{"sendRate":100,"tickRate":30}}`,
		`{"name":"\u0000","settings":null}`,
		`[`, `null`, `{"name":"a"} x`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var req sessionRequest
		if err := jsonapi.Unmarshal(body, &req, ""); err != nil {
			return
		}
		d := store.Draft{Settings: engine.Defaults()}
		if req.Name != nil {
			d.Name = *req.Name
		}
		if req.Notes != nil {
			d.Notes = *req.Notes
		}
		if err := decodeSessionSettings(req.Settings, &d.Settings); err != nil {
			return
		}
		if err := d.Check(); err != nil {
			return
		}
		if err := d.Settings.Validate(); err != nil {
			t.Fatalf("accepted settings are invalid: %v", err)
		}
		data, err := json.Marshal(d.Settings)
		if err != nil {
			t.Fatalf("accepted settings do not encode: %v", err)
		}
		back := engine.Defaults()
		if err := json.Unmarshal(data, &back); err != nil || fmt.Sprint(back) != fmt.Sprint(d.Settings) {
			t.Fatalf("round trip of %s = %+v, %v", data, back, err)
		}
	})
}
