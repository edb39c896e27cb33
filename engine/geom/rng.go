package geom

import "math/bits"

// RNG is a small deterministic pseudo-random generator: xoshiro256**
// (Blackman and Vigna) seeded through splitmix64. It uses integer operations
// only, so it gives the same numbers on every platform, natively and under
// WebAssembly.
//
// A component takes an *RNG per purpose (one stream for loss, one for delay,
// ...) so that changing how often one purpose draws does not shift the
// numbers another purpose sees.
type RNG struct{ s [4]uint64 }

// NewRNG returns a generator for the given seed and stream. Different
// (seed, stream) pairs give unrelated sequences; the same pair always gives
// the same one.
func NewRNG(seed, stream uint64) *RNG {
	r := new(RNG)
	x := Mix(Mix(seed) ^ (stream+1)*0x9e3779b97f4a7c15)
	for i := range r.s {
		x += 0x9e3779b97f4a7c15
		r.s[i] = Mix(x)
	}
	// xoshiro must not start from the all-zero state; splitmix64's
	// output is a bijection of distinct inputs, so at most one word can be
	// zero and the state never is.
	return r
}

// Uint64 returns the next 64 uniformly distributed bits. (The state is
// read and written whole, so that this and Float64 and Open, which the link
// draws four times a packet, are small enough to inline.)
func (r *RNG) Uint64() uint64 {
	s0, s1, s2, s3 := r.s[0], r.s[1], r.s[2], r.s[3]
	result := bits.RotateLeft64(s1*5, 7) * 9
	s2 ^= s0
	s3 ^= s1
	r.s = [4]uint64{s0 ^ s3, s1 ^ s2, s2 ^ s1<<17, bits.RotateLeft64(s3, 45)}
	return result
}

// Float64 returns a uniform number in [0, 1) with 53 random bits.
func (r *RNG) Float64() float64 {
	return float64(r.Uint64()>>11) * 0x1p-53
}

// Open returns a uniform number in the open interval (0, 1): one of the 2^52
// midpoints (k + 1/2)·2^−52, k in [0, 2^52). It is symmetric about 1/2, and
// both it and 1 − it are exact and never 0, so an inverse CDF can take it
// without special cases at the ends.
func (r *RNG) Open() float64 {
	return (float64(r.Uint64()>>12) + 0.5) * 0x1p-52
}

// Mix is the splitmix64 finaliser: a bijection of 64-bit words that
// scatters nearby inputs, used to seed generators and to hash (seed, entity)
// pairs into per-entity parameters.
func Mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// ToUnit maps 64 bits to [0, 1) with 53 bits of them.
func ToUnit(x uint64) float64 { return float64(x>>11) * 0x1p-53 }
