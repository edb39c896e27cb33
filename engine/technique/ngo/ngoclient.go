package ngo

import (
	"math"

	"interplab/engine/geom"
	"interplab/engine/technique"
)

// This file is the client side of Unity Netcode for GameObjects 2.1.1 that
// the ngo technique and NGOCase share: the time system, one
// NetworkTransform's position path and its BufferedLinearInterpolator, and
// the frame that drives them. See ngo.go for what is modelled and why.

// ngoConst is the part of NGOSettings the client reads every frame, in the
// types NGO keeps them in: what NGO holds in float is float32 here, so that
// every float32 step rounds as Unity's does.
type ngoConst struct {
	tickInterval float64 // (double)(1f/TickRate), s
	ticksAgo     float64 // ticks the render time runs behind ServerTime
	localBuffer  float64 // s
	serverBuffer float64 // float constant widened, s
	hardReset    float64 // s
	ratio        float64 // slew per second of frame time
	approvalRtt  float64 // float constant widened, s
	maxInterp    float32 // MaximumInterpolationTime, s
	maxDelta     float32 // Unity's maximumDeltaTime, s
	unreliable   bool    // UseUnreliableDeltas
}

func newNGOConst(s *Settings) ngoConst {
	return ngoConst{
		tickInterval: ngoTickInterval(s.TickRate),
		ticksAgo:     float64(s.TicksAgo),
		localBuffer:  s.LocalBufferSec,
		serverBuffer: float64(float32(s.ServerBufferSec)),
		hardReset:    s.HardResetThresholdSec,
		ratio:        s.AdjustmentRatio,
		approvalRtt:  float64(float32(s.ApprovalRttSec)),
		maxInterp:    float32(s.MaximumInterpolationTime),
		maxDelta:     float32(s.MaximumDeltaTime),
		unreliable:   s.UseUnreliableDeltas,
	}
}

// ngoTickInterval is NGO's tick length: 1/tickRate computed in float32,
// then widened (0.03333333507… s at 30 ticks/s).
func ngoTickInterval(tickRate int) float64 { return float64(float32(1) / float32(tickRate)) }

// ngoTimeSystem is the client's NetworkTimeSystem: a base clock advanced by
// the frame time, and two offsets from it (ServerTime and LocalTime) that
// slew towards their targets at ±ratio of the frame time, or jump there when
// either is more than hardReset away.
type ngoTimeSystem struct {
	timeSec               float64 // the base clock, s
	serverOff, localOff   float64 // current offsets, s
	wantServer, wantLocal float64 // their targets, s
	lastSynced            float64 // server time of the last Sync, s
}

// sync sets the targets from a server time and the round trip, as a
// TimeSyncMessage (or the frame's re-sync) does.
func (ts *ngoTimeSystem) sync(serverTime, rtt float64, c *ngoConst) {
	ts.lastSynced = serverTime
	d := serverTime - ts.timeSec
	ts.wantServer = d - c.serverBuffer
	ts.wantLocal = d + rtt + c.localBuffer
}

// advance moves the base clock by dt and the offsets towards their targets;
// it reports whether it took the hard-reset branch.
func (ts *ngoTimeSystem) advance(dt float64, c *ngoConst) bool {
	ts.timeSec += dt
	if math.Abs(ts.wantLocal-ts.localOff) > c.hardReset || math.Abs(ts.wantServer-ts.serverOff) > c.hardReset {
		ts.timeSec += ts.wantServer
		ts.wantLocal -= ts.wantServer
		ts.localOff = ts.wantLocal
		ts.wantServer, ts.serverOff = 0, 0
		return true
	}
	step := float64(dt * c.ratio) // rounded on its own, as C# does
	ts.localOff += slew(ts.wantLocal > ts.localOff, step)
	ts.serverOff += slew(ts.wantServer > ts.serverOff, step)
	return false
}

// slew is the bang-bang step: up when below the target, down otherwise
// (also when on it, so the offsets dither and never settle).
func slew(up bool, step float64) float64 {
	if up {
		return step
	}
	return -step
}

