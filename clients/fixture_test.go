package clients

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// captureLab is a fixture of the lab's capture endpoint, written from
// docs/capture-protocol.md (version 1), that checks every frame a client
// sends against the protocol and can misbehave on cue: drop the connection
// without a close frame before acknowledging a batch, or tell the client to
// slow down. It tests the clients' side of the protocol (resume, slow-down,
// drops) on its own; the real lab is tested in the capture tests.
type captureLab struct {
	t   *testing.T
	srv *httptest.Server

	dropAt  uint32 // drop the connection once on receiving this batch, unacknowledged
	slowTo  int    // send slow{rate} after the first batch
	window  int
	maxSize int

	mu      sync.Mutex
	stored  []float64 // the x of each stored update, in order
	acked   uint32
	dropped uint32 // the client's last reported total
	hellos  []map[string]any
	saved   bool
}

func newCaptureLab(t *testing.T) *captureLab {
	l := &captureLab{t: t, window: 4, maxSize: 512}
	l.srv = httptest.NewServer(http.HandlerFunc(l.serve))
	t.Cleanup(l.srv.Close)
	return l
}

// page is the session page's URL a client is given.
func (l *captureLab) page() string { return l.srv.URL + "/s/fixture12345" }

func (l *captureLab) serve(w http.ResponseWriter, r *http.Request) {
	up := websocket.Upgrader{}
	if r.URL.Path == "/ws/sessions/fixture12345" {
		c, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer c.Close()
		c.WriteMessage(websocket.TextMessage, []byte(`{"type":"config","session":"fixture12345","rev":1,"config":{"schema":1,"settings":{}}}`))
		for {
			if _, _, err := c.ReadMessage(); err != nil {
				return
			}
		}
	}
	if r.URL.Path != "/ws/sessions/fixture12345/capture" {
		http.NotFound(w, r)
		return
	}
	c, err := up.Upgrade(w, r, nil)
	if err != nil {
		return
	}
	defer c.Close()
	kind, data, err := c.ReadMessage()
	if err != nil {
		return
	}
	var hello map[string]any
	if kind != websocket.TextMessage || json.Unmarshal(data, &hello) != nil || hello["type"] != "hello" || hello["protocol"] != 1.0 ||
		hello["engine"] != "test" || hello["version"] != "1.0" || hello["rate"] != 30.0 || hello["time"] != "seconds" {
		l.t.Errorf("a hello the protocol refuses: %s", data)
		return
	}
	l.mu.Lock()
	l.hellos = append(l.hellos, hello)
	acked, stored := l.acked, len(l.stored)
	l.mu.Unlock()
	if len(l.hellos) > 1 && hello["capture"] != "fixture12345-1" {
		l.t.Errorf("a reconnection's hello %s: want it to resume capture fixture12345-1", data)
	}
	c.WriteJSON(map[string]any{"type": "welcome", "protocol": 1, "capture": "fixture12345-1", "trace": "fixture", "acked": acked,
		"updates": stored, "maxBatch": l.maxSize, "maxBatchBytes": 16 + 101*l.maxSize, "window": l.window, "rate": 20000, "quota": 2000000})
	next := acked + 1
	for {
		kind, data, err := c.ReadMessage()
		if err != nil {
			return
		}
		if kind == websocket.TextMessage {
			var end struct {
				Type    string
				Dropped uint32
			}
			if json.Unmarshal(data, &end) != nil || end.Type != "end" {
				l.t.Errorf("a text message that is not an end: %s", data)
				return
			}
			l.mu.Lock()
			if end.Dropped < l.dropped {
				l.t.Errorf("end's dropped %d is below the last batch's %d", end.Dropped, l.dropped)
			}
			l.dropped, l.saved = end.Dropped, true
			n := len(l.stored)
			l.mu.Unlock()
			c.WriteJSON(map[string]any{"type": "saved", "trace": "fixture", "updates": n, "dropped": end.Dropped})
			c.WriteMessage(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""))
			return
		}
		xs, number, dropped, err := decodeBatch(data)
		if err != nil {
			l.t.Errorf("a malformed batch: %v", err)
			return
		}
		if number != next {
			l.t.Errorf("batch %d, want %d", number, next)
			return
		}
		next++
		l.mu.Lock()
		if number == l.dropAt {
			l.dropAt = 0
			l.mu.Unlock()
			c.UnderlyingConn().Close() // no close frame: 1006, as a crash
			return
		}
		if dropped < l.dropped {
			l.t.Errorf("batch %d's dropped %d is below the previous %d", number, dropped, l.dropped)
		}
		l.stored, l.acked, l.dropped = append(l.stored, xs...), number, dropped
		n := len(l.stored)
		l.mu.Unlock()
		c.WriteJSON(map[string]any{"type": "ack", "batch": number, "updates": n})
		if l.slowTo > 0 && number == 1 {
			c.WriteJSON(map[string]any{"type": "slow", "rate": l.slowTo, "reason": "the fixture asks"})
		}
	}
}

