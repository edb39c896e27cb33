// Package unreal is the unreal-cmc technique: how a client of Unreal
// Engine 5.4 draws a simulated proxy with UCharacterMovementComponent's
// network smoothing, from Epic's public documentation (see unrealCMC).
package unreal

import (
	"interplab/engine/geom"
	"interplab/engine/param"
	"interplab/engine/technique"
)

// Name is the technique of Unreal Engine's CharacterMovementComponent as a
// client draws a simulated proxy (another player's character).
const Name = "unreal-cmc"

// SmoothingModes are the choices of unreal.networkSmoothingMode, in the
// order of Unreal's ENetworkSmoothingMode (its hidden Replay mode left out).
var SmoothingModes = []string{"disabled", "linear", "exponential"}

// The indices of SmoothingModes.
const (
	unrealDisabled = iota
	unrealLinear
	unrealExponential
)

// Settings are the UCharacterMovementComponent properties that shape
// how a client draws a simulated proxy, with Unreal's names, units (cm, s)
// and defaults. The JSON keys are the lab's parameter names.
type Settings struct {
	// NetworkSmoothingMode is disabled, linear or exponential (Unreal's
	// default).
	NetworkSmoothingMode string `json:"unreal.networkSmoothingMode"`
	// NetworkSimulatedSmoothLocationTime is the time constant of the
	// exponential decay of the mesh's location offset, s (default 0.1).
	NetworkSimulatedSmoothLocationTime float64 `json:"unreal.networkSimulatedSmoothLocationTime"`
	// NetworkSimulatedSmoothRotationTime is the time constant of the
	// exponential blend of the mesh's rotation, s (default 0.05).
	NetworkSimulatedSmoothRotationTime float64 `json:"unreal.networkSimulatedSmoothRotationTime"`
	// NetworkMaxSmoothUpdateDistance is the farthest the mesh may lag behind
	// the server location while smoothing, cm (default 256).
	NetworkMaxSmoothUpdateDistance float64 `json:"unreal.networkMaxSmoothUpdateDistance"`
	// NetworkNoSmoothUpdateDistance is the update distance beyond which the
	// character teleports with no smoothing, cm (default 384).
	NetworkNoSmoothUpdateDistance float64 `json:"unreal.networkNoSmoothUpdateDistance"`
}

// Params are the unreal-cmc technique's parameters. Their defaults
// (param.Defaults) are Unreal's.
var Params = []param.Param[*Settings]{
	param.EnumOf(param.Param[*Settings]{Name: "unreal.networkSmoothingMode", Group: "unreal", Default: unrealExponential, Choices: SmoothingModes,
		Doc: "How the mesh catches up with each server update: exponential (Unreal's default), linear over the update interval, or disabled (snap)."},
		func(s *Settings) *string { return &s.NetworkSmoothingMode }),
	{Name: "unreal.networkSimulatedSmoothLocationTime", Group: "unreal", Unit: "s", Min: 0, Max: 1, Step: 0.001, Default: 0.1, Display: "s", Scale: 1,
		Inert: []param.Inert{{When: "unreal.networkSmoothingMode", From: unrealDisabled, To: unrealLinear, Why: "only exponential smoothing reads it"}},
		Doc:   "Time constant of the exponential catch-up of the mesh location after an update (Unreal's default 100 ms; not used by linear).",
		Read:  func(s *Settings) float64 { return s.NetworkSimulatedSmoothLocationTime },
		Write: func(s *Settings, v float64) { s.NetworkSimulatedSmoothLocationTime = v }},
	{Name: "unreal.networkSimulatedSmoothRotationTime", Group: "unreal", Unit: "s", Min: 0, Max: 1, Step: 0.001, Default: 0.05, Display: "s", Scale: 1,
		Inert: []param.Inert{{When: "unreal.networkSmoothingMode", From: unrealDisabled, To: unrealLinear, Why: "only exponential smoothing reads it"}},
		Doc:   "Time constant of the exponential catch-up of the mesh rotation after an update (Unreal's default 50 ms; not used by linear).",
		Read:  func(s *Settings) float64 { return s.NetworkSimulatedSmoothRotationTime },
		Write: func(s *Settings, v float64) { s.NetworkSimulatedSmoothRotationTime = v }},
	{Name: "unreal.networkMaxSmoothUpdateDistance", Group: "unreal", Unit: "cm", Min: 0, Max: 10000, Step: 1, Default: 256, Display: "cm", Scale: 1,
		Inert: []param.Inert{{When: "unreal.networkSmoothingMode", From: unrealDisabled, To: unrealDisabled, Why: "disabled smoothing draws the mesh on the capsule"}},
		Doc:   "Farthest the mesh may lag behind the server location while smoothing; a larger gap is cut to it (Unreal's default 256 cm).",
		Read:  func(s *Settings) float64 { return s.NetworkMaxSmoothUpdateDistance },
		Write: func(s *Settings, v float64) { s.NetworkMaxSmoothUpdateDistance = v }},
	{Name: "unreal.networkNoSmoothUpdateDistance", Group: "unreal", Unit: "cm", Min: 0, Max: 10000, Step: 1, Default: 384, Display: "cm", Scale: 1,
		Inert: []param.Inert{{When: "unreal.networkSmoothingMode", From: unrealDisabled, To: unrealDisabled, Why: "disabled smoothing draws the mesh on the capsule"}},
		Doc:   "An update that moves the character farther than this teleports it with no smoothing (Unreal's default 384 cm).",
		Read:  func(s *Settings) float64 { return s.NetworkNoSmoothUpdateDistance },
		Write: func(s *Settings, v float64) { s.NetworkNoSmoothUpdateDistance = v }},
}

