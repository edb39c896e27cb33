package netsim

import (
	"math"
	"testing"

	"interplab/engine/geom"
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

// TestStreamClockSlewBits checks the lag against the slew written out, to
// the bit, over arrivals and frames while the transit jumps up and down:
// Advance keeps the lag without working the slew out while it is at the
// window's minimum, which must change none of its values.
func TestStreamClockSlewBits(t *testing.T) {
	var c StreamClock
	r := geom.NewRNG(9, 1)
	var lag, last float64
	kept := 0
	for k := range 60 * 60 {
		now := float64(k) / 60
		base := 0.06
		if k/600%2 == 1 {
			base = 0.16 // every ten seconds the latency jumps
		}
		if k%3 == 0 { // a packet every third frame
			tick := now - base - 0.03*r.Float64()
			started := c.started
			c.Arrive(now, tick)
			if !started {
				lag, last = c.Lag, now
				continue
			}
		} else {
			c.Advance(now)
		}
		if lag == c.least {
			kept++
		}
		lag = geom.SlewTowards(lag, c.least, float64(streamSlew*(now-last)))
		last = now
		if math.Float64bits(c.Lag) != math.Float64bits(lag) {
			t.Fatalf("frame %d: lag %v, the slew written out gives %v", k, c.Lag, lag)
		}
	}
	if kept < 100 {
		t.Errorf("%d frames at the minimum: the case does not reach the kept lag", kept)
	}
}
