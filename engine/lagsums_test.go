package engine

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestAddSqSameBits checks accumulateLag1's loops (addSq2 and addSq3, the
// machine's kernels where it has them, addSq2Go and addSq3Go) against sq3
// taken candidate by candidate as accumulateLag takes it (display minus
// truth), to the bit: every length up to a few unrolled iterations and
// their remainders, the 60 fps window's 76 and the 30 fps one's 39, over
// sums already under way.
func TestAddSqSameBits(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	num := func() float64 { return (r.Float64() - 0.5) * math.Ldexp(1, r.IntN(40)-20) }
	for _, n := range []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 13, 39, 76, 125} {
		xs, ys, zs := make([]float64, n), make([]float64, n), make([]float64, n)
		sse0 := make([]float64, n)
		for j := range n {
			xs[j], ys[j], zs[j], sse0[j] = num(), num(), num(), math.Abs(num())
		}
		dx, dy, dz := num(), num(), num()
		got2, got3 := append([]float64(nil), sse0...), append([]float64(nil), sse0...)
		got2Go, got3Go := append([]float64(nil), sse0...), append([]float64(nil), sse0...)
		addSq2(got2, xs, ys, dx, dy)
		addSq2Go(got2Go, xs, ys, dx, dy)
		addSq3(got3, xs, ys, zs, dx, dy, dz)
		addSq3Go(got3Go, xs, ys, zs, dx, dy, dz)
		for j := range n {
			want2 := sse0[j] + sq3(dx-xs[j], dy-ys[j], 0)
			want3 := sse0[j] + sq3(dx-xs[j], dy-ys[j], dz-zs[j])
			if math.Float64bits(got2[j]) != math.Float64bits(want2) {
				t.Errorf("n %d: addSq2 sse[%d] = %v, want %v", n, j, got2[j], want2)
			}
			if math.Float64bits(got2Go[j]) != math.Float64bits(want2) {
				t.Errorf("n %d: addSq2Go sse[%d] = %v, want %v", n, j, got2Go[j], want2)
			}
			if math.Float64bits(got3[j]) != math.Float64bits(want3) {
				t.Errorf("n %d: addSq3 sse[%d] = %v, want %v", n, j, got3[j], want3)
			}
			if math.Float64bits(got3Go[j]) != math.Float64bits(want3) {
				t.Errorf("n %d: addSq3Go sse[%d] = %v, want %v", n, j, got3Go[j], want3)
			}
		}
	}
}
