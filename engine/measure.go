package engine

import (
	"math"

	"interplab/engine/geom"
	"interplab/engine/technique"
)

// fillChunk is how many entities a technique writes before the metrics
// read them: few enough that they are still in cache.
const fillChunk = 256

// frameMeasure holds what measure needs of the frame being rendered.
type frameMeasure struct {
	slot   int     // the frame's slot in the added-latency history
	last   bool    // write the poses
	snapSq float64 // squared step above which a step is a snap, m²
	inv4   float64 // 1/dt⁴, to turn second differences into accelerations

	cur, prev1, prev2 int // indices in Sim.shown of this frame and the two before
}

// measure takes technique k's display of entities lo, lo+1, ... (out) into
// the metrics, the timeline and, on the last frame of a step, the poses and
// the live delay (LiveDelays).
func (m *Sim) measure(k, lo int, out []technique.Sample, fm *frameMeasure) {
	n := m.n
	off := k*n + lo
	cur, prev1 := m.shown[fm.cur][off:off+len(out)], m.shown[fm.prev1][off:off+len(out)]
	truth := m.truth[lo : lo+len(out)]
	valid := m.valid[off : off+len(out)]
	measureChunk(&m.accs[k], out, &chunkState{
		valid: valid, under: m.under[off : off+len(out)],
		cur: cur, prev1: prev1, prev2: m.shown[fm.prev2][off : off+len(out)],
		truth: truth, truthAcc: m.truthAcc[lo : lo+len(out)],
		snapSq: fm.snapSq, inv4: fm.inv4, accel: m.frames >= 2,
	})

	// What only some entities need is done apart, keeping measureChunk's
	// loop free of their branches.
	if fm.last {
		poses := m.poses[((k+1)*n+lo)*PoseStride:][:len(out)*PoseStride]
		for j := range out {
			smp := &out[j]
			hx, hy := 1.0, 0.0
			if !m.noHeadings {
				hx, hy = smp.Rot.Heading()
			}
			pp := poses[j*PoseStride : j*PoseStride+PoseStride]
			pp[0], pp[1], pp[2] = float32(smp.Pos[0]), float32(smp.Pos[1]), float32(smp.Pos[2])
			pp[3], pp[4], pp[5] = float32(hx), float32(hy), float32(smp.Mode)
		}
		if live := m.live[k]; live != liveNone {
			sum, drawn := m.liveSum[k], m.liveN[k]
			for j := range out {
				if out[j].Mode != technique.Empty {
					sum += out[j].Delay
					drawn++
					if live == liveShared {
						break // every entity has the same: one will do
					}
				}
			}
			m.liveSum[k], m.liveN[k] = sum, drawn
		}
	}
	for j := range out[:max(min(len(out), m.lagN-lo), 0)] {
		d := cur[j] // the display as measured: a diverged one held at DivergedDistance
		if out[j].Mode == technique.Empty {
			d = geom.Vec3{math.NaN()}
		}
		m.lagDisp[(k*m.lag.size()+fm.slot)*m.lagN+lo+j] = d
	}
	// The timeline's record of the focus entity: a quiet Sim keeps none.
	if j := m.focus - lo; !m.quiet && j >= 0 && j < len(out) {
		smp := &out[j]
		ft := FrameTech{RenderTime: smp.Time, Newest: smp.Newest, Depth: smp.Depth, Delay: smp.Delay, Mode: smp.Mode}
		if smp.Mode != technique.Empty {
			ft.Idle = isIdleHold(smp)
			ft.Err = math.Sqrt(distSq(cur[j], truth[j]))
			// valid is 2 now exactly when a frame was shown before this one.
			ft.Snap = valid[j] == 2 && distSq(smp.Pos, prev1[j]) > fm.snapSq
		}
		m.rec.Tech[k] = ft
	}
}

func (m *Sim) writePose(row, e int, p geom.Vec3, q geom.Quat, mode technique.Mode) {
	o := (row*m.n + e) * PoseStride
	hx, hy := q.Heading()
	m.poses[o] = float32(p[0])
	m.poses[o+1] = float32(p[1])
	m.poses[o+2] = float32(p[2])
	m.poses[o+3] = float32(hx)
	m.poses[o+4] = float32(hy)
	m.poses[o+5] = float32(mode)
}

// closeRound counts the entity-rounds that just ended.
func (m *Sim) closeRound() {
	if m.frames == 0 {
		return
	}
	for k := range m.accs {
		a := &m.accs[k]
		a.rounds += m.n
		for e := 0; e < m.n; e++ {
			if m.under[k*m.n+e] {
				a.roundsUnder++
				m.under[k*m.n+e] = false
			}
		}
	}
}

