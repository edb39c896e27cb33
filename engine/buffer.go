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
// Before the first snapshot the Mode is Empty. While the render time is at
// or before the oldest snapshot held (only at the start, before two
// snapshots bracket it) that snapshot is shown, Mode Interpolate; at its
// time or later with nothing newer the rules above apply.
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

// bufSegment caches the rotation blend between the two snapshots last
// interpolated, so that a frame costs one Sincos, not an Acos and two Sins.
type bufSegment struct {
	t0, t1 float64 // the snapshots' times
	euler  bool    // the pair below is eulerPair
	ok     bool
	slerp  slerpPair
	yaw    eulerPair
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
// bracketed already). Each accepted snapshot also times its arrival: the
// spacing between arrivals of new snapshots is what the adaptive delay must
// cover, so stale and duplicate packets, which bring nothing new to
// interpolate towards, do not count.
func (b *bufTech) Receive(sn Snapshot, now float64) {
	if b.end > b.first && sn.Time <= b.ring[(b.end-1)&b.mask].Time {
		return
	}
	if b.arrived {
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
	target := adaptiveDelay(s, &b.jitter)
	rt := now - target
	if !b.sampled {
		b.sampled, b.dly = true, target
	} else {
		step := delaySlew * (now - b.lastNow)
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

	out := Sample{Time: rt, Delay: b.dly}
	if b.end == b.first {
		return out // Empty
	}
	for b.next < b.end && b.ring[b.next&b.mask].Time <= rt {
		b.next++
	}
	newest := &b.ring[(b.end-1)&b.mask]
	out.Newest = newest.Time
	out.Depth = b.end - b.next

	switch {
	case b.next == b.first: // before the oldest held: show it
		s0 := &b.ring[b.first&b.mask]
		out.Pos, out.Rot, out.Mode = s0.Pos, s0.Rot, Interpolate
	case b.next < b.end: // bracketed: interpolate
		s0, s1 := &b.ring[(b.next-1)&b.mask], &b.ring[b.next&b.mask]
		dt := s1.Time - s0.Time
		a := (rt - s0.Time) / dt
		if b.hermite {
			out.Pos = hermitePos(s0.Pos, s0.Vel, s1.Pos, s1.Vel, dt, a)
		} else {
			out.Pos = bufLerp(s0.Pos, s1.Pos, a)
		}
		out.Rot = b.rotation(s0, s1, a)
		out.Mode = Interpolate
	default: // at or past the newest: underrun
		ahead := rt - newest.Time
		out.Rot, out.Mode = newest.Rot, Interpolate
		if ahead == 0 {
			out.Pos = newest.Pos
			break
		}
		out.Mode = Extrapolate
		if c := s.ExtrapolateCap; !(ahead <= c) {
			ahead, out.Mode = max(c, 0), Freeze
		}
		v := newest.Vel
		if s.SpeedClamp {
			top := max(s.MaxSpeed, 0)
			sq := float64(v[0]*v[0]) + float64(v[1]*v[1]) + float64(v[2]*v[2])
			if sq > float64(top*top) {
				k := top / math.Sqrt(sq)
				v = Vec3{v[0] * k, v[1] * k, v[2] * k}
			}
		}
		out.Pos = bufAdvance(newest.Pos, v, ahead)
	}
	return out
}

// rotation returns the rotation a fraction a of the way from s0 to s1 by
// s.Rotation, reusing the blend of the previous frame when it was between
// the same snapshots.
func (b *bufTech) rotation(s0, s1 *Snapshot, a float64) Quat {
	g := &b.seg
	euler := b.s.Rotation == "euler"
	if !g.ok || g.t0 != s0.Time || g.t1 != s1.Time || g.euler != euler {
		g.t0, g.t1, g.euler, g.ok = s0.Time, s1.Time, euler, true
		if euler {
			g.yaw.init(s0.Rot, s1.Rot)
		} else {
			g.slerp.init(s0.Rot, s1.Rot)
		}
	}
	if euler {
		return g.yaw.at(a)
	}
	return g.slerp.at(a)
}

// bufLerp returns p + (q−p)·a, each product rounded on its own so that no
// fused multiply-add changes the last bit between platforms.
func bufLerp(p, q Vec3, a float64) Vec3 {
	return Vec3{
		p[0] + float64((q[0]-p[0])*a),
		p[1] + float64((q[1]-p[1])*a),
		p[2] + float64((q[2]-p[2])*a),
	}
}

// bufAdvance returns p + v·t, unfused like bufLerp.
func bufAdvance(p, v Vec3, t float64) Vec3 {
	return Vec3{
		p[0] + float64(v[0]*t),
		p[1] + float64(v[1]*t),
		p[2] + float64(v[2]*t),
	}
}
