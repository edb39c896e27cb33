package access

import (
	"bufio"
	"container/list"
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
// this machine (an IPv6 client's whole /64, which one host may hold) may
// hold at once, of the lab's 1,024: a browser opens 6 to a host, a team's
// scripts a few dozen. Loopback and trusted proxies, which carry many
// clients, are not capped apart.
const MaxConnsPerClient = 64

// newGrace is how long a connection that has sent no request yet is
// spared when room is made: a person's connection sends its request at
// once.
const newGrace = 2 * time.Second

// LimitListener returns a listener that accepts at most n connections at
// once, at most perClient of them from one address (an IPv6 /64) that
// shared does not name (a connection over it gets a 429 that says why,
// and is closed), and the http.Server.ConnState hook that keeps track of
// each connection: a hijacked one gives its slots back (a WebSocket is
// counted by Sockets, not here), and the idle ones (a keep-alive between
// requests, or one that sent nothing for newGrace) are the first to go
// when the cap is near: from n less a sixteenth on, each connection
// accepted closes the longest idle one, and at n a new connection waits
// only until one is idle. netutil.LimitListener kept the slot until the
// connection closed, so a client with 1,024 WebSockets held them all, and
// 16 addresses with 64 idle keep-alive connections each kept everybody
// else waiting.
func LimitListener(ln net.Listener, n, perClient int, shared func(netip.Addr) bool) (net.Listener, func(net.Conn, http.ConnState)) {
	l := &limitListener{Listener: ln, sem: make(chan struct{}, n), done: make(chan struct{}), headroom: n / 16,
		perClient: perClient, shared: shared, open: map[netip.Prefix]int{}, idle: list.New(), wake: make(chan struct{}, 1)}
	return l, l.track
}

type limitListener struct {
	net.Listener
	sem       chan struct{} // a token per connection held
	closeOnce sync.Once
	done      chan struct{} // closed by Close
	headroom  int           // from cap(sem) less this on, idle connections are closed

	perClient int
	shared    func(netip.Addr) bool // addresses not capped apart

	mu   sync.Mutex
	open map[netip.Prefix]int // connections held per capped client; none is no entry
	idle *list.List           // of *limitConn that could go, the longest idle first
	wake chan struct{}        // a connection went idle
}

func (l *limitListener) Accept() (net.Conn, error) {
	for {
		if len(l.sem) >= cap(l.sem)-l.headroom {
			l.closeIdle(time.Now())
		}
		select {
		case l.sem <- struct{}{}:
		case <-l.wake:
			continue // a connection went idle: make room
		case <-time.After(newGrace):
			continue // a new connection may have become idle
		case <-l.done:
			return nil, net.ErrClosed
		}
		c, err := l.Listener.Accept()
		if err != nil {
			<-l.sem
			return nil, err
		}
		client, capped := l.client(c)
		lc := &limitConn{Conn: c, l: l, since: time.Now()}
		if capped {
			l.mu.Lock()
			over := l.open[client] >= l.perClient
			if !over {
				l.open[client]++
			}
			l.mu.Unlock()
			if over {
				<-l.sem
				go refuseConn(c, l.perClient)
				continue
			}
			lc.give = func() { l.give(client) }
		}
		l.mu.Lock()
		lc.elem = l.idle.PushBack(lc) // new: it may go once newGrace has passed
		l.mu.Unlock()
		return lc, nil
	}
}

// track is the ConnState hook: it keeps the idle list, and gives a
// hijacked connection's slots back.
func (l *limitListener) track(c net.Conn, state http.ConnState) {
	lc, ok := c.(*limitConn)
	if !ok {
		return
	}
	switch state {
	case http.StateActive:
		l.mu.Lock()
		l.unlist(lc)
		lc.requests++
		l.mu.Unlock()
	case http.StateIdle:
		l.mu.Lock()
		l.unlist(lc)
		lc.since = time.Now()
		lc.elem = l.idle.PushBack(lc)
		l.mu.Unlock()
		select {
		case l.wake <- struct{}{}:
		default:
		}
	case http.StateHijacked, http.StateClosed:
		l.mu.Lock()
		l.unlist(lc)
		l.mu.Unlock()
		if state == http.StateHijacked {
			lc.release()
		}
	}
}

// unlist takes c off the idle list; l.mu is held.
func (l *limitListener) unlist(c *limitConn) {
	if c.elem != nil {
		l.idle.Remove(c.elem)
		c.elem = nil
	}
}

// closeIdle closes the connection idle the longest at now: one idle
// between requests, or one that has sent nothing for newGrace.
func (l *limitListener) closeIdle(now time.Time) {
	l.mu.Lock()
	var victim *limitConn
	for e := l.idle.Front(); e != nil; e = e.Next() {
		c := e.Value.(*limitConn)
		if c.requests > 0 || now.Sub(c.since) >= newGrace {
			victim = c
			l.unlist(c)
			break
		}
	}
	l.mu.Unlock()
	if victim != nil {
		victim.Close()
	}
}

// client returns c's client, its address or an IPv6 address's /64, and
// whether it is capped apart: not loopback nor one that shared names.
func (l *limitListener) client(c net.Conn) (netip.Prefix, bool) {
	ap, err := netip.ParseAddrPort(c.RemoteAddr().String())
	if err != nil {
		return netip.Prefix{}, false
	}
	a := ap.Addr().Unmap()
	bits := a.BitLen()
	if a.Is6() {
		bits = 64
	}
	p, _ := a.Prefix(bits)
	return p, !a.IsLoopback() && (l.shared == nil || !l.shared(a))
}

func (l *limitListener) give(p netip.Prefix) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.open[p]--; l.open[p] <= 0 {
		delete(l.open, p)
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
	l    *limitListener
	give func() // gives the client's slot back; nil when not capped
	once sync.Once

	// Kept under l.mu:
	elem     *list.Element // on the idle list; nil when not
	since    time.Time     // accepted, or last gone idle
	requests int           // requests begun
}

func (c *limitConn) release() {
	c.once.Do(func() {
		c.l.mu.Lock()
		c.l.unlist(c)
		c.l.mu.Unlock()
		<-c.l.sem
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
