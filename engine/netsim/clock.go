package netsim

import (
	"math"

	"interplab/engine/geom"
)

// ClientClock is the client's estimate of the server's clock, kept the way
// NTP keeps one: by timestamped pings over the link.
//
// The client's own clock is wrong: it reads local(t) = offset0 +
// t·(1 + s.ClockDrift) at true (server) time t, where offset0 is drawn from
// the seed with |offset0| in [5, 15) s, so a client that never synced would
// be visibly off. When the drift setting changes, the local clock keeps its
// reading and changes rate from there.
//
// Before the run the client did one exchange (sent one round trip before
// t = 0, reply at t = 0), so an estimate exists from the first frame. From
// t = 0 it pings every 0.5 s of local time. Each ping and its reply travel
// the link's one-way delay (latency plus jitter from the link's
// distribution, drawn from the clock's own random streams, so the pings never
// shift the packets' numbers); pings are never lost or duplicated, and the
// server replies at once. A reply gives the NTP sample: offset θ = ((t1 − T0)
// + (t2 − T3))/2 and round trip δ = (T3 − T0) − (t2 − t1), with T0 and T3
// the local send and receive times and t1 = t2 the server's. The sample's
// error is (d↑ − d↓)/2, at most half the round trip's excess over twice the
// latency.
//
// The estimator keeps the last 64 samples (32 s), takes the quarter with the
// smallest round trip (at least one: at first, the min-RTT sample) and fits
// a line θ(local time) through them by least squares, which averages their
// errors down and tracks the drift. While those samples span less than 2 s
// the slope comes from the fastest sample of every 2 s instead, and before
// even those span 2 s it stays 0; it is limited to ±2%. The displayed
// estimate follows that line but is continuous: when a new fit moves the
// line, the estimate slews towards it with its rate changed by at most 5%,
// so it never runs backwards, and steps only forwards, when it is more than
// 0.1 s behind.
//
// In the tests, after the first 10 s the error stays below the mean jitter
// (its RMS below a third of it), and without jitter the estimate is exact
// (with drift, after the first 2.5 s). Moving the drift slider leaves a
// transient error while the history renews (about 30 ms for a change of
// 0.005, for about 30 s).
//
// A ClientClock reads its settings through the *NetworkSettings it was made with,
// so latency, jitter and drift sliders act on the next ping. It is not safe
// for concurrent use.
type ClientClock struct {
	s     *Settings
	ping  *geom.RNG  // two one-way delays per exchange
	draws delayDraws // the ping stream's draws for the next exchanges
	dist  kindCache  // the kind of s.JitterDist

	// path, when set, gives the link's conditions at a time, so that the
	// pings see a scenario's latency, jitter and spikes (not its queue,
	// loss or outages: pings are never lost).
	path func(t float64) Conditions
	rtt  float64 // round trip of the latest sample, local s

	// The local clock, piecewise linear: local(t) = locBase + (t − tBase)·rate,
	// rate = 1 + drift, kept rather than added on every reading.
	tBase, locBase, drift, rate float64
	offset0                     float64 // local(0) for the drift at creation
	tLast                       float64 // largest t given to Advance

	nextPing int         // index of the next ping; it leaves at local offset0 + index·clockPeriod
	inflight []clockPing // pings whose reply has not arrived, in send order

	// pingAt is the true time the next ping leaves, worked out once per
	// ping and rate (pingOK) rather than on each Advance, which it would
	// cost a division each. due is the earliest of pingAt and the
	// arrivals of the replies in flight: before it, at the drift it was
	// worked out for, an Advance has nothing to do but note the time,
	// which is what most of a run's Advances (three a frame, one every
	// 60th of a second, against a ping every half second) find.
	pingAt, due float64
	pingOK      bool
	seen        bool // Advance has run: from then on, nothing is left due at tLast

	samples [clockHistory]clockSample // ring of the latest samples
	n, head int                       // samples held; index of the oldest
	// byRTT holds the n slots of the samples in order of round trip and,
	// on ties, age (newer first): kept as samples come and go, one
	// insertion and one removal a ping, rather than sorted again on every
	// fit, which runs on every ping of every entity of a population.
	byRTT [clockHistory]uint8

	// The fitted line: server time ≈ fitS + (L − fitL)·fitRate at local
	// time L, fitRate = 1 + fitF.
	fitL, fitS, fitF, fitRate float64
	// fitTop says the line is the fit of byRTT's first quarter alone,
	// whose samples spanned clockMinSpan: while they stay the same, a
	// refit would give the same bits (see addSample).
	fitTop bool

	// The displayed estimate E(L) = segE + (L − segL)·segRate for L ≤ segEnd,
	// and from segEnd on the fitted line's rate (the slew has caught up),
	// from segEndE = E(segEnd): the estimate a frame reads once the slew is
	// over, as it mostly is, with nothing to work out again but the line.
	segL, segE, segRate, segEnd, segEndE float64
}

