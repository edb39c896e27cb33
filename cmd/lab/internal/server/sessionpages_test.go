package server

import (
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"interplab/cmd/lab/internal/store"
	"interplab/engine"
)

// newPagesServer serves the lab with sessions on a real database file; the
// store's clock starts at storeT0 and moves a second per save.
func newPagesServer(t *testing.T) (*httptest.Server, *store.SQLite, *sessionsEnv) {
	t.Helper()
	e := &sessionsEnv{now: storeT0, step: time.Second}
	e.server, e.st = testServer(t, testAssets(t, true), t.TempDir(), e.clock)
	e.srv = serve(t, e.server)
	return e.srv, e.st, e
}

// pageSettings returns the settings a session's lab page starts from: the
// value attributes of its controls.
func pageSettings(t *testing.T, page string) engine.Settings {
	t.Helper()
	s := engine.Defaults()
	for _, p := range engine.Params() {
		if p.Kind != engine.Float && p.Kind != engine.Int {
			continue
		}
		m := regexp.MustCompile(`name="` + p.Name + `" min="[^"]*" max="[^"]*" step="[^"]*" value="([^"]*)"`).FindStringSubmatch(page)
		if m == nil {
			t.Fatalf("the page has no control for %s", p.Name)
		}
		// A slider's value is in the stored unit (its box shows the display unit).
		v, err := strconv.ParseFloat(m[1], 64)
		if err != nil {
			t.Fatalf("%s: value %q: %v", p.Name, m[1], err)
		}
		if err := p.Set(&s, v); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

func TestSessionPagesStatus(t *testing.T) {
	ts, st, e := newPagesServer(t)
	first := engine.Defaults()
	first.Latency = 0.1
	r1, err := st.Create(store.Draft{Name: "wifi tuning", Settings: first}, e.clock())
	if err != nil {
		t.Fatal(err)
	}
	second := first
	second.Latency = 0.12
	if _, err := st.Save(r1.ID, store.Draft{Name: "wifi tuning", Settings: second}, e.clock()); err != nil {
		t.Fatal(err)
	}
	gone, err := st.Create(store.Draft{Name: "gone", Settings: first}, e.clock())
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Delete(gone.ID, e.clock()); err != nil {
		t.Fatal(err)
	}
	id := r1.ID
	tests := []struct {
		path   string
		status int
		want   string // in the body
	}{
		{"/sessions", 200, `href="/s/` + id + `"`},
		{"/sessions?q=WIFI", 200, `href="/s/` + id + `"`},
		{"/sessions?q=" + strings.Repeat("x", store.MaxNameRunes+1), 400, "the search is 201 characters long"},
		{"/s/" + id, 200, `data-live="true"`},
		{"/s/" + id + "/r/1", 200, `data-live="false"`},
		{"/s/" + id + "/r/2", 200, `data-rev="2"`},
		{"/s/" + id + "/history", 200, `id="rev-2"`},
		{"/s/aaaaaaaaaaaa", 404, "There is no saved session"},
		{"/s/aaaaaaaaaaaa/history", 404, "There is no saved session"},
		{"/s/aaaaaaaaaaaa/r/1", 404, "There is no saved session"},
		{"/s/NOT-AN-ID", 404, "is not a session id"},
		{"/s/" + url.PathEscape("../../etc/passwd"), 404, "is not a session id"},
		{"/s/%3Cscript%3E", 404, "“&lt;script&gt;” is not a session id"},
		{"/s/" + id + "/r/0", 404, "No such revision"},
		{"/s/" + id + "/r/01", 404, "No such revision"},
		{"/s/" + id + "/r/3", 404, "No such revision"},
		{"/s/" + id + "/r/-1", 404, "No such revision"},
		{"/s/" + id + "/r/99999999999999999999", 404, "No such revision"},
		{"/s/" + id + "/r/1/more", 404, "There is no saved session"},
		{"/s/", 404, "There is no saved session"},
		{"/s/" + gone.ID, 410, "This session was deleted"},
		{"/s/" + gone.ID + "/r/1", 410, "This session was deleted"},
		{"/s/" + gone.ID + "/history", 410, "This session was deleted"},
	}
	for _, tt := range tests {
		resp, body := get(t, ts.URL+tt.path)
		if resp.StatusCode != tt.status || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
			t.Errorf("GET %s = %d %s, want %d text/html", tt.path, resp.StatusCode, resp.Header.Get("Content-Type"), tt.status)
		}
		if !strings.Contains(string(body), tt.want) {
			t.Errorf("GET %s: page lacks %q", tt.path, tt.want)
		}
	}

	// Each lab page starts from its revision's settings.
	for path, want := range map[string]engine.Settings{"/s/" + id: second, "/s/" + id + "/r/1": first, "/s/" + id + "/r/2": second} {
		_, body := get(t, ts.URL+path)
		if diffs := settingsMismatch(pageSettings(t, string(body)), want); len(diffs) > 0 {
			t.Errorf("%s starts from other settings: %v", path, diffs)
		}
	}
}

// A session page opened while tabs tune it starts from the live settings.
func TestSessionPageStartsLive(t *testing.T) {
	ts, st, e := newPagesServer(t)
	r, err := st.Create(store.Draft{Name: "live", Settings: engine.Defaults()}, e.clock())
	if err != nil {
		t.Fatal(err)
	}
	c, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(ts.URL, "http")+"/ws/sessions/"+r.ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	readWS(t, c)
	sendWS(t, c, `{"type":"set","name":"jitter","value":"40ms"}`)
	if m := readWS(t, c); m.Type != "config" || m.Config.Settings.Jitter != 0.04 {
		t.Fatalf("after set jitter: %+v", m)
	}
	_, body := get(t, ts.URL+"/s/"+r.ID)
	if got := pageSettings(t, string(body)).Jitter; got != 0.04 {
		t.Errorf("page jitter = %v, want the live 0.04", got)
	}
	_, body = get(t, ts.URL+"/s/"+r.ID+"/r/1")
	if got := pageSettings(t, string(body)).Jitter; got != engine.Defaults().Jitter {
		t.Errorf("rev 1 page jitter = %v, want the saved %v", got, engine.Defaults().Jitter)
	}
}

// Names and notes are text on every page: markup in them is escaped.
func TestSessionPagesEscape(t *testing.T) {
	ts, st, e := newPagesServer(t)
	const name = `<script>alert("name")</script>`
	r, err := st.Create(store.Draft{Name: name, Notes: `<img src=x onerror=alert(1)>`, Settings: engine.Defaults()}, e.clock())
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/sessions", "/sessions?q=" + url.QueryEscape("<script>"), "/s/" + r.ID, "/s/" + r.ID + "/r/1", "/s/" + r.ID + "/history"} {
		resp, body := get(t, ts.URL+path)
		page := string(body)
		if resp.StatusCode != 200 {
			t.Errorf("GET %s = %d", path, resp.StatusCode)
		}
		if strings.Contains(page, `<script>alert`) || strings.Contains(page, `<img src=x`) {
			t.Errorf("GET %s carries the name or notes as markup", path)
		}
		if !strings.Contains(page, `&lt;script&gt;alert(&#34;name&#34;)&lt;/script&gt;`) {
			t.Errorf("GET %s does not show the name as text", path)
		}
	}
}

