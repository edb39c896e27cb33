package ioquake3

import (
	"math"

	"interplab/engine/geom"
	"interplab/engine/technique"
)

// batch is the ioquake3 technique for n remote players that share their
// snapshots: one client clock and cgame, each player's origin in float32.
// See the package comment for how the lab's stream becomes Quake's.
type batch struct {
	s   *Settings
	env *technique.Env
	c   *client

	common technique.Sample
	// The slerp pairs are for the snapshots in slots slotA, slotB.
	slotA, slotB int32
	slerp        []geom.SlerpPair
}

func newBatch(s *Settings, env *technique.Env, n int) *batch {
	return &batch{s: s, env: env, c: newClient(n, math.MinInt64, nudge(s), s.SmoothClients),
		slotA: -1, slotB: -1, slerp: make([]geom.SlerpPair, n)}
}

// serverMsec is the game's server time of a lab snapshot of server time
// tick, s: whole server frames of 1000/sv_fps ms.
func serverMsec(s *Settings, tick float64) int64 {
	return int64(math.Round(tick*float64(max(s.FPS, 1)))) * frameMsec(s)
}

// seconds is the lab's server time, s, of the game's server time ms.
func seconds(s *Settings, ms int64) float64 {
	return float64(ms) / float64(frameMsec(s)*int64(max(s.FPS, 1)))
}

// commandLag is how far a remote player's command time lags the snapshot
// of server time t (ms): the link's latency plus the age of its last
// command packet, sent every 1000/cl_maxpackets ms.
func commandLag(s *Settings, env *technique.Env, t int64) int64 {
	every := 1000 / int64(max(s.MaxPackets, 1))
	return int64(math.Round(env.Latency*1000)) + (t%every+every)%every
}

// Receive takes the snapshot of server time tick (s), every player's state
// in snaps, arrived at local time now (s). The sent origin is the player's
// at its command time: the lab's position taken back along its velocity.
func (b *batch) Receive(tick, _ float64, snaps []technique.Snapshot) {
	c := b.c
	t := serverMsec(b.s, tick)
	lag := commandLag(b.s, b.env, t)
	slot, ok := c.receive(t, t, t-lag)
	if !ok {
		return
	}
	back := float64(lag) / 1000
	pos, vel, rot := c.pos[int(slot)*c.n:][:c.n], c.vel[int(slot)*c.n:][:c.n], c.rot[int(slot)*c.n:][:c.n]
	for e := range pos {
		sn := &snaps[e]
		for k := range 3 {
			pos[e][k] = float32(sn.Pos[k] - sn.Vel[k]*back)
			vel[e][k] = float32(sn.Vel[k])
		}
		rot[e] = sn.Rot
	}
	if slot == b.slotA || slot == b.slotB {
		b.slotA, b.slotB = -1, -1 // a reused slot: its pairs are stale
	}
}

// Frame runs the client clock and the cgame at local time now (s), the
// client's millisecond clock being its whole milliseconds.
func (b *batch) Frame(now float64) {
	c := b.c
	c.nudge, c.smooth = nudge(b.s), b.s.SmoothClients
	c.frame(int64(math.Floor(now * 1000)))
	b.common = technique.Sample{Mode: technique.Empty}
	if c.mode == drawNone {
		return
	}
	s := b.s
	b.common.Time = seconds(s, c.viewTime)
	b.common.Newest = seconds(s, c.latest)
	b.common.Delay = seconds(s, max(c.latest-c.viewTime, 0))
	b.common.Depth = len(c.queue)
	switch c.mode {
	case drawInterp:
		b.common.Mode = technique.Interpolate
		b.common.Depth++
	case drawHold:
		b.common.Mode = technique.Freeze
	case drawExtrap:
		b.common.Mode = technique.Extrapolate
		if c.viewTime >= c.snap.tr+trajectoryMsec {
			b.common.Mode = technique.Freeze
		}
	}
}

// Fill writes what players lo, lo+1, ... show into out.
func (b *batch) Fill(lo int, out []technique.Sample) {
	c := b.c
	interp := c.mode == drawInterp
	if interp && (c.snap.slot != b.slotA || c.next.slot != b.slotB) {
		a, z := c.rot[int(c.snap.slot)*c.n:][:c.n], c.rot[int(c.next.slot)*c.n:][:c.n]
		for e := range b.slerp {
			b.slerp[e].Init(a[e], z[e])
		}
		b.slotA, b.slotB = c.snap.slot, c.next.slot
	}
	if interp && !c.smooth {
		// The common case, inline: origin's interpolation of the sent
		// origins, the same float32 operations.
		f := c.frac
		pa := c.pos[int(c.snap.slot)*c.n+lo:][:len(out)]
		pb := c.pos[int(c.next.slot)*c.n+lo:][:len(out)]
		sl := b.slerp[lo:][:len(out)]
		for i := range out {
			a, z, o := &pa[i], &pb[i], &out[i]
			*o = b.common
			o.Pos = geom.Vec3{
				float64(a[0] + float32(f*float32(z[0]-a[0]))),
				float64(a[1] + float32(f*float32(z[1]-a[1]))),
				float64(a[2] + float32(f*float32(z[2]-a[2]))),
			}
			o.Rot = sl[i].At(float64(f))
		}
		return
	}
	for i := range out {
		e := lo + i
		out[i] = b.common
		o, ok := c.origin(e)
		if !ok {
			continue
		}
		out[i].Pos = geom.Vec3{float64(o[0]), float64(o[1]), float64(o[2])}
		if interp {
			out[i].Rot = b.slerp[e].At(float64(c.frac))
		} else {
			out[i].Rot = c.rot[int(c.snap.slot)*c.n+e]
		}
	}
}

// SharesDelay marks the batch's samples as sharing their Delay.
func (*batch) SharesDelay() {}

// newOne is the technique for one remote player: a batch of one.
func newOne(s *Settings, env *technique.Env) technique.Technique {
	return &technique.One{Batch: newBatch(s, env, 1)}
}
