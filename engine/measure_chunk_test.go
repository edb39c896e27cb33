package engine

import (
	"math"
	"math/rand/v2"
	"testing"

	"interplab/engine/geom"
	"interplab/engine/technique"
)

// measureRef is measureChunk's loop as it was first written, one if per
// count and the bin by histBin: the reference measureChunk must match to
// the bit.
func measureRef(a *acc, out []technique.Sample, c *chunkState) {
	valid, under := c.valid[:len(out)], c.under[:len(out)]
	cur, prev1, prev2 := c.cur[:len(out)], c.prev1[:len(out)], c.prev2[:len(out)]
	truth, truthAcc := c.truth[:len(out)], c.truthAcc[:len(out)]
	for j := range out {
		smp := &out[j]
		if smp.Mode == technique.Empty {
			valid[j] = 0
			continue
		}
		px, py, pz := smp.Pos[0], smp.Pos[1], smp.Pos[2]
		tr := &truth[j]
		dx, dy, dz := px-tr[0], py-tr[1], pz-tr[2]
		errSq := sq3(dx, dy, dz)
		if !(errSq <= divergedSq) {
			px, py, pz = diverged(tr, dx, dy, dz)
			errSq = divergedSq
		}
		a.frames++
		a.errSq += errSq
		if errSq > a.errMaxSq {
			a.errMaxSq = errSq
		}
		a.hist[histBin(errSq)]++
		if smp.Mode == technique.Extrapolate {
			a.extrapolated++
		}
		if isIdleHold(smp) {
			a.idle++
		} else {
			if smp.Mode == technique.Freeze || smp.Mode == technique.Hold {
				a.frozen++
			}
			if smp.Time > smp.Newest {
				a.underrun++
				under[j] = true
			}
		}
		v := valid[j]
		if v >= 1 {
			p1 := &prev1[j]
			if step := sq3(px-p1[0], py-p1[1], pz-p1[2]); step > c.snapSq {
				a.snaps++
				if step > a.snapMaxSq {
					a.snapMaxSq = step
				}
			}
			if v >= 2 && c.accel {
				p2, ta := &prev2[j], &truthAcc[j]
				ax := px - float64(2*p1[0]) + p2[0] - ta[0]
				ay := py - float64(2*p1[1]) + p2[1] - ta[1]
				az := pz - float64(2*p1[2]) + p2[2] - ta[2]
				a.accelSq += float64(sq3(ax, ay, az) * c.inv4)
				a.accelFrames++
			}
		}
		cur[j] = geom.Vec3{px, py, pz}
		if v < 2 {
			valid[j] = v + 1
		}
	}
}

