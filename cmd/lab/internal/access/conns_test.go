package access

import (
	"bufio"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"testing"
	"time"
)

// fakeListener hands out one side of a pipe per Accept, with the remote
// address the test names; the test holds the other side.
type fakeListener struct{ conns chan net.Conn }

func (l *fakeListener) Accept() (net.Conn, error) {
	c, ok := <-l.conns
	if !ok {
		return nil, net.ErrClosed
	}
	return c, nil
}
func (l *fakeListener) Close() error   { return nil }
func (l *fakeListener) Addr() net.Addr { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080} }

type addrConn struct {
	net.Conn
	remote net.Addr
}

func (c addrConn) RemoteAddr() net.Addr { return c.remote }

// dial queues a connection from addr and returns the client's side.
func (l *fakeListener) dial(t *testing.T, addr string) net.Conn {
	t.Helper()
	server, client := net.Pipe()
	l.conns <- addrConn{server, net.TCPAddrFromAddrPort(netip.MustParseAddrPort(addr))}
	return client
}

// One address beyond this machine holds at most its cap of connections:
// the next gets a 429 that says why and is closed, and a slot given back
// (closed, or upgraded to a WebSocket) lets another in. Loopback and the
// trusted proxies carry many clients and are not capped apart.
func TestLimitListenerPerClient(t *testing.T) {
	fl := &fakeListener{conns: make(chan net.Conn, 16)}
	proxy := netip.MustParseAddr("10.0.0.9")
	ln, hook := LimitListener(fl, 100, 2, func(a netip.Addr) bool { return a == proxy })
	accepted := make(chan net.Conn, 16)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				close(accepted)
				return
			}
			accepted <- c
		}
	}()
	accept := func(from string) net.Conn {
		t.Helper()
		select {
		case c := <-accepted:
			return c
		case <-time.After(2 * time.Second):
			t.Fatalf("a connection from %s was not accepted", from)
			return nil
		}
	}
	var held []net.Conn
	for range 2 {
		fl.dial(t, "203.0.113.5:4000")
		held = append(held, accept("203.0.113.5"))
	}
	over := fl.dial(t, "203.0.113.5:4001")
	over.SetDeadline(time.Now().Add(2 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(over), nil)
	if err != nil {
		t.Fatalf("the connection over the cap: %v", err)
	}
	var body strings.Builder
	bufio.NewReader(resp.Body).WriteTo(&body)
	if resp.StatusCode != http.StatusTooManyRequests || !strings.Contains(body.String(), "2 connections open") {
		t.Errorf("over the cap: %s %q, want 429 saying the cap", resp.Status, body.String())
	}
	// Other clients, loopback and the proxy are let in meanwhile.
	for _, from := range []string{"198.51.100.7:1", "127.0.0.1:1", "127.0.0.1:2", "127.0.0.1:3", "10.0.0.9:1", "10.0.0.9:2", "10.0.0.9:3", "[::ffff:10.0.0.9]:4"} {
		fl.dial(t, from)
		accept(from)
	}
	// A slot given back lets the client in again: closed, or hijacked.
	held[0].Close()
	fl.dial(t, "203.0.113.5:4002")
	held = append(held, accept("203.0.113.5 after a close"))
	hook(held[1], http.StateHijacked)
	fl.dial(t, "203.0.113.5:4003")
	accept("203.0.113.5 after an upgrade")
	close(fl.conns)
}

// An IPv6 client is its /64, which one host may hold whole: its
// addresses share one cap. Another /64 is another client.
func TestLimitListenerPerIPv6Prefix(t *testing.T) {
	fl := &fakeListener{conns: make(chan net.Conn, 16)}
	ln, _ := LimitListener(fl, 100, 2, nil)
	accepted := make(chan net.Conn, 16)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				close(accepted)
				return
			}
			accepted <- c
		}
	}()
	for _, from := range []string{"[2001:db8:1:2::1]:1", "[2001:db8:1:2:ffff::9]:1"} {
		fl.dial(t, from)
		select {
		case <-accepted:
		case <-time.After(2 * time.Second):
			t.Fatalf("the connection from %s was not accepted", from)
		}
	}
	over := fl.dial(t, "[2001:db8:1:2:abcd::77]:1")
	over.SetDeadline(time.Now().Add(2 * time.Second))
	if resp, err := http.ReadResponse(bufio.NewReader(over), nil); err != nil || resp.StatusCode != http.StatusTooManyRequests {
		t.Errorf("a third address of the /64 with a cap of 2: %v, %v; want 429", resp, err)
	}
	fl.dial(t, "[2001:db8:1:3::1]:1")
	select {
	case <-accepted:
	case <-time.After(2 * time.Second):
		t.Errorf("another /64 was not accepted")
	}
	close(fl.conns)
}
