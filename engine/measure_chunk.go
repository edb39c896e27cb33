package engine

import (
	"math"

	"interplab/engine/geom"
	"interplab/engine/technique"
)

// chunkState is what measureChunk reads and writes of one technique's
// display of entities lo, lo+1, ...: each slice starts at entity lo and is
// at least as long as the chunk.
type chunkState struct {
	valid             []uint8     // how many of prev1, prev2 hold a displayed frame
	under             []bool      // underran in the current round
	cur, prev1, prev2 []geom.Vec3 // displayed positions, this frame and the two before
	truth, truthAcc   []geom.Vec3 // truth this frame, and its second difference
	snapSq            float64     // squared step above which a step is a snap, m²
	inv4              float64     // 1/dt⁴
	accel             bool        // the truth's second difference is known (two frames rendered)
}

// The bits of 2^histMinExp and 2^histMaxExp, and what histBinBits takes
// from the top 16 bits of a squared error to find its bin.
const (
	histLoBits = uint64(1023+histMinExp) << 52
	histHiBits = uint64(1023+histMaxExp) << 52
	histBinOff = (1023+histMinExp)*histSub - 1
)

// histBinBits is histBin of the squared error whose bits are b, for one
// that is a number and not negative (every one measureChunk bins): such
// floats order as their bits do, and the top 16 bits, the exponent and
// four of the mantissa, are the bin but for an offset, clamped to the
// first and the last bin. The clamps are arithmetic, not ifs: Go's
// WebAssembly makes an if a jump (see measureChunk), and its compiler
// turns no if into a select whose value goes into an address.
func histBinBits(b uint64) int {
	i := int(b>>(52-4)) - histBinOff // at most 1 below histLoBits
	i &^= i >> 63                    // max(i, 0)
	d := i - (histBins - 1)
	return i - d&^(d>>63) // min(i, histBins−1)
}

// b2i is 1 for true and 0 for false, which Go compiles without a branch.
func b2i(b bool) int {
	i := 0
	if b {
		i = 1
	}
	return i
}

// measureChunk takes a technique's display of one chunk of entities (out)
// into its metrics a and the chunk's state c: the per-entity loop of
// measure, which runs for every entity and technique each frame.
//
// It is written for Go's WebAssembly, where each jump inside a function
// goes back to the function's head and through its table of blocks (the
// way a Go function can be resumed): a branch costs more there than the
// arithmetic it skips. So the counts are kept as selects of a 0 or 1
// rather than under ifs, the two maxima as the bits of their squares
// (non-negative floats order as their bits do), and the bin by
// histBinBits; what is left under an if is what usually runs (a shown
// entity's step and acceleration) or what rarely does (an empty sample, a
// diverged display). Every sum is taken in measureRef's order (in the
// tests: the loop as it was first written), so the figures are the same
// bits.
func measureChunk(a *acc, out []technique.Sample, c *chunkState) {
	// Every slice resliced to the chunk, so that one bounds check covers
	// it, and what the loop reads of c in locals: Go reloads a field
	// through a pointer at every use, and its WebAssembly keeps a local in
	// a wasm local, a field in memory.
	n := len(out)
	valid, under := c.valid[:n], c.under[:n]
	cur, prev1, prev2 := c.cur[:n], c.prev1[:n], c.prev2[:n]
	truth, truthAcc := c.truth[:n], c.truthAcc[:n]
	snapSq, inv4, accel := c.snapSq, c.inv4, c.accel
	hist := &a.hist
	// The chunk's counts start at 0 and are added to a's at the end; the
	// float sums carry on from a's, in the same order as ever.
	var frames, snaps, underrun, extrapolated, frozen, idle, accelFrames int
	errSqSum, accelSq := a.errSq, a.accelSq
	errMax, snapMax := math.Float64bits(a.errMaxSq), math.Float64bits(a.snapMaxSq)
	for j := range out {
		smp := &out[j]
		mode := smp.Mode
		if mode == technique.Empty {
			valid[j] = 0
			continue
		}
		px, py, pz := smp.Pos[0], smp.Pos[1], smp.Pos[2]
		tr := &truth[j]
		dx, dy, dz := px-tr[0], py-tr[1], pz-tr[2]
		errSq := sq3(dx, dy, dz)
		if !(errSq <= divergedSq) { // beyond DivergedDistance, or not a number
			px, py, pz = diverged(tr, dx, dy, dz)
			errSq = divergedSq
		}
		frames++
		errSqSum += errSq
		eb := math.Float64bits(errSq)
		if eb > errMax {
			errMax = eb
		}
		hist[histBinBits(eb)]++
		extrapolated += b2i(mode == technique.Extrapolate)
		// isIdleHold, and the freeze and underrun an idle hold is not, in
		// 0s and 1s: an idle hold holds (Freeze or Hold, the two modes
		// after Extrapolate) or runs past Newest while Idle.
		held := b2i(mode-technique.Freeze <= technique.Hold-technique.Freeze)
		past := b2i(smp.Time > smp.Newest)
		idleHold := b2i(smp.Idle) & (held | past)
		idle += idleHold
		frozen += held &^ idleHold
		past &^= idleHold
		underrun += past
		under[j] = b2i(under[j])|past != 0
		v := valid[j]
		if v >= 1 {
			p1 := &prev1[j]
			sx, sy, sz := px-p1[0], py-p1[1], pz-p1[2]
			step := sq3(sx, sy, sz)
			snap := b2i(step > snapSq)
			snaps += snap
			// The step's bits when it is a snap, 0 (+0's) when not.
			if sb := math.Float64bits(step) & -uint64(snap); sb > snapMax {
				snapMax = sb
			}
			if v >= 2 && accel {
				p2, ta := &prev2[j], &truthAcc[j]
				ax := px - float64(2*p1[0]) + p2[0] - ta[0]
				ay := py - float64(2*p1[1]) + p2[1] - ta[1]
				az := pz - float64(2*p1[2]) + p2[2] - ta[2]
				accelSq += float64(sq3(ax, ay, az) * inv4)
				accelFrames++
			}
		}
		cur[j] = geom.Vec3{px, py, pz}
		nv := v + 1
		if v >= 2 {
			nv = 2
		}
		valid[j] = nv
	}
	a.frames += frames
	a.errSq, a.errMaxSq = errSqSum, math.Float64frombits(errMax)
	a.snaps += snaps
	a.snapMaxSq = math.Float64frombits(snapMax)
	a.underrun += underrun
	a.extrapolated += extrapolated
	a.frozen += frozen
	a.idle += idle
	a.accelSq = accelSq
	a.accelFrames += accelFrames
}
