// Package source is the source technique: it re-implements how a Source
// SDK 2013 multiplayer client (commit
// aea94b32cbefeba5d16ef6fc70eff9508cf11673, 2025-02-27) draws a remote
// player's origin. It is built only from the description in the
// project's golden/peers README (which was written from
// public/tier1/interpolatedvar.h, CInterpolatedVar<Vector>, and
// game/client/c_baseentity.cpp, GetClientInterpAmount and the per-frame
// interpolation list, as found) and from the cases the SDK's code rendered;
// the SDK's code itself was not read, its licence covering Source mods
// only. The Valve developer wiki's cvar help texts give the clock model.
//
// Per client frame at local time T (the frame model of the cases):
//
//  1. The tick clock advances by the frame's time plus its correction
//     (sourceClock).
//  2. Every packet that arrived since the last frame, in arrival order: the
//     net channel drops one whose server tick is not newer than the last
//     accepted one; otherwise the clock takes in the tick, and the entity is
//     updated at curtime = the packet's tick time: its origin is set to the
//     networked value, a new entity's history is reset to three copies of it,
//     otherwise the sample is added at the head (after removing head samples
//     not older than it by 0.1 ms) and the history is pruned; the entity
//     joins the interpolation list, and its origin is flagged to interpolate
//     if the value differs from the last networked one.
//  3. Render: curtime = the clock; target = curtime − interp amount, where
//     the interp amount is max(cl_interp, cl_interp_ratio/cl_updaterate)
//     (ratio and rate clamped by the server's cvars) rounded to whole ticks
//     plus one tick. An entity in the list is snapped to its networked
//     origin when no packet came for 0.5 s; else, with its origin flagged,
//     it is interpolated: 3-point Hermite over (oldest, older, newer), the
//     oldest first re-timed to the newer−older spacing, when a third sample
//     0.1 ms older exists, else linear; before the oldest sample the oldest
//     is held; past the newest it is extrapolated along the last two samples
//     by up to cl_extrapolate_amount, or the newest is held, and the entity
//     leaves the list, so the extrapolated value is computed once and held
//     until the next packet. The history is then pruned to the newest
//     sample older than curtime − amount − 50 ms and the two before it.
//
// Positions and times are float32, in the order the engine computes them,
// so the cases match to about 1e-9 m (blocking FMA fusion with explicit
// conversions).
//
// Deliberate simplifications:
//   - Position only is pinned by the cases. Rotation is not: the technique
//     slerps the rotation of the same two samples by the same fraction
//     (linear, not Hermite), holds the newest when extrapolating or holding,
//     and snaps with the origin. We chose slerp over a component lerp of
//     the angles: the lab's entities turn in yaw only, where slerp is the
//     shortest-arc lerp of the yaw, so a turn through ±180° does not spin
//     the long way round.
//   - The lab's stream has no server ticks: the tick is the snapshot's
//     server time divided by the tick interval, rounded, and the player is
//     taken as simulated every tick (simulation tick = packet tick). The
//     lab's sendRate stands for the rate the server really sends to this
//     client: cl_updaterate only enters the interp amount, as the server's
//     send schedule is not remodelled (presets set sendRate = cl_updaterate).
//   - Snapshots that arrive between frames are read at the next frame, as
//     the engine reads its socket once a frame.
//   - The clock, the net channel and the drop of stale packets are per
//     client in the engine; the lab keeps one per entity in the single-
//     entity technique (same packets, same result) and one per run in its
//     batch.
//   - cl_interpolate 0 (no case covers it): the entity shows its networked
//     origin, in the engine's Interpolate-off path; cl_extrapolate is
//     cheat-protected in the engine but a plain knob here.
//   - No SPROP_COORD quantization of origins (sender side, as in the cases).
package source

import (
	"math"

	"interplab/engine/geom"
	"interplab/engine/technique"
)

// Name is the Source engine technique: Source SDK 2013 multiplayer's
// entity interpolation (CInterpolatedVar, the client interp amount) with the
// client's tick clock and net channel as the golden cases model them.
const Name = "source"

// sourceTechnique is the source technique of one entity (see the package
// doc for the model).
type sourceTechnique struct {
	settings *Settings
	clock    sourceClock
	net      sourceNet
	ent      sourceEntity
	pending  []sourcePacket
}

// sourcePacket is a snapshot waiting for the next frame.
type sourcePacket struct {
	time float64 // server time, s
	pos  geom.Vec3
	rot  geom.Quat
}

// sourceNet is the net channel's memory: the last accepted server tick.
type sourceNet struct {
	any  bool
	last int64
}

// accept tells whether a packet of server tick n is newer than the last
// accepted one, and remembers it if so.
func (n *sourceNet) accept(tick int64) bool {
	if n.any && tick <= n.last {
		return false
	}
	n.any, n.last = true, tick
	return true
}

func newSource(s *Settings, _ *technique.Env) technique.Technique {
	return &sourceTechnique{settings: s}
}

func (t *sourceTechnique) Receive(s technique.Snapshot, _ float64) {
	t.pending = append(t.pending, sourcePacket{time: s.Time, pos: s.Pos, rot: s.Rot})
}

func (t *sourceTechnique) Sample(now float64) technique.Sample {
	k := t.settings.config()
	var out technique.Sample
	t.frame(now, &k, &out)
	return out
}

// frame runs the frame model at local time now and writes the drawn sample.
func (t *sourceTechnique) frame(now float64, k *sourceConfig, out *technique.Sample) {
	t.read(now, k)
	t.ent.render(now, t.clock.curtime(&k.clock), k, out)
	out.Delay = sourceLiveDelay(&t.clock, k)
}

// sourceLiveDelay is the game delay as the client's state has it: the
// interp amount behind the clock, less the clock's lead over the packets'
// ticks (see sourceClock.lead): the render time's distance behind the
// newest tick, which the clock correction holds within
// cl_clock_correction_adjustment_min_offset of the interp amount once it
// has caught up.
func sourceLiveDelay(c *sourceClock, k *sourceConfig) float64 {
	return float64(k.amount) - c.lead(&k.clock)
}

// frameAt is frame with the render curtime given: a case's, to check the
// interpolation apart from the clock model.
func (t *sourceTechnique) frameAt(now float64, k *sourceConfig, curtime float32, out *technique.Sample) {
	t.read(now, k)
	t.ent.render(now, curtime, k, out)
}

// read advances the clock to now and takes in the packets that arrived
// since the last frame (frame steps 1 and 2).
func (t *sourceTechnique) read(now float64, k *sourceConfig) {
	t.clock.advance(now, &k.clock)
	for _, p := range t.pending {
		tick := sourceTick(p.time, k.interval)
		if !t.net.accept(tick) {
			continue
		}
		t.clock.serverTick(tick, &k.clock)
		t.ent.receive(tick, sourcePos(p.pos), p.rot, now, k)
	}
	t.pending = t.pending[:0]
}

// sourceTick is the server tick of a snapshot of server time s.
func sourceTick(s float64, interval float32) int64 {
	return int64(math.Round(s / float64(interval)))
}

func sourcePos(p geom.Vec3) [3]float32 {
	return [3]float32{float32(p[0]), float32(p[1]), float32(p[2])}
}