// decodeBatch checks a binary batch as the protocol defines it and returns
// the x of each update, its number and its dropped count.
func decodeBatch(b []byte) (xs []float64, number, dropped uint32, err error) {
	if len(b) < 16 || string(b[:4]) != "ilc1" {
		return nil, 0, 0, fmt.Errorf("header %q", b[:min(len(b), 16)])
	}
	number, n, dropped := binary.LittleEndian.Uint32(b[4:]), binary.LittleEndian.Uint32(b[8:]), binary.LittleEndian.Uint32(b[12:])
	at := 16
	f := func() float64 { v := math.Float64frombits(binary.LittleEndian.Uint64(b[at:])); at += 8; return v }
	lastArrive := math.Inf(-1)
	for i := uint32(0); i < n; i++ {
		if at+45 > len(b) {
			return nil, 0, 0, fmt.Errorf("batch %d: update %d past the frame's end", number, i)
		}
		flags := b[at+4]
		at += 5
		_, arrive, x := f(), f(), f()
		f()
		f()
		if arrive < lastArrive {
			return nil, 0, 0, fmt.Errorf("batch %d: update %d: arrive decreases", number, i)
		}
		lastArrive = arrive
		if flags&1 != 0 {
			at += 24
		}
		if flags&2 != 0 {
			at += 32
		}
		xs = append(xs, x)
	}
	if at != len(b) {
		return nil, 0, 0, fmt.Errorf("batch %d: %d bytes after its %d updates", number, len(b)-at, n)
	}
	return xs, number, dropped, nil
}

// TestLinkResumesAfterADrop: a capture whose connection drops before a
// batch is acknowledged reconnects, resumes the same capture and resends
// from the last acknowledged batch: the lab stores every update once, in
// order.
func TestLinkResumesAfterADrop(t *testing.T) {
	dir := buildLink(t)
	l := newCaptureLab(t)
	l.dropAt = 3
	lines, cmd := startHarness(t, dir, l.page(), "20000", "65536")
	awaitSaved(t, lines, cmd)
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.hellos) < 2 {
		t.Errorf("%d hellos: the client did not reconnect", len(l.hellos))
	}
	if len(l.stored) != 20000 {
		t.Fatalf("the lab stored %d updates, want 20000", len(l.stored))
	}
	for i, x := range l.stored {
		if x != float64(i) {
			t.Fatalf("update %d stored is update %v: lost or repeated across the reconnection", i, x)
		}
	}
}

// TestLinkDropsOldestWhenSlowed: told to slow down, a client keeps its
// bounded queue, drops the oldest updates when it is full, counts them in
// its batches and its end, and its game thread never waits: recording
// 20,000 updates takes far less than the 20 s the lab's 1,000 a second would.
func TestLinkDropsOldestWhenSlowed(t *testing.T) {
	dir := buildLink(t)
	l := newCaptureLab(t)
	l.slowTo = 1000
	lines, cmd := startHarness(t, dir, l.page(), "20000", "2000")
	rec := await(t, lines, time.Minute, "the recording", func(s string) bool { return strings.HasPrefix(s, "recorded in ") })
	var ms int
	fmt.Sscanf(rec.text, "recorded in %d ms", &ms)
	if ms > 5000 {
		t.Errorf("recording 20000 updates took %d ms: the game's thread waited for the lab", ms)
	}
	if l := await(t, lines, time.Minute, "the capture's end", func(s string) bool { return s == "saved" || s == "not saved" }); l.text != "saved" {
		t.Fatal(l.text)
	}
	d := await(t, lines, 10*time.Second, "the dropped count", func(s string) bool { return strings.HasPrefix(s, "dropped ") })
	cmd.Wait()
	var dropped int
	fmt.Sscanf(d.text, "dropped %d", &dropped)
	l.mu.Lock()
	defer l.mu.Unlock()
	if dropped == 0 || len(l.stored)+dropped != 20000 || int(l.dropped) != dropped {
		t.Errorf("stored %d + dropped %d (the lab was told %d), want some dropped and 20000 in all", len(l.stored), dropped, l.dropped)
	}
	// The newest survive: the last update recorded is the last stored.
	if len(l.stored) > 0 && l.stored[len(l.stored)-1] != 19999 {
		t.Errorf("the last update stored is %v, want the newest, 19999", l.stored[len(l.stored)-1])
	}
}

// buildLink compiles the Unity link alone and its harness (with the
// harnesses' shared end).
func buildLink(t *testing.T) string {
	t.Helper()
	mcs := tool(t, "mcs")
	dir := t.TempDir()
	for _, args := range [][]string{
		{"-target:library", "-out:" + dir + "/InterpLab.dll", "unity/InterpLabLink.cs"},
		{"-target:exe", "-out:" + dir + "/Harness.exe", "-r:" + dir + "/InterpLab.dll", "testdata/link_harness.cs", harnessExit},
	} {
		if out, err := exec.Command(mcs, append([]string{"-nologo", "-warnaserror+"}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("mcs %v: %v\n%s", args, err, out)
		}
	}
	return dir
}
