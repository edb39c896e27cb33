// Package geckos is the geckos technique: @geckos.io/snapshot-interpolation
// 1.1.1 (npm), the browser games' snapshot interpolation library,
// re-implemented from its source and pinned by cases recorded from the
// package itself (testdata/; see geckosBatch for the model).
package geckos

import (
	"math"

	"interplab/engine/geom"
	"interplab/engine/param"
	"interplab/engine/technique"
)

// Name is geckos.io snapshot-interpolation 1.1.1, the browser
// games' snapshot interpolation library.
const Name = "geckos"

// Settings are the knobs of @geckos.io/snapshot-interpolation 1.1.1,
// under its own names and in its own units (milliseconds, snapshots): what
// a game passes to `new SnapshotInterpolation(serverFPS,
// {autoCorrectTimeOffset})`, `SI.interpolationBuffer.set(ms)` and
// `SI.vault.setMaxSize(n)`.
type Settings struct {
	// ServerFPS is the constructor's serverFPS, frames per second; 0 is
	// "not passed". It only sets the default interpolation buffer: three
	// server frames, or 100 ms without it.
	ServerFPS float64 `json:"geckos.serverFPS"`
	// InterpolationBuffer is the value given to interpolationBuffer.set,
	// ms: how far behind the estimated server time the game renders. A
	// negative value (-1) means set is never called, leaving the
	// constructor's default.
	InterpolationBuffer float64 `json:"geckos.interpolationBuffer"`
	// VaultSize is vault.setMaxSize: the snapshots the vault keeps (120).
	VaultSize int `json:"geckos.vaultSize"`
	// AutoCorrectTimeOffset is the constructor's config flag (true): re-take
	// the server time offset from a snapshot whose own sample differs from it
	// by more than 50 ms.
	AutoCorrectTimeOffset bool `json:"geckos.autoCorrectTimeOffset"`
}

// geckosDefaultBuffer is the interpolation buffer without a serverFPS, ms.
const geckosDefaultBuffer = 100

// geckosOffsetReset is the largest disagreement between the time offset and
// a snapshot's sample that autoCorrectTimeOffset lets pass, ms (strict).
const geckosOffsetReset = 50

// geckosBuffer returns the interpolation buffer a game with settings s runs
// with, ms: the constructor's (1000/serverFPS)*3, or 100 when serverFPS is 0,
// unless interpolationBuffer.set overrides it.
func geckosBuffer(s *Settings) float64 {
	if s.InterpolationBuffer >= 0 {
		return s.InterpolationBuffer
	}
	if s.ServerFPS != 0 {
		return (1000 / s.ServerFPS) * 3
	}
	return geckosDefaultBuffer
}

// Params are the geckos technique's knobs. Their defaults (param.Defaults)
// are the library's.
var Params = []param.Param[*Settings]{
	{Name: "geckos.serverFPS", Group: "geckos", Unit: "Hz", Min: 0, Max: 128, Step: 1, Default: 20, Display: "FPS", Scale: 1,
		Inert: []param.Inert{{When: "geckos.interpolationBuffer", From: 0, To: 2000, Why: "interpolationBuffer.set overrides the buffer serverFPS sizes"}},
		Doc:   "serverFPS given to new SnapshotInterpolation: the default buffer is 3 of its frames (none, 0: 100 ms).",
		Read:  func(s *Settings) float64 { return s.ServerFPS },
		Write: func(s *Settings, v float64) { s.ServerFPS = v }},
	{Name: "geckos.interpolationBuffer", Group: "geckos", Unit: "ms", Min: -1, Max: 2000, Step: 1, Default: -1, Display: "ms", Scale: 1,
		Doc:   "interpolationBuffer.set(ms): render this far behind the server clock; -1 = not set (3 server frames).",
		Read:  func(s *Settings) float64 { return s.InterpolationBuffer },
		Write: func(s *Settings, v float64) { s.InterpolationBuffer = v }},
	{Name: "geckos.vaultSize", Group: "geckos", Kind: param.Int, Unit: "snapshots", Min: 1, Max: 1000, Step: 1, Default: 120, Display: "snapshots", Scale: 1,
		Doc:   "vault.setMaxSize: snapshots kept; the oldest goes when a new one comes (library default 120).",
		Read:  func(s *Settings) float64 { return float64(s.VaultSize) },
		Write: func(s *Settings, v float64) { s.VaultSize = int(v) }},
	{Name: "geckos.autoCorrectTimeOffset", Group: "geckos", Kind: param.Bool, Max: 1, Step: 1, Default: 1,
		Doc:   "Re-take the server clock offset from a snapshot that disagrees with it by over 50 ms (library default true).",
		Read:  func(s *Settings) float64 { return param.FromBool(s.AutoCorrectTimeOffset) },
		Write: func(s *Settings, v float64) { s.AutoCorrectTimeOffset = v != 0 }},
}

