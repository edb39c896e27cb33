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
