// Package motion is the ground truth of the lab: seeded motion scripts that
// stress interpolation (strafing, sharp 180° turns, stop-and-go, circles,
// zigzags, jumps), each a Mover that gives an entity's state at any time.
// It imports only engine/geom; positions in metres, times in seconds.
package motion

import (
	"math"
	"strconv"

	"interplab/engine/geom"
)

// Names are the motion scripts of the ground truth, by name: the choices
// of the motion parameter. mix gives each entity a different one.
var Names = []string{"strafe", "turn", "stopgo", "circle", "zigzag", "jump", "mix"}

// State is where an entity truly is at one instant: the ground truth the
// techniques are measured against.
type State struct {
	Pos geom.Vec3 // position, m; Z is up, 0 on the ground
	Vel geom.Vec3 // velocity, m/s: the exact time derivative of Pos
	Yaw float64   // facing, radians in (−π, π]; 0 faces +X, positive turns towards +Y
}

// Mover is one entity's ground-truth motion: a pure function of (script,
// entity, maxSpeed, seed, t), precomputed so that At is cheap enough to
// evaluate for 10,000 entities every frame (and allocation-free). It keeps
// the segment and the period of its script it last evaluated, which change
// none of its results, but it is not safe for concurrent use.
//
// Each script is a closed path that repeats, so an entity never strays more
// than 10 m from its start. Up to 10 m/s the scripts keep their timing and
// their size grows with maxSpeed; above, they keep their size and run faster
// (every duration scaled by 10/maxSpeed). The start is the entity's cell on
// a square spiral around the origin, 10 m apart (entity 0 at the origin;
// 10,000 entities fill a 1 km square). Each entity also gets, from (entity,
// seed), its own heading, mirror image, tempo (every duration, and so the
// size, at 80–100% of the script's) and phase, so neighbours do not move in
// lockstep.
//
// The scripts, at speed v = maxSpeed ≤ 10 m/s and tempo 1 (the 3-D speed
// never exceeds maxSpeed):
//   - strafe: A-D strafing along one axis while facing across it: runs of
//     0.2–0.45 s at v, reversed in 0.1 s, and once a period (1.95 s) a
//     counter-strafe stop of 0.15 s.
//   - turn: sprint 1.6 s, then a sharp 180° turn (a half circle in 0.2 s of
//     radius 0.064 s·v, 0.45 m at 7 m/s), and back.
//   - stopgo: around a rectangle: accelerate 0.2 s, run 1.0 or 0.6 s, brake
//     0.2 s, stand 0.5 s turning 90° to the next side.
//   - circle: a circle at constant speed every 6 s, about the start.
//   - zigzag: 0.5 s diagonal legs at ±45° to the direction of advance, with
//     0.1 s corners; four legs forward, four back (4.8 s).
//   - jump: running around an oval (4.4 s) at horizontal speed √(v² − w²),
//     jumping after every 0.7 s on the ground: a ballistic arc (gravity
//     9.81 m/s²) with take-off speed w = min(0.6·v, 5 m/s), 0.9 m high at
//     v = 7 m/s. The jumps keep their timing at any speed.
//   - mix: entity i runs script i mod 6 of the six above.
//
// Changes of velocity are short ramps of constant acceleration (0.1–0.2 s;
// 35–140 m/s² at 7 m/s, as quick as a shooter's movement), so position and
// velocity are continuous and the acceleration is bounded, except that a
// jump's take-off and landing change the vertical velocity at once, like the
// impulses they are. The facing follows the direction of motion (turning
// linearly through the ramps), except in strafe (fixed, across the motion)
// and stopgo (turning while standing).
type Mover struct {
	// What a position reads first, together.
	path *motionPath
	seg  *motionSeg // the segment of the path last evaluated: the next time is most often in it
	// The period last found, k = ⌊path time·invPeriod⌋ before the
	// reduction, and period·k, the path time it starts at; and the window
	// [lo, hi) of raw path times t·invK + phase that reduce in that period
	// with no correction: in it, the path time is one subtraction, the
	// same number as the Floor and the product (see reduce). Empty (0, 0)
	// until the first time.
	cycle, cycleStart  float64
	lo, hi             float64
	invK, phase        float64 // path time = t·invK + phase
	ox, oy             float64 // start, m
	m00, m01, m10, m11 float64 // heading rotation with the mirror image
	dist, speed        float64 // path units to metres; to metres per second
	yawH, yawSign      float64 // world yaw = yawH + yawSign·path yaw
	script             string

	// jump: vertical motion, independent of the path's time scale; air 0
	// for the other scripts. jumpCycle and jumpStart are the jump period
	// last found and its start, as cycle and cycleStart.
	vz0, air, jumpPeriod, invJump, jumpPhase float64
	jumpCycle, jumpStart                     float64

	// The period kept before the last, as cycle, cycleStart, lo and hi:
	// a packet's tick, behind the frames, falls in it for a while after
	// the frames cross into the next one.
	prev [4]float64
}

