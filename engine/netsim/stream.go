package netsim

import "interplab/engine/geom"

// streamSamples is how many packet arrivals the stream clock's transit
// minimum looks back over: 1.6 s at 20 Hz, so a latency slider moved up is
// followed quickly.
const streamSamples = 32

// streamSlew is how fast the stream clock's lag may change, in seconds per
// second, so that a new minimum shows as brief slow or fast motion rather
// than a jump of the render time.
const streamSlew = 0.1

// StreamClock is the client's view of server time as the snapshot stream
// shows it: its estimate of server time less the transit of the freshest
// snapshots (latency plus the wait for a send; jitter only ever adds). The
// buffer and hermite techniques render at stream time − delay, so their
// delay is measured behind the snapshots the client receives, as Source's
// cl_interp and Mirror's buffer time are: two send intervals of delay buy
// two snapshots to interpolate between whatever the latency. EPIC, which
// extrapolates packets forward by calcAhead, reads at the server-time
// estimate itself.
type StreamClock struct {
	transit [streamSamples]float64 // estimate at arrival − snapshot time, s
	n, next int
	least   float64 // the window's minimum, kept by arrive: frames only read it
	Lag     float64 // the transit in use, slewed towards the window's minimum
	last    float64 // the estimate at the last update, s
	started bool
}

// Arrive takes in a packet carrying the state of tick that arrived when the
// client's estimate of server time was now.
func (c *StreamClock) Arrive(now, tick float64) {
	x, out := now-tick, c.transit[c.next]
	c.transit[c.next] = x
	if c.next++; c.next == streamSamples { // without a division
		c.next = 0
	}
	full := c.n == streamSamples
	if !full {
		c.n++
	}
	switch {
	case c.n == 1 || x <= c.least:
		c.least = x
	case full && out == c.least:
		// The minimum left the window: look again (rarely, since the
		// window's minimum is usually younger than the window).
		c.least = c.transit[0]
		for _, x := range c.transit[1:] {
			c.least = min(c.least, x)
		}
	}
	if !c.started {
		c.started, c.Lag, c.last = true, c.transit[0], now
		return
	}
	c.Advance(now)
}

// Advance moves the lag towards the window's minimum transit, by at most
// streamSlew × the time since the last update.
func (c *StreamClock) Advance(now float64) {
	if !c.started {
		return
	}
	// At the window's minimum the lag stays (SlewTowards of cur = target
	// is target, whatever the step), as it does on most frames: neither
	// the step nor the slew is worked out then.
	if c.Lag != c.least {
		c.Lag = geom.SlewTowards(c.Lag, c.least, float64(streamSlew*(now-c.last)))
	} else {
		c.Lag = c.least // the same bits, ±0 aside: SlewTowards returns target
	}
	c.last = now
}
