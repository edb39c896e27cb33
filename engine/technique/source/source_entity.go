package source

import (
	"interplab/engine/geom"
	"interplab/engine/technique"
)

// sourceMode is what the entity did in a frame, by the cases' names.
type sourceMode uint8

const (
	sourceNone        sourceMode = iota // no entity yet
	sourceCubic                         // 3-point Hermite
	sourceLinear                        // linear between two samples
	sourceHold                          // one sample held (before the oldest, or past the newest)
	sourceExtrapolate                   // past the newest: extrapolated, then held
	sourceSkip                          // in the list, origin not flagged: networked value kept
	sourceNotInList                     // not in the interpolation list: value kept
	sourceSnap                          // 0.5 s without packets: snapped to the networked value
)

var sourceModeNames = [...]string{"none", "hermite", "linear", "hold", "extrapolate", "skip", "notInList", "snap"}

func (m sourceMode) String() string { return sourceModeNames[m] }

// sourceSample is one entry of an interpolated variable's history.
type sourceSample struct {
	t   float32 // change time: the simulation time, s
	pos [3]float32
	rot geom.Quat
}

const (
	sourceSameTime     = 0.0001 // samples closer than this are one time (double, as in the engine)
	sourceExtraHistory = 0.05   // history kept beyond the interp amount, s
	sourceSnapAfter    = 0.5    // no packet for longer than this: snap, s
	sourceMinExtrapDt  = 0.001  // two samples closer than this are not extrapolated, s
)

// sourceEntity is one remote player: its origin's interpolated variable
// and the entity's per-frame state.
type sourceEntity struct {
	exists bool
	inList bool // in the interpolation list
	flag   bool // the origin needs to interpolate

	hist    []sourceSample // newest first
	origin  [3]float32     // m_vecOrigin as drawn
	rot     geom.Quat
	netPos  [3]float32 // last networked value
	netRot  geom.Quat
	netTime float32 // its simulation time (the var's last-networked time)
	stamp   float32 // TICKS_TO_TIME of the last accepted packet
	recvT   float64 // local frame time of the last accepted packet, s

	// The slerp between the two samples last interpolated, kept while
	// the render time stays between them.
	slerp      geom.SlerpPair
	slerpT     [2]float32
	slerpValid bool

	mode   sourceMode // what the last frame did
	target float32    // the last frame's target time, s
}

// receive updates the entity from an accepted packet of server tick n,
// taken in at local frame time now.
func (e *sourceEntity) receive(n int64, pos [3]float32, rot geom.Quat, now float64, k *sourceConfig) {
	simtime := k.interval * float32(n) // curtime while receiving, and the simulation time
	e.stamp = simtime
	e.recvT = now
	e.origin, e.rot = pos, rot
	e.slerpValid = false
	if !e.exists {
		e.exists = true
		s := sourceSample{t: simtime, pos: pos, rot: rot}
		e.hist = append(e.hist[:0], s, s, s)
		e.netPos, e.netRot, e.netTime = pos, rot, simtime
		e.inList, e.flag = true, true
		return
	}
	changed := pos != e.netPos
	e.netPos, e.netRot, e.netTime = pos, rot, simtime
	// AddToHead: drop head samples not older than the new one by 0.1 ms.
	i := 0
	for i < len(e.hist) && float64(e.hist[i].t)+sourceSameTime > float64(simtime) {
		i++
	}
	if i > 0 {
		e.hist = append(e.hist[:0], e.hist[i:]...)
	}
	e.hist = append(e.hist, sourceSample{})
	copy(e.hist[1:], e.hist)
	e.hist[0] = sourceSample{t: simtime, pos: pos, rot: rot}
	e.prune(simtime, k.amount)
	if changed {
		e.flag = true
	}
	e.inList = true
}

// prune keeps the newest sample older than curtime − amount − 50 ms and
// the two before it, for the Hermite's third point.
func (e *sourceEntity) prune(curtime, amount float32) {
	limit := curtime - amount - sourceExtraHistory
	for i := range e.hist {
		if e.hist[i].t < limit {
			if i+3 < len(e.hist) {
				e.hist = e.hist[:i+3]
			}
			return
		}
	}
}

// render draws the entity at render time curtime (local frame time now).
func (e *sourceEntity) render(now float64, curtime float32, k *sourceConfig, out *technique.Sample) {
	*out = technique.Sample{Mode: technique.Empty, Time: float64(curtime), Delay: float64(k.amount)}
	if !e.exists {
		e.mode = sourceNone
		return
	}
	e.target = curtime - k.amount
	switch {
	case !e.inList:
		e.mode = sourceNotInList
	case !k.interpolate:
		e.origin, e.rot = e.netPos, e.netRot
		e.inList, e.flag, e.mode = false, false, sourceSkip
	case float32(now-e.recvT) > sourceSnapAfter:
		e.origin, e.rot = e.netPos, e.netRot
		e.inList, e.flag, e.mode = false, false, sourceSnap
	case !e.flag:
		e.inList, e.mode = false, sourceSkip
	default:
		if e.interpolate(e.target, k) {
			e.inList, e.flag = false, false
		}
		e.prune(curtime, k.amount)
	}
	out.Pos = geom.Vec3{float64(e.origin[0]), float64(e.origin[1]), float64(e.origin[2])}
	out.Rot = e.rot
	out.Time = float64(e.target)
	out.Newest = float64(e.hist[0].t)
	for i := range e.hist {
		if e.hist[i].t <= e.target {
			break
		}
		out.Depth++
	}
	switch e.mode {
	case sourceExtrapolate:
		out.Mode = technique.Extrapolate
	case sourceNotInList:
		out.Mode = technique.Freeze
	case sourceHold:
		if e.inList {
			out.Mode = technique.Interpolate // before the oldest: a received state
		} else {
			out.Mode = technique.Freeze // past the newest
		}
	default:
		out.Mode = technique.Interpolate
	}
}