// Parameters of the clock model and estimator.
const (
	clockPeriod    = 0.5  // local seconds between pings
	clockHistory   = 64   // samples kept
	clockBin       = 4    // samples per bin of the slope fit
	clockMinSpan   = 2.0  // local seconds the slope fit's samples must span
	clockMaxF      = 0.02 // largest rate error the fit may claim
	clockSlew      = 0.05 // largest rate change while correcting the estimate
	clockStep      = 0.1  // a correction forward beyond this is a step, s
	clockOffsetMin = 5.0  // smallest |offset0|, s
	clockOffsetMax = 15.0 // largest |offset0|, s
)

type clockPing struct {
	l0     float64 // local send time T0
	t1, t3 float64 // server stamp (t1 = t2) and true arrival time of the reply
}

type clockSample struct {
	l     float64 // local midpoint (T0 + T3)/2
	theta float64 // offset: server time minus local time at l
	delta float64 // round trip in local seconds
}

// NewClientClock returns the clock of a client with settings s and seed,
// already synced once by an exchange that ended at t = 0.
func NewClientClock(s *Settings, seed uint64) *ClientClock {
	return NewClientClockAlong(s, seed, nil)
}

// NewClientClockAlong is NewClientClock whose pings see the conditions path
// gives (see ClientClock.path); nil for the settings'.
func NewClientClockAlong(s *Settings, seed uint64, path func(t float64) Conditions) *ClientClock {
	o := geom.NewRNG(seed, clockStreamOffset)
	offset0 := clockOffsetMin + float64((clockOffsetMax-clockOffsetMin)*o.Float64())
	if o.Float64() < 0.5 {
		offset0 = -offset0
	}
	c := &ClientClock{
		s:       s,
		ping:    geom.NewRNG(seed, clockStreamPing),
		draws:   newDelayDraws(2),
		dist:    newKindCache(),
		drift:   s.ClockDrift,
		rate:    1 + s.ClockDrift,
		locBase: offset0,
		offset0: offset0,
		segEnd:  math.Inf(1),
		path:    path,
	}
	// The first exchange: sent at −(d1 + d2), reply at 0.
	d1, d2 := c.upDown(0)
	t0 := -(d1 + d2)
	c.addSample(clockPing{l0: c.local(t0), t1: t0 + d1, t3: 0})
	c.segL, c.segE, c.segRate = c.fitL, c.fitS, c.fitRate
	c.segEndE = c.segAt(c.segEnd)
	return c
}

// upDown returns the one-way delays of the next ping, sent at true time t,
// from the ping stream's next two draws u1 and u2 in (0, 1): up, client to
// server, at the latency times s.UplinkRatio, and down at the latency, each
// plus the extra delay of the jitter distribution (at u1 and u2) and any
// spike of the scenario. An uplink ratio below or at 0 (settings made
// without Defaults) counts as 1.
func (c *ClientClock) upDown(t float64) (up, down float64) {
	s := c.s
	// The draws come delayBatch pings at a time, their units worked out
	// for the distribution in force (see delayDraws); with jitter 0, a
	// scenario's aside, none are.
	dist := c.dist.of(s.JitterDist)
	kind := jitterUnknown
	if s.Jitter != 0 {
		kind = dist
	}
	i := c.draws.take(c.ping, kind)
	// Field by field, not a Conditions copied whole (see Link.Send).
	lat, jit, extra := s.Latency, s.Jitter, 0.0
	if c.path != nil {
		cond := c.path(t)
		lat, jit, extra = cond.Latency, cond.Jitter, cond.Extra
	}
	upLat := lat
	if r := s.UplinkRatio; r > 0 && r != 1 {
		upLat = float64(upLat * r)
	}
	// The draws' extra delays, kept (inlined) on nearly every ping.
	x0, ok0 := c.draws.kept(dist, jit, i, 0)
	x1, ok1 := c.draws.kept(dist, jit, i, 1)
	if !ok0 || !ok1 {
		x0, x1 = c.draws.extra(dist, s.JitterDist, jit, i, 0), c.draws.extra(dist, s.JitterDist, jit, i, 1)
	}
	up = (upLat + x0) + extra // the one-way delay, then a spike's
	down = (lat + x1) + extra
	return up, down
}

