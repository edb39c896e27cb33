package engine

import "math"

// Ring sizes of the snapshot buffer, in snapshots (powers of two).
//
// The buffer must hold every snapshot newer than the render time plus the
// one just before it: about delay × sendRate + 2. A new buffer is sized for
// the largest delay its settings allow (max(delay, delayCap)) at their send
// rate, and doubles in the rare event that a slider asks for more, up to
// bufMaxRing, which covers the table's largest delay (1 s) at its largest
// send rate (128 Hz). Past that the oldest snapshot is dropped.
const (
	bufMinRing = 8
	bufMaxRing = 256
)

// bufTech is snapshot interpolation, the guide's technique: snapshots kept
// in a ring ordered by server time, the entity drawn at render time =
// now − delay between the two snapshots around it, position by lerp (or
// cubic Hermite on the snapshots' velocities), rotation by slerp (or the
// Euler pitfall, by s.Rotation).
//
// When the render time passes the newest snapshot (an underrun) the entity
// is dead-reckoned from the newest snapshot's velocity, its speed clamped to
// s.MaxSpeed when s.SpeedClamp, for at most s.ExtrapolateCap seconds, and
// then frozen at the pose reached at the cap; rotation holds the newest
// snapshot's, as snapshots carry no angular velocity. When newer snapshots
// arrive interpolation resumes at once, and the jump from the dead-reckoned
// pose is shown as it is: it is the pop the metrics measure.
//
// Before the first snapshot the Mode is Empty. While the render time is
// before the oldest snapshot held (at the start, before two snapshots
// bracket it, or after a 256-snapshot overflow) that snapshot is shown, Mode
// Interpolate; at exactly the newest snapshot's time it is shown, Mode
// Interpolate; past it the rules above apply.
type bufTech struct {
	s       *Settings
	hermite bool

	// ring holds the snapshots with absolute indices [first, end), slot
	// i&mask, times strictly increasing. next is the index of the first
	// one newer than the render time of the last Sample (end if none), so
	// the one before it, if held, is the snapshot at or before it.
	ring             []Snapshot
	mask             int
	first, next, end int
	arrived          bool    // a snapshot has been accepted
	lastArrival      float64 // now at the last accepted snapshot, s
	jitter           jitterWindow
	sampled          bool    // Sample has been called
	lastNow, rt, dly float64 // now, render time and delay of the last Sample, s
	seg              bufSegment
}

// bufSegment caches what depends only on the two snapshots last
// interpolated between, so that a frame costs a multiply for the fraction
// and one sincos polynomial for the rotation, not a division, an Acos and
// two Sins.
type bufSegment struct {
	t0, t1  float64 // the snapshots' times; t0 < t1 once set
	inv     float64 // 1/(t1 − t0), s⁻¹
	slerpOK bool    // slerp is set for this pair
	eulerOK bool    // euler is set for this pair
	slerp   slerpPair
	euler   eulerPair
}

// set makes g the segment from s0 to s1, if it is not already.
func (g *bufSegment) set(s0, s1 *Snapshot) {
	if g.t0 == s0.Time && g.t1 == s1.Time && g.inv != 0 {
		return
	}
	g.t0, g.t1, g.inv = s0.Time, s1.Time, 1/(s1.Time-s0.Time)
	g.slerpOK, g.eulerOK = false, false
}

// newBuffer returns the buffer technique reading its settings through s:
// delay, adaptive, margin, delayCap, adaptWindow, extrapolateCap,
// speedClamp, maxSpeed and rotation, all on every call. With hermite the
// positions between snapshots follow a cubic Hermite curve through their
// positions and velocities instead of a straight line.
func newBuffer(s *Settings, hermite bool) Technique {
	n := bufMinRing
	if need := math.Ceil(max(s.Delay, s.DelayCap)*s.SendRate) + 4; need > 0 {
		for n < bufMaxRing && float64(n) < need {
			n *= 2
		}
	}
	return &bufTech{
		s:       s,
		hermite: hermite,
		ring:    make([]Snapshot, n),
		mask:    n - 1,
		jitter:  newJitterWindow(s.AdaptWindow),
	}
}

// Receive adds sn to the buffer unless it is no newer than the newest held
// (out of order or duplicate: the gap it would fill has been rendered or is
// bracketed already). While s.Adaptive, each accepted snapshot also times
// its arrival: the spacing between arrivals of new snapshots is what the
// adaptive delay must cover, so stale and duplicate packets, which bring
// nothing new to interpolate towards, do not count. (Spacings are not kept
// while the delay is fixed, which saves a third of a Receive in
// WebAssembly; switched on, the delay adapts from the next packet on.)
func (b *bufTech) Receive(sn Snapshot, now float64) {
	if b.end > b.first && sn.Time <= b.ring[(b.end-1)&b.mask].Time {
		return
	}
	if b.arrived && b.s.Adaptive {
		dt := now - b.lastArrival
		if !(dt > 0) { // same instant, or a clock that ran backwards
			dt = 0
		}
		b.jitter.add(dt, b.s.AdaptWindow)
	}
	b.arrived, b.lastArrival = true, now
	if b.end-b.first == len(b.ring) {
		b.makeRoom()
	}
	b.ring[b.end&b.mask] = sn
	b.end++
}