// Def is the unreal-cmc row of the technique list. Its delay is 0,
// and so is its live delay (Sample.Delay): the proxy is drawn at the newest
// update extrapolated to the present, not behind it (the one-way latency
// is still there, as for every technique). The mesh smoothing is not
// counted: it is a position offset left by a correction and decaying over
// NetworkSimulatedSmoothLocationTime, not a time behind the update (on
// steady motion the extrapolated capsule is where the next update puts it
// and there is nothing to smooth); what it costs shows in the error and
// the added latency.
var Def = technique.Def[*Settings]{Name: Name, Group: "unreal", Params: Params,
	Base: technique.LocalTime, Reach: technique.Ahead,
	Tune: []string{"unreal.networkSimulatedSmoothLocationTime", "unreal.networkMaxSmoothUpdateDistance",
		"unreal.networkNoSmoothUpdateDistance"},
	Delay: func(*Settings, *technique.Env) float64 { return 0 },
	Batch: func(s *Settings, _ *technique.Env, n int) technique.Batch { return newUnrealBatch(s, n) },
	One:   func(s *Settings, _ *technique.Env) technique.Technique { return &unrealCMC{s: s} },
	Library: &technique.Library{Title: "Unreal Engine", Note: "CharacterMovementComponent, simulated proxies",
		Group: "Unreal CharacterMovement", Version: "5.4"},
}