// RTT returns the round trip of the latest ping exchange, in seconds of the
// client's clock: what a technique that syncs its clock over a round trip
// (NGO's RTT, Mirror's) reads. With an asymmetric path (uplinkRatio ≠ 1)
// the clock's offset is off by half the difference of the two ways, which
// no round-trip measurement can see.
func (c *ClientClock) RTT() float64 { return c.rtt }

// local returns the client's local clock at true time t on the current rate.
func (c *ClientClock) local(t float64) float64 {
	return c.locBase + float64((t-c.tBase)*c.rate)
}

// Advance moves the clock to true server time t, in seconds, processing
// every ping exchange whose reply arrives by t in order of arrival. Calls
// must not go back in time; a t below an earlier one is ignored.
func (c *ClientClock) Advance(t float64) {
	// A frame reads the clock more than once at the same time: this test,
	// small enough to be inlined into the callers, saves the repeats a
	// call.
	if t != c.tLast || !c.seen || c.s.ClockDrift != c.drift {
		c.advance(t)
	}
}

// advance is Advance past its quick case.
func (c *ClientClock) advance(t float64) {
	if t < c.tLast {
		return
	}
	if d := c.s.ClockDrift; d != c.drift {
		// The new rate applies from the last time the clock was seen.
		c.locBase, c.tBase, c.drift, c.rate = c.local(c.tLast), c.tLast, d, 1+d
		c.pingOK = false
	} else if t < c.due {
		c.tLast = t
		return
	}
	c.tLast, c.seen = t, true

	// Send the pings due by t. Their delays are drawn in send order, so
	// the numbers do not depend on how often Advance is called.
	for {
		l0 := c.offset0 + float64(float64(c.nextPing)*clockPeriod)
		if !c.pingOK {
			c.pingAt, c.pingOK = c.tBase+(l0-c.locBase)/c.rate, true
		}
		t0 := c.pingAt
		if t0 > t {
			break
		}
		c.nextPing++
		c.pingOK = false
		d1, d2 := c.upDown(t0)
		c.inflight = append(c.inflight, clockPing{l0: l0, t1: t0 + d1, t3: t0 + d1 + d2})
	}

	// Take the replies that have arrived, earliest first (jitter may
	// reorder them).
	for {
		k := -1
		for i := range c.inflight {
			if p := &c.inflight[i]; p.t3 <= t && (k < 0 || p.t3 < c.inflight[k].t3) {
				k = i
			}
		}
		if k < 0 {
			break
		}
		p := c.inflight[k]
		c.inflight = append(c.inflight[:k], c.inflight[k+1:]...)
		c.receive(p)
	}
	c.due = c.pingAt // the loop above worked it out for the next ping
	for i := range c.inflight {
		c.due = min(c.due, c.inflight[i].t3)
	}
}

// receive takes the reply of p at its arrival and re-aims the displayed
// estimate at the new fit, continuously.
func (c *ClientClock) receive(p clockPing) {
	la := c.local(p.t3)
	now := c.estimateAt(la)
	c.addSample(p)
	rate := c.fitRate
	target := c.fitS + float64((la-c.fitL)*rate)
	c.segL, c.segE = la, now
	switch diff := now - target; {
	case diff < -clockStep:
		c.segE, c.segRate, c.segEnd = target, rate, math.Inf(1)
	case diff > 0:
		c.segRate, c.segEnd = rate-clockSlew, la+diff/clockSlew
	case diff < 0:
		c.segRate, c.segEnd = rate+clockSlew, la-diff/clockSlew
	default:
		c.segRate, c.segEnd = rate, math.Inf(1)
	}
	c.segEndE = c.segAt(c.segEnd)
}

