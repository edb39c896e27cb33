package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
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
		got, err := followURL(tt.in)
		if tt.want == "" {
			if err == nil {
				t.Errorf("followURL(%q) = %q, want an error", tt.in, got)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("followURL(%q) = %q, %v, want %q", tt.in, got, err, tt.want)
		}
	}
}

func TestFollowUsage(t *testing.T) {
	tests := []struct {
		args []string
		code int
	}{
		{args: nil, code: 2},
		{args: []string{"http://h/s/abcdefgh2345", "extra"}, code: 2},
		{args: []string{"-bogus", "http://h/s/abcdefgh2345"}, code: 2},
		{args: []string{"not a url"}, code: 2},
		{args: []string{"-h"}, code: 0},
	}
	for _, tt := range tests {
		var out, errb bytes.Buffer
		if code := runFollow(tt.args, &out, &errb); code != tt.code {
			t.Errorf("runFollow(%q) = %d (%s), want %d", tt.args, code, errb.String(), tt.code)
		}
		if out.Len() != 0 {
			t.Errorf("runFollow(%q) printed %q on stdout, want nothing", tt.args, out.String())
		}
	}
}

// lab follow -once against the real server prints the session's config.
func TestFollowOnce(t *testing.T) {
	e := newSessionsEnv(t, t.TempDir())
	r := e.create(t, "followed", map[string]any{"latency": 0.075, "techniques": []string{"buffer"}})
	var out, errb bytes.Buffer
	if code := runFollow([]string{"-once", e.srv.URL + "/s/" + r.ID + "/r/1"}, &out, &errb); code != 0 {
		t.Fatalf("lab follow -once = %d, stderr %s", code, errb.String())
	}
	want, _ := json.Marshal(sessionExport{Schema: exportSchema, Settings: r.Settings})
	if got := out.String(); got != string(want)+"\n" {
		t.Errorf("lab follow -once printed\n%s\nwant\n%s", got, want)
	}
}

func TestFollowFailures(t *testing.T) {
	e := newSessionsEnv(t, t.TempDir())
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closedPort := ln.Addr().String()
	ln.Close()
	tests := []struct {
		name string
		args []string
		want string // in stderr
	}{
		{name: "unknown session", args: []string{e.srv.URL + "/s/zzzzzzzzzzzz"}, want: "not found"},
		{name: "nothing listening, -once", args: []string{"-once", "http://" + closedPort + "/s/zzzzzzzzzzzz"}, want: "connect"},
	}
	for _, tt := range tests {
		var out, errb bytes.Buffer
		done := make(chan int)
		go func() { done <- runFollow(tt.args, &out, &errb) }()
		select {
		case code := <-done:
			if code != 1 || !strings.Contains(errb.String(), tt.want) {
				t.Errorf("%s: exit %d, stderr %q; want 1 and %q", tt.name, code, errb.String(), tt.want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: lab follow did not exit", tt.name)
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
	f := follower{url: "ws" + strings.TrimPrefix(srv.URL, "http") + "/ws/sessions/abcdefgh2345",
		stdout: out, stderr: errb, minWait: time.Millisecond, maxWait: 4 * time.Millisecond,
		jitter: func(int64) int64 { return 0 }}
	done := make(chan int)
	go func() { done <- f.run(ctx) }()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("follow after interrupt = %d, want 0; stderr %s", code, errb.String())
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

// A game following a session that gets deleted stops with exit code 1.
func TestFollowStopsWhenSessionDeleted(t *testing.T) {
	e := newSessionsEnv(t, t.TempDir())
	id := e.create(t, "doomed", nil).ID
	deleted := make(chan struct{})
	out := &lineWriter{onLine: func(n int) {
		if n == 1 {
			go func() {
				if status, data := e.do(t, "DELETE", "/api/sessions/"+id, nil); status != http.StatusOK {
					t.Errorf("delete = %d %s, want 200", status, data)
				}
				close(deleted)
			}()
		}
	}}
	errb := &syncBuffer{}
	f := follower{url: e.wsURL(id), stdout: out, stderr: errb, minWait: time.Millisecond, maxWait: time.Millisecond,
		jitter: func(int64) int64 { return 0 }}
	done := make(chan int)
	go func() { done <- f.run(context.Background()) }()
	select {
	case code := <-done:
		if code != 1 || !strings.Contains(errb.String(), "deleted") {
			t.Errorf("follow of a deleted session = %d, stderr %q; want 1 saying it was deleted", code, errb.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("follow did not stop after the delete; stderr %s", errb.String())
	}
	<-deleted
}
