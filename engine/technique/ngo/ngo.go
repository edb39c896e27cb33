// Package ngo is the ngo technique: how a Unity Netcode for GameObjects
// client shows a remote NetworkTransform: NGO 2.1.1 (release ngo/2.1.1, commit
// 264b30d176dd71fcedd022a8d6f4d59a2e3922bc), the client time sync of
// NetworkTimeSystem.cs with NetworkTimeSystem.UpdateTime in
// NetworkManager's PreUpdate, and NetworkTransform.cs's position path
// through BufferedLinearInterpolator.cs (Vector3). NGO is under the Unity
// Companion License, so this is built only from the behaviour described in
// golden/peers/README.md (NGO section) and Unity's public API docs, and
// pinned by the cases recorded from NGO itself (golden/peers/ngo, copied to
// testdata/); no NGO code was read.
//
// What is modelled, number for number:
//   - Time sync: ServerTime = base + server offset, LocalTime = base + local
//     offset; a TimeSync at tick k aims the server offset at
//     (k·tickInterval − base) − ServerBufferSec and the local one at
//     (k·tickInterval − base) + RTT + LocalBufferSec; each frame they slew
//     by ±AdjustmentRatio of the frame time, and beyond
//     HardResetThresholdSec both jump (a hard reset). Approval resets the
//     clock to the approval tick with the assumed round trip ApprovalRttSec.
//     tickInterval is (double)(1f/TickRate).
//   - Interpolation: render time = ServerTime − ticksAgo ticks; states are
//     consumed only once the render time reaches the segment end, then
//     every state up to ServerTime goes at once and the next segment runs
//     from the old end to the newest of them (corners are cut); t is
//     computed in float32 and clamped (no extrapolation; a dry buffer
//     holds); a second stage smooths with Lerp(current, target,
//     deltaTime/MaximumInterpolationTime), deltaTime capped at
//     Unity's maximumDeltaTime. Spawn resets the interpolator, so the first
//     segment starts at time 0 (a near snap, smoothed).
//   - NetworkTransform: a state updates only the axes it carries; states
//     not after the segment end are dropped; with UseUnreliableDeltas a
//     state older than the previous inbound one is dropped unless it is a
//     frame sync; over 100 states in one frame reset the interpolator.
//
// The lab's stream has no ticks, TimeSync messages, approval or round-trip
// readings, so the technique models the sender and the wire from it:
//   - each snapshot is the NetworkTransform state of tick
//     floor(Time·ngo.tickRate + 1e-6) (the tick the server was in when the
//     state was taken), stamped tick·tickInterval as NGO stamps it; the lab's
//     sendRate, not ngo.tickRate, sets how often states are sent, so a
//     preset for NGO sets sendRate = tickRate = ngo.tickRate;
//   - the first snapshot received is the connection approval and the spawn,
//     at its tick and position;
//   - a TimeSync goes with the first snapshot of every ngo.tickRate ticks
//     (the first whose tick passes a multiple of tickRate), carrying its
//     tick, so it is lost and delayed with it; with useUnreliableDeltas that
//     snapshot is also the full-axis frame sync;
//   - the round trip the transport reports is 2·(latency + jitter) of the
//     lab's link in whole milliseconds (the mean of what the transport
//     measures), read every frame, so moving the latency slider changes
//     the targets as an RTT change does in the game;
//   - positionThreshold: an axis is sent only when it moved at least the
//     threshold from the last value the client holds (the sender's
//     last-sent value, as far as the client can know it);
//   - the reliable channel (useUnreliableDeltas false) delivers in order
//     and once: a state not newer than the previous inbound one is dropped.
//     The lab's losses stay losses: the retransmission that delivers them
//     late in bursts in the game is not modelled.
//
// Deliberate simplifications: position is what the cases pin; rotation
// rides on the same segments (slerp by the same t) with a normalised lerp
// for the second stage, where NGO slerps; no half-float, teleport,
// parenting, scale or ownership changes; the client is connected and the
// object spawned the frame the approval arrives (real NGO may spawn after
// scene sync); maxInterpolationBound below 1, where it would change what is
// shown, is not allowed (the cases pin nothing there); the state of tick k
// carries the position at its tick, where NGO sends the previous server
// frame's.
//
// Sample reports Mode Interpolate while the render time is inside the
// segment and Freeze once it has reached the segment end (the buffer ran
// dry and the smoothing settles on the newest state); Time is the render
// time and Newest the newest state's time, on NGO's server time line.
package ngo

