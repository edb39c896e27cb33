// Package buffer is snapshot interpolation, the guide's technique: a ring
// buffer of snapshots by server time, the entity drawn at render time =
// stream time − delay between the two snapshots around it (lerp, or cubic
// Hermite on their velocities for hermite; slerp), a fixed or adaptive
// delay, and capped, speed-clamped dead reckoning when the buffer runs dry.
package buffer

import (
	"math"

	"interplab/engine/geom"
	"interplab/engine/param"
	"interplab/engine/technique"
)

// The techniques' names.
const (
	Name        = "buffer"  // snapshot interpolation: delayed ring buffer, lerp and slerp
	HermiteName = "hermite" // the buffer with cubic Hermite positions
)

// ms is the display scale of the rows' times: seconds shown in milliseconds.
const ms = 1000

// Settings are the knobs of snapshot interpolation, the buffer and
// hermite techniques.
type Settings struct {
	Delay          float64 `json:"delay"`          // base interpolation delay, s
	Adaptive       bool    `json:"adaptive"`       // adapt the delay to measured jitter
	Margin         float64 `json:"margin"`         // safety margin over p95 inter-arrival, s
	DelayCap       float64 `json:"delayCap"`       // largest adaptive delay, s
	AdaptWindow    int     `json:"adaptWindow"`    // inter-arrival samples in the rolling p95
	ExtrapolateCap float64 `json:"extrapolateCap"` // longest dead reckoning when dry, s
	SpeedClamp     bool    `json:"speedClamp"`     // clamp dead-reckoning speed to maxSpeed
	Rotation       string  `json:"rotation"`       // slerp, or euler to show the pitfall
}

// Rotations are the choices of rotation: slerp quaternions, or lerp Euler
// angles to show the pitfall.
var Rotations = []string{"slerp", "euler"}

// Params are the rows of Settings.
var Params = []param.Param[*Settings]{
	{Name: "delay", Group: "buffer", Unit: "s", Min: 0, Max: 0.5, Step: 0.001, Default: 0.1, Display: "ms", Scale: ms,
		Doc:   "Interpolation delay behind the snapshot stream: render time = stream time (server-time estimate less the freshest snapshots' transit) − delay.",
		Read:  func(s *Settings) float64 { return s.Delay },
		Write: func(s *Settings, v float64) { s.Delay = v }},
	{Name: "adaptive", Group: "buffer", Kind: param.Bool, Max: 1, Step: 1, Default: 0,
		Doc:   "Adapt the delay: max(delay, rolling p95 inter-arrival + margin), capped.",
		Read:  func(s *Settings) float64 { return param.FromBool(s.Adaptive) },
		Write: func(s *Settings, v float64) { s.Adaptive = v != 0 }},
	{Name: "margin", Group: "buffer", Unit: "s", Min: 0, Max: 0.2, Step: 0.001, Default: 0.025, Display: "ms", Scale: ms,
		Inert: []param.Inert{{When: "adaptive", From: 0, To: 0, Why: "only the adaptive delay reads it"}},
		Doc:   "Safety margin added to the p95 inter-arrival time by the adaptive delay.",
		Read:  func(s *Settings) float64 { return s.Margin },
		Write: func(s *Settings, v float64) { s.Margin = v }},
	{Name: "delayCap", Group: "buffer", Unit: "s", Min: 0, Max: 1, Step: 0.001, Default: 0.2, Display: "ms", Scale: ms,
		Inert: []param.Inert{{When: "adaptive", From: 0, To: 0, Why: "only the adaptive delay reads it"}},
		Doc:   "Largest delay the adaptive delay may reach.",
		Read:  func(s *Settings) float64 { return s.DelayCap },
		Write: func(s *Settings, v float64) { s.DelayCap = v }},
	{Name: "adaptWindow", Group: "buffer", Kind: param.Int, Unit: "packets", Min: 4, Max: 256, Step: 1, Default: 40, Display: "packets", Scale: 1,
		Inert: []param.Inert{{When: "adaptive", From: 0, To: 0, Why: "only the adaptive delay reads it"}},
		Doc:   "Inter-arrival times in the adaptive delay's rolling p95.",
		Read:  func(s *Settings) float64 { return float64(s.AdaptWindow) },
		Write: func(s *Settings, v float64) { s.AdaptWindow = int(v) }},
	{Name: "extrapolateCap", Group: "buffer", Unit: "s", Min: 0, Max: 1, Step: 0.001, Default: 0.15, Display: "ms", Scale: ms,
		Doc:   "Longest dead reckoning when the buffer runs dry; then the entity freezes.",
		Read:  func(s *Settings) float64 { return s.ExtrapolateCap },
		Write: func(s *Settings, v float64) { s.ExtrapolateCap = v }},
	{Name: "speedClamp", Group: "buffer", Kind: param.Bool, Max: 1, Step: 1, Default: 1,
		Doc:   "Clamp dead-reckoning speed to maxSpeed, so bogus velocities cannot fling entities.",
		Read:  func(s *Settings) float64 { return param.FromBool(s.SpeedClamp) },
		Write: func(s *Settings, v float64) { s.SpeedClamp = v != 0 }},
	param.EnumOf(param.Param[*Settings]{Name: "rotation", Group: "buffer", Default: 0, Choices: Rotations,
		Doc: "slerp quaternions, or lerp Euler angles to see the pitfall on 180° turns."},
		func(s *Settings) *string { return &s.Rotation }),
}

