// Package mirror is the mirror technique: Mirror's client-side snapshot
// interpolation, as a Unity client of Mirror shows one remote, server-owned
// NetworkTransformUnreliable.
//
// Mirror (MirrorNetworking/Mirror, MIT), commit
// c885a6a4d50dbe8e95438c98a4ff68dd72dd7e7a (2026-08-06). The behaviour
// comes from, and was re-implemented from reading (no code copied):
//
//   - Assets/Mirror/Core/NetworkClient_TimeInterpolation.cs: the client's
//     one global timeline, fed by the server's time snapshots (one per
//     send, the batch timestamp), with dynamic adjustment of
//     bufferTimeMultiplier before each insert;
//   - Assets/Mirror/Core/SnapshotInterpolation/SnapshotInterpolation.cs:
//     InsertAndAdjust (timeline start at remoteTime − bufferTime, delivery
//     time and drift EMAs, TimelineClamp with the inserted snapshot's time,
//     quantized catch-up and slow-down), InsertIfNotExists (bufferLimit,
//     duplicates overwrite), Sample, StepTime, StepInterpolation and
//     SortedListExtensions.RemoveRange, which removes only about half when
//     asked for more;
//   - Assets/Mirror/Core/Tools/ExponentialMovingAverage.cs: the EMA over
//     sendRate × duration values with its running variance;
//   - Assets/Mirror/Components/NetworkTransform/NetworkTransformBase.cs and
//     NetworkTransformUnreliable.cs: the transform's own buffer keyed
//     send + sendInterval·(mult−1) + sendInterval·mult (timelineOffset), the
//     buffer reset after a gap of bufferResetMultiplier·mult·sendInterval
//     (onlySyncOnChange), unchanged axes taken from the newest buffered
//     snapshot, the float32 lerp, and on the server side the change test
//     against positionSensitivity and the send every sendIntervalMultiplier
//     sends;
//   - Assets/Mirror/Core/SnapshotInterpolation/SnapshotInterpolationSettings.cs
//     and NetworkManager.cs: the knobs' defaults.
//
// It is pinned by what the real Mirror rendered for the packet schedules in
// testdata/ (see Case), to 1e-6 m on every frame, with
// Mirror's float32 spots copied: sendInterval = (float)(1/sendRate), the
// catch-up thresholds, the tolerance, the NetworkTransform offsets and
// reset interval, deltaTime and the positions are float32.
//
// The lab's stream and Mirror's wire differ, and the technique bridges them
// so (deliberate simplifications):
//
//   - Packets are queued by Receive and handled at the next Sample, stamped
//     with that frame's time, as Mirror handles them in the frame's early
//     update (NetworkTime.localTime is the frame time). The time passed is the
//     client's local clock (base localTime), drift included; a snapshot's
//     Time is its server time, taken as the batch timestamp.
//   - Every lab snapshot is one batch: a time snapshot and, on the
//     NetworkTransform's send ticks, its sync. The server side is modelled
//     from the settings: the transform syncs on every
//     mirror.sendIntervalMultiplier-th send (the send's index is its time ×
//     the lab's sendRate), and with mirror.onlySyncOnChange an axis is sent
//     only when it moved more than mirror.positionSensitivity from the last
//     sent value, a still object sending one unchanged sync and then nothing.
//     The model advances on the snapshots that reach the client, newest
//     first: a lost packet does not advance it, and a late one (older than
//     the newest received) counts as a full sync.
//   - The spawn position (what a null axis reads before anything is drawn)
//     is the first snapshot's position.
//   - mirror.sendRate is NetworkManager.sendRate of the game: it sets
//     sendInterval, the EMAs' lengths and every multiple of the send
//     interval. It must equal the server's send rate, the lab's sendRate,
//     as it does in a game where both read the same NetworkManager; the
//     lab's page moves sendRate and tickRate with it (Def.Rates), and a
//     mismatch set on purpose shows what a client built with another
//     sendRate than its server's would show.
//   - Rotation: the transform's buffer carries the snapshot's rotation and
//     slerps it in float64 (Mirror slerps a compressed float32 quaternion
//     and skips changes under rotationSensitivity); the cases hold rotation
//     at identity, so only positions are pinned.
//   - Defaults are the numbers a programmer writes: catchupSpeed 0.02 and
//     slowdownSpeed 0.04 as doubles, where Mirror's initializers are the
//     floats 0.02f and 0.04f (0.019999999552965164...): a timescale 5e-10
//     apart, far below the lab's 1e-6 m; the cases carry Mirror's exact
//     values and are run with them. C# float fields (thresholds, tolerance,
//     bufferResetMultiplier, positionSensitivity) are rounded to float32
//     here as in Mirror, so 0.01 is positionSensitivity's 0.01f exactly.
//   - Settings moved between frames take effect at once, where Mirror reads
//     bufferTimeMultiplier (without dynamic adjustment) and the EMA lengths
//     only when the client starts.
//   - Teleports, RpcResetState, authority changes, scale, host mode and
//     NetworkTime.time (scaled) are not modelled.
//
// When the transform's buffer runs dry Mirror holds the newest snapshot (it
// never extrapolates) while its timeline keeps running: Sample says Freeze.
// Before the timeline reaches the first snapshot it holds that one: Freeze
// too.
package mirror