// Constants of the motion scripts.
const (
	motionSpacing   = 10.0 // m between neighbouring starts
	motionRefSpeed  = 10.0 // m/s above which scripts run faster instead of larger
	motionGravity   = 9.81 // m/s²
	motionJumpSpeed = 5.0  // largest take-off speed, m/s
	motionJumpShare = 0.6  // take-off speed as a share of maxSpeed, when smaller
	motionJumpGap   = 0.7  // time on the ground between jumps, s
	motionMinTempo  = 0.8  // slowest per-entity tempo
)

// Scripts are the six pure scripts; "mix" picks among them.
var Scripts = [...]string{"strafe", "turn", "stopgo", "circle", "zigzag", "jump"}

// NewMover returns the motion of entity (≥ 0) under script, one of Motions,
// for a top speed of maxSpeed (m/s, ≥ 0) and the run's seed. It panics on an
// unknown script or a negative entity or speed.
func NewMover(script string, entity int, maxSpeed float64, seed uint64) Mover {
	if entity < 0 || !(maxSpeed >= 0) {
		panic("engine: NewMover: entity " + strconv.Itoa(entity) + ", maxSpeed " + strconv.FormatFloat(maxSpeed, 'g', -1, 64))
	}
	if script == "mix" {
		script = Scripts[entity%len(Scripts)]
	}
	k := -1
	for i, name := range Scripts {
		if name == script {
			k = i
		}
	}
	if k < 0 {
		panic("engine: unknown motion " + strconv.Quote(script))
	}

	h := geom.Mix(seed ^ geom.Mix(uint64(entity)+0x632be59bd9b4e019))
	draw := func(i uint64) float64 { return geom.ToUnit(geom.Mix(h + i*0x9e3779b97f4a7c15)) }
	heading := 2 * math.Pi * draw(1)
	mirror := 1.0
	if draw(2) < 0.5 {
		mirror = -1
	}
	tempo := motionMinTempo + float64((1-motionMinTempo)*draw(3))

	path := &motionPaths[k]
	// The periods found so far: none (NaN fails every comparison).
	m := Mover{path: path, seg: &path.segs[0], cycle: math.NaN(), jumpCycle: math.NaN(),
		script: script, yawH: heading, yawSign: mirror, prev: [4]float64{math.NaN()}}
	gx, gy := motionSpiral(entity)
	m.ox, m.oy = motionSpacing*float64(gx), motionSpacing*float64(gy)
	sn, cs := geom.Sincos(heading)
	m.m00, m.m01 = cs, -sn*mirror
	m.m10, m.m11 = sn, cs*mirror

	speed := maxSpeed
	if script == "jump" {
		m.vz0 = min(motionJumpShare*maxSpeed, motionJumpSpeed)
		m.air = 2 * m.vz0 / motionGravity
		m.jumpPeriod = m.air + motionJumpGap
		m.invJump = 1 / m.jumpPeriod
		m.jumpPhase = m.jumpPeriod * draw(4)
		speed = math.Sqrt(float64(maxSpeed*maxSpeed) - float64(m.vz0*m.vz0))
	}
	scale := tempo // seconds per path second, shortened to keep the size at high speed
	if maxSpeed > motionRefSpeed {
		scale *= motionRefSpeed / maxSpeed
	}
	m.speed = speed
	m.dist = speed * scale
	m.invK = 1 / scale
	m.phase = m.path.period * draw(5)
	return m
}

// Script returns the script the entity runs; for "mix", the one it got.
func (m *Mover) Script() string { return m.script }