// reset is what connection approval does: a Sync at the approval tick's
// time with the assumed round trip, then Advance(0), which jumps at once.
func (ts *ngoTimeSystem) reset(serverTime, rtt float64, c *ngoConst) {
	ts.sync(serverTime, rtt, c)
	ts.advance(0, c)
}

// update is NetworkTimeSystem.UpdateTime for a frame of dt seconds (the
// frame's unscaled delta, float32 widened): advance, then re-sync from the
// last synced time so the targets only move with a TimeSync or the RTT.
func (ts *ngoTimeSystem) update(dt, rtt float64, c *ngoConst) (reset bool) {
	reset = ts.advance(dt, c)
	ts.sync(ts.lastSynced+dt, rtt, c)
	return reset
}

func (ts *ngoTimeSystem) serverTime() float64 { return ts.timeSec + ts.serverOff }
func (ts *ngoTimeSystem) localTime() float64  { return ts.timeSec + ts.localOff }

// vec32 is a Unity Vector3.
type vec32 [3]float32

// lerp is Unity's Vector3.Lerp: t clamped to [0, 1], each step rounded to
// float32 (no fused multiply-add).
func (a vec32) lerp(b vec32, t float32) vec32 {
	t = min(max(t, 0), 1)
	return vec32{a[0] + float32((b[0]-a[0])*t), a[1] + float32((b[1]-a[1])*t), a[2] + float32((b[2]-a[2])*t)}
}

func (a vec32) vec3() geom.Vec3 { return geom.Vec3{float64(a[0]), float64(a[1]), float64(a[2])} }

// ngoItem is one buffered state: its tick's time and its position (and, in
// the lab, its rotation, which NGO's rotation interpolator would carry).
type ngoItem struct {
	time float64
	pos  vec32
	rot  geom.Quat
}

// ngoMaxPerFrame is how many states one frame may add before the
// interpolator gives up and resets to the newest.
const ngoMaxPerFrame = 100

// ngoLerp is the position BufferedLinearInterpolator (and the lab's
// rotation riding on its segments).
type ngoLerp struct {
	buf        []ngoItem
	start, end float64 // the segment being shown: m_StartTimeConsumed, m_EndTimeConsumed
	from, to   vec32   // its end values
	cur        vec32   // the second stage's output: what the transform shows
	added      int     // states added since the last update

	// Rotation (lab only): the segment's arc and the smoothed rotation.
	arc    geom.SlerpPair
	curRot geom.Quat
}

// resetTo shows v at once and forgets every state and segment: both segment
// times go to 0, so the next segment starts at time 0 and its t is about 1.
func (l *ngoLerp) resetTo(v vec32, rot geom.Quat) {
	if l.buf == nil {
		l.buf = make([]ngoItem, 0, 8) // a few ticks' worth: no growth in steady state
	}
	l.buf = l.buf[:0]
	l.start, l.end = 0, 0
	l.from, l.to, l.cur = v, v, v
	l.arc.Init(rot, rot)
	l.curRot = rot
}

// add is AddMeasurement: a state not after the current segment's end is
// dropped; past ngoMaxPerFrame states in one frame the interpolator resets
// to the newest.
func (l *ngoLerp) add(it ngoItem) {
	l.added++
	if l.added > ngoMaxPerFrame {
		l.resetTo(it.pos, it.rot)
		return
	}
	if it.time > l.end {
		l.buf = append(l.buf, it)
	}
}

// update consumes and draws one frame: dt is the frame's capped delta time
// (float32), render the render time and server the ServerTime, s. It
// returns t, the segment fraction shown (clamped to [0, 1]).
func (l *ngoLerp) update(dt float32, render, server float64, c *ngoConst, rotation bool) float32 {
	if render >= l.end {
		l.consume(server, rotation)
	}
	t := float32(1)
	if span := l.end - l.start; span > 0 {
		t = (float32(render) - float32(l.start)) * (1 / float32(span))
		t = min(max(t, 0), 1)
	}
	target := l.from.lerp(l.to, t)
	k := min(max(dt/c.maxInterp, 0), 1)
	l.cur = l.cur.lerp(target, k)
	if rotation {
		l.curRot = geom.Nlerp(l.curRot, l.arc.At(float64(t)), float64(k))
	}
	l.added = 0
	return t
}