// addSample records the exchange p and refits the line.
func (c *ClientClock) addSample(p clockPing) {
	l3 := c.local(p.t3)
	smp := clockSample{l: (p.l0 + l3) / 2, delta: l3 - p.l0}
	c.rtt = smp.delta
	smp.theta = p.t1 - smp.l
	sl := (c.head + c.n) % clockHistory
	// With the history full, the quarter the line is fitted through keeps
	// its size; when neither the sample that leaves nor the one that
	// comes is among it, it keeps its samples, in their order, and a
	// line fitted through them alone (fitTop) stays as it was: a refit,
	// the same sums over the same numbers, would give the same bits.
	// That is most pings, the quarter's own aside.
	same := c.fitTop && c.n == clockHistory
	const k = (clockHistory + 3) / 4 // fit's quarter, of a full history
	if c.n < clockHistory {
		c.n++
	} else {
		// The oldest sample leaves. It is the last of those with its
		// round trip, the oldest.
		i := c.rttAfter(c.samples[sl].delta, c.n) - 1
		copy(c.byRTT[i:c.n-1], c.byRTT[i+1:c.n])
		c.head = (c.head + 1) % clockHistory
		same = same && i >= k
	}
	c.samples[sl] = smp
	// The new sample goes before those with the same round trip: it is
	// the newest.
	i := c.rttBefore(smp.delta, c.n-1)
	copy(c.byRTT[i+1:c.n], c.byRTT[i:c.n-1])
	c.byRTT[i] = uint8(sl)
	if !same || i < k {
		c.fit()
	}
}

// rttBefore returns the number of the first n slots of byRTT whose round
// trip is below d.
func (c *ClientClock) rttBefore(d float64, n int) int {
	// A binary search without branches (the comparison's outcome, as 0
	// or 1, masks the step): where a new round trip falls among the
	// history's is as good as random, and a branch on it mispredicted
	// every other step, a dozen steps a ping. The answer is in
	// [base, base+n] throughout. (The indices, below clockHistory, are
	// taken modulo it: no bound to check.)
	base := 0
	for n > 1 {
		half := n / 2
		base += half & -b2i(c.samples[c.byRTT[uint(base+half)%clockHistory]%clockHistory].delta < d)
		n -= half
	}
	if n == 1 && c.samples[c.byRTT[uint(base)%clockHistory]%clockHistory].delta < d {
		base++
	}
	return base
}

// rttAfter returns the number of the first n slots of byRTT whose round
// trip is d or below: rttBefore with ≤ for <, which for the finite round
// trips is rttBefore(math.Nextafter(d, +∞)), as no round trip lies between
// the two, without the call.
func (c *ClientClock) rttAfter(d float64, n int) int {
	base := 0
	for n > 1 {
		half := n / 2
		base += half & -b2i(c.samples[c.byRTT[uint(base+half)%clockHistory]%clockHistory].delta <= d)
		n -= half
	}
	if n == 1 && c.samples[c.byRTT[uint(base)%clockHistory]%clockHistory].delta <= d {
		base++
	}
	return base
}