// makeRoom frees a slot in the full ring: by forgetting snapshots before the
// one at or before the render time, else by doubling the ring, else (at
// bufMaxRing) by dropping the oldest.
func (b *bufTech) makeRoom() {
	if b.next-1 > b.first {
		b.first = b.next - 1
		return
	}
	if len(b.ring) < bufMaxRing {
		ring := make([]Snapshot, 2*len(b.ring))
		mask := len(ring) - 1
		for i := b.first; i < b.end; i++ {
			ring[i&mask] = b.ring[i&b.mask]
		}
		b.ring, b.mask = ring, mask
		return
	}
	b.first++
	if b.next < b.first {
		b.next = b.first
	}
}

// Sample returns the pose at render time now − delay. The delay in use
// follows its target (see adaptiveDelay) at most delaySlew seconds per
// second of now, starting at the target on the first call; and the render
// time is held rather than allowed to decrease, so Sample.Time never runs
// backwards even if now does.
//
// Time is the render time, Newest the newest snapshot's time (0 before
// any), Depth the number of snapshots held newer than the render time and
// Delay the delay in use.
func (b *bufTech) Sample(now float64) Sample {
	s := b.s
	target := s.Delay
	if s.Adaptive || !(target > 0) {
		target = adaptiveDelay(s, &b.jitter)
	}
	if b.end == b.first {
		// Empty. The render clock starts with the first snapshot, so
		// that nothing before it (the stream clock still unknown, say)
		// holds the render time back.
		return Sample{Time: now - target, Delay: target}
	}
	rt := now - target
	if !b.sampled {
		b.sampled, b.dly = true, target
	} else {
		step := float64(delaySlew * (now - b.lastNow)) // unfused: b.dly ± step must round alike everywhere
		if !(step > 0) {
			step = 0
		}
		switch {
		case target > b.dly+step:
			b.dly += step
		case target < b.dly-step:
			b.dly -= step
		default:
			b.dly = target
		}
		rt = now - b.dly
		if rt < b.rt {
			rt = b.rt
		}
	}
	b.lastNow, b.rt = now, rt

	for b.next < b.end && b.ring[b.next&b.mask].Time <= rt {
		b.next++
	}
	newest := &b.ring[(b.end-1)&b.mask]

	// The pose is worked out in scalars and stored once, at the return:
	// Vec3 and Quat are arrays, which Go passes and copies through memory
	// (with stalls where a wide load reads narrow stores); in scalars a
	// hermite frame took 55 ns instead of 83.
	var px, py, pz, qx, qy, qz, qw float64
	mode := Interpolate
	switch {
	case b.next < b.end && b.next > b.first: // bracketed: interpolate
		s0, s1 := &b.ring[(b.next-1)&b.mask], &b.ring[b.next&b.mask]
		g := &b.seg
		g.set(s0, s1)
		a := (rt - s0.Time) * g.inv
		p0, p1 := &s0.Pos, &s1.Pos
		if b.hermite {
			h01, h10, h11 := hermiteBasis(a, s1.Time-s0.Time)
			v0, v1 := &s0.Vel, &s1.Vel
			px = hermite1(p0[0], v0[0], p1[0], v1[0], h01, h10, h11)
			py = hermite1(p0[1], v0[1], p1[1], v1[1], h01, h10, h11)
			pz = hermite1(p0[2], v0[2], p1[2], v1[2], h01, h10, h11)
		} else {
			px = p0[0] + float64((p1[0]-p0[0])*a)
			py = p0[1] + float64((p1[1]-p0[1])*a)
			pz = p0[2] + float64((p1[2]-p0[2])*a)
		}
		if s.Rotation == "euler" {
			if !g.eulerOK {
				g.euler.init(s0.Rot, s1.Rot)
				g.eulerOK = true
			}
			qz, qw = g.euler.at(a)
		} else {
			if !g.slerpOK {
				g.slerp.init(s0.Rot, s1.Rot)
				g.slerpOK = true
			}
			qx, qy, qz, qw = g.slerp.at4(a)
		}
	case b.next == b.first: // before the oldest held: show it
		s0 := &b.ring[b.first&b.mask]
		px, py, pz = s0.Pos[0], s0.Pos[1], s0.Pos[2]
		qx, qy, qz, qw = s0.Rot[0], s0.Rot[1], s0.Rot[2], s0.Rot[3]
	default: // at or past the newest: underrun
		px, py, pz = newest.Pos[0], newest.Pos[1], newest.Pos[2]
		qx, qy, qz, qw = newest.Rot[0], newest.Rot[1], newest.Rot[2], newest.Rot[3]
		ahead := rt - newest.Time
		if ahead == 0 {
			break
		}
		mode = Extrapolate
		if c := s.ExtrapolateCap; !(ahead <= c) {
			ahead, mode = max(c, 0), Freeze
		}
		vx, vy, vz := newest.Vel[0], newest.Vel[1], newest.Vel[2]
		if s.SpeedClamp {
			top := max(s.MaxSpeed, 0)
			sq := float64(vx*vx) + float64(vy*vy) + float64(vz*vz)
			if sq > float64(top*top) {
				k := top / math.Sqrt(sq)
				vx, vy, vz = vx*k, vy*k, vz*k
			}
		}
		px += float64(vx * ahead)
		py += float64(vy * ahead)
		pz += float64(vz * ahead)
	}
	return Sample{
		Pos:    Vec3{px, py, pz},
		Rot:    Quat{qx, qy, qz, qw},
		Mode:   mode,
		Time:   rt,
		Newest: newest.Time,
		Depth:  b.end - b.next,
		Delay:  b.dly,
	}
}