import (
	"math"

	"interplab/engine/geom"
	"interplab/engine/param"
	"interplab/engine/technique"
)

// Name is the technique of Unity Netcode for GameObjects 2.1.1.
const Name = "ngo"

// Version is the NGO release the technique reproduces.
const Version = "2.1.1"

// ngoDefaultPositionThreshold is NetworkTransform's PositionThreshold
// default, 0.001f.
const ngoDefaultPositionThreshold = 0.001

// Two defaults are written as decimals so that the page's sliders hold them
// exactly (a slider snaps to its step): localBufferSec 0.0333333 s for NGO's
// 1.0/30, 3.3e-9 s off, which moves only LocalTime; maximumDeltaTime
// 0.33333334 s, which is Unity's 1/3f once rounded to float32 as Unity
// keeps it.

// Settings are the knobs of NGO 2.1.1 the ngo technique reads, under
// NGO's names (prefixed "ngo.") and in its units, with NGO's defaults.
// Values NGO keeps in float32 are rounded to float32 when used, as NGO does.
type Settings struct {
	TickRate                 int     `json:"ngo.tickRate"`                 // NetworkConfig.TickRate, ticks per second
	TicksAgo                 int     `json:"ngo.ticksAgo"`                 // render time behind ServerTime, ticks (hard-coded 2)
	LocalBufferSec           float64 `json:"ngo.localBufferSec"`           // LocalTime's lead over the round trip, s (NGO: 1/TickRate)
	ServerBufferSec          float64 `json:"ngo.serverBufferSec"`          // ServerTime's lag behind the last sync, s (hard-coded 0.05f)
	HardResetThresholdSec    float64 `json:"ngo.hardResetThresholdSec"`    // offset error that jumps instead of slewing, s
	AdjustmentRatio          float64 `json:"ngo.adjustmentRatio"`          // slew rate, fraction of frame time
	ApprovalRttSec           float64 `json:"ngo.approvalRttSec"`           // round trip assumed at approval, s
	MaximumInterpolationTime float64 `json:"ngo.maximumInterpolationTime"` // second-stage time constant, s
	MaxInterpolationBound    float64 `json:"ngo.maxInterpolationBound"`    // largest t before snapping to the end, ≥ 1
	MaximumDeltaTime         float64 `json:"ngo.maximumDeltaTime"`         // Unity's Time.maximumDeltaTime, s
	UseUnreliableDeltas      bool    `json:"ngo.useUnreliableDeltas"`      // NetworkTransform.UseUnreliableDeltas
	PositionThreshold        float64 `json:"ngo.positionThreshold"`        // NetworkTransform.PositionThreshold, m (sender side)
}