// Def is the geckos technique's row of the technique list.
var Def = technique.Def[*Settings]{Name: Name, Group: "geckos", Params: Params,
	Base: technique.LocalTime, Reach: technique.Ahead,
	Tune:   []string{"geckos.interpolationBuffer", "geckos.autoCorrectTimeOffset"},
	Advice: advice,
	// serverFPS is the server's snapshots per second (its tick is its
	// own); 0 says nothing of the server.
	Rate:  "geckos.serverFPS",
	Rates: func(s *Settings) (float64, float64) { return s.ServerFPS, 0 },
	Delay: func(s *Settings, _ *technique.Env) float64 { return geckosBuffer(s) / 1000 },
	Batch: func(s *Settings, _ *technique.Env, n int) technique.Batch { return newGeckosBatch(s, n) },
	One:   func(s *Settings, _ *technique.Env) technique.Technique { return newGeckos(s) },
	Library: &technique.Library{Title: "geckos.io", Note: "@geckos.io/snapshot-interpolation, browser games",
		Group: "geckos.io snapshot-interpolation", Version: "1.1.1"},
}

// advice says when serverFPS is set and is not the server's send
// rate: the library sizes its default buffer from it.
func advice(s *Settings, env *technique.Env) string {
	if !(s.ServerFPS > 0 && s.ServerFPS != env.SendRate) {
		return ""
	}
	return technique.RateAdvice("geckos.serverFPS", s.ServerFPS, env, "the library sizes its default buffer from serverFPS")
}

// geckosBatch is geckos.io snapshot-interpolation 1.1.1 (BSD-3-Clause,
// github.com/geckosio/snapshot-interpolation, lib/snapshot-interpolation.js
// and lib/vault.js of the npm package) re-implemented from the project's
// golden/peers README and the package source, no code copied, for n
// entities that share their snapshots: one SnapshotInterpolation whose
// snapshots carry every entity's state, as a geckos game sends them.
//
// All times are milliseconds, as doubles, with the library's operations in
// its order (the cases pin them to 1e-9):
//
//   - Receive is snapshot.add at the client's local time now: the time
//     offset is taken from the first snapshot (now·1000 − time·1000) and,
//     with autoCorrectTimeOffset, re-taken wholesale from any snapshot whose
//     own sample differs from it by more than 50 ms (no filtering: drift
//     builds up and is corrected in one step; a late copy steps the render
//     time back). An offset of exactly −1 reads as "not set", as in the
//     library. The snapshot goes into the vault unconditionally (late,
//     duplicate or not); a full vault first drops its oldest snapshot
//     (smallest time, the earliest added among equals).
//   - Sample is calcInterpolation at now: render time = (now·1000 − offset)
//     − buffer; the older snapshot is the earliest added of the greatest
//     time ≤ render time, the newer the latest added of the least time
//     after it; the fraction (render − older)/(newer − older) is not
//     clamped and is the render time itself when that is ≤ 1 (the library's
//     percentage overload); each axis is older + (newer − older)·p.
//   - When calcInterpolation returns nothing (empty vault, render time
//     before the oldest snapshot kept, or at or past the newest: geckos
//     never extrapolates) the sample is Hold with the last pose drawn, what
//     the library's example games show, or Empty before anything was drawn.
//
// Modelled sender side: the lab's snapshot time (its tick, server seconds)
// is the snapshot's time ·1000, as a geckos server stamps it with its own
// clock. Simplifications: the vault is kept sorted instead of re-sorted on
// every call (the same order, ties included, since the library's sorts are
// stable); rotation, which a game would list as q(quat), uses the lab's
// slerp, not the library's three.js quatSlerp (the cases pin positions
// only); entity ids, the JSON deep copy of the state and this.serverTime
// are not modelled; velocities are ignored, as geckos has none.
type geckosBatch struct {
	s *Settings
	n int

	offset float64 // the time offset, ms; -1 = not set
	adds   int     // snapshots added so far: the next one's sequence number
	// The newest snapshot's time and its own sample of the offset (now −
	// time when it arrived), ms: the render time's lag behind it is the
	// buffer plus how far the offset in use is above that sample.
	newestT, newestLag float64

	// The vault: ring positions in (time, sequence) order, each naming a
	// storage slot of pos, rot and seq.
	times []float64 // ring of the snapshots' times, ms
	slots []int32   // ring of their storage slots
	head  int       // ring index of the oldest
	count int
	free  []int32     // storage slots not in the vault
	pos   []geom.Vec3 // per slot, n entities
	rot   []geom.Quat
	seq   []int // per slot, the add sequence number of its snapshot

	// This frame's outcome, set by frame.
	drawn  bool             // something was drawn, this frame or before
	kind   technique.Mode   // Interpolate, Hold or Empty
	common technique.Sample // the fields every entity shares
	o0, o1 int              // storage offsets of older and newer
	p      float64
	older  int // sequence numbers of older and newer
	newer  int

	// The slerp pairs are for the snapshots seqA, seqB.
	seqA, seqB int
	slerp      []geom.SlerpPair
	last       []geom.Vec3 // each entity's last drawn pose
	lastRot    []geom.Quat
}

