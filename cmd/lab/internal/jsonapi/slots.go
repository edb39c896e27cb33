package jsonapi

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// Slots is a small pool for the requests that hold much memory or CPU
// for a while (reading a whole trace, running a comparison): at most n run
// at once, whatever the number of clients, so the server's peak memory is
// n requests' worth; and each client (a key: TakeFor) holds at most its
// share of them, so that no client can take them all. A request waits for
// its share and a slot at most the pool's wait, then is refused with a 503
// (every slot taken) or a 429 (its share taken) and a Retry-After. A Slots
// is safe for concurrent use.
type Slots struct {
	ch     chan struct{}
	wait   time.Duration
	retry  time.Duration
	perKey int

	mu   sync.Mutex
	keys map[string]*keySlots // the keys that hold or wait for a slot
}

// keySlots is a key's share: a slot of its channel for each slot of the
// pool it holds, and how many of its requests hold or wait for one.
type keySlots struct {
	ch    chan struct{}
	users int
}

// NewSlots returns a pool of n slots (at least one) whose requests wait
// at most wait for one, with no share for a key but the pool.
func NewSlots(n int, wait time.Duration) *Slots {
	return NewSharedSlots(n, n, wait)
}

// NewSharedSlots returns a pool of n slots (at least one), of which one
// key holds at most perKey (at least one, at most n), whose requests wait
// at most wait.
func NewSharedSlots(n, perKey int, wait time.Duration) *Slots {
	n = max(1, n)
	return &Slots{ch: make(chan struct{}, n), wait: wait, retry: max(time.Second, wait), perKey: min(max(1, perKey), n),
		keys: map[string]*keySlots{}}
}

// Take takes a slot and returns the function that gives it back, as
// TakeFor with one key for every caller.
func (s *Slots) Take(ctx context.Context) (release func(), err error) { return s.TakeFor(ctx, "") }

// TakeFor takes a slot for key (the client) and returns the function that
// gives it back. When key's share is not free within the pool's wait it
// returns a 429 *Error, when no slot is, a 503 *Error, both with
// RetryAfter set; when ctx ends first, ctx's error.
func (s *Slots) TakeFor(ctx context.Context, key string) (release func(), err error) {
	t := time.NewTimer(s.wait)
	defer t.Stop()
	var ks *keySlots // nil when a key's share is the pool
	if s.perKey < cap(s.ch) {
		ks = s.join(key)
		if err := take(ctx, ks.ch, t.C); err != nil {
			s.leave(key)
			if err == errTimeout {
				return nil, &Error{Status: http.StatusTooManyRequests, RetryAfter: s.retry,
					Msg: "this client already runs " + strconv.Itoa(s.perKey) + " large reads (of the lab's " + strconv.Itoa(cap(s.ch)) + "): try again when one ends"}
			}
			return nil, err
		}
	}
	giveBack := func() {
		if ks != nil {
			<-ks.ch
			s.leave(key)
		}
	}
	if err := take(ctx, s.ch, t.C); err != nil {
		giveBack()
		if err == errTimeout {
			return nil, &Error{Status: http.StatusServiceUnavailable, RetryAfter: s.retry,
				Msg: "the lab is busy with " + strconv.Itoa(cap(s.ch)) + " other large reads: try again in a few seconds"}
		}
		return nil, err
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			<-s.ch
			giveBack()
		})
	}, nil
}

// errTimeout is take's error when the wait ended first.
var errTimeout = errors.New("no slot within the wait")

// take takes a place in ch, waiting until timeout or ctx's end.
func take(ctx context.Context, ch chan struct{}, timeout <-chan time.Time) error {
	select {
	case ch <- struct{}{}:
		return nil
	default:
	}
	select {
	case ch <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-timeout:
		return errTimeout
	}
}

// join counts a request of key, and returns key's share.
func (s *Slots) join(key string) *keySlots {
	s.mu.Lock()
	defer s.mu.Unlock()
	ks := s.keys[key]
	if ks == nil {
		ks = &keySlots{ch: make(chan struct{}, s.perKey)}
		s.keys[key] = ks
	}
	ks.users++
	return ks
}

// leave forgets a request of key, and key when it was its last.
func (s *Slots) leave(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ks := s.keys[key]; ks != nil {
		if ks.users--; ks.users == 0 {
			delete(s.keys, key)
		}
	}
}