// At returns the entity's state at time t, in seconds.
func (m *Mover) At(t float64) State {
	var st State
	m.eval(t, &st.Pos, &st.Vel, &st.Yaw)
	return st
}

// Pos returns At(t).Pos, the same bits, without working out the velocity
// and the facing: a run's truth needs only the position on most frames.
func (m *Mover) Pos(t float64) geom.Vec3 {
	// Built from registers: a vector the callee stored 8 bytes at a time
	// and the caller copied whole would be read back in 16-byte loads,
	// which the processor cannot forward from the stores (a stall on
	// every frame of a run).
	x, y, z := m.pos(t)
	return geom.Vec3{x, y, z}
}

// PosVel stores At(t).Pos in *pos and At(t).Vel in *vel, the same bits,
// without working out the facing: what a snapshot needs when nothing
// reads its rotation. It writes the elements one by one, so that a
// caller's copy of them is read as it was stored.
func (m *Mover) PosVel(t float64, pos, vel *geom.Vec3) {
	m.eval(t, pos, vel, nil)
}

// PosVelYaw stores At(t).Pos in *pos and At(t).Vel in *vel and returns
// At(t).Yaw, the same bits, element by element where the caller keeps
// them: a State returned whole and copied would be, in Go's WebAssembly,
// a memory.copy, which V8 runs as a call out of the module.
func (m *Mover) PosVelYaw(t float64, pos, vel *geom.Vec3) (yaw float64) {
	m.eval(t, pos, vel, &yaw)
	return yaw
}

// pos is Pos's work: the position at time t, in metres.
func (m *Mover) pos(t float64) (x, y, z float64) {
	// The path time, written out (a function for it costs 89, above the
	// inlining budget; eval does the same): successive times mostly fall
	// in the period of the last (see lo), and in its segment: the
	// segments tile the period exactly, so the one that holds u is the
	// one the index would find (see finish).
	tau := float64(t*m.invK) + m.phase
	u := tau - m.cycleStart
	if !(tau >= m.lo && tau < m.hi) {
		u = m.reduce(tau)
	}
	seg := m.seg
	if !(u >= seg.t0 && u < seg.end) {
		seg = m.find(u)
	}
	s := u - seg.t0
	var px, py float64
	switch seg.kind {
	case segHold:
		// The line's formula with an acceleration of +0 and a velocity
		// that is not −0, to the bit: hs·(+0) is +0 for hs ≥ 0 (s is
		// never negative), and vx + (+0) is vx (see finish).
		px = seg.x + float64(s*seg.vx)
		py = seg.y + float64(s*seg.vy)
	case segLine:
		hs := float64(0.5 * s)
		px = seg.x + float64(s*(seg.vx+float64(hs*seg.ax)))
		py = seg.y + float64(s*(seg.vy+float64(hs*seg.ay)))
	default:
		sn, cs := geom.Sincos(seg.ang0 + float64(seg.omega*s))
		px, py = seg.x+float64(seg.r*cs), seg.y+float64(seg.r*sn)
	}
	x = m.ox + float64(m.dist*(float64(m.m00*px)+float64(m.m01*py)))
	y = m.oy + float64(m.dist*(float64(m.m10*px)+float64(m.m11*py)))
	if m.air > 0 {
		z, _ = m.jump(t)
	}
	return x, y, z
}

// reduce returns raw path time tau reduced to the path time in [0,
// period), and keeps the period it found with its window.
func (m *Mover) reduce(tau float64) float64 {
	p := m.path
	// tau −= period·⌊tau·invPeriod⌋, with the Floor and the product
	// those of the last time when the quotient is in the same period:
	// the same numbers, as cycle is an integer. (Neither tau nor q is
	// ever −0, whose Floor, −0, a kept +0 would not give: phase ≥ +0.)
	if q := float64(tau * p.invPeriod); !(q >= m.cycle && q < m.cycle+1) {
		last := [4]float64{m.cycle, m.cycleStart, m.lo, m.hi}
		if q >= m.prev[0] && q < m.prev[0]+1 {
			m.cycle, m.cycleStart, m.lo, m.hi = m.prev[0], m.prev[1], m.prev[2], m.prev[3]
		} else {
			m.cycle = math.Floor(q)
			m.cycleStart = float64(p.period * m.cycle)
			m.lo, m.hi = m.window()
		}
		m.prev = last
	}
	tau -= m.cycleStart
	if tau < 0 { // the product above may round across a period boundary
		tau += p.period
	} else if tau >= p.period {
		tau -= p.period
	}
	return tau
}