// The history shows each revision's notes and the settings it changed, old
// → new in display units; the list is newest first, with deleted sessions
// apart.
func TestSessionPagesHistoryAndList(t *testing.T) {
	ts, st, e := newPagesServer(t)
	s := engine.Defaults()
	r, err := st.Create(store.Draft{Name: "harbor", Notes: "first try", Settings: s}, e.clock())
	if err != nil {
		t.Fatal(err)
	}
	s.Latency, s.Loss, s.Motion, s.Adaptive = 0.12, 0.035, "circle", true
	if _, err := st.Save(r.ID, store.Draft{Name: "harbor v2", Notes: "more ping\nand loss", Settings: s}, e.clock()); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Rename(r.ID, "harbor v3", e.clock()); err != nil {
		t.Fatal(err)
	}
	_, body := get(t, ts.URL+"/s/"+r.ID+"/history")
	page := string(body)
	for _, want := range []string{
		`<li data-name="latency"><code>latency</code> 50 ms → <b>120 ms</b></li>`,
		`<li data-name="loss"><code>loss</code> 0 % → <b>3.5 %</b></li>`,
		`<li data-name="adaptive"><code>adaptive</code> false → <b>true</b></li>`,
		`<li data-name="motion"><code>motion</code> mix → <b>circle</b></li>`,
		`<p class="rev-notes">more ping` + "\n" + `and loss</p>`,
		`no setting changed`,
		`href="/s/` + r.ID + `/r/1"`,
		`href="/compare?v=session%3A` + r.ID + `%401&amp;v=session%3A` + r.ID + `"`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("history lacks %s", want)
		}
	}
	if i, j := strings.Index(page, `id="rev-3"`), strings.Index(page, `id="rev-1"`); i < 0 || j < i {
		t.Errorf("history is not newest first")
	}
	if n := strings.Count(page, "<li data-name="); n != 4 {
		t.Errorf("history lists %d changed settings, want 4", n)
	}

	other, err := st.Create(store.Draft{Name: "lan", Notes: strings.Repeat("long notes ", 40), Settings: engine.Defaults()}, e.clock())
	if err != nil {
		t.Fatal(err)
	}
	gone, err := st.Create(store.Draft{Name: "old", Settings: engine.Defaults()}, e.clock())
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Delete(gone.ID, e.clock()); err != nil {
		t.Fatal(err)
	}
	_, body = get(t, ts.URL+"/sessions")
	page = string(body)
	if i, j := strings.Index(page, `data-id="`+other.ID+`"`), strings.Index(page, `data-id="`+r.ID+`"`); i < 0 || j < i {
		t.Error("sessions page is not newest first")
	}
	if !strings.Contains(page, `data-restore="`+gone.ID+`"`) || strings.Contains(page, `data-delete="`+gone.ID+`"`) {
		t.Error("a deleted session is not listed with Restore alone")
	}
	if want := "until " + storeT0.Add(6*time.Second+store.RestoreWindow).Format(sessionTimeLayout); !strings.Contains(page, want) {
		t.Errorf("sessions page lacks %q", want)
	}
	if !strings.Contains(page, `<td class="notes">`+strings.Repeat("long notes ", 12)+"long not…</td>") {
		t.Error("long notes are not clipped to an excerpt")
	}
	if !strings.Contains(page, `Compare with rev 2`) {
		t.Error("no link comparing harbor with its previous revision")
	}
	_, body = get(t, ts.URL+"/sessions?q=HARB")
	if page := string(body); !strings.Contains(page, `data-id="`+r.ID+`"`) || strings.Contains(page, `data-id="`+other.ID+`"`) {
		t.Error("searching HARB does not find harbor alone")
	}

	// Past the restore window a deleted session is listed, not restorable.
	e.now = storeT0.Add(store.RestoreWindow + time.Hour)
	_, body = get(t, ts.URL+"/sessions")
	if page := string(body); strings.Contains(page, `data-restore="`+gone.ID+`"`) || !strings.Contains(page, "too old to restore") {
		t.Error("a session deleted over 30 days ago is offered for restore")
	}
}