// interpolate sets the origin for target time target from the history and
// reports whether there will be no more changes (past the newest sample).
func (e *sourceEntity) interpolate(target float32, k *sourceConfig) (done bool) {
	h := e.hist
	older := -1
	for i := range h {
		if h[i].t <= target {
			older = i
			break
		}
	}
	switch older {
	case -1: // before the oldest sample: hold it
		last := &h[len(h)-1]
		e.origin, e.rot, e.mode = last.pos, last.rot, sourceHold
		return false
	case 0: // past the newest
		return e.pastNewest(target, k)
	}
	newer := older - 1
	a, b := &h[older], &h[newer]
	var frac float32
	if dt := b.t - a.t; float64(dt) > sourceSameTime {
		frac = min((target-a.t)/dt, 2)
	}
	// Between the two newest samples and they are equal: the value will not
	// change until the next packet.
	still := newer == 0 && a.pos == b.pos
	if oldest := older + 1; oldest < len(h) && float64(a.t-h[oldest].t) > sourceSameTime {
		p0 := sourceFixup(&h[oldest], a, b)
		e.origin = sourceHermite(p0, a.pos, b.pos, frac)
		e.mode = sourceCubic
		still = still && h[oldest].pos == a.pos
	} else {
		e.origin = sourceLerp(frac, a.pos, b.pos)
		e.mode = sourceLinear
	}
	if !e.slerpValid || e.slerpT != [2]float32{a.t, b.t} {
		e.slerp.Init(a.rot, b.rot)
		e.slerpT, e.slerpValid = [2]float32{a.t, b.t}, true
	}
	e.rot = e.slerp.At(float64(frac))
	return still
}

// pastNewest extrapolates from the last two samples by at most
// cl_extrapolate_amount, or holds the newest; either way the entity has no
// more changes until the next packet.
func (e *sourceEntity) pastNewest(target float32, k *sourceConfig) bool {
	h := e.hist
	newest := &h[0]
	e.origin, e.rot, e.mode = newest.pos, newest.rot, sourceHold
	// At the newest sample exactly there is nothing to extrapolate: hold.
	if !k.extrapolate || len(h) < 2 || k.amount <= 0 || e.stamp > e.netTime || target <= newest.t {
		return true
	}
	prev := &h[1]
	dt := newest.t - prev.t
	if float64(geom.Abs32(dt)) < sourceMinExtrapDt {
		return true
	}
	f := 1 + min(target-newest.t, k.extrapAmount)/dt
	e.origin = sourceLerp(f, prev.pos, newest.pos)
	e.mode = sourceExtrapolate
	return true
}

// sourceFixup re-times the oldest sample p to the spacing of the newer
// pair (a, b) by moving it along the line through p and a, so that the
// Hermite's three points are evenly spaced in time.
func sourceFixup(p, a, b *sourceSample) [3]float32 {
	dt1 := b.t - a.t
	dt2 := a.t - p.t
	if float64(geom.Abs32(dt1-dt2)) > sourceSameTime && float64(dt2) > sourceSameTime {
		return sourceLerp(1-dt1/dt2, p.pos, a.pos)
	}
	return p.pos
}

// sourceLerp is a + (b − a)·f in float32.
func sourceLerp(f float32, a, b [3]float32) [3]float32 {
	var r [3]float32
	for i := range r {
		r[i] = a[i] + float32((b[i]-a[i])*f)
	}
	return r
}

// sourceHermite is the cubic Hermite curve from p1 to p2 at t in [0, 1],
// with tangents p1 − p0 and p2 − p1 (the three points evenly spaced).
func sourceHermite(p0, p1, p2 [3]float32, t float32) [3]float32 {
	t2 := t * t
	t3 := t * t2
	b1 := float32(2*t3) - float32(3*t2) + 1
	b2 := float32(-2*t3) + float32(3*t2) // not 1 − b1: the cases tell them apart by an ulp
	b3 := t3 - float32(2*t2) + t
	b4 := t3 - t2
	var r [3]float32
	for i := range r {
		d1 := p1[i] - p0[i]
		d2 := p2[i] - p1[i]
		v := float32(p1[i] * b1)
		v += float32(b2 * p2[i])
		v += float32(b3 * d1)
		v += float32(b4 * d2)
		r[i] = v
	}
	return r
}