// inWindow reports whether raw path time x reduces in the period kept,
// that starts at cycleStart, with no correction. It holds on an interval
// of x, as a rounded product and a rounded difference grow with x.
func (m *Mover) inWindow(x float64) bool {
	q := float64(x * m.path.invPeriod)
	v := x - m.cycleStart
	return q >= m.cycle && q < m.cycle+1 && v >= 0 && v < m.path.period
}

// window returns an interval [lo, hi) of raw path times for which
// inWindow holds: from the start of the period and its end, which miss
// the interval's ends by an ulp or two, the first times inside within
// three ulps inwards; the exact interval, or a few ulps shorter. It is
// empty, (0, 0), when they miss by more (near 0, where the ulps are
// small, for a negative period): then reduce does all the work.
func (m *Mover) window() (lo, hi float64) {
	a, b := motionKey(m.cycleStart), motionKey(m.cycleStart+m.path.period)
	for n := 0; !m.inWindow(motionFloat(a)); n++ {
		if a++; n == 3 {
			return 0, 0
		}
	}
	for n := 0; !m.inWindow(motionFloat(b)); n++ {
		if b--; n == 3 {
			return 0, 0
		}
	}
	if b < a {
		return 0, 0
	}
	return motionFloat(a), motionFloat(b + 1)
}

// motionKey maps the floats to integers in the same order (−0 just below
// +0), so that k+1 is the float after k's; motionFloat is its inverse.
func motionKey(x float64) uint64 {
	b := math.Float64bits(x)
	if b>>63 == 1 {
		return ^b
	}
	return b | 1<<63
}

func motionFloat(k uint64) float64 {
	if k>>63 == 1 {
		return math.Float64frombits(k &^ (1 << 63))
	}
	return math.Float64frombits(^k)
}

// find returns the segment that holds path time tau, when it is not the
// one last evaluated (see pos): the search from the index's bucket, on. It
// keeps it for the next time.
func (m *Mover) find(tau float64) *motionSeg {
	p := m.path
	seg := &p.segs[p.index[p.bucket(tau)]]
	for tau >= seg.end {
		seg = &p.segs[seg.next]
	}
	m.seg = seg
	return seg
}

// jump returns the height, m, and vertical velocity, m/s, of a jump
// script at time t: both 0 on the ground.
func (m *Mover) jump(t float64) (z, vz float64) {
	j := t + m.jumpPhase
	// j −= jumpPeriod·⌊j·invJump⌋, the period kept as in pathTime.
	if q := float64(j * m.invJump); !(q >= m.jumpCycle && q < m.jumpCycle+1) {
		m.jumpCycle = math.Floor(q)
		m.jumpStart = float64(m.jumpPeriod * m.jumpCycle)
	}
	j -= m.jumpStart
	// j < 0 only when the product rounded up across the start of a
	// jump: then t is at the end of the previous period, on the ground.
	if j >= 0 && j < m.air {
		return float64(j * (m.vz0 - float64(0.5*motionGravity*j))), m.vz0 - float64(motionGravity*j)
	}
	return 0, 0
}