// TestSessionQueryEdits: a session page's query is read as edits on the
// settings shown, the custom scenario's text among them (a link with the
// designer's unsaved changes carries it); what the page shows already is no
// edit, and each refusal is named.
func TestSessionQueryEdits(t *testing.T) {
	shown := engine.Defaults()
	shown.Scenario, shown.ScenarioText = "custom", "outage at=2 for=1"
	tests := []struct {
		query, edits string
		errs         int
	}{
		{"latency=200ms", "latency=200ms", 0},
		{"latency=120", "latency=120ms", 0}, // a plain number is in the display unit
		{"latency=50ms", "", 0},             // the page's own value
		{"scenarioText=outage+at%3D3+for%3D1&loss=1%25", "loss=1%25&scenarioText=outage+at%3D3+for%3D1", 0},
		{"scenarioText=outage+at%3D2+for%3D1", "", 0},
		{"scenarioText=a&scenarioText=b", "", 1},
		{"lsss=1&latency=9s", "", 2},
		{"preset=lan&loss=1%25", "loss=1%25", 1}, // the page names its preset itself
	}
	for _, tt := range tests {
		q, err := url.ParseQuery(tt.query)
		if err != nil {
			t.Fatal(err)
		}
		edits, errs := sessionQueryEdits(q, shown)
		if edits != tt.edits || len(errs) != tt.errs {
			t.Errorf("sessionQueryEdits(%s) = %q, %q; want %q and %d errors", tt.query, edits, errs, tt.edits, tt.errs)
		}
	}
	// A preset is refused as such, not as an unknown parameter: the error
	// says where a preset's link opens.
	_, errs := sessionQueryEdits(url.Values{"preset": {"lan"}}, shown)
	if len(errs) != 1 || !strings.Contains(errs[0], "preset") || !strings.Contains(errs[0], "/?preset=") {
		t.Errorf("sessionQueryEdits(preset=lan) errors = %q, want one naming preset and /?preset=", errs)
	}
}
