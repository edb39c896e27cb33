package mirror

import "math"

// Mirror's global timeline (NetworkClient_TimeInterpolation.cs and
// SnapshotInterpolation.cs of the commit cited in mirror.go), re-implemented.
// Go fuses a*b+c into one rounding on some targets; Mirror's C# does not,
// so every product added to something is converted explicitly.

// mirrorEMA is Mirror's ExponentialMovingAverage: the first value starts
// it, then Value and Variance follow with alpha = 2/(n+1).
type mirrorEMA struct {
	value, variance, std float64
	started              bool
}

func (e *mirrorEMA) add(v, alpha float64) {
	if !e.started {
		e.value, e.started = v, true
		return
	}
	delta := v - e.value
	e.value += float64(alpha * delta)
	e.variance = (1 - alpha) * (e.variance + float64(alpha*delta*delta))
	e.std = math.Sqrt(e.variance)
}

// mirrorTimeSnap is a TimeSnapshot: its server time, the batch timestamp,
// and the client's frame time when it was handled.
type mirrorTimeSnap struct{ remote, local float64 }

// mirrorTimeline is NetworkClient's time interpolation: the time snapshot
// buffer, the timeline in server time and its timescale.
type mirrorTimeline struct {
	cfg      mirrorConfig
	queue    []float64 // time snapshots received since the last frame
	buf      []mirrorTimeSnap
	timeline float64 // NetworkClient.localTimeline, server time, s
	scale    float64 // NetworkClient.localTimescale
	// multiplier is the runtime bufferTimeMultiplier once dynamic
	// adjustment set it (adjusted); until then the configured one counts.
	multiplier float64
	adjusted   bool
	drift      mirrorEMA
	delivery   mirrorEMA
	prev       float64 // the previous frame's time
	frames     int
}

func newMirrorTimeline(s *Settings) mirrorTimeline {
	return mirrorTimeline{cfg: newMirrorConfig(s), scale: 1}
}

// receive queues a time snapshot of server time remote for the next frame.
func (tl *mirrorTimeline) receive(remote float64) { tl.queue = append(tl.queue, remote) }

// bufferTime is NetworkClient.bufferTime, s.
func (tl *mirrorTimeline) bufferTime() float64 {
	m := tl.cfg.multiplier
	if tl.cfg.dynamic && tl.adjusted {
		m = tl.multiplier
	}
	return float64(tl.cfg.sendInterval) * m
}

// frame runs a client frame's time work at local time now: the queued time
// snapshots (stamped now), then the timeline's step and the pruning of its
// buffer.
func (tl *mirrorTimeline) frame(now float64, s *Settings) {
	tl.cfg = newMirrorConfig(s)
	for _, remote := range tl.queue {
		tl.insert(mirrorTimeSnap{remote, now})
	}
	tl.queue = tl.queue[:0]
	var dt float32 // Time.unscaledDeltaTime: 0 on the first frame
	if tl.frames > 0 {
		dt = float32(now - tl.prev)
	}
	tl.prev = now
	tl.frames++
	if len(tl.buf) > 0 {
		tl.timeline += float64(float64(dt) * tl.scale)
		from, _, _ := mirrorSample(tl.buf, tl.timeline, func(s *mirrorTimeSnap) float64 { return s.remote })
		tl.buf = mirrorRemoveRange(tl.buf, from)
	}
}

// insert is OnTimeSnapshot: dynamic adjustment with the delivery-time
// spread before this snapshot, then InsertAndAdjust.
func (tl *mirrorTimeline) insert(snap mirrorTimeSnap) {
	c := &tl.cfg
	if c.dynamic {
		si := float64(c.sendInterval)
		tl.multiplier = (si+tl.delivery.std)/si + c.tolerance
		tl.adjusted = true
	}
	bt := tl.bufferTime()
	if len(tl.buf) == 0 {
		tl.timeline = snap.remote - bt
	}
	var added bool
	tl.buf, added = mirrorInsert(tl.buf, c.bufferLimit, snap, snap.remote, func(s *mirrorTimeSnap) float64 { return s.remote })
	if !added {
		return // a duplicate (its localTime overwritten) or a full buffer
	}
	if n := len(tl.buf); n >= 2 {
		// The newest two, whatever was inserted: Mirror's choice.
		tl.delivery.add(tl.buf[n-1].local-tl.buf[n-2].local, c.deliveryAlpha)
	}
	// TimelineClamp with the inserted snapshot's time, which for a late
	// packet pulls the timeline back.
	target := snap.remote - bt
	tl.timeline = min(max(tl.timeline, target-bt), target+bt)
	tl.drift.add(snap.remote-tl.timeline, c.driftAlpha)
	switch drift := tl.drift.value - bt; {
	case drift > c.positive:
		tl.scale = 1 + c.catchup
	case drift < c.negative:
		tl.scale = 1 - c.slowdown
	default:
		tl.scale = 1
	}
}

// mirrorInsert is InsertIfNotExists on a buffer sorted by key: nothing when
// the buffer holds limit snapshots, an overwrite of the entry with the same
// key, else an insert in order. added tells whether the buffer grew.
//
// k is the snapshot's key, passed so that snap does not escape.
func mirrorInsert[T any](buf []T, limit int, snap T, k float64, key func(*T) float64) (_ []T, added bool) {
	if len(buf) >= limit {
		return buf, false
	}
	i := len(buf)
	for i > 0 && key(&buf[i-1]) > k { // usually the newest: scan from the end
		i--
	}
	if i > 0 && key(&buf[i-1]) == k {
		buf[i-1] = snap
		return buf, false
	}
	buf = append(buf, snap)
	copy(buf[i+1:], buf[i:])
	buf[i] = snap
	return buf, true
}

// mirrorSample is SnapshotInterpolation.Sample on a non-empty buffer: the
// first pair around time, else the first snapshot when it is still ahead,
// else the newest.
func mirrorSample[T any](buf []T, time float64, key func(*T) float64) (from, to int, t float64) {
	for i := 0; i+1 < len(buf); i++ {
		a, b := key(&buf[i]), key(&buf[i+1])
		if time >= a && time <= b {
			if a != b { // Mathd.InverseLerp, clamped
				t = min(max((time-a)/(b-a), 0), 1)
			}
			return i, i + 1, t
		}
	}
	if key(&buf[0]) > time {
		return 0, 0, 0
	}
	return len(buf) - 1, len(buf) - 1, 0
}

// mirrorRemoveRange is SortedListExtensions.RemoveRange: it removes the
// first element while i < amount and i < the shrinking count, so asked for
// more than half it removes only about half.
func mirrorRemoveRange[T any](buf []T, amount int) []T {
	n := 0
	for i := 0; i < amount && i < len(buf)-n; i++ {
		n++
	}
	if n == 0 {
		return buf
	}
	m := copy(buf, buf[n:])
	return buf[:m]
}