import (
	"interplab/engine/geom"
	"interplab/engine/param"
	"interplab/engine/technique"
)

// Name is the mirror technique's name.
const Name = "mirror"

// Settings are Mirror's knobs that change what a client shows, with
// Mirror's names, units and defaults (NetworkManager.sendRate,
// NetworkClient.snapshotSettings, NetworkTransformUnreliable). Thresholds
// and multipliers are in send intervals; times in seconds.
type Settings struct {
	// NetworkManager.sendRate, Hz: the server's send rate; sendInterval is
	// 1/sendRate as a float. Must equal the lab's sendRate.
	SendRate int `json:"mirror.sendRate"`

	// SnapshotInterpolationSettings.
	BufferTimeMultiplier       float64 `json:"mirror.bufferTimeMultiplier"`       // bufferTime = sendInterval × this, send intervals
	BufferLimit                int     `json:"mirror.bufferLimit"`                // snapshots a buffer holds at most (time and transform)
	CatchupNegativeThreshold   float64 `json:"mirror.catchupNegativeThreshold"`   // slow down below this drift, send intervals (≤ 0; a C# float)
	CatchupPositiveThreshold   float64 `json:"mirror.catchupPositiveThreshold"`   // catch up above this drift, send intervals (≥ 0; a C# float)
	CatchupSpeed               float64 `json:"mirror.catchupSpeed"`               // timeline speed-up while catching up, fraction
	SlowdownSpeed              float64 `json:"mirror.slowdownSpeed"`              // timeline slow-down while slowing down, fraction
	DriftEmaDuration           int     `json:"mirror.driftEmaDuration"`           // length of the drift EMA, s
	DynamicAdjustment          bool    `json:"mirror.dynamicAdjustment"`          // multiplier = 1 + σ(delivery)/sendInterval + tolerance
	DynamicAdjustmentTolerance float64 `json:"mirror.dynamicAdjustmentTolerance"` // added to the dynamic multiplier, send intervals (a C# float)
	DeliveryTimeEmaDuration    int     `json:"mirror.deliveryTimeEmaDuration"`    // length of the delivery-time EMA, s

	// NetworkTransformUnreliable.
	SendIntervalMultiplier int     `json:"mirror.sendIntervalMultiplier"` // the transform syncs every this many sends (from syncInterval)
	TimelineOffset         bool    `json:"mirror.timelineOffset"`         // key snapshots one sync interval later
	OnlySyncOnChange       bool    `json:"mirror.onlySyncOnChange"`       // the server skips unchanged syncs; the client resets its buffer after gaps
	BufferResetMultiplier  float64 `json:"mirror.bufferResetMultiplier"`  // gap that resets the buffer, sync intervals (a C# float)
	PositionSensitivity    float64 `json:"mirror.positionSensitivity"`    // smallest position change the server sends, m (a C# float)
}

// f32 is the value a C# float field holds for a setting.
func f32(v float64) float64 { return float64(float32(v)) }

