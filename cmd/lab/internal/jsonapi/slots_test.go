package jsonapi

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

func TestSlots(t *testing.T) {
	s := NewSlots(2, 10*time.Millisecond)
	ctx := context.Background()
	a, err := s.Take(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Take(ctx); err != nil {
		t.Fatal(err)
	}
	// Full: a third waits, then is a 503 with Retry-After.
	_, err = s.Take(ctx)
	e, ok := errors.AsType[*Error](err)
	if !ok || e.Status != http.StatusServiceUnavailable || e.RetryAfter < time.Second {
		t.Fatalf("Take on a full pool = %#v, want a 503 with RetryAfter", err)
	}
	rec := httptest.NewRecorder()
	WriteError(rec, err)
	if rec.Code != 503 || rec.Header().Get("Retry-After") != "1" {
		t.Errorf("WriteError = %d, Retry-After %q; want 503, 1", rec.Code, rec.Header().Get("Retry-After"))
	}
	// A slot given back is taken by a waiting request.
	got := make(chan error)
	go func() {
		_, err := NewSlots(1, time.Hour).Take(ctx)
		got <- err
	}()
	if err := <-got; err != nil {
		t.Fatal(err)
	}
	waiting := make(chan error)
	slow := NewSlots(1, time.Hour)
	release, _ := slow.Take(ctx)
	go func() {
		_, err := slow.Take(ctx)
		waiting <- err
	}()
	release()
	if err := <-waiting; err != nil {
		t.Errorf("Take after a release = %v, want the slot", err)
	}
	// A request that ends while it waits gives up.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := slow.Take(cctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Take(cancelled) = %v, want context.Canceled", err)
	}
	a()
	if _, err := s.Take(ctx); err != nil {
		t.Errorf("Take after a release = %v", err)
	}
}

// A key holds at most its share of the slots: its next request waits
// for its own, then is a 429, while another key takes a free slot at once.
func TestSlotsPerKey(t *testing.T) {
	s := NewSharedSlots(4, 2, 20*time.Millisecond)
	ctx := context.Background()
	var releases []func()
	for range 2 {
		r, err := s.TakeFor(ctx, "a")
		if err != nil {
			t.Fatal(err)
		}
		releases = append(releases, r)
	}
	_, err := s.TakeFor(ctx, "a")
	if e, ok := errors.AsType[*Error](err); !ok || e.Status != http.StatusTooManyRequests || e.RetryAfter <= 0 {
		t.Fatalf("a's third TakeFor = %v, want a 429 with RetryAfter", err)
	}
	b, err := s.TakeFor(ctx, "b")
	if err != nil {
		t.Fatalf("b's TakeFor while a holds its share = %v, want a slot", err)
	}
	releases[0]()
	releases[0]() // twice is once
	r, err := s.TakeFor(ctx, "a")
	if err != nil {
		t.Fatalf("a's TakeFor after it gave one back = %v, want a slot", err)
	}
	r()
	releases[1]()
	b()
	if n := len(s.keys); n != 0 {
		t.Errorf("%d keys kept after every slot was given back, want 0", n)
	}
}
