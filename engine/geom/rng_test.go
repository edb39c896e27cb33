package geom

import (
	"math"
	"testing"
)

func TestRNGDeterministic(t *testing.T) {
	a, b := NewRNG(42, 7), NewRNG(42, 7)
	for i := range 1000 {
		if x, y := a.Uint64(), b.Uint64(); x != y {
			t.Fatalf("draw %d: newRNG(42, 7) gave %#x and %#x", i, x, y)
		}
	}
}

// TestRNGStreamsDiffer: neighbouring seeds and streams must not share or
// shift each other's sequences.
func TestRNGStreamsDiffer(t *testing.T) {
	first := func(r *RNG) [64]uint64 {
		var v [64]uint64
		for i := range v {
			v[i] = r.Uint64()
		}
		return v
	}
	seqs := map[[2]uint64][64]uint64{}
	for seed := uint64(0); seed < 4; seed++ {
		for stream := uint64(0); stream < 4; stream++ {
			seqs[[2]uint64{seed, stream}] = first(NewRNG(seed, stream))
		}
	}
	seen := map[uint64][2]uint64{}
	for key, seq := range seqs {
		for _, x := range seq {
			if other, dup := seen[x]; dup {
				t.Fatalf("newRNG%v and newRNG%v both produced %#x", key, other, x)
			}
			seen[x] = key
		}
	}
}

// TestRNGReference checks the two algorithms against their published
// reference outputs: xoshiro256** from the state {1, 2, 3, 4}, and splitmix64
// seeded with 0.
func TestRNGReference(t *testing.T) {
	r := &RNG{s: [4]uint64{1, 2, 3, 4}}
	want := [4]uint64{11520, 0, 1509978240, 1215971899390074240}
	for i, w := range want {
		if got := r.Uint64(); got != w {
			t.Errorf("xoshiro256** output %d = %d, want %d", i, got, w)
		}
	}
	if got, want := Mix(0x9e3779b97f4a7c15), uint64(0xe220a8397b1dcdaf); got != want {
		t.Errorf("splitmix64 first output = %#x, want %#x", got, want)
	}
}

func TestRNGUniform(t *testing.T) {
	const n = 200000
	r := NewRNG(9, 1)
	var sum, sumOpen float64
	var buckets [10]int
	for range n {
		x := r.Float64()
		if x < 0 || x >= 1 {
			t.Fatalf("Float64() = %v, want in [0, 1)", x)
		}
		y := r.Open()
		if y <= 0 || y >= 1 || 1-y <= 0 {
			t.Fatalf("Open() = %v, want in (0, 1)", y)
		}
		sum += x
		sumOpen += y
		buckets[int(x*10)]++
	}
	// The mean of n uniforms has standard deviation 1/√(12n) ≈ 0.00065.
	for _, m := range []struct {
		name string
		mean float64
	}{{"Float64", sum / n}, {"Open", sumOpen / n}} {
		if math.Abs(m.mean-0.5) > 0.003 {
			t.Errorf("mean of %d %s() = %v, want 0.5 ± 0.003", n, m.name, m.mean)
		}
	}
	// Each decile holds n/10 ± a few standard deviations (√(n·0.09) ≈ 134).
	for i, c := range buckets {
		if math.Abs(float64(c)-n/10) > 700 {
			t.Errorf("decile %d holds %d draws, want %d ± 700", i, c, n/10)
		}
	}
}

func TestRNGOpenEnds(t *testing.T) {
	// The extreme outputs of Open, reached by the extreme 52-bit words.
	lo := (float64(0) + 0.5) * 0x1p-52
	hi := (float64(1<<52-1) + 0.5) * 0x1p-52
	if lo != 0x1p-53 || hi != 1-0x1p-53 || 1-hi != 0x1p-53 {
		t.Errorf("Open range = [%v, %v], want [2^-53, 1-2^-53] exactly", lo, hi)
	}
}