// TestHistBinBitsWrittenOut checks histBinBits against histBin on every
// bin's edges and around them, zero, the smallest and largest floats, and
// random squares across the range.
func TestHistBinBitsWrittenOut(t *testing.T) {
	xs := []float64{0, math.SmallestNonzeroFloat64, 0x1p-1022, divergedSq, math.MaxFloat64, math.Inf(1)}
	for e := histMinExp - 3; e <= histMaxExp+3; e++ {
		for s := range histSub + 1 {
			x := math.Ldexp(1+float64(s)/histSub, e)
			xs = append(xs, x, math.Nextafter(x, 0), math.Nextafter(x, math.Inf(1)))
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 100000 {
		xs = append(xs, math.Ldexp(r.Float64(), r.IntN(100)-60))
	}
	for _, x := range xs {
		if got, want := histBinBits(math.Float64bits(x)), histBin(x); got != want {
			t.Fatalf("histBinBits(bits of %v) = %d, want %d", x, got, want)
		}
	}
}

// TestMeasureChunkWrittenOut checks measureChunk against measureRef on
// chunks of every kind of sample: each mode, idle or not, past its newest
// or not, errors from nothing to diverged and not a number, steps below and
// above the snap, and entities shown for 0, 1 or 2 frames before, over
// several frames that carry the state on, with and without the
// acceleration known.
func TestMeasureChunkWrittenOut(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	const n = 300
	coord := func() float64 {
		switch r.IntN(12) {
		case 0:
			return 0
		case 1:
			return 3e7 * (r.Float64() - 0.5) // beyond DivergedDistance
		case 2:
			return r.Float64() * 1e-7 // errors in bin 0
		}
		return 50 * (r.Float64() - 0.5)
	}
	vec := func() geom.Vec3 { return geom.Vec3{coord(), coord(), coord()} }
	newState := func() *chunkState {
		c := &chunkState{valid: make([]uint8, n), under: make([]bool, n), cur: make([]geom.Vec3, n),
			prev1: make([]geom.Vec3, n), prev2: make([]geom.Vec3, n), truth: make([]geom.Vec3, n), truthAcc: make([]geom.Vec3, n)}
		for j := range n {
			c.valid[j] = uint8(r.IntN(3))
			c.under[j] = r.IntN(4) == 0
			c.prev1[j], c.prev2[j] = vec(), vec()
		}
		return c
	}
	clone := func(c *chunkState) *chunkState {
		d := *c
		d.valid, d.under = append([]uint8(nil), c.valid...), append([]bool(nil), c.under...)
		d.cur, d.prev1, d.prev2 = append([]geom.Vec3(nil), c.cur...), append([]geom.Vec3(nil), c.prev1...), append([]geom.Vec3(nil), c.prev2...)
		return &d
	}
	for round := range 20 {
		c := newState()
		got, want := &acc{errMaxSq: r.Float64(), snapMaxSq: r.Float64() * 1e-3, errSq: r.Float64()}, &acc{}
		*want = *got
		c.snapSq, c.inv4, c.accel = []float64{0, 1e-4, 400, 1e300}[round%4], 1e6*r.Float64(), round%5 != 0
		for frame := range 6 {
			out := make([]technique.Sample, n)
			for j := range out {
				smp := &out[j]
				smp.Mode = technique.Mode(r.IntN(5))
				smp.Idle = r.IntN(3) == 0
				smp.Time, smp.Newest = r.Float64(), r.Float64()
				smp.Pos = vec()
				if r.IntN(3) == 0 { // near the last frame: steps below the snap
					smp.Pos = c.prev1[j]
					smp.Pos[0] += 1e-3 * r.Float64()
				}
				if r.IntN(40) == 0 {
					smp.Pos[r.IntN(3)] = math.NaN()
				}
				c.truth[j], c.truthAcc[j] = vec(), vec()
			}
			cr := clone(c)
			measureChunk(got, out, c)
			measureRef(want, out, cr)
			if got.hist != want.hist {
				t.Fatalf("round %d frame %d: histogram differs", round, frame)
			}
			g, w := *got, *want
			g.hist, w.hist = [histBins]uint32{}, [histBins]uint32{}
			if g.frames != w.frames || math.Float64bits(g.errSq) != math.Float64bits(w.errSq) ||
				math.Float64bits(g.errMaxSq) != math.Float64bits(w.errMaxSq) || g.snaps != w.snaps ||
				math.Float64bits(g.snapMaxSq) != math.Float64bits(w.snapMaxSq) || g.underrun != w.underrun ||
				g.extrapolated != w.extrapolated || g.frozen != w.frozen || g.idle != w.idle ||
				g.accelFrames != w.accelFrames || math.Float64bits(g.accelSq) != math.Float64bits(w.accelSq) {
				t.Fatalf("round %d frame %d: measureChunk gives %+v,\nwant %+v", round, frame, g, w)
			}
			for j := range n {
				if c.valid[j] != cr.valid[j] || c.under[j] != cr.under[j] ||
					math.Float64bits(c.cur[j][0]) != math.Float64bits(cr.cur[j][0]) ||
					math.Float64bits(c.cur[j][1]) != math.Float64bits(cr.cur[j][1]) ||
					math.Float64bits(c.cur[j][2]) != math.Float64bits(cr.cur[j][2]) {
					t.Fatalf("round %d frame %d entity %d: valid %d under %v cur %v, want %d %v %v",
						round, frame, j, c.valid[j], c.under[j], c.cur[j], cr.valid[j], cr.under[j], cr.cur[j])
				}
			}
			// The next frame: this one's display becomes the last.
			c.prev2, c.prev1, c.cur = c.prev1, c.cur, c.prev2
		}
	}
}