// b2i returns 1 for true and 0 for false, without a branch.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// fit refits the line θ(L) = θ̄ + f·(L − L̄) through the quarter of the
// samples with the smallest round trip (ties: newer first), the
// best-measured ones: (L̄, θ̄) is their centroid and f their least-squares
// slope. When they span less than clockMinSpan (early on, or when the
// fastest exchanges happen to bunch up), the slope comes from the min-RTT
// sample of each bin of clockBin consecutive samples instead, which spreads
// over the whole history; when those are too close too, f keeps its value.
func (c *ClientClock) fit() {
	// The samples are named by their slots in the ring, found from their
	// ages (0 = newest); a slot, unlike a function of the age, costs no
	// call where it is read.
	smp := &c.samples
	slot := func(age int) uint8 { return uint8((c.head + c.n - 1 - age) % clockHistory) }

	// The k smallest round trips, in order of round trip and, on ties,
	// age (so ties go to the newer sample).
	k := max(1, (c.n+3)/4)
	meanL, meanT, f, ok := clockSlope(c.byRTT[:k], smp)
	c.fitTop = ok
	if !ok {
		// The fastest sample of every clockBin, for a slope over the
		// whole history.
		var bins [clockHistory / clockBin]uint8 // slots of the bins' best samples
		nb := 0
		for first := 0; first < c.n; first += clockBin {
			best := slot(first)
			for a := first + 1; a < min(first+clockBin, c.n); a++ {
				if sl := slot(a); smp[sl].delta < smp[best].delta {
					best = sl
				}
			}
			bins[nb] = best
			nb++
		}
		_, _, f, ok = clockSlope(bins[:nb], smp)
	}
	if ok {
		c.fitF = max(-clockMaxF, min(clockMaxF, f))
	}
	c.fitL, c.fitS, c.fitRate = meanL, meanL+meanT, 1+c.fitF
}

// clockSlope returns the centroid (meanL, meanT) of the samples in the
// given slots of smp, summed in the slots' order, and the least-squares
// slope f of θ against L through them; ok is false, and f 0, when they span
// less than clockMinSpan of local time (too short to tell drift from
// jitter).
func clockSlope(slots []uint8, smp *[clockHistory]clockSample) (meanL, meanT, f float64, ok bool) {
	var sumL, sumT float64
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, sl := range slots {
		s := &smp[sl]
		sumL += s.l
		sumT += s.theta
		// Comparisons rather than min and max, which test for NaN and
		// tell −0 from +0 at every sample: the local times are finite,
		// and the span, all lo and hi are read for, is the same with
		// either zero.
		if s.l < lo {
			lo = s.l
		}
		if s.l > hi {
			hi = s.l
		}
	}
	meanL, meanT = sumL/float64(len(slots)), sumT/float64(len(slots))
	if !(hi-lo >= clockMinSpan) {
		return meanL, meanT, 0, false
	}
	var sxx, sxy float64
	for _, sl := range slots {
		s := &smp[sl]
		dl := s.l - meanL
		sxx += float64(dl * dl)
		sxy += float64(dl * (s.theta - meanT))
	}
	return meanL, meanT, sxy / sxx, true
}

// estimateAt returns the displayed estimate at local time l.
func (c *ClientClock) estimateAt(l float64) float64 {
	if l <= c.segEnd {
		return c.segAt(l)
	}
	// Past the end of the slew: on from where it ended, at the line's
	// rate. segEndE is the slew's own value there, so the two pieces meet
	// without a step back.
	return c.segEndE + float64((l-c.segEnd)*c.fitRate)
}

// segAt returns the slew's estimate at local time l: segE + (l − segL)·segRate.
func (c *ClientClock) segAt(l float64) float64 {
	return c.segE + float64((l-c.segL)*c.segRate)
}

// Local advances the clock to t (see Advance) and returns the client's own
// clock at true time t, in seconds since the client started (0 at t = 0),
// drift included: what a game engine's frame time reads.
func (c *ClientClock) Local(t float64) float64 {
	c.Advance(t)
	return c.local(t) - c.offset0
}

// Estimate advances the clock to t (see Advance) and returns the client's
// estimate of the server time at true time t, in seconds. It never
// decreases as t grows.
func (c *ClientClock) Estimate(t float64) float64 {
	c.Advance(t)
	return c.estimateAt(c.local(t))
}

// Read advances the clock to t once and returns Estimate(t) and Local(t),
// the same bits: what a frame or an arrival reads, for one Advance and one
// reading of the local clock instead of two of each.
func (c *ClientClock) Read(t float64) (estimate, local float64) {
	// Advance, for a run's reads (a frame's, an arrival's) at a new time:
	// most of them, between two pings, find nothing due before t at the
	// rate the clock runs at, and only note the time, here, without a
	// call. (After an advance to a time nothing is due by it, so a
	// repeated time passes too, as Advance's own test lets it.)
	if t < c.tLast || t >= c.due || c.s.ClockDrift != c.drift {
		c.advance(t)
	} else {
		c.tLast = t
	}
	l := c.local(t)
	return c.estimateAt(l), l - c.offset0
}