func newGeckosBatch(s *Settings, n int) *geckosBatch {
	b := &geckosBatch{s: s, n: n, offset: -1, seqA: -1, seqB: -1,
		slerp: make([]geom.SlerpPair, n), last: make([]geom.Vec3, n), lastRot: make([]geom.Quat, n)}
	// Room for a full vault from the start, so a run does not allocate as
	// it fills.
	slots := min(max(s.VaultSize, 0), 1000) + 1
	b.seq, b.pos, b.rot = make([]int, 0, slots), make([]geom.Vec3, 0, slots*n), make([]geom.Quat, 0, slots*n)
	return b
}

// receive is snapshot.add of the snapshot of time tick (s), every entity's
// state in snaps, at local time now (s).
func (b *geckosBatch) Receive(tick, now float64, snaps []technique.Snapshot) {
	gs := b.s
	nowMs, t := float64(now*1000), float64(tick*1000)
	if b.offset == -1 {
		b.offset = nowMs - t
	}
	if gs.AutoCorrectTimeOffset {
		if sample := nowMs - t; math.Abs(b.offset-sample) > geckosOffsetReset {
			b.offset = sample
		}
	}
	if b.adds == 0 || t > b.newestT {
		b.newestT, b.newestLag = t, nowMs-t
	}
	if b.count > gs.VaultSize-1 && b.count > 0 {
		b.free = append(b.free, b.slots[b.head])
		b.head = (b.head + 1) & (len(b.times) - 1)
		b.count--
	}
	slot := b.alloc()
	b.seq[slot] = b.adds
	b.adds++
	copyState(b.pos[int(slot)*b.n:][:b.n], b.rot[int(slot)*b.n:][:b.n], snaps)
	b.insert(t, slot)
}

func copyState(pos []geom.Vec3, rot []geom.Quat, snaps []technique.Snapshot) {
	for e := range pos {
		pos[e], rot[e] = snaps[e].Pos, snaps[e].Rot
	}
}

// alloc returns a free storage slot, growing the storage if none is.
func (b *geckosBatch) alloc() int32 {
	if k := len(b.free); k > 0 {
		slot := b.free[k-1]
		b.free = b.free[:k-1]
		return slot
	}
	slot := int32(len(b.seq))
	b.seq = append(b.seq, 0)
	b.pos = append(b.pos, make([]geom.Vec3, b.n)...)
	b.rot = append(b.rot, make([]geom.Quat, b.n)...)
	return slot
}

// insert puts the snapshot of time t (ms) in slot into the vault after every
// snapshot of time ≤ t: the library appends and sorts stably.
func (b *geckosBatch) insert(t float64, slot int32) {
	if b.count == len(b.times) {
		b.grow()
	}
	mask := len(b.times) - 1
	i := b.count
	for i > 0 && b.times[(b.head+i-1)&mask] > t {
		j, k := (b.head+i)&mask, (b.head+i-1)&mask
		b.times[j], b.slots[j] = b.times[k], b.slots[k]
		i--
	}
	j := (b.head + i) & mask
	b.times[j], b.slots[j] = t, slot
	b.count++
}

// grow doubles the ring, the oldest first.
func (b *geckosBatch) grow() {
	size := max(2*len(b.times), 128)
	times, slots := make([]float64, size), make([]int32, size)
	for i := range b.count {
		k := (b.head + i) & (len(b.times) - 1)
		times[i], slots[i] = b.times[k], b.slots[k]
	}
	b.times, b.slots, b.head = times, slots, 0
}