// Params are the mirror technique's parameters. Their defaults
// (param.Defaults) are Mirror's own.
var Params = []param.Param[*Settings]{
	{Name: "mirror.sendRate", Group: "mirror", Kind: param.Int, Unit: "Hz", Min: 1, Max: 128, Step: 1, Default: 60, Display: "Hz", Scale: 1,
		Doc:   "NetworkManager.sendRate; the server's send and tick rates (the lab's sendRate, tickRate) follow it. Mirror: 60.",
		Read:  func(s *Settings) float64 { return float64(s.SendRate) },
		Write: func(s *Settings, v float64) { s.SendRate = int(v) }},
	{Name: "mirror.bufferTimeMultiplier", Group: "mirror", Unit: "send intervals", Min: 0, Max: 10, Step: 0.1, Default: 2, Display: "×", Scale: 1,
		Inert: []param.Inert{{When: "mirror.dynamicAdjustment", From: 1, To: 1, Why: "dynamicAdjustment sets the multiplier before every snapshot, the first included"}},
		Doc:   "Render this many send intervals behind (ignored after the first packet with dynamicAdjustment). Mirror: 2.",
		Read:  func(s *Settings) float64 { return s.BufferTimeMultiplier },
		Write: func(s *Settings, v float64) { s.BufferTimeMultiplier = v }},
	{Name: "mirror.bufferLimit", Group: "mirror", Kind: param.Int, Unit: "snapshots", Min: 1, Max: 256, Step: 1, Default: 32, Display: "snapshots", Scale: 1,
		Doc:   "Most snapshots a buffer keeps; later ones are dropped. Mirror: 32.",
		Read:  func(s *Settings) float64 { return float64(s.BufferLimit) },
		Write: func(s *Settings, v float64) { s.BufferLimit = int(v) }},
	{Name: "mirror.catchupNegativeThreshold", Group: "mirror", Unit: "send intervals", Min: -10, Max: 0, Step: 0.1, Default: -1, Display: "×", Scale: 1,
		Doc:   "Slow the timeline down when it runs this far ahead of bufferTime. Mirror: -1.",
		Read:  func(s *Settings) float64 { return s.CatchupNegativeThreshold },
		Write: func(s *Settings, v float64) { s.CatchupNegativeThreshold = v }},
	{Name: "mirror.catchupPositiveThreshold", Group: "mirror", Unit: "send intervals", Min: 0, Max: 10, Step: 0.1, Default: 1, Display: "×", Scale: 1,
		Doc:   "Speed the timeline up when it lags this far behind bufferTime. Mirror: 1.",
		Read:  func(s *Settings) float64 { return s.CatchupPositiveThreshold },
		Write: func(s *Settings, v float64) { s.CatchupPositiveThreshold = v }},
	{Name: "mirror.catchupSpeed", Group: "mirror", Unit: "fraction", Min: 0, Max: 1, Step: 0.001, Default: 0.02, Display: "", Scale: 1,
		Doc:   "How much faster the timeline runs while catching up. Mirror: 0.02 (2%).",
		Read:  func(s *Settings) float64 { return s.CatchupSpeed },
		Write: func(s *Settings, v float64) { s.CatchupSpeed = v }},
	{Name: "mirror.slowdownSpeed", Group: "mirror", Unit: "fraction", Min: 0, Max: 1, Step: 0.001, Default: 0.04, Display: "", Scale: 1,
		Doc:   "How much slower the timeline runs while slowing down. Mirror: 0.04 (4%).",
		Read:  func(s *Settings) float64 { return s.SlowdownSpeed },
		Write: func(s *Settings, v float64) { s.SlowdownSpeed = v }},
	{Name: "mirror.driftEmaDuration", Group: "mirror", Kind: param.Int, Unit: "s", Min: 1, Max: 10, Step: 1, Default: 1, Display: "s", Scale: 1,
		Doc:   "Seconds of timeline drift averaged before catching up or slowing down. Mirror: 1.",
		Read:  func(s *Settings) float64 { return float64(s.DriftEmaDuration) },
		Write: func(s *Settings, v float64) { s.DriftEmaDuration = int(v) }},
	{Name: "mirror.dynamicAdjustment", Group: "mirror", Kind: param.Bool, Max: 1, Step: 1, Default: 1,
		Doc:   "Set the multiplier to 1 + delivery jitter (σ) / sendInterval + tolerance on every packet. Mirror: on.",
		Read:  func(s *Settings) float64 { return param.FromBool(s.DynamicAdjustment) },
		Write: func(s *Settings, v float64) { s.DynamicAdjustment = v != 0 }},
	{Name: "mirror.dynamicAdjustmentTolerance", Group: "mirror", Unit: "send intervals", Min: 0, Max: 5, Step: 0.1, Default: 1, Display: "×", Scale: 1,
		Inert: []param.Inert{{When: "mirror.dynamicAdjustment", From: 0, To: 0, Why: "only dynamicAdjustment adds it"}},
		Doc:   "Safety margin the dynamic adjustment adds to the multiplier. Mirror: 1.",
		Read:  func(s *Settings) float64 { return s.DynamicAdjustmentTolerance },
		Write: func(s *Settings, v float64) { s.DynamicAdjustmentTolerance = v }},
	{Name: "mirror.deliveryTimeEmaDuration", Group: "mirror", Kind: param.Int, Unit: "s", Min: 1, Max: 10, Step: 1, Default: 2, Display: "s", Scale: 1,
		Inert: []param.Inert{{When: "mirror.dynamicAdjustment", From: 0, To: 0, Why: "only dynamicAdjustment reads the delivery-time spread"}},
		Doc:   "Seconds of delivery times whose spread the dynamic adjustment reads. Mirror: 2.",
		Read:  func(s *Settings) float64 { return float64(s.DeliveryTimeEmaDuration) },
		Write: func(s *Settings, v float64) { s.DeliveryTimeEmaDuration = int(v) }},
	{Name: "mirror.sendIntervalMultiplier", Group: "mirror", Kind: param.Int, Unit: "sends", Min: 1, Max: 10, Step: 1, Default: 1, Display: "sends", Scale: 1,
		Doc:   "NetworkTransform syncs every this many sends (syncInterval / sendInterval, rounded). Mirror: 1.",
		Read:  func(s *Settings) float64 { return float64(s.SendIntervalMultiplier) },
		Write: func(s *Settings, v float64) { s.SendIntervalMultiplier = int(v) }},
	{Name: "mirror.timelineOffset", Group: "mirror", Kind: param.Bool, Max: 1, Step: 1, Default: 1,
		Doc:   "NetworkTransform shows its snapshots one more sync interval late, for smoothness. Mirror: on.",
		Read:  func(s *Settings) float64 { return param.FromBool(s.TimelineOffset) },
		Write: func(s *Settings, v float64) { s.TimelineOffset = v != 0 }},
	{Name: "mirror.onlySyncOnChange", Group: "mirror", Kind: param.Bool, Max: 1, Step: 1, Default: 1,
		Doc:   "The server sends a still object once, then nothing; the client resets after gaps. Mirror: on.",
		Read:  func(s *Settings) float64 { return param.FromBool(s.OnlySyncOnChange) },
		Write: func(s *Settings, v float64) { s.OnlySyncOnChange = v != 0 }},
	{Name: "mirror.bufferResetMultiplier", Group: "mirror", Unit: "sync intervals", Min: 0, Max: 10, Step: 0.1, Default: 3, Display: "×", Scale: 1,
		Inert: []param.Inert{{When: "mirror.onlySyncOnChange", From: 0, To: 0, Why: "the buffer is reset after a gap only with onlySyncOnChange"}},
		Doc:   "A sync this many sync intervals after the newest clears the buffer (onlySyncOnChange). Mirror: 3.",
		Read:  func(s *Settings) float64 { return s.BufferResetMultiplier },
		Write: func(s *Settings, v float64) { s.BufferResetMultiplier = v }},
	{Name: "mirror.positionSensitivity", Group: "mirror", Unit: "m", Min: 0, Max: 1, Step: 0.001, Default: 0.01, Display: "m", Scale: 1,
		Doc:   "Smallest per-axis move the server sends (onlySyncOnChange). Mirror: 0.01 m.",
		Read:  func(s *Settings) float64 { return s.PositionSensitivity },
		Write: func(s *Settings, v float64) { s.PositionSensitivity = v }},
}