// Params are the ngo technique's parameters. Their defaults (param.Defaults)
// are NGO's own.
var Params = []param.Param[*Settings]{
	{Name: "ngo.tickRate", Group: "ngo", Kind: param.Int, Unit: "Hz", Min: 1, Max: 128, Step: 1, Default: 30, Display: "Hz", Scale: 1,
		Doc:   "NetworkManager Tick Rate: ticks per second; states are stamped with ticks (NGO default 30).",
		Read:  func(s *Settings) float64 { return float64(s.TickRate) },
		Write: func(s *Settings, v float64) { s.TickRate = int(v) }},
	{Name: "ngo.ticksAgo", Group: "ngo", Kind: param.Int, Unit: "ticks", Min: 0, Max: 10, Step: 1, Default: 2, Display: "ticks", Scale: 1,
		Doc:   "Ticks the render time runs behind the client's server time (hard-coded 2 in NGO 2.1.1).",
		Read:  func(s *Settings) float64 { return float64(s.TicksAgo) },
		Write: func(s *Settings, v float64) { s.TicksAgo = int(v) }},
	{Name: "ngo.localBufferSec", Group: "ngo", Unit: "s", Min: 0, Max: 0.5, Step: 1e-7, Default: 0.0333333, Display: "s", Scale: 1,
		Doc:   "LocalTime's lead beyond the round trip; NGO 2.1.1 fixes it at 1/TickRate (33.3 ms at 30).",
		Read:  func(s *Settings) float64 { return s.LocalBufferSec },
		Write: func(s *Settings, v float64) { s.LocalBufferSec = v }},
	{Name: "ngo.serverBufferSec", Group: "ngo", Unit: "s", Min: 0, Max: 0.5, Step: 0.001, Default: 0.05, Display: "s", Scale: 1,
		Doc:   "How far the client's server time runs behind the last time sync (hard-coded 50 ms in NGO 2.1.1).",
		Read:  func(s *Settings) float64 { return s.ServerBufferSec },
		Write: func(s *Settings, v float64) { s.ServerBufferSec = v }},
	{Name: "ngo.hardResetThresholdSec", Group: "ngo", Unit: "s", Min: 0.01, Max: 2, Step: 0.01, Default: 0.2, Display: "s", Scale: 1,
		Doc:   "Clock error beyond which the client's time jumps instead of slewing (NGO default 200 ms).",
		Read:  func(s *Settings) float64 { return s.HardResetThresholdSec },
		Write: func(s *Settings, v float64) { s.HardResetThresholdSec = v }},
	{Name: "ngo.adjustmentRatio", Group: "ngo", Unit: "fraction", Min: 0, Max: 0.2, Step: 0.001, Default: 0.01, Display: "", Scale: 1,
		Doc:   "How fast the client's time slews towards its target, as a share of frame time (NGO default 1%).",
		Read:  func(s *Settings) float64 { return s.AdjustmentRatio },
		Write: func(s *Settings, v float64) { s.AdjustmentRatio = v }},
	{Name: "ngo.approvalRttSec", Group: "ngo", Unit: "s", Min: 0, Max: 1, Step: 0.001, Default: 0.15, Display: "s", Scale: 1,
		Doc:   "Round trip the client assumes at connection approval (NGO default 150 ms).",
		Read:  func(s *Settings) float64 { return s.ApprovalRttSec },
		Write: func(s *Settings, v float64) { s.ApprovalRttSec = v }},
	{Name: "ngo.maximumInterpolationTime", Group: "ngo", Unit: "s", Min: 0.016, Max: 1, Step: 0.001, Default: 0.1, Display: "s", Scale: 1,
		Doc:   "Time constant of the smoothing after the lerp; adds about this minus a frame of lag (NGO default 100 ms).",
		Read:  func(s *Settings) float64 { return s.MaximumInterpolationTime },
		Write: func(s *Settings, v float64) { s.MaximumInterpolationTime = v }},
	{Name: "ngo.maxInterpolationBound", Group: "ngo", Unit: "", Min: 1, Max: 10, Step: 0.1, Default: 3, Display: "", Scale: 1,
		Inert: []param.Inert{{Why: "NGO 2.1.1 clamps the lerp fraction to 1 before this bound is reached"}},
		Doc:   "Largest lerp fraction before snapping; no effect at 1 or more in 2.1.1, as Lerp clamps (default 3).",
		Read:  func(s *Settings) float64 { return s.MaxInterpolationBound },
		Write: func(s *Settings, v float64) { s.MaxInterpolationBound = v }},
	{Name: "ngo.maximumDeltaTime", Group: "ngo", Unit: "s", Min: 0.01, Max: 1, Step: 1e-8, Default: 0.33333334, Display: "s", Scale: 1,
		Doc:   "Unity's Maximum Allowed Timestep: caps the frame time the smoothing sees (Unity default 333 ms).",
		Read:  func(s *Settings) float64 { return s.MaximumDeltaTime },
		Write: func(s *Settings, v float64) { s.MaximumDeltaTime = v }},
	{Name: "ngo.useUnreliableDeltas", Group: "ngo", Kind: param.Bool, Max: 1, Step: 1, Default: 0,
		Doc:   "Send states unreliably, dropping late ones, with a full sync each second (NGO default off).",
		Read:  func(s *Settings) float64 { return param.FromBool(s.UseUnreliableDeltas) },
		Write: func(s *Settings, v float64) { s.UseUnreliableDeltas = v != 0 }},
	{Name: "ngo.positionThreshold", Group: "ngo", Unit: "m", Min: 0, Max: 1, Step: 0.0001, Default: ngoDefaultPositionThreshold, Display: "m", Scale: 1,
		Doc:   "Smallest move of an axis the server sends (NetworkTransform default 1 mm).",
		Read:  func(s *Settings) float64 { return s.PositionThreshold },
		Write: func(s *Settings, v float64) { s.PositionThreshold = v }},
}