// unrealCMC draws one simulated proxy the way Unreal Engine 5.4's
// UCharacterMovementComponent does, built from Epic's public documentation
// (the UCharacterMovementComponent API reference for UE 5.4/5.5:
// NetworkSmoothingMode, NetworkSimulatedSmoothLocationTime,
// NetworkSimulatedSmoothRotationTime, NetworkMaxSmoothUpdateDistance,
// NetworkNoSmoothUpdateDistance, SimulateMovement, SmoothCorrection,
// SmoothClientPosition, SmoothClientPosition_Interpolate,
// bNetworkSmoothingComplete; ENetworkSmoothingMode in EngineTypes.h; the
// "Character Movement Component" networking page), not from the engine's
// source (CharacterMovementComponent.cpp), which is not open.
//
// The model. The server replicates the character's location, velocity and
// rotation (FRepMovement) at its net update rate, the lab's sendRate. The
// client keeps two things: the capsule (the actor's location) and the mesh,
// drawn at the capsule plus an offset (MeshTranslationOffset).
//
//   - Between updates (SimulatedTick → SimulateMovement) the capsule moves
//     with the replicated velocity by each frame's delta time: the proxy is
//     extrapolated, with no time limit, from where the update put it. There
//     is no interpolation delay: the technique's delay is 0.
//   - On an update (OnRep_ReplicatedMovement → SmoothCorrection) the capsule
//     snaps to the replicated location and the mesh stays where it was
//     drawn: offset = old drawn location − new location. If the update moved
//     the capsule farther than NetworkNoSmoothUpdateDistance the character
//     teleports (offset 0, rotation snapped). Otherwise an offset longer
//     than NetworkMaxSmoothUpdateDistance is cut to that length, keeping its
//     direction ("maximum distance character is allowed to lag behind server
//     location").
//   - Every frame (SmoothClientPosition_Interpolate) the offset decays:
//     exponential: offset ← offset·(1 − dt/T), T =
//     NetworkSimulatedSmoothLocationTime, and 0 once dt ≥ T (the per-frame
//     form of a decay with time constant T; "faster as you are further from
//     target"); the drawn rotation moves the fraction dt/T_rot of the way to
//     the capsule's (T_rot = NetworkSimulatedSmoothRotationTime). linear:
//     the offset goes in a straight line from its value at the update to 0,
//     and the rotation from the drawn one to the replicated one, over the
//     server-time interval between this update and the previous one (the
//     replicated timestamp, ReplicatedServerLastTransformUpdateTimeStamp);
//     the smooth times are not used. disabled: the mesh is drawn on the
//     capsule.
//
// Updates are applied when they arrive and the next frame ticks by its
// whole delta time, as Unreal processes packets before it ticks actors. An
// update no newer than the newest applied is dropped (property replication
// never applies stale state). Clocks: Receive and Sample take the client's
// local clock (drift included); only linear mode reads server timestamps.
//
// Deliberate simplifications, each a decision where the public
// documentation says nothing or the lab has no world:
//   - SimulateMovement is a straight line at the replicated velocity: no
//     floor, collision, step-up, gravity while falling, root motion or
//     based movement (the lab has no level geometry).
//   - No FRepMovement quantization of location, velocity or rotation.
//   - No listen server (the ListenServer* smoothing times), no replay
//     (Replay smoothing mode), no bNetworkSkipProxyPredictionOnNetUpdate.
//   - The engine's internal details that the documentation does not give
//     are not guessed at: no completion threshold (the offset decays for
//     ever, which draws the same within float precision), no special case
//     for a standing character, linear mode's percentage clamped to [0, 1]
//     (no overshoot), rotations blended by a normalised lerp.
//   - The update's capsule move is the distance compared with
//     NetworkNoSmoothUpdateDistance; the whole offset (old drawn location −
//     new location) is what NetworkMaxSmoothUpdateDistance cuts.
type unrealCMC struct {
	s *Settings

	have    bool    // an update has been applied
	ticked  bool    // last holds the previous frame's time
	last    float64 // local time of the previous frame, s
	newest  float64 // server time of the newest update, s
	span    float64 // server time between the newest update and the one before, s; 0 for the first
	elapsed float64 // local seconds ticked since the newest update

	capsule geom.Vec3 // the actor's location, m: the update's, extrapolated
	vel     geom.Vec3 // replicated velocity, m/s
	rot     geom.Quat // replicated rotation: the capsule's
	offset  geom.Vec3 // MeshTranslationOffset, m: drawn location − capsule
	offset0 geom.Vec3 // the offset the update set: linear mode's start
	mesh    geom.Quat // the rotation drawn
	mesh0   geom.Quat // the rotation drawn when the update came: linear mode's start
}

// Receive applies an update that arrived at local time now
// (SmoothCorrection): the capsule snaps to it, the mesh keeps its place
// within the distance limits.
func (t *unrealCMC) Receive(sn technique.Snapshot, now float64) {
	if !t.have {
		t.have, t.newest, t.span, t.elapsed = true, sn.Time, 0, 0
		t.capsule, t.vel, t.rot, t.mesh = sn.Pos, sn.Vel, sn.Rot, sn.Rot
		t.offset, t.offset0 = geom.Vec3{}, geom.Vec3{}
		if !t.ticked {
			t.ticked, t.last = true, now
		}
		return
	}
	if sn.Time <= t.newest {
		return
	}
	s := t.s
	drawn := t.capsule.Add(t.offset)
	move := sn.Pos.Sub(t.capsule)
	t.span, t.newest, t.elapsed = sn.Time-t.newest, sn.Time, 0
	t.capsule, t.vel, t.rot = sn.Pos, sn.Vel, sn.Rot
	noSmooth := s.NetworkNoSmoothUpdateDistance / cmPerM
	if s.NetworkSmoothingMode == SmoothingModes[unrealDisabled] || move.LenSq() > float64(noSmooth*noSmooth) {
		t.offset, t.offset0, t.mesh, t.mesh0 = geom.Vec3{}, geom.Vec3{}, sn.Rot, sn.Rot
		return
	}
	off := drawn.Sub(sn.Pos)
	if maxSmooth := s.NetworkMaxSmoothUpdateDistance / cmPerM; off.LenSq() > float64(maxSmooth*maxSmooth) {
		off = off.Scale(maxSmooth / off.Len())
	}
	t.offset, t.offset0, t.mesh0 = off, off, t.mesh
}