// accumulateLag compares the display of lag.ahead frames ago with the truth
// at every candidate delay, once the history spans the whole grid; fs is the
// history slot of the frame just rendered.
func (m *Sim) accumulateLag(fs int) {
	ds, ok := m.lagSample(fs)
	if !ok {
		return
	}
	size := m.lag.size()
	lagN, truth := m.lagN, m.lagTruth
	if lagN == 1 {
		m.accumulateLag1(fs, ds)
		return
	}
	for k := range m.accs {
		// The sums in locals and the slices resliced to the grid, so that
		// the stores into sse reload nothing and one bounds check covers
		// each loop: this runs lag.size() times per entity and sample.
		sse := m.accs[k].lagSSE[:size]
		disp := m.lagDisp[(k*size+ds)*lagN:][:lagN]
		for e, d := range disp {
			if math.IsNaN(d[0]) {
				continue
			}
			m.accs[k].lagFrames++
			// Candidate delay (j − ahead) frames compares with the truth
			// of frame f − j, in ring slot (f − j) mod size: the slots
			// from f's down to 0, then from size − 1 down.
			i := fs*lagN + e
			for j := range sse[:fs+1] {
				tr := &truth[i]
				sse[j] += sq3(d[0]-tr[0], d[1]-tr[1], d[2]-tr[2])
				i -= lagN
			}
			i = (size-1)*lagN + e
			for j := fs + 1; j < size; j++ {
				tr := &truth[i]
				sse[j] += sq3(d[0]-tr[0], d[1]-tr[1], d[2]-tr[2])
				i -= lagN
			}
		}
	}
}

// lagSample moves the added latency's stride on by the frame just
// rendered, whose history slot is fs, and returns the slot of the display
// to compare with the truths, lag.ahead frames before it, when this frame
// takes a sample: one in lagStride, once the history spans the grid.
func (m *Sim) lagSample(fs int) (ds int, ok bool) {
	phase := m.lagPhase // of the frame just rendered, in the stride
	if m.lagPhase++; m.lagPhase >= m.lagStride {
		m.lagPhase = 0
	}
	size := m.lag.size()
	if phase != 0 || m.frames-m.lagStart < size {
		return 0, false
	}
	if ds = fs - m.lag.ahead; ds < 0 {
		ds += size
	}
	return ds, true
}

// accumulateLag1 is accumulateLag's work for a Sim of one entity (each of
// a population's), where the history is one truth per slot: the same sums
// in the same order. The truths are kept twice, in reverse slot order, one
// slice per coordinate (see putLagTruth1), so that candidate j's truth is
// element j of three contiguous windows: one loop over sse and the windows
// together, the display in registers, and no 24-byte stride to compute.
//
// Most entities never leave the ground: while no truth of the window has
// a z other than 0 (lagZ) and the display's z is 0, every z difference is
// ±0 and its square +0, and sq3's last addition of it changes nothing, so
// the sums leave z out, the same bits for a third less work.
func (m *Sim) accumulateLag1(fs, ds int) {
	size := m.lag.size()
	// Candidate delay j compares with the truth of ring slot (fs − j) mod
	// size, which is at lagX[size − 1 − fs + j] (and lagY's, lagZs').
	o := size - 1 - fs
	wx, wy := m.lagX[o:][:size], m.lagY[o:][:size]
	flat := m.lagZ < m.frames-size // the window is the last size frames, m.frames−size to m.frames−1
	for k := range m.accs {
		a := &m.accs[k]
		d := &m.lagDisp[k*size+ds]
		dx, dy, dz := d[0], d[1], d[2]
		if math.IsNaN(dx) {
			continue
		}
		a.lagFrames++
		if flat && dz == 0 {
			addSq2(a.lagSSE[:size], wx, wy, dx, dy)
			continue
		}
		addSq3(a.lagSSE[:size], wx, wy, m.lagZs[o:][:size], dx, dy, dz)
	}
}