// eval stores in *pos, *vel and, unless yaw is nil, *yaw the state at time t.
func (m *Mover) eval(t float64, pos, vel *geom.Vec3, yaw *float64) {
	// The segment and the position as in pos.
	tau := float64(t*m.invK) + m.phase
	u := tau - m.cycleStart
	if !(tau >= m.lo && tau < m.hi) {
		u = m.reduce(tau)
	}
	seg := m.seg
	if !(u >= seg.t0 && u < seg.end) {
		seg = m.find(u)
	}
	s := u - seg.t0
	var px, py, vx, vy float64
	switch seg.kind {
	case segHold: // as in pos; vx + ax·s is vx for the same reasons
		px = seg.x + float64(s*seg.vx)
		py = seg.y + float64(s*seg.vy)
		vx, vy = seg.vx, seg.vy
	case segLine: // eval's line case, inlined: most of the time is spent on lines
		hs := float64(0.5 * s)
		px = seg.x + float64(s*(seg.vx+float64(hs*seg.ax)))
		py = seg.y + float64(s*(seg.vy+float64(hs*seg.ay)))
		vx, vy = seg.vx+float64(seg.ax*s), seg.vy+float64(seg.ay*s)
	default:
		px, py, vx, vy = seg.eval(s)
	}
	pos[0] = m.ox + float64(m.dist*(float64(m.m00*px)+float64(m.m01*py)))
	pos[1] = m.oy + float64(m.dist*(float64(m.m10*px)+float64(m.m11*py)))
	vel[0] = m.speed * (float64(m.m00*vx) + float64(m.m01*vy))
	vel[1] = m.speed * (float64(m.m10*vx) + float64(m.m11*vy))
	pos[2], vel[2] = 0, 0
	if m.air > 0 {
		pos[2], vel[2] = m.jump(t)
	}
	if yaw != nil {
		y := m.yawH + float64(m.yawSign*(seg.yaw0+float64(seg.yawRate*s)))
		*yaw = y - float64(2*math.Pi*math.Ceil(float64((y-math.Pi)*(0.5/math.Pi))))
	}
}

// motionSpiral returns the cell of entity i on a square spiral around the
// origin: 0 at (0, 0), then ring r (r ≥ 1) holds the 8r cells with
// max(|x|, |y|) = r, entities (2r−1)² to (2r+1)²−1.
func motionSpiral(i int) (x, y int) {
	if i == 0 {
		return 0, 0
	}
	s := int(math.Sqrt(float64(i)))
	for s*s > i {
		s--
	}
	for (s+1)*(s+1) <= i {
		s++
	}
	r := (s + 1) / 2
	j := i - (2*r-1)*(2*r-1)
	side, off := j/(2*r), j%(2*r)
	switch side {
	case 0:
		return r, -r + 1 + off
	case 1:
		return r - 1 - off, r
	case 2:
		return -r, r - 1 - off
	}
	return -r + 1 + off, -r
}

// motionIndexSize is the number of buckets that map a path time to the
// segment to start looking from.
const motionIndexSize = 32

// motionPath is a script at unit speed (|velocity| ≤ 1 path unit per path
// second): a closed loop of segments, centred on the origin, that repeats
// every period.
type motionPath struct {
	segs              []motionSeg
	period, invPeriod float64
	index             [motionIndexSize]int // last segment starting before each bucket
}

// bucket returns the bucket of the index for path time tau in [0, period).
func (p *motionPath) bucket(tau float64) int {
	return min(int(float64(tau*p.invPeriod)*motionIndexSize), motionIndexSize-1)
}

// motionSeg is one piece of a path over path times [t0, end): a line with
// constant acceleration, or an arc at constant speed. Facing turns at a
// constant rate on both.
type motionSeg struct {
	t0, end float64
	next    int // the following segment, wrapping to 0
	arc     bool
	kind    segKind // how Mover evaluates it: arc, or a line in general or at constant velocity

	// line: position (x, y) and velocity (vx, vy) at t0, acceleration (ax, ay).
	// arc: centre (x, y), radius r, angle ang0 at t0, angular rate omega, vr = r·omega.
	x, y, vx, vy, ax, ay float64
	r, ang0, omega, vr   float64

	yaw0, yawRate float64 // facing at t0, radians, and its rate
}

// segKind is how a Mover evaluates a segment.
type segKind uint8

const (
	segLine segKind = iota // a line with an acceleration
	segHold                // a line at constant velocity: both accelerations +0, neither velocity −0
	segArc
)

// motionPaths holds the six scripts, in the order of Scripts. They are
// built once with the same arithmetic everywhere, so they are identical on
// every platform.
var motionPaths = [len(Scripts)]motionPath{
	motionStrafe(), motionTurn(), motionStopGo(), motionCircle(), motionZigzag(), motionJump(),
}