// Def is the ngo technique's row in the technique list.
var Def = technique.Def[*Settings]{Name: Name, Group: "ngo", Params: Params,
	Base: technique.LocalTime, Reach: technique.Received,
	Tune:   []string{"ngo.maximumInterpolationTime"},
	Advice: advice, Delay: delayOf,
	// NGO ticks at Tick Rate and NetworkTransform sends a state every tick.
	Rate:  "ngo.tickRate",
	Rates: func(s *Settings) (float64, float64) { return float64(s.TickRate), float64(s.TickRate) },
	Batch: func(s *Settings, env *technique.Env, n int) technique.Batch { return newNGOBatch(s, env, n) },
	One:   newNGO,
	Library: &technique.Library{Title: "Unity Netcode for GameObjects", Note: "NetworkTransform's BufferedLinearInterpolator",
		Group: "Unity Netcode for GameObjects", Version: Version, Commit: "264b30d176dd71fcedd022a8d6f4d59a2e3922bc"},
}

// advice says when ngo.tickRate is not the server's send rate: NGO
// sends a NetworkTransform state every tick.
func advice(s *Settings, env *technique.Env) string {
	if float64(s.TickRate) == env.SendRate {
		return ""
	}
	return technique.RateAdvice("ngo.tickRate", float64(s.TickRate), env, "NGO sends a NetworkTransform state every tick")
}

// delayOf is the display delay behind the newest state that NGO's settings
// give in steady state: ServerBufferSec (ServerTime's lag behind the newest
// sync, beyond the one-way latency the newest state also has), ticksAgo
// ticks, and the second stage's lag on steady motion,
// MaximumInterpolationTime less one frame of the lab's render rate.
func delayOf(n *Settings, env *technique.Env) float64 {
	return float64(float32(n.ServerBufferSec)) + float64(n.TicksAgo)*ngoTickInterval(n.TickRate) + ngoSmoothLag(n, env)
}

// ngoSmoothLag is the second stage's lag on steady motion:
// MaximumInterpolationTime less one frame of the lab's render rate, s.
func ngoSmoothLag(n *Settings, env *technique.Env) float64 {
	return max(0, float64(float32(n.MaximumInterpolationTime))-1/env.RenderRate)
}

// ngoBatch is the ngo technique for entities that share their packets:
// one client (its clock and the modelled sender's TimeSync and approval)
// and one NetworkTransform per entity.
//
// An arrival is handled when it is received rather than in the next
// frame's EarlyUpdate as NGO does; nothing a state changes is read before
// that frame's update, so the result is the same.
type ngoBatch struct {
	s       *Settings
	env     *technique.Env
	cl      ngoClient
	xs      []ngoTransform
	started bool // the approval (first snapshot) has been handled
	last    int64
	syncAt  int64   // TimeSync period index of the last TimeSync
	newest  float64 // time of the newest state, s

	// This frame's, for fill.
	framed  bool // a frame has run: prevNow holds
	prevNow float64
	dt      float32 // Time.deltaTime
	delay   float64 // Sample.Delay: the live game delay (see frame)
	k       ngoConst
}

func newNGOBatch(s *Settings, env *technique.Env, n int) *ngoBatch {
	return &ngoBatch{s: s, env: env, xs: make([]ngoTransform, n)}
}

// ngoTick is the tick of NGO's server when a state of server time t is
// taken.
func ngoTick(t float64, tickRate int) int64 {
	return int64(math.Floor(t*float64(tickRate) + 1e-6))
}

// ngoLabRTT is the round trip the transport reports on the lab's link:
// 2·(latency + jitter) in whole milliseconds, in seconds.
func ngoLabRTT(env *technique.Env) float64 {
	return ngoRTT(int(math.Round(2 * (env.Latency + env.Jitter) * 1000)))
}