// consume takes every buffered state up to server time out of the buffer
// and, if there were any, starts the next segment at the old end, running
// to the newest of them: the states in between are never shown.
func (l *ngoLerp) consume(server float64, rotation bool) {
	newest := -1
	for i := range l.buf {
		if l.buf[i].time <= server && (newest < 0 || l.buf[i].time > l.buf[newest].time) {
			newest = i
		}
	}
	if newest < 0 {
		return
	}
	it := l.buf[newest]
	l.start, l.from = l.end, l.to
	l.end, l.to = it.time, it.pos
	if rotation {
		l.arc.Init(l.arc.End(), it.rot)
	}
	kept := l.buf[:0]
	for _, b := range l.buf {
		if b.time > server {
			kept = append(kept, b)
		}
	}
	l.buf = kept
}

// ngoTransform is one remote NetworkTransform on the client: the target
// position the states build up axis by axis, and its interpolator.
type ngoTransform struct {
	target      vec32
	lastInbound int64 // tick of the previous inbound state
	lerp        ngoLerp
	// idle spans the states in which no axis moved by positionThreshold
	// (the sender sent nothing, or a frame sync of the same values): a hold
	// inside them is an idle hold (Sample.Idle).
	idle technique.IdleSpans
}

// spawn places the object at pos, as the spawn does with ResetTo.
func (x *ngoTransform) spawn(pos vec32, rot geom.Quat) {
	x.target = pos
	x.lastInbound = math.MinInt64
	x.lerp.resetTo(pos, rot)
}

// state handles one inbound NetworkTransform state for tick: has says which
// axes it carries. With UseUnreliableDeltas a state older than the previous
// inbound one (kept or not) is dropped unless it is a frame sync.
func (x *ngoTransform) state(tick int64, pos vec32, has [3]bool, frameSync bool, rot geom.Quat, c *ngoConst) {
	prev := x.lastInbound
	x.lastInbound = tick
	if c.unreliable && tick < prev && !frameSync {
		return
	}
	sent := false
	for i, h := range has {
		if h {
			x.target[i], sent = pos[i], true
		}
	}
	if sent {
		x.lerp.add(ngoItem{time: float64(tick) * c.tickInterval, pos: x.target, rot: rot})
	}
}

// ngoClient is the NGO client of one connection: its time system and the
// state of the connection.
type ngoClient struct {
	time      ngoTimeSystem
	connected bool
	reset     bool    // the last frame's UpdateTime hard-reset
	server    float64 // ServerTime after the last frame's UpdateTime, s
	render    float64 // the last frame's render time, s
}

// approve is the connection approval at tick: the time system resets to
// the tick's time with the assumed round trip.
func (cl *ngoClient) approve(tick int64, c *ngoConst) {
	cl.connected = true
	cl.time.reset(float64(tick)*c.tickInterval, c.approvalRtt, c)
}

// timeSync is a TimeSyncMessage of tick arriving with rtt the current
// round trip, s.
func (cl *ngoClient) timeSync(tick int64, rtt float64, c *ngoConst) {
	if cl.connected {
		cl.time.sync(float64(tick)*c.tickInterval, rtt, c)
	}
}

// frame runs PreUpdate's UpdateTime for a frame of unscaled delta dt
// (float32) and keeps the ServerTime and render time the transforms'
// PreLateUpdate uses.
func (cl *ngoClient) frame(dt float32, rtt float64, c *ngoConst) {
	if !cl.connected {
		return
	}
	cl.reset = cl.time.update(float64(dt), rtt, c)
	cl.server = cl.time.serverTime()
	cl.render = cl.server - float64(c.ticksAgo*c.tickInterval)
}

// deltaTime is Unity's Time.deltaTime for an unscaled delta dt.
func (c *ngoConst) deltaTime(dt float32) float32 { return min(dt, c.maxDelta) }
