package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"
)

// limitedServer serves a lab with limits on a loopback port through
// Server.Serve, as lab serve does, and returns its address.
func limitedServer(t *testing.T, l Limits) string {
	t.Helper()
	d := freshDeps(t)
	d.Limits = l
	s, err := New(d)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { s.Serve(ctx, ln); close(done) }()
	t.Cleanup(func() { cancel(); <-done; s.Close() })
	return ln.Addr().String()
}

// closedWithin tells whether the server closes c within d (reading and
// discarding whatever it answers first).
func closedWithin(c net.Conn, d time.Duration) bool {
	c.SetReadDeadline(time.Now().Add(d))
	_, err := io.Copy(io.Discard, c)
	// EOF: closed by the server; or a reset, when the server closed the
	// connection with bytes of ours unread (a trickled body still coming).
	return err == nil || errors.Is(err, syscall.ECONNRESET)
}

// A client that sends its body a byte at a time, or its header never, is
// cut off by the timeouts instead of holding its connection.
func TestSlowClientsTimedOut(t *testing.T) {
	l := DefaultLimits
	l.ReadHeader, l.Read = 500*time.Millisecond, time.Second
	addr := limitedServer(t, l)

	slowBody, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer slowBody.Close()
	fmt.Fprintf(slowBody, "POST /api/sessions HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{", addr)
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(200 * time.Millisecond):
				if _, err := slowBody.Write([]byte(" ")); err != nil {
					return
				}
			}
		}
	}()

	slowHeader, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer slowHeader.Close()
	fmt.Fprintf(slowHeader, "GET /api/params HTTP/1.1\r\nHost: %s\r\n", addr) // and never the blank line

	start := time.Now()
	if !closedWithin(slowBody, 10*time.Second) {
		t.Errorf("a body trickling a byte every 200 ms held its connection for %v, want it closed after the 1 s read timeout", time.Since(start))
	}
	if !closedWithin(slowHeader, 10*time.Second) {
		t.Errorf("an unfinished header held its connection for %v, want it closed after the 0.5 s header timeout", time.Since(start))
	}
}

// Beyond MaxConns connections busy with a request, new ones wait to be
// accepted until one closes. (Idle ones are closed to make room:
// TestIdleConnectionsDoNotLockOthersOut.)
func TestConnectionLimit(t *testing.T) {
	l := DefaultLimits
	l.MaxConns = 2
	addr := limitedServer(t, l)
	var held []net.Conn
	for range 2 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		// A request whose body never comes: its connection is busy.
		fmt.Fprintf(c, "POST /api/sessions HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{", addr)
		held = append(held, c)
	}
	time.Sleep(200 * time.Millisecond) // both accepted and busy
	third := &http.Client{Timeout: 500 * time.Millisecond}
	if _, err := third.Get("http://" + addr + "/api/params"); err == nil || !strings.Contains(err.Error(), "Timeout") {
		t.Errorf("a third connection beyond the limit of 2: %v, want it left waiting", err)
	}
	held[0].Close()
	third.Timeout = 5 * time.Second
	resp, err := third.Get("http://" + addr + "/api/params")
	if err != nil {
		t.Fatalf("after one closed: %v", err)
	}
	resp.Body.Close()
}
