package access

import (
	"sync"
	"time"
)

// Wrong tokens, sent as a bearer token or typed in the login form, slow
// their client down so that the token cannot be guessed at network speed:
// FreeFailures at once, then a wait before each next try, FirstDelay
// doubling with every failure up to MaxDelay; after LockoutFailures the
// client is locked out for Lockout, and while it waits or is locked out
// nothing it sends is checked, the right token included. A client's
// failures are forgotten when it gives the right token, or forgetAfter
// after the last one.
const (
	FreeFailures    = 5
	FirstDelay      = time.Second
	MaxDelay        = time.Minute
	LockoutFailures = 20
	Lockout         = 15 * time.Minute
	forgetAfter     = time.Hour
	// maxMetered bounds the clients remembered, so that failures from
	// many addresses cannot grow the meter without end: beyond it the
	// longest quiet client is forgotten first.
	maxMetered = 10000

	// GlobalBurst and GlobalRate bound the wrong tokens of every client
	// together, so that many addresses (each with its FreeFailures) cannot
	// guess at network speed: GlobalBurst at once, then GlobalRate a
	// second; beyond that every try waits, from any client (a browser
	// already signed in is not asked for the token, and is not held up).
	GlobalBurst = 100
	GlobalRate  = 1.0
)

// meter counts each client's wrong tokens.
type meter struct {
	mu      sync.Mutex
	clients map[string]*failures

	// Every client's wrong tokens together, as a leaky bucket: level
	// leaks at GlobalRate a second since last, and each wrong token adds
	// one.
	level float64
	last  time.Time
}

// failures are a client's recent wrong tokens.
type failures struct {
	n     int       // since the last right token, or forgetAfter of quiet
	last  time.Time // the latest
	until time.Time // no try is checked before
}

func newMeter() *meter { return &meter{clients: map[string]*failures{}} }

// delay is the wait after n failures: none, growing, or the lock-out.
func delay(n int) time.Duration {
	switch {
	case n < FreeFailures:
		return 0
	case n >= LockoutFailures:
		return Lockout
	}
	d := FirstDelay
	for range n - FreeFailures {
		if d *= 2; d >= MaxDelay {
			return MaxDelay
		}
	}
	return d
}

// wait returns when client may try again, and whether it must wait (it
// is locked out when its failures reached LockoutFailures).
func (m *meter) wait(client string, now time.Time) (until time.Time, locked, waits bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	f := m.clients[client]
	if f == nil {
		return time.Time{}, false, false
	}
	if now.Sub(f.last) >= forgetAfter {
		delete(m.clients, client)
		return time.Time{}, false, false
	}
	if now.Before(f.until) {
		return f.until, f.n >= LockoutFailures, true
	}
	return time.Time{}, false, false
}

// leakLocked lets the bucket of every client's wrong tokens leak until
// now.
func (m *meter) leakLocked(now time.Time) {
	if now.After(m.last) {
		m.level = max(0, m.level-now.Sub(m.last).Seconds()*GlobalRate)
		m.last = now
	}
}

// everyone returns until when every client must wait, and whether it must:
// the wrong tokens of every client together reached GlobalBurst.
func (m *meter) everyone(now time.Time) (until time.Time, waits bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.leakLocked(now)
	if over := m.level - (GlobalBurst - 1); over > 0 {
		return now.Add(time.Duration(over / GlobalRate * float64(time.Second))), true
	}
	return time.Time{}, false
}

// fail records a wrong token from client at now.
func (m *meter) fail(client string, now time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.leakLocked(now)
	m.level++
	f := m.clients[client]
	if f == nil {
		if len(m.clients) >= maxMetered {
			m.forgetLocked(now)
		}
		f = &failures{}
		m.clients[client] = f
	}
	f.n++
	f.last = now
	f.until = now.Add(delay(f.n))
}

// forgetLocked drops the clients quiet for forgetAfter and, if that is not
// room enough, the quietest.
func (m *meter) forgetLocked(now time.Time) {
	var quietest string
	for c, f := range m.clients {
		if now.Sub(f.last) >= forgetAfter {
			delete(m.clients, c)
		} else if quietest == "" || f.last.Before(m.clients[quietest].last) {
			quietest = c
		}
	}
	if len(m.clients) >= maxMetered {
		delete(m.clients, quietest)
	}
}

// succeed forgets client's failures: it gave the right token.
func (m *meter) succeed(client string) {
	m.mu.Lock()
	delete(m.clients, client)
	m.mu.Unlock()
}