// cmPerM converts Unreal's centimetres to the lab's metres.
const cmPerM = 100

// Sample ticks the proxy to local time now (SimulateMovement, then
// SmoothClientPosition) and returns the mesh's pose. Before any update it
// is Empty; after, always Extrapolate: the capsule stands for the newest
// update's time plus the time ticked since.
func (t *unrealCMC) Sample(now float64) technique.Sample {
	var out technique.Sample
	t.sample(now, unrealMode(t.s), &out)
	return out
}

// unrealMode returns the index of s's smoothing mode.
func unrealMode(s *Settings) int {
	switch s.NetworkSmoothingMode {
	case SmoothingModes[unrealLinear]:
		return unrealLinear
	case SmoothingModes[unrealExponential]:
		return unrealExponential
	}
	return unrealDisabled
}

// sample is Sample with the mode worked out by the caller and the result
// written into out, saving the batch a copy.
func (t *unrealCMC) sample(now float64, mode int, out *technique.Sample) {
	if !t.ticked {
		t.ticked, t.last = true, now
	}
	dt := max(now-t.last, 0)
	t.last = now
	if !t.have {
		*out = technique.Sample{Time: now}
		return
	}
	t.tick(dt, mode)
	*out = technique.Sample{Pos: t.capsule.Add(t.offset), Rot: t.mesh, Mode: technique.Extrapolate,
		Time: t.newest + t.elapsed, Newest: t.newest}
}

// tick advances the capsule and the smoothing by one frame of dt seconds.
func (t *unrealCMC) tick(dt float64, mode int) {
	c, v := &t.capsule, &t.vel
	c[0], c[1], c[2] = c[0]+float64(v[0]*dt), c[1]+float64(v[1]*dt), c[2]+float64(v[2]*dt)
	t.elapsed += dt
	switch mode {
	case unrealExponential:
		if T := t.s.NetworkSimulatedSmoothLocationTime; dt < T {
			t.offset = t.offset.Scale(1 - dt/T)
		} else {
			t.offset = geom.Vec3{}
		}
		if T := t.s.NetworkSimulatedSmoothRotationTime; dt < T {
			t.mesh = geom.Nlerp(t.mesh, t.rot, dt/T)
		} else {
			t.mesh = t.rot
		}
	case unrealLinear:
		p := 1.0
		if t.span > 0 {
			p = min(t.elapsed/t.span, 1)
		}
		t.offset = t.offset0.Scale(1 - p)
		t.mesh = geom.Nlerp(t.mesh0, t.rot, p)
	default:
		t.offset, t.mesh = geom.Vec3{}, t.rot
	}
}

// unrealBatch holds its techniques by value, so the calls in its loops are
// static, and works out the smoothing mode once a frame.
type unrealBatch struct {
	techs []unrealCMC
	now   float64
	mode  int
}

func newUnrealBatch(s *Settings, n int) technique.Batch {
	b := &unrealBatch{techs: make([]unrealCMC, n)}
	for e := range b.techs {
		b.techs[e].s = s
	}
	return b
}

func (b *unrealBatch) Receive(_, now float64, snaps []technique.Snapshot) {
	for e := range b.techs {
		b.techs[e].Receive(snaps[e], now)
	}
}

func (b *unrealBatch) Frame(now float64) {
	b.now = now
	if len(b.techs) > 0 {
		b.mode = unrealMode(b.techs[0].s)
	}
}

func (b *unrealBatch) Fill(lo int, out []technique.Sample) {
	for e := range out {
		b.techs[lo+e].sample(b.now, b.mode, &out[e])
	}
}

func (*unrealBatch) SharesDelay() {}
