package pgtest

import (
	"fmt"
	"io"
	"net"
	"net/url"
	"strconv"
	"sync"
	"testing"
)

// Proxy stands between a process under test and the server, on a port of
// its own, so that a test can take the database away and bring it back:
// while down nothing listens on the port (a dial is refused, as when
// PostgreSQL is not running) and the connections it carried are closed.
type Proxy struct {
	target string // the server's host:port
	port   int

	mu    sync.Mutex
	ln    net.Listener // nil while down
	conns map[net.Conn]struct{}
}

// NewProxy returns the address of the database at dbURL (as New returns
// it) through a Proxy, and the Proxy, up or down as up says; it is closed
// when the test ends.
func NewProxy(t testing.TB, dbURL string, up bool) (string, *Proxy) {
	t.Helper()
	u, err := url.Parse(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	p := &Proxy{target: u.Host, port: port, conns: map[net.Conn]struct{}{}}
	if up {
		if err := p.Up(); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(p.Down)
	u.Host = net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	return u.String(), p
}

// Up starts listening and carrying connections to the server.
func (p *Proxy) Up() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln != nil {
		return nil
	}
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p.port)))
	if err != nil {
		return fmt.Errorf("pgtest: proxy: %w", err)
	}
	p.ln = ln
	go p.accept(ln)
	return nil
}

// Down stops listening and closes every connection it carried.
func (p *Proxy) Down() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln != nil {
		p.ln.Close()
		p.ln = nil
	}
	for c := range p.conns {
		c.Close()
	}
	clear(p.conns)
}

func (p *Proxy) accept(ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		go p.carry(c)
	}
}

// carry copies c's bytes to and from a new connection to the server.
func (p *Proxy) carry(c net.Conn) {
	s, err := net.Dial("tcp", p.target)
	if err != nil {
		c.Close()
		return
	}
	p.mu.Lock()
	if p.ln == nil {
		p.mu.Unlock()
		c.Close()
		s.Close()
		return
	}
	p.conns[c], p.conns[s] = struct{}{}, struct{}{}
	p.mu.Unlock()
	go func() { io.Copy(s, c); s.Close() }()
	io.Copy(c, s)
	c.Close()
}