// receive is the modelled sender and wire for one lab packet, then the
// client's handling of what NGO would have received: snaps[e] is entity e's
// state at server time tickTime.
func (b *ngoBatch) Receive(tickTime, _ float64, snaps []technique.Snapshot) {
	n := b.s
	k := newNGOConst(n)
	tick := ngoTick(tickTime, n.TickRate)
	if !b.started {
		b.started, b.last = true, tick
		b.cl.approve(tick, &k)
		for e := range b.xs {
			b.xs[e].spawn(labVec32(&snaps[e].Pos), snaps[e].Rot)
		}
		b.syncAt = tick / int64(n.TickRate)
		b.newest = float64(tick) * k.tickInterval
		return
	}
	frameSync := false
	if p := tick / int64(n.TickRate); p > b.syncAt {
		b.syncAt = p
		b.cl.timeSync(tick, ngoLabRTT(b.env), &k)
		frameSync = k.unreliable
	}
	if !k.unreliable && tick <= b.last {
		return // the reliable sequenced channel delivers each state once, in order
	}
	b.last = tick
	b.newest = max(b.newest, float64(tick)*k.tickInterval)
	th := float32(n.PositionThreshold)
	for e := range b.xs {
		x := &b.xs[e]
		pos := labVec32(&snaps[e].Pos)
		var has [3]bool
		moved := false
		for i := range has {
			d := pos[i] - x.target[i]
			m := d >= th || -d >= th
			has[i], moved = frameSync || m, moved || m
		}
		if at := float64(tick) * k.tickInterval; moved {
			x.idle.Moved(at)
		} else {
			x.idle.Still(at)
		}
		x.state(tick, pos, has, frameSync, snaps[e].Rot, &k)
	}
}

func labVec32(p *geom.Vec3) vec32 { return vec32{float32(p[0]), float32(p[1]), float32(p[2])} }

// frame runs the client's UpdateTime at local time now, and works out the
// live game delay, ngoDelay as the client's state has it: how far ServerTime
// is behind the last synced server time run on by the frames (ServerBufferSec
// when the offset has settled on its target; more or less while it slews
// after a TimeSync moved the target, by up to HardResetThresholdSec), plus
// ticksAgo ticks and the second stage's lag.
func (b *ngoBatch) Frame(now float64) {
	b.k = newNGOConst(b.s)
	var dt float32
	if b.framed {
		dt = float32(now - b.prevNow)
	}
	b.framed, b.prevNow = true, now
	b.cl.frame(dt, ngoLabRTT(b.env), &b.k)
	b.dt = b.k.deltaTime(dt)
	b.delay = (b.cl.time.lastSynced - b.cl.server) + b.k.ticksAgo*b.k.tickInterval + ngoSmoothLag(b.s, b.env)
}

// fill runs each transform's interpolation for the frame and writes what
// it shows.
func (b *ngoBatch) Fill(lo int, out []technique.Sample) {
	if !b.started {
		for e := range out {
			out[e] = technique.Sample{Mode: technique.Empty, Time: b.prevNow}
		}
		return
	}
	render, server := b.cl.render, b.cl.server
	for e := range out {
		l := &b.xs[lo+e].lerp
		l.update(b.dt, render, server, &b.k, true)
		mode, depth := technique.Freeze, 0
		if render < l.end {
			mode, depth = technique.Interpolate, 1
		}
		for i := range l.buf {
			if l.buf[i].time > render {
				depth++
			}
		}
		out[e] = technique.Sample{Pos: l.cur.vec3(), Rot: l.curRot, Mode: mode, Time: render, Newest: b.newest,
			Depth: depth, Delay: b.delay, Idle: b.xs[lo+e].idle.Covers(render)}
	}
}

// ngoTechnique is the ngo Technique for one entity: a batch of one.
type ngoTechnique struct {
	b    ngoBatch
	snap [1]technique.Snapshot
	out  [1]technique.Sample
}

func newNGO(s *Settings, env *technique.Env) technique.Technique {
	return &ngoTechnique{b: ngoBatch{s: s, env: env, xs: make([]ngoTransform, 1)}}
}

func (t *ngoTechnique) Receive(s technique.Snapshot, now float64) {
	t.snap[0] = s
	t.b.Receive(s.Time, now, t.snap[:])
}

func (t *ngoTechnique) Sample(now float64) technique.Sample {
	t.b.Frame(now)
	t.b.Fill(0, t.out[:])
	return t.out[0]
}

func (*ngoBatch) SharesDelay() {}
