package server

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"interplab/cmd/lab/internal/live"
	"interplab/engine"
)

// wsTestMsg is any server message, decoded loosely.
type wsTestMsg struct {
	Type    string
	Session string
	Rev     int
	You     string
	From    string
	Name    string
	Value   any
	Error   string
	Field   string
	Config  struct {
		Schema   int
		Settings engine.Settings
	}
}

func (e *sessionsEnv) wsURL(id string) string {
	return "ws" + strings.TrimPrefix(e.srv.URL, "http") + "/ws/sessions/" + id
}

// dial connects to session id's live sync and reads the config sent on
// connect.
func (e *sessionsEnv) dial(t testing.TB, id string) (*websocket.Conn, wsTestMsg) {
	t.Helper()
	c, resp, err := websocket.DefaultDialer.Dial(e.wsURL(id), nil)
	if err != nil {
		status := 0
		if resp != nil {
			status = resp.StatusCode
		}
		t.Fatalf("dial %s: %v (status %d)", id, err, status)
	}
	t.Cleanup(func() { c.Close() })
	m := readWS(t, c)
	if m.Type != "config" || m.Session != id || m.You == "" || m.Config.Schema != live.ConfigSchema {
		t.Fatalf("first message = %+v, want a config for %s with a client id", m, id)
	}
	return c, m
}

func readWS(t testing.TB, c *websocket.Conn) wsTestMsg {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	_, data, err := c.ReadMessage()
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	var m wsTestMsg
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("decode %s: %v", data, err)
	}
	return m
}

func sendWS(t testing.TB, c *websocket.Conn, msg string) {
	t.Helper()
	if err := c.WriteMessage(websocket.TextMessage, []byte(msg)); err != nil {
		t.Fatalf("send %s: %v", msg, err)
	}
}

// closeCode reads until the connection ends and returns its close code.
func closeCode(t testing.TB, c *websocket.Conn) int {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	for {
		_, _, err := c.ReadMessage()
		var ce *websocket.CloseError
		if errors.As(err, &ce) {
			return ce.Code
		}
		if err != nil {
			t.Fatalf("connection ended without a close frame: %v", err)
		}
	}
}

func TestLiveTwoTabsSeeEachOther(t *testing.T) {
	e := newSessionsEnv(t, t.TempDir())
	id := e.create(t, "two tabs", nil).ID
	a, helloA := e.dial(t, id)
	b, helloB := e.dial(t, id)
	if helloA.You == helloB.You || helloA.Rev != 1 {
		t.Fatalf("hello A = %+v, B = %+v: want distinct ids at rev 1", helloA, helloB)
	}

	sendWS(t, a, `{"type":"set","name":"displayBehind","value":0.12}`)
	set := readWS(t, b)
	if set.Type != "set" || set.Name != "displayBehind" || set.Value != 0.12 || set.From != helloA.You {
		t.Errorf("B got %+v, want set displayBehind 0.12 from %s", set, helloA.You)
	}
	for name, c := range map[string]*websocket.Conn{"A": a, "B": b} {
		m := readWS(t, c)
		if m.Type != "config" || m.Config.Settings.DisplayBehind != 0.12 || m.From != helloA.You {
			t.Errorf("%s got %+v, want the config with displayBehind 0.12 from %s", name, m, helloA.You)
		}
	}

	// Text forms and other kinds, the other way round.
	tests := []struct {
		msg   string
		name  string
		value any // as in config.settings
	}{
		{msg: `{"type":"set","name":"jitterDist","value":"pareto"}`, name: "jitterDist", value: "pareto"},
		{msg: `{"type":"set","name":"jitterDist","value":0}`, name: "jitterDist", value: "uniform"},
		{msg: `{"type":"set","name":"adaptive","value":true}`, name: "adaptive", value: true},
		{msg: `{"type":"set","name":"speedClamp","value":"false"}`, name: "speedClamp", value: false},
		{msg: `{"type":"set","name":"seed","value":"42"}`, name: "seed", value: 42.0},
		{msg: `{"type":"set","name":"techniques","value":["hermite","epic"]}`, name: "techniques", value: []any{"epic", "hermite"}},
		{msg: `{"type":"set","name":"techniques","value":"snap"}`, name: "techniques", value: []any{"snap"}},
		{msg: `{"type":"set","name":"techniques","value":24}`, name: "techniques", value: []any{"buffer", "hermite"}},
	}
	for _, tt := range tests {
		sendWS(t, b, tt.msg)
		got := readWS(t, a)
		if got.Type != "set" || got.Name != tt.name || !jsonEqual(got.Value, tt.value) || got.From != helloB.You {
			t.Errorf("after %s A got %+v, want set %s = %v from %s", tt.msg, got, tt.name, tt.value, helloB.You)
		}
		cfgA, cfgB := readWS(t, a), readWS(t, b)
		s := cfgA.Config.Settings
		if text := s.Text(tt.name); cfgA.Type != "config" || !jsonEqual(settingJSON(t, tt.name, &s), tt.value) {
			t.Errorf("after %s A's config has %s = %s, want %v", tt.msg, tt.name, text, tt.value)
		}
		if cfgB.Type != "config" || cfgB.Config.Settings.Text(tt.name) != s.Text(tt.name) {
			t.Errorf("after %s B's config = %+v, want the same as A's", tt.msg, cfgB)
		}
	}
}

