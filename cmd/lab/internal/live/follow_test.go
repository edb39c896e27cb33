package live

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

func TestFollowURL(t *testing.T) {
	const id = "abcdefgh2345"
	tests := []struct {
		in   string
		want string // "" for an error
	}{
		{in: "http://localhost:8080/s/" + id, want: "ws://localhost:8080/ws/sessions/" + id},
		{in: "http://localhost:8080/s/" + id + "/", want: "ws://localhost:8080/ws/sessions/" + id},
		{in: "http://localhost:8080/s/" + id + "/r/3", want: "ws://localhost:8080/ws/sessions/" + id},
		{in: "https://lab.example/s/" + id + "?x=1#top", want: "wss://lab.example/ws/sessions/" + id},
		{in: "HTTPS://lab.example/s/" + id, want: "wss://lab.example/ws/sessions/" + id},
		{in: "ws://127.0.0.1:9/ws/sessions/" + id, want: "ws://127.0.0.1:9/ws/sessions/" + id},
		{in: "wss://lab.example/ws/sessions/" + id, want: "wss://lab.example/ws/sessions/" + id},
		{in: "http://h/api/sessions/" + id, want: "ws://h/ws/sessions/" + id},
		{in: "http://h/lab/s/" + id, want: "ws://h/lab/ws/sessions/" + id},
		{in: "http://[::1]:8080/s/" + id, want: "ws://[::1]:8080/ws/sessions/" + id},
		{in: "localhost:8080/s/" + id},
		{in: "/s/" + id},
		{in: "ftp://h/s/" + id},
		{in: "http://h/"},
		{in: "http://h/s/"},
		{in: "http://h/s/" + id + "/edit"},
		{in: "http://h/s/../../etc"},
		{in: "http://h/s/ABCDEFGH2345"},
		{in: "http://h/ws/sessions/%2e%2e%2fx"},
		{in: "http://h/s/" + id + "x"},
		{in: "http://%zz/s/" + id},
	}
	for _, tt := range tests {
		got, err := FollowURL(tt.in)
		if tt.want == "" {
			if err == nil {
				t.Errorf("FollowURL(%q) = %q, want an error", tt.in, got)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("FollowURL(%q) = %q, %v, want %q", tt.in, got, err, tt.want)
		}
	}
}

// lineWriter collects lines and calls onLine after each.
type lineWriter struct {
	mu     sync.Mutex
	lines  []string
	onLine func(n int)
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	for _, l := range strings.SplitAfter(string(p), "\n") {
		if l != "" {
			w.lines = append(w.lines, l)
		}
	}
	n := len(w.lines)
	w.mu.Unlock()
	if w.onLine != nil {
		w.onLine(n)
	}
	return len(p), nil
}

func (w *lineWriter) get() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.lines...)
}

// syncBuffer is a bytes.Buffer safe for a writer and a reader.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// lab follow reconnects after a server error or a dropped connection and
// prints only configs.
func TestFollowReconnects(t *testing.T) {
	var conns atomic.Int64
	up := websocket.Upgrader{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := conns.Add(1)
		if n == 1 {
			http.Error(w, "starting up", http.StatusServiceUnavailable)
			return
		}
		c, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer c.Close()
		c.WriteMessage(websocket.TextMessage, []byte(`{"type":"set","name":"seed","value":1,"from":"c1"}`))
		c.WriteMessage(websocket.TextMessage, []byte(`{"type":"error","error":"x"}`))
		c.WriteMessage(websocket.TextMessage, []byte(fmt.Sprintf(
			`{"type":"config","session":"abcdefgh2345","rev":1,"config":{ "schema": 1, "settings": {"n": %d} }}`, n)))
		if n%2 == 0 {
			c.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseGoingAway, "restart"), time.Now().Add(time.Second))
		} // else drop the TCP connection without a close frame
	}))
	defer srv.Close()

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out := &lineWriter{onLine: func(n int) {
		if n == 3 {
			cancel()
		}
	}}
	errb := &syncBuffer{}
	f := Follower{URL: "ws" + strings.TrimPrefix(srv.URL, "http") + "/ws/sessions/abcdefgh2345",
		Stdout: out, Stderr: errb, MinWait: time.Millisecond, MaxWait: 4 * time.Millisecond,
		Jitter: func(int64) int64 { return 0 }}
	done := make(chan error)
	go func() { done <- f.Run(ctx) }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("follow after interrupt = %v, want nil; stderr %s", err, errb.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("follow did not print 3 configs; stdout %q, stderr %s", out.get(), errb.String())
	}
	want := []string{
		`{"schema":1,"settings":{"n":2}}` + "\n",
		`{"schema":1,"settings":{"n":3}}` + "\n",
		`{"schema":1,"settings":{"n":4}}` + "\n",
	}
	if got := out.get(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("follow printed %q, want %q", got, want)
	}
	if !strings.Contains(errb.String(), "503") || !strings.Contains(errb.String(), "reconnecting") {
		t.Errorf("stderr %q, want the 503 and the reconnections reported", errb.String())
	}
}

// A game following a session that gets deleted stops with ErrGone.
func TestFollowStopsWhenSessionGone(t *testing.T) {
	eachBus(t, func(t *testing.T, bus Bus) {
		h, ws := hubServerWith(t, bus)
		deleted := make(chan struct{})
		out := &lineWriter{onLine: func(n int) {
			if n == 1 {
				go func() {
					h.Gone(testID)
					close(deleted)
				}()
			}
		}}
		errb := &syncBuffer{}
		f := Follower{URL: ws + testID, Stdout: out, Stderr: errb, MinWait: time.Millisecond, MaxWait: time.Millisecond,
			Jitter: func(int64) int64 { return 0 }}
		done := make(chan error)
		go func() { done <- f.Run(context.Background()) }()
		select {
		case err := <-done:
			if !errors.Is(err, ErrGone) || !strings.Contains(err.Error(), "deleted") {
				t.Errorf("follow of a deleted session = %v, want ErrGone saying it was deleted", err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("follow did not stop after the delete; stderr %s", errb.String())
		}
		<-deleted
	})
}
