package server

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"interplab/cmd/lab/internal/store"
	"interplab/engine"
)

// The capture socket is an ordinary WebSocket of the lab's: it needs the
// token, a session that exists, and counts in the client's sockets; the
// settings socket refuses an identification that breaks the rules.
func TestCaptureSocketAccess(t *testing.T) {
	d := tokenDeps(t)
	l := DefaultLimits
	l.SocketsPerClient = 2
	d.Limits = l
	s, err := New(d)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	ts := serve(t, s)
	rev, err := d.Store.Create(store.Draft{Name: "access", Settings: engine.Defaults()}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	ws := "ws" + strings.TrimPrefix(ts.URL, "http") + "/ws/sessions/"
	bearer := http.Header{"Authorization": {"Bearer " + testToken}}
	dial := func(url string, h http.Header) (*websocket.Conn, int) {
		t.Helper()
		c, resp, err := websocket.DefaultDialer.Dial(url, h)
		if err != nil {
			if resp == nil {
				t.Fatalf("dial %s: %v", url, err)
			}
			return nil, resp.StatusCode
		}
		t.Cleanup(func() { c.Close() })
		return c, http.StatusSwitchingProtocols
	}
	for _, tc := range []struct {
		name string
		url  string
		h    http.Header
		want int
	}{
		{"no token", ws + rev.ID + "/capture", nil, http.StatusUnauthorized},
		{"a wrong token", ws + rev.ID + "/capture", http.Header{"Authorization": {"Bearer not-the-token-at-all"}}, http.StatusUnauthorized},
		{"no such session", ws + "aaaaaaaaaaaa/capture", bearer, http.StatusNotFound},
		{"a bad engine name", ws + rev.ID + "?engine=Unreal%20Engine", bearer, http.StatusBadRequest},
		{"another page's origin", ws + rev.ID + "/capture", http.Header{"Authorization": {"Bearer " + testToken}, "Origin": {"https://evil.example"}}, http.StatusForbidden},
	} {
		if _, code := dial(tc.url, tc.h); code != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, code, tc.want)
		}
	}
	settings, code := dial(ws+rev.ID+"?engine=unreal&version=5.4.4", bearer)
	if code != http.StatusSwitchingProtocols {
		t.Fatalf("the settings socket with the token: %d", code)
	}
	defer settings.Close()
	game, code := dial(ws+rev.ID+"/capture", bearer)
	if code != http.StatusSwitchingProtocols {
		t.Fatalf("the capture socket with the token: %d", code)
	}
	game.WriteMessage(websocket.TextMessage, []byte(`{"type":"hello","protocol":1,"engine":"ngo","version":"2.1.1","rate":30}`))
	var w struct{ Type, Capture string }
	game.SetReadDeadline(time.Now().Add(5 * time.Second))
	if err := game.ReadJSON(&w); err != nil || w.Type != "welcome" {
		t.Fatalf("welcome: %+v, %v", w, err)
	}
	// A third socket of the same client is over its two.
	if _, code := dial(ws+rev.ID+"/capture", bearer); code != http.StatusTooManyRequests {
		t.Errorf("a third socket: %d, want 429", code)
	}
}
