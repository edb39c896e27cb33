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

// testID is the one session of hubServerWith's loader.
const testID = "abcdefgh2345"

// testLoader has one session, testID, at revision 1 with the defaults.
type testLoader struct{}

func (testLoader) Latest(id string) (store.Revision, error) {
	if id != testID {
		return store.Revision{}, store.ErrSessionNotFound
	}
	return store.Revision{ID: id, Rev: 1, Name: "test", Settings: engine.Defaults()}, nil
}

// hubServerWith serves a hub on testLoader at the returned ws:// URL
// prefix (append a session id), as the lab's route does, with a bus (nil:
// the hub alone, in memory).
func hubServerWith(t *testing.T, bus Bus) (*Hub, string) {
	t.Helper()
	h := NewShared(testLoader{}, time.Now, bus)
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
	Name   string
	Error  string
	Field  string
	Notice string
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
	eachBus(t, func(t *testing.T, bus Bus) {
		_, ws := hubServerWith(t, bus)
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
	})
}

// A client that cannot keep up never stalls the others, and is never
// behind by more than one change: it holds the config sent on connect and
// the newest change, whatever came between.
func TestSlowClientGetsTheNewestChange(t *testing.T) {
	eachBus(t, func(t *testing.T, bus Bus) {
		h, ws := hubServerWith(t, bus)
		fast := dial(t, ws+testID)
		// A client whose writer never runs: nothing it is sent is drained.
		slow := newClient(h, nil, testID)
		h.register <- slow
		const changes = 3 * sendBuffer
		for i := range changes {
			if err := fast.WriteMessage(websocket.TextMessage, []byte(`{"type":"set","name":"seed","value":`+strconv.Itoa(i)+`}`)); err != nil {
				t.Fatal(err)
			}
			if m := read(t, fast); m.Type != "config" || m.Config.Settings.Seed != i {
				t.Fatalf("change %d: fast client got %+v, want its config", i, m)
			}
		}
		if n := len(slow.send); n != 1 {
			t.Errorf("slow client has %d messages queued, want 1 (the config sent on connect)", n)
		}
		latest := slow.takeLatest()
		if len(latest) != 2 {
			t.Fatalf("slow client's newest change is %d messages, want a set and a config", len(latest))
		}
		var m testMsg
		if err := json.Unmarshal(preparedData(t, latest[1]), &m); err != nil || m.Type != "config" || m.Config.Settings.Seed != changes-1 {
			t.Errorf("slow client's newest change = %+v (%v), want the config of seed %d", m, err, changes-1)
		}
	})
}

// preparedData returns the text of a prepared message, as a client reads it.
func preparedData(t *testing.T, pm *websocket.PreparedMessage) []byte {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := (&websocket.Upgrader{}).Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer c.Close()
		c.WritePreparedMessage(pm)
	}))
	defer srv.Close()
	c, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(srv.URL, "http"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, data, err := c.ReadMessage()
	if err != nil {
		t.Fatal(err)
	}
	return data
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

// multiLoader knows any session id of twelve lower-case letters or digits.
type multiLoader struct{}

func (multiLoader) Latest(id string) (store.Revision, error) {
	return store.Revision{ID: id, Rev: 1, Name: id, Settings: engine.Defaults()}, nil
}
