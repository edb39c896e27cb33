package access

import (
	"fmt"
	"testing"
	"time"
)

func TestDelay(t *testing.T) {
	want := []time.Duration{0, 0, 0, 0, 0, // FreeFailures
		1 * time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 16 * time.Second, 32 * time.Second,
		time.Minute, time.Minute, time.Minute, time.Minute, time.Minute, time.Minute, time.Minute, time.Minute, time.Minute,
		15 * time.Minute, 15 * time.Minute} // LockoutFailures
	for n, w := range want {
		if got := delay(n); got != w {
			t.Errorf("delay(%d) = %v, want %v", n, got, w)
		}
	}
}

// A client's failures are its own, forgotten after the right token or an
// hour of quiet, and the meter remembers at most maxMetered clients.
func TestMeter(t *testing.T) {
	t0 := time.Unix(1000, 0)
	m := newMeter()
	for range FreeFailures {
		m.fail("a", t0)
	}
	if until, locked, waits := m.wait("a", t0); !waits || locked || !until.Equal(t0.Add(FirstDelay)) {
		t.Errorf("after %d failures: wait = %v, %v, %v; want until %v", FreeFailures, until, locked, waits, t0.Add(FirstDelay))
	}
	if _, _, waits := m.wait("b", t0); waits {
		t.Error("another client waits too")
	}
	if _, _, waits := m.wait("a", t0.Add(forgetAfter)); waits || len(m.clients) != 0 {
		t.Errorf("an hour later: waits %v with %d clients remembered, want forgotten", waits, len(m.clients))
	}
	for range LockoutFailures {
		m.fail("a", t0)
	}
	if until, locked, waits := m.wait("a", t0.Add(Lockout-time.Second)); !waits || !locked || !until.Equal(t0.Add(Lockout)) {
		t.Errorf("after %d failures: wait = %v, %v, %v; want locked until %v", LockoutFailures, until, locked, waits, t0.Add(Lockout))
	}
	m.succeed("a")
	if _, _, waits := m.wait("a", t0); waits {
		t.Error("after the right token the client still waits")
	}
	for i := range maxMetered + 10 {
		m.fail(fmt.Sprint(i), t0.Add(time.Duration(i)*time.Millisecond))
	}
	if len(m.clients) > maxMetered {
		t.Errorf("%d clients remembered, want at most %d", len(m.clients), maxMetered)
	}
	if m.clients[fmt.Sprint(maxMetered+9)] == nil || m.clients["0"] != nil {
		t.Error("the quietest clients were not the ones forgotten")
	}
}
