package server

import (
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"interplab/cmd/lab/internal/jsonapi"
)

// startingRetry is how long a client of a lab that is starting is told to
// wait before it asks again.
const startingRetry = 2 * time.Second

// Starting is what a lab answers while it starts (waits for its database,
// backend.WaitForDB), so that a proxy or an orchestrator can tell a lab
// that is coming from one that is gone: /healthz 200, /readyz 503 with
// status() saying what it waits for, and anything else 503 with
// Retry-After. It reads nothing and names no address.
func Starting(status func() string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		switch r.URL.Path {
		case "/healthz":
			jsonapi.WriteJSON(w, http.StatusOK, map[string]string{"status": "ok"})
		case "/readyz":
			jsonapi.WriteJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "starting", "error": status()})
		default:
			msg := "the lab is starting: " + status() + "; try again in a few seconds"
			jsonapi.SetRetryAfter(w, startingRetry)
			if strings.Contains(r.Header.Get("Accept"), "text/html") {
				w.Header().Set("Content-Type", "text/plain; charset=utf-8")
				w.WriteHeader(http.StatusServiceUnavailable)
				w.Write([]byte(msg + ".\n"))
				return
			}
			jsonapi.WriteError(w, &jsonapi.Error{Status: http.StatusServiceUnavailable, Msg: msg, RetryAfter: startingRetry})
		}
	})
}

// Relay hands the connections of one listener to one server after
// another: the Starting answers while the lab starts, then the lab, on the
// same port and without a moment when the port is closed. Each View is a
// listener of its own: closing it (a server's shutdown) leaves the
// listener open for the next; the caller closes the listener at the end.
type Relay struct {
	ln    net.Listener
	conns chan net.Conn
	err   error // the listener's error, once conns is closed
}

// NewRelay starts relaying ln's connections.
func NewRelay(ln net.Listener) *Relay {
	r := &Relay{ln: ln, conns: make(chan net.Conn)}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				r.err = err
				close(r.conns)
				return
			}
			r.conns <- c
		}
	}()
	return r
}

// View returns a listener that takes the relay's connections until it is
// closed.
func (r *Relay) View() net.Listener {
	return &relayView{r: r, done: make(chan struct{})}
}

type relayView struct {
	r    *Relay
	done chan struct{}
	once sync.Once
}

func (v *relayView) Accept() (net.Conn, error) {
	select {
	case c, ok := <-v.r.conns:
		if !ok {
			return nil, v.r.err
		}
		return c, nil
	case <-v.done:
		return nil, net.ErrClosed
	}
}

func (v *relayView) Close() error {
	v.once.Do(func() { close(v.done) })
	return nil
}

func (v *relayView) Addr() net.Addr { return v.r.ln.Addr() }