// addSq2Go adds (xs[j] − dx)² + (ys[j] − dy)² to sse[j] for every j of
// sse, each product rounded on its own: addSq2 in Go, for the machines
// without a kernel of their own (lagsum_amd64.s). The differences are
// taken the other way round from sq3's (x − dx, not dx − x): the two are
// exact negatives of each other, as rounding to nearest is symmetric about
// 0, so their squares are the same bits, and this way round needs no copy
// of dx per candidate. Four candidates an iteration, each sum in its own
// order: the loop's count and compare once for four.
func addSq2Go(sse, xs, ys []float64, dx, dy float64) {
	xs, ys = xs[:len(sse)], ys[:len(sse)]
	j := 0
	for ; j < len(sse)-3; j += 4 {
		ex0, ey0 := xs[j]-dx, ys[j]-dy
		ex1, ey1 := xs[j+1]-dx, ys[j+1]-dy
		ex2, ey2 := xs[j+2]-dx, ys[j+2]-dy
		ex3, ey3 := xs[j+3]-dx, ys[j+3]-dy
		sse[j] += float64(ex0*ex0) + float64(ey0*ey0)
		sse[j+1] += float64(ex1*ex1) + float64(ey1*ey1)
		sse[j+2] += float64(ex2*ex2) + float64(ey2*ey2)
		sse[j+3] += float64(ex3*ex3) + float64(ey3*ey3)
	}
	for ; j < len(sse); j++ {
		ex, ey := xs[j]-dx, ys[j]-dy
		sse[j] += float64(ex*ex) + float64(ey*ey)
	}
}

// addSq3Go adds sq3 of (xs[j] − dx, ys[j] − dy, zs[j] − dz) to sse[j]
// for every j of sse: addSq2Go with z, and addSq3 in Go.
func addSq3Go(sse, xs, ys, zs []float64, dx, dy, dz float64) {
	xs, ys, zs = xs[:len(sse)], ys[:len(sse)], zs[:len(sse)]
	j := 0
	for ; j < len(sse)-1; j += 2 {
		ex0, ey0, ez0 := xs[j]-dx, ys[j]-dy, zs[j]-dz
		ex1, ey1, ez1 := xs[j+1]-dx, ys[j+1]-dy, zs[j+1]-dz
		sse[j] += sq3(ex0, ey0, ez0)
		sse[j+1] += sq3(ex1, ey1, ez1)
	}
	for ; j < len(sse); j++ {
		sse[j] += sq3(xs[j]-dx, ys[j]-dy, zs[j]-dz)
	}
}

// putLagTruth1 keeps (x, y, z) as the truth of history slot slot in a Sim of one
// entity: at index size − 1 − slot of lagX, lagY and lagZs, and again size
// further on, so that every window accumulateLag1 reads is contiguous.
func (m *Sim) putLagTruth1(slot int, x, y, z float64) {
	// The slices in locals: reread from m after each store, as a store
	// through a slice might have changed them for all the compiler knows.
	lx, ly, lz := m.lagX, m.lagY, m.lagZs
	i, j := len(lx)/2-1-slot, len(lx)-1-slot // len(lx) is 2·size
	lx[i], ly[i], lz[i] = x, y, z
	lx[j], ly[j], lz[j] = x, y, z
	if z != 0 { // NaN included
		m.lagZ = m.frames
	}
}

// DivergedDistance is the farthest a displayed position counts from the
// truth, m: a display farther off, or not a number at all, has diverged
// (EPIC with displayBehind far below the send interval overshoots more with
// every packet until its line leaves the float range), and counts as this
// far off, in the direction it went. So every metric stays a number, and a
// diverged setting reads as the worst there is. No display that follows
// its packets comes near it: an entity at the fastest maxSpeed moves
// 180 km in an hour's run.
const DivergedDistance = 1e7

const divergedSq = DivergedDistance * DivergedDistance

// diverged returns the point DivergedDistance from truth tr in the
// direction (dx, dy, dz) of a diverged display, or along x when that
// direction is not a number.
func diverged(tr *geom.Vec3, dx, dy, dz float64) (x, y, z float64) {
	d := math.Sqrt(sq3(dx, dy, dz))
	if math.IsNaN(d) || math.IsInf(d, 0) || d == 0 {
		return tr[0] + DivergedDistance, tr[1], tr[2]
	}
	k := DivergedDistance / d
	return tr[0] + float64(dx*k), tr[1] + float64(dy*k), tr[2] + float64(dz*k)
}

// distSq returns |a−b|², written out: it is in the per-entity loop.
func distSq(a, b geom.Vec3) float64 { return sq3(a[0]-b[0], a[1]-b[1], a[2]-b[2]) }

// sq3 returns x² + y² + z² with every product rounded on its own: where the
// compiler may fuse multiply-adds (arm64, amd64 v3) the metrics must still
// come out as in WebAssembly, which never fuses.
func sq3(x, y, z float64) float64 { return float64(x*x) + float64(y*y) + float64(z*z) }