// The buffer techniques: snapshot interpolation, the guide's technique
// (Def), and the buffer with cubic Hermite positions (HermiteDef).
var (
	Def = technique.Def[*Settings]{Name: Name, Group: "buffer", Params: Params,
		Base: technique.StreamTime, Reach: technique.Transit,
		Tune:  []string{"delay", "adaptive", "margin", "delayCap", "extrapolateCap", "speedClamp"},
		Check: check, Delay: delayOf, Canonical: canonical,
		Batch: func(s *Settings, env *technique.Env, n int) technique.Batch {
			return newBufBatch(s, env, false, n)
		},
		One: func(s *Settings, env *technique.Env) technique.Technique { return newBuffer(s, env, false) }}
	HermiteDef = technique.Def[*Settings]{Name: HermiteName, Group: "buffer",
		Base: technique.StreamTime, Reach: technique.Transit,
		Tune:  []string{"delay", "adaptive", "margin", "delayCap", "extrapolateCap", "speedClamp"},
		Delay: delayOf, Canonical: canonical,
		Batch: func(s *Settings, env *technique.Env, n int) technique.Batch {
			return newBufBatch(s, env, true, n)
		},
		One: func(s *Settings, env *technique.Env) technique.Technique { return newBuffer(s, env, true) }}
)

// delayOf is the buffer's delay behind the snapshot stream: the base
// delay; with the adaptive delay it may grow up to delayCap.
func delayOf(s *Settings, _ *technique.Env) float64 { return s.Delay }

// check refuses an adaptive delay capped below its base.
func check(s *Settings) error {
	if s.Adaptive && s.DelayCap < s.Delay {
		p, _ := param.Find(Params, "delayCap")
		q := p.Quantity()
		return &param.FieldError{Field: "delayCap", Value: p.Format(s.DelayCap),
			Allowed: "[delay = " + q.Shown(s.Delay) + ", " + q.Shown(p.Max) + "]: the cap may not be below the base delay"}
	}
	return nil
}

// canonical makes a tuning candidate s, a variation of base, valid
// and canonical: without the adaptive delay margin and delayCap do
// nothing, so they keep base's values; with it the cap may not be below
// the delay.
func canonical(s, base *Settings) {
	if !s.Adaptive {
		s.Margin, s.DelayCap = base.Margin, base.DelayCap
	} else if s.DelayCap < s.Delay {
		s.DelayCap = s.Delay
	}
}

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

