package live

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"interplab/cmd/lab/internal/store"
	"interplab/engine"
)

// testID is the one session of hubServer's loader.
const testID = "abcdefgh2345"

// testLoader has one session, testID, at revision 1 with the defaults.
type testLoader struct{}

func (testLoader) Latest(id string) (store.Revision, error) {
	if id != testID {
		return store.Revision{}, store.ErrSessionNotFound
	}
	return store.Revision{ID: id, Rev: 1, Name: "test", Settings: engine.Defaults()}, nil
}

// hubServer serves a hub on testLoader at the returned ws:// URL prefix
// (append a session id), as the lab's route does.
func hubServer(t *testing.T) (*Hub, string) {
	t.Helper()
	h := New(testLoader{}, time.Now)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeWS(w, r, strings.TrimPrefix(r.URL.Path, "/ws/"))
	}))
	t.Cleanup(func() {
		h.Close()
		srv.Close()
	})
	return h, "ws" + strings.TrimPrefix(srv.URL, "http") + "/ws/"
}

// testMsg is any server message, decoded loosely.
type testMsg struct {
	Type   string
	Error  string
	Field  string
	Config Config
}

// dial connects to url and reads the config sent on connect.
func dial(t *testing.T, url string) *websocket.Conn {
	t.Helper()
	c, _, err := websocket.DefaultDialer.Dial(url, nil)
	if err != nil {
		t.Fatalf("dial %s: %v", url, err)
	}
	t.Cleanup(func() { c.Close() })
	if m := read(t, c); m.Type != "config" {
		t.Fatalf("first message %+v, want a config", m)
	}
	return c
}

func read(t *testing.T, c *websocket.Conn) testMsg {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	var m testMsg
	if err := c.ReadJSON(&m); err != nil {
		t.Fatalf("read: %v", err)
	}
	return m
}

// A session the loader does not know closes the connection with 4404.
func TestUnknownSessionCloses(t *testing.T) {
	_, ws := hubServer(t)
	c, _, err := websocket.DefaultDialer.Dial(ws+"zzzzzzzzzzzz", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	_, _, err = c.ReadMessage()
	if ce, ok := errors.AsType[*websocket.CloseError](err); !ok || ce.Code != CloseNoSession {
		t.Errorf("read on an unknown session = %v, want close code %d", err, CloseNoSession)
	}
}

// A client that cannot keep up is dropped instead of stalling the others.
func TestSlowClientIsDropped(t *testing.T) {
	h, ws := hubServer(t)
	fast := dial(t, ws+testID)
	// A client whose writer never runs: its queue fills and is never drained.
	slow := &wsClient{hub: h, session: testID, send: make(chan *websocket.PreparedMessage, sendBuffer)}
	h.register <- slow
	for i := range sendBuffer + 1 {
		if err := fast.WriteMessage(websocket.TextMessage, []byte(`{"type":"set","name":"seed","value":`+strconv.Itoa(i)+`}`)); err != nil {
			t.Fatal(err)
		}
		if m := read(t, fast); m.Type != "config" || m.Config.Settings.Seed != i {
			t.Fatalf("change %d: fast client got %+v, want its config", i, m)
		}
	}
	n := 0
	for range slow.send {
		n++
	}
	if n != sendBuffer {
		t.Errorf("slow client had %d messages queued, want %d", n, sendBuffer)
	}
	if want := websocket.FormatCloseMessage(wsCloseTooSlow, "client too slow"); string(slow.closeMsg) != string(want) {
		t.Errorf("slow client's close frame = %q, want %q", slow.closeMsg, want)
	}
}

// Whatever a client sends, reading it never panics, and a set it accepts
// leaves valid settings.
func FuzzLiveMessage(f *testing.F) {
	for _, seed := range []string{
		`{"type":"set","name":"displayBehind","value":0.12}`,
		`{"type":"set","name":"techniques","value":["hermite","epic"]}`,
		`{"type":"set","name":"jitterDist","value":"pareto"}`,
		`{"type":"set","name":"adaptive","value":true}`,
		`{"type":"set","name":"seed","value":1e999}`,
		`{"type":"set","name":"sendRate","value":"128"}`,
		`{"type":"set","name":"techniques","value":0}`,
		`hello`, `[1]`, `{"type":5}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, frame []byte) {
		m, err := wsDecode(frame)
		if err != nil {
			return
		}
		p, ok := engine.Lookup(m.Name)
		if !ok {
			return
		}
		v, err := wsParseValue(p, m.Value)
		if err != nil {
			return
		}
		s := engine.Defaults()
		if err := p.Set(&s, v); err != nil {
			return
		}
		if err := s.Validate(); err != nil {
			return
		}
		s = engine.Canonical(s)
		if err := s.Validate(); err != nil {
			t.Fatalf("canonical settings invalid: %v", err)
		}
		if _, err := json.Marshal(wsSetMsg{Type: "set", Name: p.Name, Value: wsParamValue(p, &s)}); err != nil {
			t.Fatalf("set message does not encode: %v", err)
		}
	})
}
