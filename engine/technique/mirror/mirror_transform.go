package mirror

import (
	"math"

	"interplab/engine/geom"
	"interplab/engine/technique"
)

// Mirror's NetworkTransformUnreliable (NetworkTransformBase.cs and
// NetworkTransformUnreliable.cs of the commit cited in mirror.go),
// re-implemented: the client's buffer and its interpolation, and the
// server's choice of what to send, modelled for the lab's stream.

// Axis bits of a sync: the axes whose value it carries (Changed.PosX...).
const (
	mirrorAxisX uint8 = 1 << iota
	mirrorAxisY
	mirrorAxisZ
	mirrorAxesAll = mirrorAxisX | mirrorAxisY | mirrorAxisZ
)

// mirrorNTSnap is a TransformSnapshot: its key on the timeline (the batch
// timestamp plus the transform's offsets), its float32 position and the
// lab's rotation.
type mirrorNTSnap struct {
	remote float64
	pos    [3]float32
	rot    geom.Quat
}

func mirrorNTKey(s *mirrorNTSnap) float64 { return s.remote }

// mirrorTransform is one NetworkTransformUnreliable on the client.
type mirrorTransform struct {
	buf     []mirrorNTSnap
	pos     [3]float32 // the transform's position: the spawn position, then the last applied
	rot     geom.Quat
	spawned bool
	drawn   bool
	newest  float64 // the newest sync's batch timestamp, server time, s
}

// spawn places the transform where the spawn message put it.
func (t *mirrorTransform) spawn(p [3]float32, r geom.Quat) {
	t.pos, t.rot, t.spawned = p, r, true
}

// receive is OnServerToClientSync for a sync in the batch stamped send
// (server time) that carries the axes of p flagged in axes: the reset after
// a gap, the axes it lacks from the newest buffered snapshot (or the
// transform), then InsertIfNotExists at send + timeStampAdjustment + offset.
func (t *mirrorTransform) receive(send float64, axes uint8, p [3]float32, r geom.Quat, c *mirrorConfig) {
	if !t.spawned {
		t.spawn(p, r)
	}
	if c.onlySyncOnChange && len(t.buf) > 0 && t.buf[len(t.buf)-1].remote+c.resetGap < send {
		t.buf = t.buf[:0] // ResetState
	}
	ref := t.pos
	if len(t.buf) > 0 {
		ref = t.buf[len(t.buf)-1].pos
	}
	for a := range 3 {
		if axes&(1<<a) == 0 {
			p[a] = ref[a]
		}
	}
	if len(t.buf) == 0 || send > t.newest {
		t.newest = send
	}
	key := send + c.tsAdjust + c.offset
	t.buf, _ = mirrorInsert(t.buf, c.bufferLimit, mirrorNTSnap{remote: key, pos: p, rot: r}, key, mirrorNTKey)
}

// sample is UpdateClientInterpolation at the timeline of tl: the pair
// around it, the buffer pruned, the float32 lerp applied to the transform.
func (t *mirrorTransform) sample(tl *mirrorTimeline, out *technique.Sample) {
	c := &tl.cfg
	time := tl.timeline
	*out = technique.Sample{Time: time - c.shift, Newest: t.newest, Delay: tl.bufferTime() + c.shift}
	if len(t.buf) == 0 {
		out.Pos, out.Rot, out.Mode = vec64(t.pos), t.rot, technique.Empty
		if t.drawn {
			out.Mode = technique.Freeze
		}
		return
	}
	from, to, f := mirrorSample(t.buf, time, mirrorNTKey)
	a, b := &t.buf[from], &t.buf[to]
	ft := float32(f)
	for i := range 3 { // Vector3.LerpUnclamped in float32
		t.pos[i] = a.pos[i] + float32((b.pos[i]-a.pos[i])*ft)
	}
	t.rot = a.rot
	if from != to {
		t.rot = a.rot.Slerp(b.rot, f)
	}
	t.drawn = true
	t.buf = mirrorRemoveRange(t.buf, from)
	out.Pos, out.Rot, out.Mode = vec64(t.pos), t.rot, technique.Freeze
	if from != to {
		out.Mode = technique.Interpolate
	}
	for i := len(t.buf) - 1; i >= 0 && t.buf[i].remote > time; i-- {
		out.Depth++
	}
}

func vec64(p [3]float32) geom.Vec3 { return geom.Vec3{float64(p[0]), float64(p[1]), float64(p[2])} }

// mirrorSender models the server's NetworkTransformUnreliable for one
// entity from the snapshots that reach the client (see mirror.go): which
// sends carry a sync and, with onlySyncOnChange, which axes.
type mirrorSender struct {
	last      [3]float32 // lastSnapshot.position: the last sent value of each axis
	unchanged bool       // hasSentUnchangedPosition
	started   bool
	newest    float64 // the newest snapshot's time
	axes      uint8   // and what the model sent for it
	sent      bool
	// idle spans the sends whose change test found no axis moved beyond
	// positionSensitivity: an unchanged sync or, with onlySyncOnChange,
	// nothing. A hold inside them is an idle hold (Sample.Idle).
	idle technique.IdleSpans
}

// sync tells whether the server's send of snapshot s carried the
// transform's sync and which axes it carried. The send's index is
// s.Time × the server's send rate (the Env's sendRate) (a tick is at most one tick before its send).
func (m *mirrorSender) sync(s technique.Snapshot, sendRate float64, c *mirrorConfig) (axes uint8, ok bool) {
	if c.syncEvery > 1 {
		k := int64(math.Ceil(float64(s.Time*sendRate) - 1e-6))
		if k%int64(c.syncEvery) != 0 {
			return 0, false
		}
	}
	switch {
	case m.started && s.Time < m.newest:
		return mirrorAxesAll, true // late: taken as a full sync
	case m.started && s.Time == m.newest:
		return m.axes, m.sent // a duplicate carries what the original did
	}
	m.started, m.newest = true, s.Time
	cur := mirrorVec32(s.Pos)
	sens := c.sensitivity
	d := [3]float32{m.last[0] - cur[0], m.last[1] - cur[1], m.last[2] - cur[2]}
	sq := float32(float32(d[0]*d[0])+float32(d[1]*d[1])) + float32(d[2]*d[2])
	if sq > float32(sens*sens) {
		for a := range 3 {
			if geom.Abs32(d[a]) > sens {
				axes |= 1 << a
			}
		}
	}
	if axes == 0 {
		m.idle.Still(s.Time)
	} else {
		m.idle.Moved(s.Time)
	}
	if axes == 0 && m.unchanged && c.onlySyncOnChange {
		m.axes, m.sent = 0, false
		return 0, false
	}
	m.unchanged = axes == 0
	for a := range 3 {
		if axes&(1<<a) != 0 {
			m.last[a] = cur[a]
		}
	}
	m.axes, m.sent = axes, true
	return axes, true
}