// Def is the mirror technique's row of the technique list.
var Def = technique.Def[*Settings]{Name: Name, Group: "mirror", Params: Params,
	Base: technique.LocalTime, Reach: technique.Received,
	Tune: []string{"mirror.bufferTimeMultiplier", "mirror.dynamicAdjustment", "mirror.dynamicAdjustmentTolerance",
		"mirror.deliveryTimeEmaDuration", "mirror.catchupSpeed", "mirror.slowdownSpeed"},
	Delay:  delayOf,
	Advice: advice,
	// A Mirror server sends at NetworkManager.sendRate, and a headless one
	// runs its frames at it too (Application.targetFrameRate = sendRate).
	Rate:  "mirror.sendRate",
	Rates: func(s *Settings) (float64, float64) { return float64(s.SendRate), float64(s.SendRate) },
	Batch: newMirrorBatch,
	One:   func(s *Settings, env *technique.Env) technique.Technique { return newMirrorTechnique(s, env) },
	Library: &technique.Library{Title: "Mirror", Note: "Unity, NetworkTransform with snapshot interpolation", Group: "Mirror",
		Commit: "c885a6a4d50dbe8e95438c98a4ff68dd72dd7e7a"},
}

// advice says when mirror.sendRate is not the server's send rate: in
// a Mirror game both are NetworkManager.sendRate.
func advice(s *Settings, env *technique.Env) string {
	if float64(s.SendRate) == env.SendRate {
		return ""
	}
	return technique.RateAdvice("mirror.sendRate", float64(s.SendRate), env, "in a Mirror game both are NetworkManager.sendRate")
}

