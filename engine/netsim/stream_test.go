package netsim

import (
	"math"
	"testing"
)

func TestStreamClock(t *testing.T) {
	var c StreamClock
	// 20 Hz packets with 60 ms transit, one in four 40 ms late.
	now := 0.0
	for i := range 100 {
		tick := float64(i) * 0.05
		now = tick + 0.06
		if i%4 == 1 {
			now += 0.04
		}
		c.Arrive(now, tick)
	}
	if math.Abs(c.Lag-0.06) > 1e-12 {
		t.Errorf("lag = %v, want the freshest transit 0.06", c.Lag)
	}
	// The latency rises by 100 ms: the lag follows at streamSlew.
	for i := 100; i < 200; i++ {
		tick := float64(i) * 0.05
		before := c.Lag
		c.Arrive(tick+0.16, tick)
		if c.Lag-before > streamSlew*0.05+1e-12 {
			t.Fatalf("packet %d: lag rose %v in 50 ms, faster than streamSlew", i, c.Lag-before)
		}
	}
	if math.Abs(c.Lag-0.16) > 1e-12 {
		t.Errorf("lag = %v after 5 s at 160 ms transit, want 0.16", c.Lag)
	}
}