func motionStrafe() motionPath {
	b := motionBuilder{vx: 1, yaw: math.Pi / 2} // facing across the strafe
	b.hold(0.45)
	b.ramp(0.1, -1, 0, 0)
	b.hold(0.3)
	b.ramp(0.1, 1, 0, 0)
	b.hold(0.2)
	b.ramp(0.1, 0, 0, 0) // counter-strafe: stop to shoot
	b.hold(0.15)
	b.ramp(0.1, -1, 0, 0)
	b.hold(0.35)
	b.ramp(0.1, 1, 0, 0)
	return b.finish()
}

func motionTurn() motionPath {
	b := motionBuilder{vx: 1}
	b.hold(1.6)
	b.arc(math.Pi, 0.2)
	b.hold(1.6)
	b.arc(math.Pi, 0.2)
	return b.finish()
}

func motionStopGo() motionPath {
	b := motionBuilder{}
	cruise := [4]float64{1.0, 0.6, 1.0, 0.6}
	for i, c := range cruise {
		sn, cs := geom.Sincos(float64(i) * math.Pi / 2)
		b.ramp(0.2, cs, sn, 0)
		b.hold(c)
		b.ramp(0.2, 0, 0, 0)
		b.hold(0.15)
		b.ramp(0.25, 0, 0, math.Pi/2) // turn to the next side while standing
		b.hold(0.1)
	}
	return b.finish()
}

func motionCircle() motionPath {
	b := motionBuilder{vx: 1}
	b.arc(2*math.Pi, 6)
	return b.finish()
}

func motionZigzag() motionPath {
	c := math.Sqrt(0.5)
	// Legs at 45°, −45° forward (+X), then −135°, 135° back; each corner
	// turns the velocity by 90° in 0.1 s.
	b := motionBuilder{vx: c, vy: c, yaw: math.Pi / 4}
	legs := [8]struct{ vx, vy, turn float64 }{
		{c, -c, -math.Pi / 2}, {c, c, math.Pi / 2}, {c, -c, -math.Pi / 2}, {-c, -c, -math.Pi / 2},
		{-c, c, -math.Pi / 2}, {-c, -c, math.Pi / 2}, {-c, c, -math.Pi / 2}, {c, c, -math.Pi / 2},
	}
	for _, l := range legs {
		b.hold(0.5)
		b.ramp(0.1, l.vx, l.vy, l.turn)
	}
	return b.finish()
}

func motionJump() motionPath {
	b := motionBuilder{vx: 1}
	b.hold(1.4)
	b.arc(math.Pi, 0.8)
	b.hold(1.4)
	b.arc(math.Pi, 0.8)
	return b.finish()
}

// motionBuilder lays out a path segment by segment, from the origin.
type motionBuilder struct {
	segs                 []motionSeg
	t, x, y, vx, vy, yaw float64
}

// ramp changes the velocity linearly to (vx, vy) over dur path seconds while
// the facing turns by dyaw.
func (b *motionBuilder) ramp(dur, vx, vy, dyaw float64) {
	s := motionSeg{t0: b.t, end: b.t + dur, x: b.x, y: b.y, vx: b.vx, vy: b.vy,
		ax: (vx - b.vx) / dur, ay: (vy - b.vy) / dur, yaw0: b.yaw, yawRate: dyaw / dur}
	b.segs = append(b.segs, s)
	b.x, b.y, b.vx, b.vy = s.eval(dur)
	b.vx, b.vy = vx, vy
	b.t, b.yaw = s.end, b.yaw+dyaw
}

// hold keeps the velocity and facing for dur path seconds.
func (b *motionBuilder) hold(dur float64) { b.ramp(dur, b.vx, b.vy, 0) }

// arc turns the (unit) velocity by angle radians, positive to the left, at
// constant speed over dur path seconds; the facing turns with it. The
// entity must be facing its direction of motion.
func (b *motionBuilder) arc(angle, dur float64) {
	phi := b.yaw
	sign := math.Copysign(1, angle)
	r := dur / math.Abs(angle)
	sn, cs := geom.Sincos(phi)
	s := motionSeg{t0: b.t, end: b.t + dur, arc: true,
		x: b.x - float64(sign*r*sn), y: b.y + float64(sign*r*cs),
		r: r, ang0: phi - sign*math.Pi/2, omega: angle / dur, yaw0: b.yaw, yawRate: angle / dur}
	s.vr = s.r * s.omega
	b.segs = append(b.segs, s)
	b.x, b.y, b.vx, b.vy = s.eval(dur)
	b.t, b.yaw = s.end, b.yaw+angle
}

