package source

// sourceClockRing is the number of server-tick offsets the clock model
// averages (the client keeps a small ring of them).
const sourceClockRing = 16

// sourceClock is the Source client's tick clock as the golden cases model
// it (README "Engine-side parts", item 1): the engine that keeps it is not
// in the SDK, so this is built from the public help texts of
// cl_clock_correction, cl_clockdrift_max_ms and
// cl_clock_correction_adjustment_{min_offset,max_offset,max_amount}, and
// pinned by the render curtime of every case frame.
//
// The clock counts whole client ticks plus a remainder in seconds; every
// accepted packet compares the client tick with the server tick it carries,
// and the mean of the last 16 offsets slews the clock by at most max_amount
// ms per second. All in float64, as the model is; the render curtime is the
// float32 of clientTick·interval + remainder.
type sourceClock struct {
	tick   int64   // client tick
	rem    float64 // remainder past tick, s; may go negative before a borrow
	last   float64 // local time of the last frame, s
	synced bool    // a server tick has been seen
	ring   [sourceClockRing]float64
	pos    int // next ring slot
}

// sourceClockConfig is the clock's cvars, read once a frame.
type sourceClockConfig struct {
	interval   float64 // tick interval, s (the float32 value, widened)
	correction bool    // cl_clock_correction
	maxTicks   int64   // TIME_TO_TICKS(cl_clockdrift_max_ms / 1000)
	minOffset  float64 // cl_clock_correction_adjustment_min_offset, ms
	maxOffset  float64 // cl_clock_correction_adjustment_max_offset, ms
	maxAmount  float64 // cl_clock_correction_adjustment_max_amount, ms/s
}

// advance moves the clock to local time t (frame step 1): the frame's
// elapsed time plus the correction, whole ticks into the tick count.
func (c *sourceClock) advance(t float64, k *sourceClockConfig) {
	dt := t - c.last
	c.last = t
	adj := 0.0
	if k.correction && c.synced {
		adj = c.adjustment(dt, k)
	}
	c.rem += dt + adj
	for c.rem >= k.interval {
		c.rem -= k.interval
		c.tick++
	}
	for c.rem < 0 {
		c.rem += k.interval
		c.tick--
	}
}

// adjustment is the slew for a frame of dt seconds: the mean offset d, in
// seconds, is corrected at a rate that grows from 0 at min_offset to
// max_amount at max_offset, never past d; the ring is moved by the same
// amount so the correction is not counted twice.
func (c *sourceClock) adjustment(dt float64, k *sourceClockConfig) float64 {
	d := c.lead(k)
	ad := d
	if ad < 0 {
		ad = -ad
	}
	if ad*1000 <= k.minOffset {
		return 0
	}
	f := 1.0
	if k.maxOffset > k.minOffset {
		f = min(max((ad*1000-k.minOffset)/(k.maxOffset-k.minOffset), 0), 1)
	}
	rate := k.maxAmount * f / 1000 // s per s
	adj := min(dt*rate, ad)
	if d > 0 {
		adj = -adj
	}
	for i := range c.ring {
		c.ring[i] += adj / k.interval
	}
	return adj
}

// lead is the mean offset of the clock over the server ticks of the last
// sourceClockRing packets, s: how far the clock runs ahead of the packets
// (behind when negative), the error the correction works on.
func (c *sourceClock) lead(k *sourceClockConfig) float64 {
	sum := 0.0
	for _, o := range c.ring {
		sum += o
	}
	return sum / sourceClockRing * k.interval
}

// serverTick takes in the server tick n of an accepted packet: the first
// one, or one too far from the client's tick, resets the clock to it
// (remainder kept) and clears the offsets; each is then one more offset.
func (c *sourceClock) serverTick(n int64, k *sourceClockConfig) {
	d := n - c.tick
	if d < 0 {
		d = -d
	}
	if !c.synced || !k.correction || d > k.maxTicks {
		c.tick = n
		c.ring = [sourceClockRing]float64{}
		c.synced = true
	}
	c.ring[c.pos] = float64(c.tick) + c.rem/k.interval - float64(n)
	c.pos = (c.pos + 1) % sourceClockRing
}

// curtime is the render curtime: float32 of the clock in seconds.
func (c *sourceClock) curtime(k *sourceClockConfig) float32 {
	return float32(float64(c.tick)*k.interval + c.rem)
}