// bufBatch is snapshot interpolation, the guide's technique, for n entities
// that share their packets (one snapshot each per packet, as in the runner): snapshots kept
// in a ring ordered by server time, the entity drawn at render time =
// now − delay between the two snapshots around it, position by lerp (or
// cubic Hermite on the snapshots' velocities), rotation by slerp (or the
// Euler pitfall, by s.Rotation).
//
// When the render time passes the newest snapshot (an underrun) the entity
// is dead-reckoned from the newest snapshot's velocity, its speed clamped to
// env.MaxSpeed when s.SpeedClamp, for at most s.ExtrapolateCap seconds, and
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
//
// Everything that depends only on time (the render clock, the delay, the
// snapshots around the render time, the interpolation weights, the mode) is
// worked out once per frame for all entities; each entity then costs a few
// multiply-adds on arrays laid out by slot. bufTech, the per-entity
// Technique, is a bufBatch of one.
type bufBatch struct {
	s       *Settings
	env     *technique.Env
	hermite bool
	n       int // entities

	// ring holds the snapshot times with absolute indices [first, end), slot
	// i&mask, strictly increasing; pos, vel and rot hold the entities'
	// states, [slot*n + e]. next is the index of the first time newer than
	// the render time of the last sample (end if none), so the one before
	// it, if held, is the one at or before it.
	ring             []float64
	pos, vel         []geom.Vec3
	rot              []geom.Quat
	mask             int
	first, next, end int
	arrived          bool    // a snapshot has been accepted
	lastArrival      float64 // now at the last accepted snapshot, s
	jitter           jitterWindow
	lastNow, rt      float64 // now and render time of the last sample, s
	// dly is the delay of the last sample (s), NaN until a frame has been
	// sampled with a snapshot held: a frame at the delay's target is then
	// one compare (the delay is never NaN once set; see render).
	dly float64

	// Kept for the frames, so that a frame reads no ring slot: nextT is
	// ring[next&mask] while next < end and NaN when next = end (no render
	// time is ≥ NaN, as none is ≥ a time not held); newestT is the newest
	// snapshot's time, ring[(end−1)&mask], NaN before the first (no tick is
	// ≤ NaN, so the first is accepted). Receive, makeRoom and the render
	// clock's steps keep them.
	nextT, newestT float64

	// The bracketed segment FrameLean last set up, kept while next is
	// segNext (−1: none): makeRoom, the only one that moves or drops held
	// snapshots, clears it, and while it holds, first < next < end. Slots
	// segI0 and segI1 hold the snapshots around the render time, from
	// segT0 on, 1/(t1 − t0) is segInv, and (x0, y0, z0) and (dx, dy, dz)
	// are the first position and the difference lerp works with.
	segNext, segI0, segI1 int
	segT0, segInv, segDT  float64
	segX0, segY0, segZ0   float64
	segDX, segDY, segDZ   float64
	lean                  bool // n = 1 and noRot: FrameLean takes the lean way

	// The segment last interpolated on, and its per-entity rotation
	// blends, made when first needed: a frame costs a multiply for the
	// fraction and one sincos polynomial per entity for the rotation, not
	// a division, an Acos and two Sins.
	t0, t1, inv      float64
	slerpOK, eulerOK bool
	slerp            []geom.SlerpPair
	eulerAt          []geom.EulerPair
	noRot            bool // nothing reads the rotations (skipRotations): fill leaves them identity

	// The frame set up by frame for fill.
	kind          int
	common        technique.Sample // the fields every entity shares
	a, ahead      float64
	h01, h10, h11 float64
	o0, o1        int // state offsets of the snapshots shown
	euler         bool
}

// newBufBatch returns the buffer technique for n entities, reading its
// settings through s (delay, adaptive, margin, delayCap, adaptWindow,
// extrapolateCap, speedClamp and rotation) and the run's maxSpeed through
// env, all on every call; env's sendRate sizes the ring.
// With hermite the positions between snapshots follow a cubic Hermite curve
// through their positions and velocities instead of a straight line.
func newBufBatch(s *Settings, env *technique.Env, hermite bool, n int) *bufBatch {
	size := bufMinRing
	if need := math.Ceil(max(s.Delay, s.DelayCap)*env.SendRate) + 4; need > 0 {
		for size < bufMaxRing && float64(size) < need {
			size *= 2
		}
	}
	b := &bufBatch{s: s, env: env, hermite: hermite, n: n, jitter: newJitterWindow(s.AdaptWindow),
		slerp: make([]geom.SlerpPair, n), eulerAt: make([]geom.EulerPair, n),
		dly: math.NaN(), nextT: math.NaN(), newestT: math.NaN(), segNext: -1}
	b.alloc(size)
	return b
}

func (b *bufBatch) alloc(size int) {
	b.ring = make([]float64, size)
	b.pos, b.vel, b.rot = make([]geom.Vec3, size*b.n), make([]geom.Vec3, size*b.n), make([]geom.Quat, size*b.n)
	b.mask = size - 1
}

