package capture

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"interplab/cmd/lab/internal/store"
	"interplab/engine"
)

// lab is a manager over a store in a temporary directory, served the way
// the server serves it.
type lab struct {
	t       *testing.T
	dir     string
	st      *store.DB
	wrap    func(*store.DB) Store // the store the manager uses; st when nil
	m       *Manager
	srv     *httptest.Server
	session string
}

func openStore(t *testing.T, dir string) *store.DB {
	t.Helper()
	st, err := store.Open(dir, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func newLab(t *testing.T, opt Options) *lab { return newWrappedLab(t, opt, nil) }

func newWrappedLab(t *testing.T, opt Options, wrap func(*store.DB) Store) *lab {
	t.Helper()
	l := &lab{t: t, dir: t.TempDir(), wrap: wrap}
	l.st = openStore(t, l.dir)
	r, err := l.st.Create(store.Draft{Name: "playtest", Settings: engine.Defaults()}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	l.session = r.ID
	l.start(opt)
	t.Cleanup(l.stop)
	return l
}

// start runs a manager and its server over l.st.
func (l *lab) start(opt Options) {
	var st Store = l.st
	if l.wrap != nil {
		st = l.wrap(l.st)
	}
	m, err := New(st, time.Now, opt)
	if err != nil {
		l.t.Fatal(err)
	}
	l.m = m
	mux := http.NewServeMux()
	mux.HandleFunc("GET /ws/sessions/{id}/capture", func(w http.ResponseWriter, r *http.Request) {
		m.ServeWS(w, r, r.PathValue("id"))
	})
	l.srv = httptest.NewServer(mux)
}

// stop stops the server, the manager and the store, as the lab's
// shutdown does.
func (l *lab) stop() {
	if l.m == nil {
		return
	}
	l.srv.CloseClientConnections()
	l.srv.Close()
	l.m.Close()
	l.st.Close()
	l.m = nil
}

// restart stops the lab and starts it again on the same data directory.
func (l *lab) restart(opt Options) {
	l.stop()
	l.st = openStore(l.t, l.dir)
	l.start(opt)
}

func (l *lab) url() string {
	return "ws" + strings.TrimPrefix(l.srv.URL, "http") + "/ws/sessions/" + l.session + "/capture"
}

// client is a test's game client.
type client struct {
	t    *testing.T
	ws   *websocket.Conn
	wait time.Duration // for each message; 20 s when 0
}

// msg is any message of the lab.
type msg struct {
	Type          string `json:"type"`
	Protocol      int    `json:"protocol"`
	Capture       string `json:"capture"`
	Trace         string `json:"trace"`
	Acked         int    `json:"acked"`
	Updates       int    `json:"updates"`
	MaxBatch      int    `json:"maxBatch"`
	MaxBatchBytes int    `json:"maxBatchBytes"`
	Window        int    `json:"window"`
	Rate          int    `json:"rate"`
	Quota         int    `json:"quota"`
	Batch         int    `json:"batch"`
	Dropped       int    `json:"dropped"`
	Conflicts     int    `json:"conflicts"`
	Reason        string `json:"reason"`
	Error         string `json:"error"`
	Field         string `json:"field"`

	closeCode int // set for the close frame
	closeText string
}

func (l *lab) dial() *client {
	l.t.Helper()
	ws, resp, err := websocket.DefaultDialer.Dial(l.url(), nil)
	if err != nil {
		l.t.Fatalf("dial %s: %v (%v)", l.url(), err, resp)
	}
	l.t.Cleanup(func() { ws.Close() })
	return &client{t: l.t, ws: ws}
}

func (c *client) text(s string) {
	c.t.Helper()
	if err := c.ws.WriteMessage(websocket.TextMessage, []byte(s)); err != nil {
		c.t.Fatal(err)
	}
}

func (c *client) binary(b []byte) {
	c.t.Helper()
	if err := c.ws.WriteMessage(websocket.BinaryMessage, b); err != nil {
		c.t.Fatal(err)
	}
}

// read returns the next message, or the close frame as a message of type
// "close".
func (c *client) read() msg {
	c.t.Helper()
	wait := c.wait
	if wait == 0 {
		wait = 20 * time.Second
	}
	c.ws.SetReadDeadline(time.Now().Add(wait))
	kind, data, err := c.ws.ReadMessage()
	if ce, ok := err.(*websocket.CloseError); ok {
		return msg{Type: "close", closeCode: ce.Code, closeText: ce.Text}
	}
	if err != nil {
		c.t.Fatalf("read: %v", err)
	}
	if kind != websocket.TextMessage {
		c.t.Fatalf("read: a frame of kind %d from the lab", kind)
	}
	var m msg
	if err := json.Unmarshal(data, &m); err != nil {
		c.t.Fatalf("read %s: %v", data, err)
	}
	return m
}

// until reads until a message of type typ, and returns it; the others are
// skipped (acks, slows). A close frame before it fails the test.
func (c *client) until(typ string) msg {
	c.t.Helper()
	for {
		m := c.read()
		if m.Type == typ {
			return m
		}
		if m.Type == "close" || m.Type == "error" {
			c.t.Fatalf("waiting for %s: got %+v", typ, m)
		}
	}
}

// ackAtLeast reads until an ack of batch n or later.
func (c *client) ackAtLeast(n int) msg {
	c.t.Helper()
	for {
		m := c.until("ack")
		if m.Batch >= n {
			return m
		}
	}
}

// refused reads until the error and the close frame, and returns both.
func (c *client) refused() (msg, msg) {
	c.t.Helper()
	var e msg
	for {
		m := c.read()
		switch m.Type {
		case "error":
			e = m
		case "close":
			return e, m
		}
	}
}

const helloMirror = `{"type":"hello","protocol":1,"engine":"mirror","version":"96.0.1","client":"test/1","rate":30}`

// updates returns n updates of k entities at 30 Hz, from send step start,
// position only, sender and client on one clock.
func updates(start, n, k int) []store.CaptureUpdate {
	us := make([]store.CaptureUpdate, n)
	for i := range us {
		step := (start + i) / k
		e := (start + i) % k
		sent := 1000 + float64(step)/30
		us[i] = store.CaptureUpdate{ID: uint32(100 + e), Sent: sent, Arrive: sent + 0.05 + 0.0001*float64(e),
			Pos: [3]float64{float64(step) * 0.2, float64(e), 0.5}}
	}
	// Arrivals in order: entity e's delay grows with e, so within a
	// step they are in order already; the next step's first arrive is
	// later than this step's last.
	return us
}