// frameLean is frame for a lean Sim of one entity (each of a
// population's), at true server time t: its truth, every technique's frame
// and their metrics, without the chunk loop, the poses, the live delay, the
// timeline and the smoothness that nothing reads there. Every figure it
// keeps comes out to the bit as frame's (measure's, written out here for
// one entity: a call per technique and frame, with every sum reloaded
// after it, was a tenth of a population's time).
func (m *Sim) frameLean(t float64) {
	now, streamNow, local := m.frameClock(t)
	pos := m.movers[0].Pos(t)
	slot := m.lagSlot
	if m.lagSlot++; m.lagSlot == m.lag.size() {
		m.lagSlot = 0
	}
	m.putLagTruth1(slot, pos[0], pos[1], pos[2]) // lagN is 1
	times := [...]float64{technique.ServerEstimate: now, technique.StreamTime: streamNow, technique.LocalTime: local}
	snapStep := snapFactor * m.set.MaxSpeed * m.dt
	snapSq := snapStep * snapStep
	for i := range m.leanTechs {
		lt := &m.leanTechs[i]
		// A LeanFramer hands its display over in registers; any other
		// batch through the Sample it fills.
		var smp technique.Lean
		if lt.f != nil {
			smp = lt.f.FrameLean(times[lt.base])
		} else {
			out := m.out[:1]
			lt.b.Frame(times[lt.base])
			lt.b.Fill(0, out)
			smp = technique.LeanOf(&out[0])
		}
		// measure for entity 0 of technique k, which keeps the previous
		// display in shown[0] alone, as no smoothness needs the one
		// before.
		lag := &lt.lag[slot]
		mode := smp.Flags.Mode()
		if mode == technique.Empty {
			*lt.valid = 0
			*lag = geom.Vec3{math.NaN()}
			continue
		}
		a := lt.a
		px, py, pz := smp.X, smp.Y, smp.Z
		dx, dy, dz := px-pos[0], py-pos[1], pz-pos[2]
		errSq := sq3(dx, dy, dz)
		if !(errSq <= divergedSq) { // beyond DivergedDistance, or not a number
			px, py, pz = diverged(&pos, dx, dy, dz)
			errSq = divergedSq
		}
		a.frames++
		a.errSq += errSq
		if errSq > a.errMaxSq {
			a.errMaxSq = errSq
		}
		a.hist[histBin(errSq)]++
		if mode == technique.Extrapolate {
			a.extrapolated++
		}
		held, past := mode == technique.Freeze || mode == technique.Hold, smp.Flags&technique.LeanPast != 0
		if smp.Flags&technique.LeanIdle != 0 && (held || past) { // isIdleHold
			a.idle++
		} else {
			if held {
				a.frozen++
			}
			if past {
				a.underrun++
				*lt.under = true
			}
		}
		prev := lt.prev
		if *lt.valid != 0 {
			sx, sy, sz := px-prev[0], py-prev[1], pz-prev[2]
			if step := sq3(sx, sy, sz); step > snapSq {
				a.snaps++
				if step > a.snapMaxSq {
					a.snapMaxSq = step
				}
			}
		}
		// Element by element from registers: a vector copied whole goes
		// through a temporary stored 8 bytes at a time and read back in
		// 16-byte loads, which the processor cannot forward.
		prev[0], prev[1], prev[2] = px, py, pz
		lag[0], lag[1], lag[2] = px, py, pz
		*lt.valid = 1
	}
	m.frames++
	// accumulateLag's test of the stride, here: most frames take no sample.
	if ds, ok := m.lagSample(slot); ok {
		m.accumulateLag1(slot, ds)
	}
}

// leanTech is what frameLean reads and writes of technique k each frame,
// in one place: its batch, as a LeanFramer when it is one, its clock, and
// where its metrics, its underrun in the round, its previous display and
// its added-latency history are (for entity 0). Pointers and a slice into
// Sim's own, so that frame and Metrics see the same state, and one load
// each instead of a slice header, an index and a bounds check.
type leanTech struct {
	f     technique.LeanFramer // b as a LeanFramer, or nil
	b     technique.Batch
	base  technique.TimeBase
	a     *acc        // &accs[k]
	under *bool       // &under[k]
	valid *uint8      // &valid[k]
	prev  *geom.Vec3  // &shown[0][k]
	lag   []geom.Vec3 // lagDisp[k*size:][:size]
}

// setLeanTechs points leanTechs at the current state, after Restart or
// resetLag has made it anew; nil unless the Sim is a lean one of one
// entity.
func (m *Sim) setLeanTechs() {
	m.leanTechs = nil
	if !m.lean || m.n != 1 {
		return
	}
	size := m.lag.size()
	m.leanTechs = make([]leanTech, len(m.batches))
	for k, b := range m.batches {
		m.leanTechs[k] = leanTech{f: m.framers[k], b: b, base: m.base[k], a: &m.accs[k], under: &m.under[k],
			valid: &m.valid[k], prev: &m.shown[0][k], lag: m.lagDisp[k*size:][:size]}
	}
}