// settingJSON is the named setting's value in s as JSON encodes it, as
// a config's settings carry it.
func settingJSON(t testing.TB, name string, s *engine.Settings) any {
	data, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	json.Unmarshal(data, &m)
	v, ok := m[name]
	if !ok {
		t.Fatalf("no setting %s in %s", name, data)
	}
	return v
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// A game gets the full config on connect and after every change, live or
// saved; a save changes what it names and leaves the other live changes.
func TestLiveGameFollowsChangesAndSaves(t *testing.T) {
	e := newSessionsEnv(t, t.TempDir())
	id := e.create(t, "game", map[string]any{"latency": 0.03}).ID
	game, hello := e.dial(t, id)
	if hello.Config.Settings.Latency != 0.03 || hello.Rev != 1 {
		t.Fatalf("game's first config = %+v, want latency 0.03 at rev 1", hello)
	}
	tab, _ := e.dial(t, id)
	for i, v := range []float64{0.05, 0.07, 0.09} {
		sendWS(t, tab, `{"type":"set","name":"latency","value":`+jsonNumber(v)+`}`)
		readWS(t, tab) // the tab's own config
		m := readWS(t, game)
		if m.Type == "set" {
			m = readWS(t, game) // a game may ignore set: the config follows it
		}
		if m.Type != "config" || m.Config.Settings.Latency != v {
			t.Errorf("change %d: game got %+v, want a config with latency %v", i, m, v)
		}
	}

	// A save without settings keeps the stored ones (settings come from
	// the request or the stored revision, never from the live state), and
	// the live change stays live.
	var saved sessionRevisionJSON
	e.must(t, http.StatusOK, "PUT", "/api/sessions/"+id, map[string]any{"rev": 1, "notes": "tuned live"}, &saved)
	if saved.Rev != 2 || saved.Settings.Latency != 0.03 {
		t.Errorf("save = rev %d latency %v, want rev 2 with the stored latency 0.03", saved.Rev, saved.Settings.Latency)
	}
	m := readWS(t, game)
	if m.Type != "config" || m.Rev != 2 || m.Config.Settings.Latency != 0.09 || m.From != "" {
		t.Errorf("after the save the game got %+v, want config rev 2", m)
	}
	readWS(t, tab)

	// A save with settings changes them for everyone.
	e.must(t, http.StatusOK, "PUT", "/api/sessions/"+id, map[string]any{"rev": 2, "settings": map[string]any{"loss": 0.05}}, &saved)
	m = readWS(t, game)
	if m.Rev != 3 || m.Config.Settings.Loss != 0.05 || m.Config.Settings.Latency != 0.09 {
		t.Errorf("after the second save the game got %+v, want rev 3 with loss 0.05 and latency 0.09", m)
	}

	// Once every client has gone, unsaved live changes go too.
	sendWS(t, tab, `{"type":"set","name":"latency","value":0.5}`)
	readWS(t, game)
	readWS(t, game)
	tab.Close()
	game.Close()
	if !waitFor(context.Background(), func() bool { _, live := e.server.hub.Live(id); return !live }, 5*time.Second) {
		t.Fatal("the session is still live 5 s after its last client left")
	}
	_, fresh := e.dial(t, id)
	if fresh.Rev != 3 || fresh.Config.Settings.Latency != 0.03 || fresh.Config.Settings.Loss != 0.05 {
		t.Errorf("a new client got rev %d latency %v loss %v, want the saved rev 3: latency 0.03, loss 0.05", fresh.Rev, fresh.Config.Settings.Latency, fresh.Config.Settings.Loss)
	}
}

func jsonNumber(v float64) string {
	data, _ := json.Marshal(v)
	return string(data)
}

// An invalid message gets an error back to its sender only; nothing changes.
func TestLiveInvalidSetAnswersSenderOnly(t *testing.T) {
	e := newSessionsEnv(t, t.TempDir())
	id := e.create(t, "invalid", nil).ID
	a, _ := e.dial(t, id)
	b, _ := e.dial(t, id)
	tests := []struct {
		msg   string
		field string
	}{
		{msg: `{"type":"set","name":"displayBehind","value":2}`, field: "displayBehind"},
		{msg: `{"type":"set","name":"displayBehind","value":-0.1}`, field: "displayBehind"},
		{msg: `{"type":"set","name":"displayBehind","value":"NaN"}`, field: "displayBehind"},
		{msg: `{"type":"set","name":"displayBehind","value":1e999}`, field: "displayBehind"},
		{msg: `{"type":"set","name":"displayBehind","value":true}`, field: "displayBehind"},
		{msg: `{"type":"set","name":"displayBehind","value":[1]}`, field: "displayBehind"},
		{msg: `{"type":"set","name":"displayBehind","value":null}`, field: "displayBehind"},
		{msg: `{"type":"set","name":"displayBehind"}`, field: "displayBehind"},
		{msg: `{"type":"set","name":"seed","value":1.5}`, field: "seed"},
		{msg: `{"type":"set","name":"motion","value":"teleport"}`, field: "motion"},
		{msg: `{"type":"set","name":"techniques","value":[]}`, field: "techniques"},
		{msg: `{"type":"set","name":"techniques","value":0}`, field: "techniques"},
		{msg: `{"type":"set","name":"sendRate","value":100}`, field: "sendRate"},
		{msg: `{"type":"set","name":"<script>","value":1}`, field: "name"},
		{msg: `{"type":"set","value":1}`, field: "name"},
		{msg: `{"type":"delete"}`, field: "type"},
		{msg: `{"name":"latency","value":0.1}`, field: "type"},
		{msg: `{"type":"set","name":"latency","value":0.1,"extra":1}`, field: "extra"},
		{msg: `{"type":5}`, field: "type"},
	}
	for _, tt := range tests {
		sendWS(t, a, tt.msg)
		m := readWS(t, a)
		if m.Type != "error" || m.Field != tt.field || m.Error == "" {
			t.Errorf("after %s A got %+v, want an error on %q", tt.msg, m, tt.field)
		}
	}
	// B saw none of it: its next message is the next valid change.
	sendWS(t, a, `{"type":"set","name":"latency","value":0.1}`)
	if m := readWS(t, b); m.Type != "set" || m.Name != "latency" {
		t.Errorf("B's next message = %+v, want the valid set of latency", m)
	}
	if m := readWS(t, a); m.Type != "config" || m.Config.Settings.DisplayBehind != engine.Defaults().DisplayBehind {
		t.Errorf("A's config = %+v, want displayBehind unchanged by the invalid sets", m)
	}
}

// A malformed or oversize frame closes that connection with the right code;
// the hub and the other clients carry on.
func TestLiveMalformedFramesCloseTheConnection(t *testing.T) {
	e := newSessionsEnv(t, t.TempDir())
	id := e.create(t, "frames", nil).ID
	tests := []struct {
		name string
		kind int
		data string
		code int
	}{
		{name: "not JSON", kind: websocket.TextMessage, data: `hello`, code: websocket.CloseInvalidFramePayloadData},
		{name: "JSON array", kind: websocket.TextMessage, data: `[1,2]`, code: websocket.CloseInvalidFramePayloadData},
		{name: "truncated", kind: websocket.TextMessage, data: `{"type":"set"`, code: websocket.CloseInvalidFramePayloadData},
		{name: "two objects", kind: websocket.TextMessage, data: `{} {}`, code: websocket.CloseInvalidFramePayloadData},
		{name: "binary", kind: websocket.BinaryMessage, data: `{"type":"set"}`, code: websocket.CloseUnsupportedData},
		{name: "oversize", kind: websocket.TextMessage,
			data: `{"type":"set","name":"` + strings.Repeat("x", live.MaxMessageSize) + `"}`, code: websocket.CloseMessageTooBig},
		{name: "10 MB", kind: websocket.TextMessage, data: strings.Repeat(" ", 10<<20), code: websocket.CloseMessageTooBig},
	}
	watcher, _ := e.dial(t, id)
	for _, tt := range tests {
		c, _ := e.dial(t, id)
		if err := c.WriteMessage(tt.kind, []byte(tt.data)); err != nil {
			// The server may close before a huge frame is fully written.
			t.Logf("%s: write: %v", tt.name, err)
		}
		if got := closeCode(t, c); got != tt.code {
			t.Errorf("%s: close code %d, want %d", tt.name, got, tt.code)
		}
	}
	// The hub still serves: a valid change reaches the watcher.
	c, _ := e.dial(t, id)
	sendWS(t, c, `{"type":"set","name":"latency","value":0.2}`)
	if m := readWS(t, watcher); m.Type != "set" || m.Value != 0.2 {
		t.Errorf("watcher got %+v, want set latency 0.2", m)
	}
}

func TestLiveHandshakeChecks(t *testing.T) {
	e := newSessionsEnv(t, t.TempDir())
	id := e.create(t, "origin", nil).ID
	tests := []struct {
		name   string
		id     string
		origin string
		status int
	}{
		{name: "foreign origin", id: id, origin: "http://evil.example", status: http.StatusForbidden},
		{name: "foreign port", id: id, origin: "http://127.0.0.1:1", status: http.StatusForbidden},
		{name: "null origin", id: id, origin: "null", status: http.StatusForbidden},
		{name: "unknown session", id: "zzzzzzzzzzzz", status: http.StatusNotFound},
		{name: "bad id", id: "..%2F..", status: http.StatusNotFound},
		{name: "same origin", id: id, origin: e.srv.URL, status: http.StatusSwitchingProtocols},
		{name: "no origin (a game)", id: id, status: http.StatusSwitchingProtocols},
	}
	for _, tt := range tests {
		h := http.Header{}
		if tt.origin != "" {
			h.Set("Origin", tt.origin)
		}
		c, resp, err := websocket.DefaultDialer.Dial(e.wsURL(tt.id), h)
		if c != nil {
			c.Close()
		}
		if resp == nil {
			t.Errorf("%s: no response: %v", tt.name, err)
			continue
		}
		if resp.StatusCode != tt.status {
			t.Errorf("%s: status %d (%v), want %d", tt.name, resp.StatusCode, err, tt.status)
		}
	}
}

func TestLiveDeleteDisconnects(t *testing.T) {
	e := newSessionsEnv(t, t.TempDir())
	id := e.create(t, "doomed", nil).ID
	c, _ := e.dial(t, id)
	e.must(t, http.StatusOK, "DELETE", "/api/sessions/"+id, nil, nil)
	if got := closeCode(t, c); got != live.CloseNoSession {
		t.Errorf("close code after delete = %d, want %d", got, live.CloseNoSession)
	}
}

func TestLiveHubCloseSaysGoingAway(t *testing.T) {
	e := newSessionsEnv(t, t.TempDir())
	id := e.create(t, "shutdown", nil).ID
	c, _ := e.dial(t, id)
	e.server.Close()
	if got := closeCode(t, c); got != websocket.CloseGoingAway {
		t.Errorf("close code at shutdown = %d, want %d", got, websocket.CloseGoingAway)
	}
	e.server.Close() // twice is fine
}
