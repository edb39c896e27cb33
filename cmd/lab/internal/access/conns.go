package access

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"sync"
	"time"

	"interplab/cmd/lab/internal/jsonapi"
)

// Connections are capped three times, so that no client can hold what the
// others need: HTTP connections by LimitListener, for everyone together
// and for each client address beyond this machine; and WebSockets, which
// live for hours, by Sockets, per client. An upgraded connection leaves
// the first two counts for the third.

// MaxConnsPerClient is how many HTTP connections one client address beyond
// this machine may hold at once, of the lab's 1,024: a browser opens 6 to a
// host, a team's scripts a few dozen. Loopback and trusted proxies, which
// carry many clients, are not capped apart.
const MaxConnsPerClient = 64

// LimitListener returns a listener that accepts at most n connections at
// once (more wait to be accepted), at most perClient of them from one
// address that shared does not name (a connection over it gets a 429
// that says why, and is closed), and the http.Server.ConnState hook that
// gives a hijacked connection's slots back: a WebSocket is counted by
// Sockets, not here. netutil.LimitListener kept the slot until the
// connection closed, so a client with 1,024 WebSockets held them all;
// without the cap per address one client's idle connections could.
func LimitListener(ln net.Listener, n, perClient int, shared func(netip.Addr) bool) (net.Listener, func(net.Conn, http.ConnState)) {
	l := &limitListener{Listener: ln, sem: make(chan struct{}, n), done: make(chan struct{}),
		perClient: perClient, shared: shared, open: map[netip.Addr]int{}}
	return l, func(c net.Conn, state http.ConnState) {
		if lc, ok := c.(*limitConn); ok && state == http.StateHijacked {
			lc.release()
		}
	}
}

type limitListener struct {
	net.Listener
	sem       chan struct{} // a token per connection held
	closeOnce sync.Once
	done      chan struct{} // closed by Close

	perClient int
	shared    func(netip.Addr) bool // addresses not capped apart
	mu        sync.Mutex
	open      map[netip.Addr]int // connections held per capped address; none is no entry
}

func (l *limitListener) Accept() (net.Conn, error) {
	for {
		select {
		case l.sem <- struct{}{}:
		case <-l.done:
			return nil, net.ErrClosed
		}
		c, err := l.Listener.Accept()
		if err != nil {
			<-l.sem
			return nil, err
		}
		addr, capped := l.client(c)
		if !capped {
			return &limitConn{Conn: c, sem: l.sem}, nil
		}
		l.mu.Lock()
		over := l.open[addr] >= l.perClient
		if !over {
			l.open[addr]++
		}
		l.mu.Unlock()
		if !over {
			return &limitConn{Conn: c, sem: l.sem, give: func() { l.give(addr) }}, nil
		}
		<-l.sem
		go refuseConn(c, l.perClient)
	}
}

// client returns c's address and whether it is capped apart: not loopback
// nor one that shared names.
func (l *limitListener) client(c net.Conn) (netip.Addr, bool) {
	ap, err := netip.ParseAddrPort(c.RemoteAddr().String())
	if err != nil {
		return netip.Addr{}, false
	}
	a := ap.Addr().Unmap()
	return a, !a.IsLoopback() && (l.shared == nil || !l.shared(a))
}

func (l *limitListener) give(a netip.Addr) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.open[a]--; l.open[a] <= 0 {
		delete(l.open, a)
	}
}

// refuseConn answers a connection over its client's cap with a 429 that
// says why, and closes it.
func refuseConn(c net.Conn, perClient int) {
	defer c.Close()
	msg := fmt.Sprintf("this client has %d connections open to the lab, the most one client may: close some and try again\n", perClient)
	c.SetDeadline(time.Now().Add(2 * time.Second))
	fmt.Fprintf(c, "HTTP/1.1 429 Too Many Requests\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: %d\r\nRetry-After: 10\r\nConnection: close\r\n\r\n%s", len(msg), msg)
}

func (l *limitListener) Close() error {
	err := l.Listener.Close()
	l.closeOnce.Do(func() { close(l.done) })
	return err
}

// limitConn is a connection holding a slot of its listener, and of its
// client's cap when capped, until it is closed or hijacked.
type limitConn struct {
	net.Conn
	sem  chan struct{}
	give func() // gives the client's slot back; nil when not capped
	once sync.Once
}

func (c *limitConn) release() {
	c.once.Do(func() {
		<-c.sem
		if c.give != nil {
			c.give()
		}
	})
}

func (c *limitConn) Close() error {
	err := c.Conn.Close()
	c.release()
	return err
}

// MaxSocketsPerClient is how many WebSockets one client (one IP address)
// may hold open at once: a designer's tabs and a game or two. Loopback is
// one client.
const MaxSocketsPerClient = 16

// Sockets counts the open WebSockets of each client.
type Sockets struct {
	perClient int
	mu        sync.Mutex
	open      map[string]int // client → WebSockets open (or being opened); none is no entry
}

// NewSockets returns a count that lets each client hold perClient
// WebSockets.
func NewSockets(perClient int) *Sockets {
	return &Sockets{perClient: perClient, open: map[string]int{}}
}

// Limit lets an upgrade through while its client holds fewer than its
// cap of WebSockets, counting the connection until it closes; a client at
// its cap gets a 429 that says so, before anything is upgraded.
func (s *Sockets) Limit(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		client := ClientAddr(r)
		if !s.take(client) {
			w.Header().Set("Connection", "close")
			jsonapi.WriteError(w, &jsonapi.Error{Status: http.StatusTooManyRequests,
				Msg: fmt.Sprintf("this client has %d WebSockets open, the most one client may: close a lab tab (or a game's connection) and try again", s.perClient)})
			return
		}
		var once sync.Once
		hw := &hijackWriter{ResponseWriter: w, release: func() { once.Do(func() { s.give(client) }) }}
		defer func() {
			if !hw.hijacked {
				hw.release() // answered without upgrading
			}
		}()
		next.ServeHTTP(hw, r)
	})
}

func (s *Sockets) take(client string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.open[client] >= s.perClient {
		return false
	}
	s.open[client]++
	return true
}

func (s *Sockets) give(client string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.open[client]--; s.open[client] <= 0 {
		delete(s.open, client)
	}
}

// hijackWriter hands out the hijacked connection wrapped so that closing
// it gives its client's WebSocket back.
type hijackWriter struct {
	http.ResponseWriter
	release  func()
	hijacked bool
}

func (w *hijackWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	c, brw, err := http.NewResponseController(w.ResponseWriter).Hijack()
	if err != nil {
		return nil, nil, err
	}
	w.hijacked = true
	return &releaseConn{Conn: c, release: w.release}, brw, nil
}

func (w *hijackWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// releaseConn calls release once it is closed.
type releaseConn struct {
	net.Conn
	release func()
}

func (c *releaseConn) Close() error {
	err := c.Conn.Close()
	c.release()
	return err
}

// ClientAddr is who sent r as far as the network tells: its remote IP
// address (an IPv4 one in IPv6 form as IPv4), without the port, so that
// every connection of one machine (every tab, every program on it) is one
// client, and loopback is one.
func ClientAddr(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	if ip := net.ParseIP(host); ip != nil {
		return ip.String()
	}
	return host
}
