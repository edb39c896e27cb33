package live

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// A live trace keeps a sliding window of its latest packets and tells the
// game once when it starts dropping the oldest; across sessions the server
// holds at most traceTotalCap packets and refuses the rest with an error
// naming the cap, dropping nothing of the sessions that have them.
func TestLiveTraceCaps(t *testing.T) {
	h := New(multiLoader{}, time.Now)
	h.traceCap, h.traceTotalCap = 50, 120
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeWS(w, r, strings.TrimPrefix(r.URL.Path, "/ws/"))
	}))
	t.Cleanup(func() { h.Close(); srv.Close() })
	ws := "ws" + strings.TrimPrefix(srv.URL, "http") + "/ws/"

	send := func(c *websocket.Conn, k int) {
		t.Helper()
		msg := fmt.Sprintf(`{"type":"packet","sent":%d,"pos":[0,0,0],"vel":[1,0,0]}`, k+1)
		if err := c.WriteMessage(websocket.TextMessage, []byte(msg)); err != nil {
			t.Fatal(err)
		}
	}
	// The hub answers a packet only when it refuses it (or, once, with
	// the notice), so a set after each batch tells when it is handled.
	sync := func(c *websocket.Conn) []testMsg {
		t.Helper()
		if err := c.WriteMessage(websocket.TextMessage, []byte(`{"type":"set","name":"seed","value":7}`)); err != nil {
			t.Fatal(err)
		}
		var got []testMsg
		for {
			m := read(t, c)
			if m.Type == "config" {
				return got
			}
			got = append(got, m)
		}
	}
	held := func(id string) int {
		rows, _ := h.LiveTrace(id)
		return len(rows)
	}

	a := dial(t, ws+"aaaaaaaaaaaa")
	for k := range 50 {
		send(a, k)
	}
	if got := sync(a); len(got) != 0 {
		t.Fatalf("a window of 50 packets: the game was told %+v, want nothing", got)
	}
	for k := 50; k < 80; k++ {
		send(a, k)
	}
	got := sync(a)
	if len(got) != 1 || got[0].Type != "notice" || !strings.Contains(got[0].Notice, "latest 50 packets") {
		t.Fatalf("past the window: the game was told %+v, want one notice naming the window", got)
	}
	if n := held("aaaaaaaaaaaa"); n != 50 {
		t.Errorf("session a holds %d packets, want its window of 50", n)
	}

	b := dial(t, ws+"bbbbbbbbbbbb")
	for k := range 50 {
		send(b, k)
	}
	sync(b)
	c := dial(t, ws+"cccccccccccc")
	for k := range 30 {
		send(c, k)
	}
	got = sync(c)
	// 50 + 50 + 20 = 120: the last 10 of c's are refused.
	if len(got) != 10 || got[0].Type != "error" || !strings.Contains(got[0].Error, "120 live packets") {
		t.Fatalf("past the total: the game was told %d messages, first %+v; want 10 errors naming the cap", len(got), got[0])
	}
	if na, nb, nc := held("aaaaaaaaaaaa"), held("bbbbbbbbbbbb"), held("cccccccccccc"); na != 50 || nb != 50 || nc != 20 {
		t.Errorf("held %d, %d, %d packets; want 50, 50 and 20: nothing dropped from the others", na, nb, nc)
	}

	// When a session's last client leaves, its packets are freed.
	a.Close()
	deadline := time.Now().Add(5 * time.Second)
	for held("aaaaaaaaaaaa") != 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	for k := 30; k < 40; k++ {
		send(c, k)
	}
	if got := sync(c); len(got) != 0 {
		t.Errorf("after a session closed: the game was told %+v, want its packets taken", got)
	}
	if nc := held("cccccccccccc"); nc != 30 {
		t.Errorf("session c holds %d packets, want 30", nc)
	}
}