// eval returns the position and velocity at time s into the segment, with
// the same arithmetic as Mover.At.
func (seg *motionSeg) eval(s float64) (px, py, vx, vy float64) {
	if seg.arc {
		sn, cs := geom.Sincos(seg.ang0 + float64(seg.omega*s))
		return seg.x + float64(seg.r*cs), seg.y + float64(seg.r*sn), -float64(seg.vr * sn), float64(seg.vr * cs)
	}
	hs := float64(0.5 * s)
	px = seg.x + float64(s*(seg.vx+float64(hs*seg.ax)))
	py = seg.y + float64(s*(seg.vy+float64(hs*seg.ay)))
	return px, py, seg.vx + float64(seg.ax*s), seg.vy + float64(seg.ay*s)
}

// kindOf returns how a Mover evaluates the segment: segHold for a line
// whose formulas at constant velocity give its general ones to the bit.
// v + (0.5·s)·a is v when a is +0 (s ≥ 0, so the product is +0) and v is
// not −0 (−0 + +0 is +0); so is v + a·s.
func (seg *motionSeg) kindOf() segKind {
	const plus0, minus0 = 0, 1 << 63
	switch {
	case seg.arc:
		return segArc
	case math.Float64bits(seg.ax) == plus0 && math.Float64bits(seg.ay) == plus0 &&
		math.Float64bits(seg.vx) != minus0 && math.Float64bits(seg.vy) != minus0:
		return segHold
	}
	return segLine
}

// finish closes the loop (it panics if the script does not return to its
// start with its starting velocity), centres it on the origin and indexes
// it.
func (b *motionBuilder) finish() motionPath {
	first := b.segs[0]
	if math.Abs(b.x) > 1e-9 || math.Abs(b.y) > 1e-9 || math.Abs(b.vx-first.vx) > 1e-9 && !first.arc || math.Abs(b.vy-first.vy) > 1e-9 && !first.arc {
		panic("engine: motion script does not close")
	}
	p := motionPath{segs: b.segs, period: b.t, invPeriod: 1 / b.t}
	for i := range p.segs {
		p.segs[i].next = (i + 1) % len(p.segs)
		p.segs[i].kind = p.segs[i].kindOf()
	}
	p.segs[len(p.segs)-1].end = p.period

	// Centre the bounding box of the path on the origin.
	lo, hi := [2]float64{math.Inf(1), math.Inf(1)}, [2]float64{math.Inf(-1), math.Inf(-1)}
	for i := range p.segs {
		s := &p.segs[i]
		for k := 0; k <= 64; k++ {
			x, y, _, _ := s.eval((s.end - s.t0) * float64(k) / 64)
			lo, hi = [2]float64{min(lo[0], x), min(lo[1], y)}, [2]float64{max(hi[0], x), max(hi[1], y)}
		}
	}
	cx, cy := (lo[0]+hi[0])/2, (lo[1]+hi[1])/2
	for i := range p.segs {
		p.segs[i].x -= cx
		p.segs[i].y -= cy
	}

	for b := range p.index {
		start := p.period * float64(b) / motionIndexSize
		for i, s := range p.segs {
			if s.t0 < start || i == 0 {
				p.index[b] = i
			}
		}
		// Every time of bucket b is at or after the start of its indexed
		// segment, so that the walk from there finds the one segment
		// whose [t0, end) holds the time (the segments tile the period:
		// each starts at its predecessor's end, to the bit), and a Mover
		// may keep the one it last found instead (Mover.eval). The
		// bucket's start is rounded, but bucket is monotonic, so the
		// latest time before the segment's start decides.
		if t0 := p.segs[p.index[b]].t0; t0 > 0 && p.bucket(math.Nextafter(t0, math.Inf(-1))) >= b {
			panic("engine: motion path index: bucket " + strconv.Itoa(b) + " holds times before its segment")
		}
	}
	for i := range p.segs {
		if i > 0 && p.segs[i].t0 != p.segs[i-1].end {
			panic("engine: motion path: segment " + strconv.Itoa(i) + " does not start where the one before it ends")
		}
	}
	return p
}
