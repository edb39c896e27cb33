package jsonapi

import (
	"context"
	"net/http"
	"strconv"
	"time"
)

// Slots is a small pool for the requests that hold much memory or CPU
// for a while (reading a whole trace, running a comparison): at most n run
// at once, whatever the number of clients, so the server's peak memory is
// n requests' worth. A request waits for a slot at most the pool's wait,
// then is refused with a 503 and a Retry-After. A Slots is safe for
// concurrent use.
type Slots struct {
	ch    chan struct{}
	wait  time.Duration
	retry time.Duration
}

// NewSlots returns a pool of n slots (at least one) whose requests wait
// at most wait for one.
func NewSlots(n int, wait time.Duration) *Slots {
	return &Slots{ch: make(chan struct{}, max(1, n)), wait: wait, retry: max(time.Second, wait)}
}

// Take takes a slot and returns the function that gives it back. When
// none frees up within the pool's wait it returns a 503 *Error with
// RetryAfter set; when ctx ends first, ctx's error.
func (s *Slots) Take(ctx context.Context) (release func(), err error) {
	select {
	case s.ch <- struct{}{}:
		return s.release, nil
	default:
	}
	t := time.NewTimer(s.wait)
	defer t.Stop()
	select {
	case s.ch <- struct{}{}:
		return s.release, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-t.C:
		return nil, &Error{Status: http.StatusServiceUnavailable, RetryAfter: s.retry,
			Msg: "the lab is busy with " + strconv.Itoa(cap(s.ch)) + " other large reads: try again in a few seconds"}
	}
}

func (s *Slots) release() { <-s.ch }