// receive adds one packet: every entity's snapshot of the server tick at
// time tick, arrived at now; snaps[e].Time must be tick. The packet is
// ignored when it is no newer than the newest held (out of order or a
// duplicate: the gap it would fill has been rendered or is bracketed
// already). While s.Adaptive, each accepted packet also times its arrival:
// the spacing between arrivals of new snapshots is what the adaptive delay
// must cover, so stale and duplicate packets, which bring nothing new to
// interpolate towards, do not count. (Spacings are not kept while the
// delay is fixed, which saves a third of a receive in WebAssembly;
// switched on, the delay adapts from the next packet on.)
func (b *bufBatch) Receive(tick, now float64, snaps []technique.Snapshot) {
	if tick <= b.newestT { // ring[(end−1)&mask], or NaN before the first
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
	slot := b.end & b.mask
	b.ring[slot] = tick
	b.newestT = tick
	if b.next == b.end {
		b.nextT = tick
	}
	if b.n == 1 {
		// One entity (each of a population's): its slot is the ring's,
		// without the three slices the loop below cuts, and their checks.
		sn, p, v, q := &snaps[0], &b.pos[slot], &b.vel[slot], &b.rot[slot]
		p[0], p[1], p[2] = sn.Pos[0], sn.Pos[1], sn.Pos[2]
		v[0], v[1], v[2] = sn.Vel[0], sn.Vel[1], sn.Vel[2]
		q[0], q[1], q[2], q[3] = sn.Rot[0], sn.Rot[1], sn.Rot[2], sn.Rot[3]
		b.end++
		return
	}
	o := slot * b.n
	// Element by element: the runner has just written snaps so, and a
	// whole vector read back in 16-byte loads could not be forwarded.
	pos, vel, rot := b.pos[o:o+b.n], b.vel[o:o+b.n], b.rot[o:o+b.n]
	for e := range snaps[:b.n] {
		sn, p, v, q := &snaps[e], &pos[e], &vel[e], &rot[e]
		p[0], p[1], p[2] = sn.Pos[0], sn.Pos[1], sn.Pos[2]
		v[0], v[1], v[2] = sn.Vel[0], sn.Vel[1], sn.Vel[2]
		q[0], q[1], q[2], q[3] = sn.Rot[0], sn.Rot[1], sn.Rot[2], sn.Rot[3]
	}
	b.end++
}

// makeRoom frees a slot in the full ring: by forgetting snapshots before the
// one at or before the render time, else by doubling the ring, else (at
// bufMaxRing) by dropping the oldest.
func (b *bufBatch) makeRoom() {
	b.segNext = -1 // the slots may move or be dropped
	if b.next-1 > b.first {
		b.first = b.next - 1
		return
	}
	if len(b.ring) < bufMaxRing {
		ring, pos, vel, rot, mask := b.ring, b.pos, b.vel, b.rot, b.mask
		b.alloc(2 * len(ring))
		for i := b.first; i < b.end; i++ {
			b.ring[i&b.mask] = ring[i&mask]
			copy(b.pos[(i&b.mask)*b.n:][:b.n], pos[(i&mask)*b.n:])
			copy(b.vel[(i&b.mask)*b.n:][:b.n], vel[(i&mask)*b.n:])
			copy(b.rot[(i&b.mask)*b.n:][:b.n], rot[(i&mask)*b.n:])
		}
		return
	}
	b.first++
	if b.next < b.first {
		b.next = b.first
		b.keepNext()
	}
}

// keepNext sets nextT for next: ring[next&mask], or NaN at the end.
func (b *bufBatch) keepNext() {
	b.nextT = math.NaN()
	if b.next < b.end {
		b.nextT = b.ring[b.next&b.mask]
	}
}

// advance moves next on past the snapshots at or before render time rt:
// to the first newer than rt, or the end.
func (b *bufBatch) advance(rt float64) {
	for b.nextT <= rt { // next < end && ring[next&mask] <= rt
		b.next++
		b.keepNext()
	}
}

// frame works out what every entity shows at render time now − delay:
// the part shared by all, done once per frame; fill then writes the
// entities. The delay in use follows its target (see adaptiveDelay) at
// most delaySlew seconds per second of now, starting at the target on the
// first call with a snapshot held; and the render time is held rather than
// allowed to decrease, so Sample.Time never runs backwards even if now
// does. The render clock starts with the first snapshot.
//
// Time is the render time, Newest the newest snapshot's time (0 before
// any), Depth the number of snapshots held newer than the render time and
// Delay the delay in use.
func (b *bufBatch) Frame(now float64) {
	rt, target, held := b.render(now)
	if !held {
		b.kind = bufEmpty
		b.setCommon(technique.Empty, now-target, 0, 0, target)
		return
	}
	newest := (b.end - 1) & b.mask
	b.setCommon(technique.Interpolate, rt, b.ring[newest], b.end-b.next, b.dly)
	switch {
	case b.next < b.end && b.next > b.first: // bracketed: interpolate
		b.kind = bufInterpolate
		b.segment(rt, (b.next-1)&b.mask, b.next&b.mask)
	case b.next == b.first: // before the oldest held: show it
		b.kind, b.o0 = bufHold, (b.first&b.mask)*b.n
	default: // at or past the newest: underrun
		b.kind, b.o0, b.ahead = bufHold, newest*b.n, 0
		if ahead := rt - b.ring[newest]; ahead != 0 {
			b.kind = bufExtrapolate
			b.ahead, b.common.Mode = b.reach(ahead)
		}
	}
}

// render moves the render clock to now, as Frame does, and returns the
// delay's target; with a snapshot held (held) also the render time, with
// next moved on to the first snapshot newer than it.
func (b *bufBatch) render(now float64) (rt, target float64, held bool) {
	s := b.s
	target = s.Delay
	if s.Adaptive || !(target > 0) {
		target = adaptiveDelay(s, &b.jitter)
	}
	if b.end == b.first {
		return 0, target, false
	}
	rt = now - target
	if b.dly != b.dly { // not sampled yet
		b.dly = target // not NaN, as target never is: SlewTowards keeps it so
	} else {
		// At its target the delay stays (SlewTowards of cur = target is
		// target, whatever the step), as it does on most frames: neither
		// the step nor the slew is worked out then.
		if b.dly != target {
			b.dly = geom.SlewTowards(b.dly, target, float64(delaySlew*(now-b.lastNow))) // unfused: must round alike everywhere
		} else {
			b.dly = target // the same bits, ±0 aside: SlewTowards returns target
		}
		rt = now - b.dly
		if rt < b.rt {
			rt = b.rt
		}
	}
	b.lastNow, b.rt = now, rt
	b.advance(rt)
	return rt, target, true
}

// reach returns how far past the newest snapshot a render time ahead
// seconds past it (not 0) is dead-reckoned, and its mode: as far, up to
// extrapolateCap; frozen at the cap beyond it.
func (b *bufBatch) reach(ahead float64) (float64, technique.Mode) {
	if c := b.s.ExtrapolateCap; !(ahead <= c) {
		return max(c, 0), technique.Freeze
	}
	return ahead, technique.Extrapolate
}

// FrameLean is Frame(now) and Fill(0, out) for a batch of one entity, the
// display returned in registers (see technique.LeanFramer): a population
// entity's every frame. The batch keeps what later frames read (the
// render clock, the delay, the segment); what only Fill reads (kind,
// common and the rest) is left as it was, so a Fill needs a Frame first.
// Only a batch of one whose rotations nobody reads takes the lean way;
// any other does Frame and Fill.
func (b *bufBatch) FrameLean(now float64) technique.Lean {
	// The way most frames go is written out here without a call but the
	// last (so nothing is saved across one): the delay's target
	// (adaptiveDelay's, which render's call would find again, the same),
	// and render's step for a delay at its target with a snapshot held.
	// Anything else, a batch that does not take the lean way included,
	// is leanSlow's.
	s := b.s
	if s.Adaptive && b.jitter.n > s.AdaptWindow { // shortened: adaptiveDelay drops the oldest
		return b.leanSlow(now)
	}
	target := delayFor(s, b.jitter.least)
	if b.dly != target || !b.lean { // not sampled (dly is NaN), or off the target
		return b.leanSlow(now)
	}
	rt := now - target
	if rt < b.rt {
		rt = b.rt
	}
	b.dly, b.lastNow, b.rt = target, now, rt // the delay's bits as render's, ±0 included
	b.advance(rt)
	if b.segNext != b.next {
		return b.leanOther(rt)
	}
	// Bracketed, on the segment kept: interpolate, as segment and
	// fillInterpolate do. (Past the newest, rt > newestT, cannot be: the
	// snapshot at next is newer than rt and no newer than the newest.)
	var l technique.Lean
	// The fraction rounded on its own: HermiteBasis adds it to a sum,
	// which the compiler may otherwise fuse with this product where it
	// has multiply-adds (amd64 v3), and WebAssembly never does.
	a := float64((rt - b.segT0) * b.segInv)
	if b.hermite {
		h01, h10, h11 := geom.HermiteBasis(a, b.segDT)
		p0, p1, v0, v1 := &b.pos[b.segI0], &b.pos[b.segI1], &b.vel[b.segI0], &b.vel[b.segI1]
		l.X = geom.Hermite1(p0[0], v0[0], p1[0], v1[0], h01, h10, h11)
		l.Y = geom.Hermite1(p0[1], v0[1], p1[1], v1[1], h01, h10, h11)
		l.Z = geom.Hermite1(p0[2], v0[2], p1[2], v1[2], h01, h10, h11)
	} else {
		// lerp's x0 + (x1 − x0)·a, the difference worked out once.
		l.X, l.Y, l.Z = b.segX0+float64(b.segDX*a), b.segY0+float64(b.segDY*a), b.segZ0+float64(b.segDZ*a)
	}
	l.Flags = technique.LeanFlagsOf(technique.Interpolate, false, rt, b.newestT)
	return l
}

// leanSlow is FrameLean for the frames that do not go the usual way: a
// batch that does not take the lean way does Frame and Fill; a lean one
// moves the render clock with render.
func (b *bufBatch) leanSlow(now float64) technique.Lean {
	if !b.lean {
		var out [1]technique.Sample
		b.Frame(now)
		b.Fill(0, out[:])
		return technique.LeanOf(&out[0])
	}
	rt, target, held := b.render(now)
	if !held {
		return technique.Lean{Flags: technique.LeanFlagsOf(technique.Empty, false, now-target, 0)}
	}
	return b.leanOther(rt) // which sets the segment up again, if kept to the same bits
}

// leanOther is FrameLean after the render clock's step, for render time
// rt, when no segment is kept for next (or, from leanSlow, whether one is
// or not): it sets one up and keeps it when two snapshots bracket rt, as
// about one frame in three finds (a new snapshot pair).
func (b *bufBatch) leanOther(rt float64) technique.Lean {
	var l technique.Lean
	if n := b.next; n < b.end && n > b.first { // bracketed: interpolate, as segment and fillInterpolate
		i0, i1 := (n-1)&b.mask, n&b.mask
		// (segment's cache of the pair's times, its 1/(t1 − t0) and
		// rotation blends, is left to Frame: it finds what it kept for
		// its own last pair, and the division gives the same bits.)
		t0, t1 := b.ring[i0], b.nextT // ring[i1]
		inv := 1 / (t1 - t0)
		p0, p1 := &b.pos[i0], &b.pos[i1]
		b.segNext, b.segT0, b.segInv = n, t0, inv
		x0, y0, z0 := p0[0], p0[1], p0[2]
		a := float64((rt - t0) * inv) // rounded on its own, as in FrameLean
		if b.hermite {
			b.segI0, b.segI1, b.segDT = i0, i1, t1-t0
			h01, h10, h11 := geom.HermiteBasis(a, t1-t0)
			v0, v1 := &b.vel[i0], &b.vel[i1]
			l.X = geom.Hermite1(x0, v0[0], p1[0], v1[0], h01, h10, h11)
			l.Y = geom.Hermite1(y0, v0[1], p1[1], v1[1], h01, h10, h11)
			l.Z = geom.Hermite1(z0, v0[2], p1[2], v1[2], h01, h10, h11)
		} else { // lerp, the differences kept for the next frames
			dx, dy, dz := p1[0]-x0, p1[1]-y0, p1[2]-z0
			b.segX0, b.segY0, b.segZ0 = x0, y0, z0
			b.segDX, b.segDY, b.segDZ = dx, dy, dz
			l.X, l.Y, l.Z = x0+float64(dx*a), y0+float64(dy*a), z0+float64(dz*a)
		}
		l.Flags = technique.LeanFlagsOf(technique.Interpolate, false, rt, b.newestT)
		return l
	}
	newest := (b.end - 1) & b.mask
	mode := technique.Interpolate
	if b.next == b.first { // before the oldest held: show it
		p := &b.pos[b.first&b.mask]
		l.X, l.Y, l.Z = p[0], p[1], p[2]
	} else { // at or past the newest: underrun
		p := &b.pos[newest]
		if ahead := rt - b.ring[newest]; ahead == 0 {
			l.X, l.Y, l.Z = p[0], p[1], p[2]
		} else {
			ahead, mode = b.reach(ahead)
			l.X, l.Y, l.Z = b.reckon(p, &b.vel[newest], ahead, max(b.env.MaxSpeed, 0))
		}
	}
	l.Flags = technique.LeanFlagsOf(mode, false, rt, b.ring[newest])
	return l
}

// lerp returns x0 + (x1 − x0)·a, the product rounded on its own.
func lerp(x0, x1, a float64) float64 { return x0 + float64((x1-x0)*a) }

// What a frame shows, in bufBatch.kind.
const (
	bufEmpty       = iota // no snapshot yet
	bufInterpolate        // between the snapshots at o0 and o1, fraction a
	bufHold               // the snapshot at o0 as it is
	bufExtrapolate        // dead reckoning ahead seconds past the snapshot at o0
)

// segment sets up interpolation between the snapshots in slots i0 and i1 at
// render time rt: the fraction, the Hermite weights, and (once per pair of
// snapshots) every entity's rotation blend.
func (b *bufBatch) segment(rt float64, i0, i1 int) {
	n := b.n
	t0, t1 := b.ring[i0], b.ring[i1]
	if b.t0 != t0 || b.t1 != t1 || b.inv == 0 {
		b.t0, b.t1, b.inv = t0, t1, 1/(t1-t0)
		b.slerpOK, b.eulerOK = false, false
	}
	b.a = (rt - t0) * b.inv
	b.o0, b.o1 = i0*n, i1*n
	if !b.noRot { // else the blends are made when rotations are wanted again
		b.euler = b.s.Rotation == "euler"
	}
	switch {
	case b.noRot:
	case b.euler && !b.eulerOK:
		for e := range n {
			b.eulerAt[e].Init(b.rot[b.o0+e], b.rot[b.o1+e])
		}
		b.eulerOK = true
	case !b.euler && !b.slerpOK:
		for e := range n {
			b.slerp[e].Init(b.rot[b.o0+e], b.rot[b.o1+e])
		}
		b.slerpOK = true
	}
	if b.hermite {
		b.h01, b.h10, b.h11 = geom.HermiteBasis(b.a, t1-t0)
	}
}

// skipRotations says whether nothing reads the rotations fill writes: then
// interpolation writes the identity instead of blending every entity's pair
// of rotations, about a tenth of a frame's work. Held and extrapolated
// frames copy a snapshot's rotation either way.
func (b *bufBatch) SkipRotations(skip bool) { b.noRot, b.lean = skip, skip && b.n == 1 }

// fill writes entities lo, lo+1, ... of the frame set up by frame into out.
func (b *bufBatch) Fill(lo int, out []technique.Sample) {
	switch b.kind {
	case bufEmpty:
		for e := range out {
			out[e] = b.common
		}
	case bufInterpolate:
		b.fillInterpolate(lo, out)
	case bufHold:
		o := b.o0 + lo
		for e := range out {
			p, q := &b.pos[o+e], &b.rot[o+e]
			b.put(&out[e], p[0], p[1], p[2], q[0], q[1], q[2], q[3])
		}
	case bufExtrapolate:
		b.fillExtrapolate(lo, out)
	}
}

func (b *bufBatch) fillInterpolate(lo int, out []technique.Sample) {
	a, h01, h10, h11 := b.a, b.h01, b.h10, b.h11
	// The settings and slices in locals, resliced to the chunk: the stores
	// into out could alias b as far as the compiler knows, so read through b
	// they would be loaded again for every entity, each with its bounds check.
	hermite, noRot, euler := b.hermite, b.noRot, b.euler
	n := len(out)
	pos0, pos1 := b.pos[b.o0+lo:][:n], b.pos[b.o1+lo:][:n]
	vel0, vel1 := pos0, pos1 // the velocities when hermite
	if hermite {
		vel0, vel1 = b.vel[b.o0+lo:], b.vel[b.o1+lo:]
	}
	vel0, vel1 = vel0[:n], vel1[:n]
	// The pose is worked out in scalars and stored once: Vec3 and Quat are
	// arrays, which Go passes and copies through memory.
	for e := range out {
		p0, p1 := &pos0[e], &pos1[e]
		var px, py, pz, qx, qy, qz, qw float64
		if hermite {
			v0, v1 := &vel0[e], &vel1[e]
			px = geom.Hermite1(p0[0], v0[0], p1[0], v1[0], h01, h10, h11)
			py = geom.Hermite1(p0[1], v0[1], p1[1], v1[1], h01, h10, h11)
			pz = geom.Hermite1(p0[2], v0[2], p1[2], v1[2], h01, h10, h11)
		} else {
			px, py, pz = lerp(p0[0], p1[0], a), lerp(p0[1], p1[1], a), lerp(p0[2], p1[2], a)
		}
		if noRot {
			qw = 1
		} else if euler {
			qz, qw = b.eulerAt[lo+e].At(a)
		} else {
			qx, qy, qz, qw = b.slerp[lo+e].At4(a)
		}
		b.put(&out[e], px, py, pz, qx, qy, qz, qw)
	}
}

// setCommon sets the fields every entity's sample of the frame shares,
// one by one: a Sample literal stored whole is built aside and copied in
// 16-byte loads of what was just stored 8 bytes at a time, which the
// processor cannot forward. Its Pos, Rot and Idle stay zero, as no one
// writes them.
func (b *bufBatch) setCommon(mode technique.Mode, time, newest float64, depth int, delay float64) {
	c := &b.common
	c.Mode, c.Time, c.Newest, c.Depth, c.Delay = mode, time, newest, depth, delay
}

// put writes into o the frame's common fields with the position (px, py,
// pz) and the rotation (qx, qy, qz, qw), field by field: a copy of
// b.common whole, or of a Sample built aside, would read back in 16-byte
// loads what was just stored 8 bytes at a time, which the processor cannot
// forward and stalls on, once per entity. Every field of o is written. The
// rotation comes in scalars, not as a *geom.Quat, which keeps put within
// the inliner's budget: it runs once per entity and frame.
func (b *bufBatch) put(o *technique.Sample, px, py, pz, qx, qy, qz, qw float64) {
	c := &b.common
	o.Pos[0], o.Pos[1], o.Pos[2] = px, py, pz
	o.Rot[0], o.Rot[1], o.Rot[2], o.Rot[3] = qx, qy, qz, qw
	o.Mode, o.Idle, o.Time, o.Newest, o.Depth, o.Delay = c.Mode, c.Idle, c.Time, c.Newest, c.Depth, c.Delay
}

// fillExtrapolate dead-reckons b.ahead seconds past the newest snapshots,
// the speed clamped to env.MaxSpeed when s.SpeedClamp. Rotation holds the
// newest snapshot's, as snapshots carry no angular velocity.
func (b *bufBatch) fillExtrapolate(lo int, out []technique.Sample) {
	ahead, o := b.ahead, b.o0+lo
	top := max(b.env.MaxSpeed, 0)
	for e := range out {
		px, py, pz := b.reckon(&b.pos[o+e], &b.vel[o+e], ahead, top)
		q := &b.rot[o+e]
		b.put(&out[e], px, py, pz, q[0], q[1], q[2], q[3])
	}
}

// reckon returns position p dead-reckoned ahead seconds at velocity v,
// its speed clamped to top when s.SpeedClamp.
func (b *bufBatch) reckon(p, v *geom.Vec3, ahead, top float64) (x, y, z float64) {
	vx, vy, vz := v[0], v[1], v[2]
	if b.s.SpeedClamp {
		sq := float64(vx*vx) + float64(vy*vy) + float64(vz*vz)
		if sq > float64(top*top) {
			k := top / math.Sqrt(sq)
			vx, vy, vz = vx*k, vy*k, vz*k
		}
	}
	return p[0] + float64(vx*ahead), p[1] + float64(vy*ahead), p[2] + float64(vz*ahead)
}

// bufTech is the buffer as a per-entity Technique: a bufBatch of one.
type bufTech struct {
	*bufBatch
	one [1]technique.Snapshot
	out [1]technique.Sample
}

// newBuffer returns the buffer technique for one entity (see bufBatch).
func newBuffer(s *Settings, env *technique.Env, hermite bool) technique.Technique {
	return &bufTech{bufBatch: newBufBatch(s, env, hermite, 1)}
}

// Receive adds sn unless it is no newer than the newest held.
func (t *bufTech) Receive(sn technique.Snapshot, now float64) {
	t.one[0] = sn
	t.bufBatch.Receive(sn.Time, now, t.one[:])
}

// Sample returns the pose at render time now − delay.
func (t *bufTech) Sample(now float64) technique.Sample {
	t.Frame(now)
	t.Fill(0, t.out[:])
	return t.out[0]
}

func (*bufBatch) SharesDelay() {}
