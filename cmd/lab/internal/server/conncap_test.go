package server

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// createOver creates a session on the lab at addr over a connection that
// closes after the answer (so that it holds no connection slot), and
// returns its id.
func createOver(t *testing.T, addr string) string {
	t.Helper()
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 10 * time.Second}
	resp, err := client.Post("http://"+addr+"/api/sessions", "application/json", strings.NewReader(`{"name":"conns"}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var r struct{ ID string }
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil || resp.StatusCode != http.StatusCreated {
		t.Fatalf("create a session = %d, %v", resp.StatusCode, err)
	}
	return r.ID
}

// paramsWithin tells whether GET /api/params on a new connection answers
// 200 within d, and if not why.
func paramsWithin(addr string, d time.Duration) error {
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: d}
	resp, err := client.Get("http://" + addr + "/api/params")
	if err != nil {
		return err
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("status %d", resp.StatusCode)
	}
	return nil
}

// An upgraded connection is no longer an HTTP connection: it gives its
// slot of Limits.MaxConns back, so WebSockets cannot keep requests waiting.
func TestHijackedConnectionsGiveTheirSlotBack(t *testing.T) {
	l := DefaultLimits
	l.MaxConns = 2
	addr := limitedServer(t, l)
	id := createOver(t, addr)
	dialer := websocket.Dialer{HandshakeTimeout: 5 * time.Second}
	for i := range 3 {
		c, _, err := dialer.Dial("ws://"+addr+"/ws/sessions/"+id, nil)
		if err != nil {
			t.Fatalf("WebSocket %d with a limit of 2 connections: %v", i+1, err)
		}
		defer c.Close()
	}
	if err := paramsWithin(addr, 5*time.Second); err != nil {
		t.Errorf("GET /api/params with 3 WebSockets open and a limit of 2 connections: %v, want an answer", err)
	}
}

// One client opening 1,030 WebSockets gets Limits.SocketsPerClient of
// them and a 429 saying the cap for the rest, the jobs' WebSockets
// counted with the sessions', and everybody else is still served: the
// issue's one client held all 1,024 connections, and GET /api/params
// waited more than 90 s.
func TestOneClientCannotHoldEveryConnection(t *testing.T) {
	if testing.Short() {
		t.Skip("opens 1,030 connections")
	}
	addr := limitedServer(t, DefaultLimits)
	id := createOver(t, addr)
	perClient := DefaultLimits.SocketsPerClient
	dialer := websocket.Dialer{HandshakeTimeout: 2 * time.Second}
	const n = 1030
	open, refused := 0, 0
	var other []string
	for i := range n {
		c, resp, err := dialer.Dial("ws://"+addr+"/ws/sessions/"+id, nil)
		switch {
		case err == nil:
			open++
			defer c.Close()
		case resp != nil && resp.StatusCode == http.StatusTooManyRequests:
			data, _ := io.ReadAll(resp.Body)
			if refused++; refused == 1 && !strings.Contains(string(data), fmt.Sprint(perClient)) {
				t.Errorf("the refusal %s does not say the cap of %d", data, perClient)
			}
		default:
			status := 0
			if resp != nil {
				status = resp.StatusCode
			}
			if len(other) < 5 {
				other = append(other, fmt.Sprintf("dial %d: %d %v", i+1, status, err))
			}
		}
	}
	if len(other) > 0 {
		t.Errorf("dials neither upgraded nor refused: %q", other)
	}
	if open != perClient || refused != n-perClient {
		t.Errorf("%d WebSockets open and %d refused with 429 of %d dials, want %d and %d", open, refused, n, perClient, n-perClient)
	}
	if err := paramsWithin(addr, time.Second); err != nil {
		t.Errorf("GET /api/params after one client's %d dials: %v, want an answer within 1 s", n, err)
	}
	// A job's progress is a WebSocket of the same client too.
	if _, resp, err := dialer.Dial("ws://"+addr+"/ws/jobs/0123456789abcdef", nil); resp == nil || resp.StatusCode != http.StatusTooManyRequests {
		t.Errorf("a job's WebSocket beyond the cap: %v, want 429", err)
	}
}

// A client's WebSockets come back when they close: a tab closed makes
// room for the next one.
func TestWebSocketsComeBackWhenClosed(t *testing.T) {
	e := newSessionsEnv(t, t.TempDir())
	id := e.create(t, "tabs", nil).ID
	perClient := DefaultLimits.SocketsPerClient
	var open []*websocket.Conn
	for range perClient {
		c, _ := e.dial(t, id)
		open = append(open, c)
	}
	defer func() {
		for _, c := range open {
			c.Close()
		}
	}()
	if _, resp, err := websocket.DefaultDialer.Dial(e.wsURL(id), nil); resp == nil || resp.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("WebSocket %d: %v, want 429", perClient+1, err)
	}
	open[0].Close()
	var again *websocket.Conn
	if !waitFor(t.Context(), func() bool {
		c, _, err := websocket.DefaultDialer.Dial(e.wsURL(id), nil)
		if err == nil {
			again = c
		}
		return err == nil
	}, 10*time.Second) {
		t.Fatalf("after one of %d WebSockets closed, a new one is still refused", perClient)
	}
	open[0] = again
}