// delayOf is the display delay of a Mirror game behind the newest
// snapshot in steady state: bufferTime plus NetworkTransform's shift of its
// snapshots (sendInterval·mult with timelineOffset, and sendInterval·(mult−1)
// of timeStampAdjustment); with dynamic adjustment bufferTime is that of a
// link without jitter, (1 + tolerance)·sendInterval, and grows with it.
// Mirror's docs count it as "latency + bufferTime + sendInterval".
func delayOf(s *Settings, _ *technique.Env) float64 {
	c := newMirrorConfig(s)
	mult := c.multiplier
	if c.dynamic {
		mult = 1 + c.tolerance
	}
	return float64(c.sendInterval)*mult + c.shift
}

// mirrorConfig is Mirror's knobs as Mirror computes with them,
// the float32 spots rounded as Mirror rounds them.
type mirrorConfig struct {
	sendInterval     float32 // NetworkServer.sendInterval = 1f / sendRate
	multiplier       float64 // the configured bufferTimeMultiplier
	bufferLimit      int
	negative         float64 // (float)(sendInterval × catchupNegativeThreshold), s
	positive         float64 // (float)(sendInterval × catchupPositiveThreshold), s
	catchup          float64
	slowdown         float64
	driftAlpha       float64 // EMA alphas: 2 / (sendRate × duration + 1)
	deliveryAlpha    float64
	dynamic          bool
	tolerance        float64 // a float, widened
	tsAdjust         float64 // timeStampAdjustment = (float)(sendInterval × (mult − 1))
	offset           float64 // offset = (float)(sendInterval × mult) with timelineOffset, else 0
	shift            float64 // tsAdjust + offset, for the display
	onlySyncOnChange bool
	resetGap         float64 // (float)((float)(bufferResetMultiplier × mult) × sendInterval)
	syncEvery        int     // sendIntervalMultiplier
	sensitivity      float32 // positionSensitivity
}