// frame is calcInterpolation at local time now (s).
//
// Its Delay is the live game delay: the interpolation buffer, plus how far
// the time offset in use (taken from one snapshot, re-taken only when one
// disagrees by more than 50 ms) is above the newest snapshot's own sample
// of it: the render time's distance behind the newest snapshot as the
// library's clock has it. On a steady link that is the buffer; with jitter
// it moves by the luck of the snapshot the offset came from, within 50 ms
// with autoCorrectTimeOffset; without, drift builds it up.
func (b *geckosBatch) Frame(now float64) {
	buf := geckosBuffer(b.s)
	st := (float64(now*1000) - b.offset) - buf
	mask := len(b.times) - 1
	delay := buf
	if b.adds > 0 {
		delay += b.offset - b.newestLag
	}
	b.common = technique.Sample{Time: st / 1000, Delay: delay / 1000}
	b.kind = technique.Hold
	if !b.drawn {
		b.kind = technique.Empty
	}
	if b.count == 0 {
		b.common.Mode = b.kind
		return
	}
	at := func(i int) float64 { return b.times[(b.head+i)&mask] }
	b.common.Newest = at(b.count-1) / 1000
	// u: the first position after render time.
	u := b.count
	for u > 0 && at(u-1) > st {
		u--
	}
	b.common.Depth = b.count - u
	if u == b.count || u == 0 {
		b.common.Mode = b.kind
		return
	}
	nw, old := u, u-1
	for nw+1 < b.count && at(nw+1) == at(u) {
		nw++
	}
	for old > 0 && at(old-1) == at(u-1) {
		old--
	}
	t0, t1 := at(nw), at(old)
	p := st
	if !(st <= 1) {
		p = (st - t1) / (t0 - t1)
	}
	s0, s1 := int(b.slots[(b.head+old)&mask]), int(b.slots[(b.head+nw)&mask])
	b.drawn, b.kind, b.common.Mode = true, technique.Interpolate, technique.Interpolate
	b.o0, b.o1, b.p = s0*b.n, s1*b.n, p
	b.older, b.newer = b.seq[s0], b.seq[s1]
}

// fill writes entities lo, lo+1, ... of the frame set up by frame into out.
func (b *geckosBatch) Fill(lo int, out []technique.Sample) {
	if b.kind != technique.Interpolate {
		for e := range out {
			out[e] = b.common
			out[e].Pos, out[e].Rot = b.last[lo+e], b.lastRot[lo+e]
		}
		return
	}
	if b.older != b.seqA || b.newer != b.seqB {
		// Pairs for entities other than lo... are stale too: init all.
		for e := range b.n {
			b.slerp[e].Init(b.rot[b.o0+e], b.rot[b.o1+e])
		}
		b.seqA, b.seqB = b.older, b.newer
	}
	p := b.p
	pos0, pos1 := b.pos[b.o0+lo:][:len(out)], b.pos[b.o1+lo:][:len(out)]
	last, lastRot, slerp := b.last[lo:][:len(out)], b.lastRot[lo:][:len(out)], b.slerp[lo:][:len(out)]
	for e := range out {
		p0, p1 := &pos0[e], &pos1[e]
		v := geom.Vec3{p0[0] + float64((p1[0]-p0[0])*p), p0[1] + float64((p1[1]-p0[1])*p), p0[2] + float64((p1[2]-p0[2])*p)}
		qx, qy, qz, qw := slerp[e].At4(p)
		q := geom.Quat{qx, qy, qz, qw}
		last[e], lastRot[e] = v, q
		out[e] = b.common
		out[e].Pos, out[e].Rot = v, q
	}
}

// geckosTech is geckos as a per-entity Technique: a geckosBatch of one.
type geckosTech struct {
	*geckosBatch
	one [1]technique.Snapshot
	out [1]technique.Sample
}

// newGeckos returns the geckos technique for one entity (see geckosBatch).
func newGeckos(s *Settings) technique.Technique {
	return &geckosTech{geckosBatch: newGeckosBatch(s, 1)}
}

// Receive is snapshot.add of sn at local time now (s).
func (t *geckosTech) Receive(sn technique.Snapshot, now float64) {
	t.one[0] = sn
	t.geckosBatch.Receive(sn.Time, now, t.one[:])
}

// Sample is calcInterpolation at local time now (s).
func (t *geckosTech) Sample(now float64) technique.Sample {
	t.Frame(now)
	t.Fill(0, t.out[:])
	return t.out[0]
}

func (*geckosBatch) SharesDelay() {}