func newMirrorConfig(m *Settings) mirrorConfig {
	si := float32(1) / float32(max(m.SendRate, 1))
	mult := uint32(max(m.SendIntervalMultiplier, 1))
	c := mirrorConfig{
		sendInterval:     si,
		multiplier:       m.BufferTimeMultiplier,
		bufferLimit:      m.BufferLimit,
		negative:         float64(si * float32(m.CatchupNegativeThreshold)),
		positive:         float64(si * float32(m.CatchupPositiveThreshold)),
		catchup:          m.CatchupSpeed,
		slowdown:         m.SlowdownSpeed,
		driftAlpha:       2.0 / float64(m.SendRate*m.DriftEmaDuration+1),
		deliveryAlpha:    2.0 / float64(m.SendRate*m.DeliveryTimeEmaDuration+1),
		dynamic:          m.DynamicAdjustment,
		tolerance:        f32(m.DynamicAdjustmentTolerance),
		tsAdjust:         float64(si * float32(mult-1)),
		onlySyncOnChange: m.OnlySyncOnChange,
		resetGap:         float64(float32(float32(m.BufferResetMultiplier)*float32(mult)) * si),
		syncEvery:        int(mult),
		sensitivity:      float32(m.PositionSensitivity),
	}
	if m.TimelineOffset {
		c.offset = float64(si * float32(mult))
	}
	c.shift = c.tsAdjust + c.offset
	return c
}

// mirrorTechnique is the Technique of one entity: a client with its own
// timeline and one NetworkTransform.
type mirrorTechnique struct {
	settings *Settings
	env      *technique.Env
	clock    mirrorTimeline
	nt       mirrorTransform
	sender   mirrorSender
}

func newMirrorTechnique(s *Settings, env *technique.Env) *mirrorTechnique {
	return &mirrorTechnique{settings: s, env: env, clock: newMirrorTimeline(s)}
}

// Receive queues the time snapshot for the next frame and hands the
// transform's sync, if the modelled server sent one, to its buffer: its
// insert reads nothing the frame changes before it, so doing it now is
// doing it at the next frame's start.
func (t *mirrorTechnique) Receive(s technique.Snapshot, _ float64) {
	axes, ok := t.sender.sync(s, t.env.SendRate, &t.clock.cfg)
	t.receive(s.Time, axes, ok, mirrorVec32(s.Pos), s.Rot)
}

// receive takes one batch off the wire: its timestamp send (server time),
// and when sync the transform's sync carrying the axes of p flagged in axes.
func (t *mirrorTechnique) receive(send float64, axes uint8, sync bool, p [3]float32, r geom.Quat) {
	t.clock.receive(send)
	if sync {
		t.nt.receive(send, axes, p, r, &t.clock.cfg)
	}
}

func (t *mirrorTechnique) Sample(now float64) technique.Sample {
	t.clock.frame(now, t.settings)
	var out technique.Sample
	t.nt.sample(&t.clock, &out)
	out.Idle = t.sender.idle.Covers(out.Time)
	return out
}

// mirrorVec32 is a position as Mirror serializes it (WriteFloat).
func mirrorVec32(p geom.Vec3) [3]float32 {
	return [3]float32{float32(p[0]), float32(p[1]), float32(p[2])}
}

// mirrorBatch is one client with one timeline and a NetworkTransform per
// entity, as in Mirror, where NetworkClient's timeline is global: the time
// work is done once a frame.
type mirrorBatch struct {
	settings *Settings
	env      *technique.Env
	clock    mirrorTimeline
	nts      []mirrorTransform
	senders  []mirrorSender
}

func newMirrorBatch(s *Settings, env *technique.Env, n int) technique.Batch {
	return &mirrorBatch{settings: s, env: env, clock: newMirrorTimeline(s),
		nts: make([]mirrorTransform, n), senders: make([]mirrorSender, n)}
}

func (b *mirrorBatch) Receive(tick, _ float64, snaps []technique.Snapshot) {
	c := &b.clock.cfg
	b.clock.receive(tick)
	for e := range snaps {
		if axes, ok := b.senders[e].sync(snaps[e], b.env.SendRate, c); ok {
			b.nts[e].receive(snaps[e].Time, axes, mirrorVec32(snaps[e].Pos), snaps[e].Rot, c)
		}
	}
}

func (b *mirrorBatch) Frame(now float64) { b.clock.frame(now, b.settings) }

func (b *mirrorBatch) Fill(lo int, out []technique.Sample) {
	for e := range out {
		b.nts[lo+e].sample(&b.clock, &out[e])
		out[e].Idle = b.senders[lo+e].idle.Covers(out[e].Time)
	}
}

func (*mirrorBatch) SharesDelay() {}
