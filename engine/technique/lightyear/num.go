package lightyear

import (
	"math"
	"math/bits"
)

// lightyear's numbers, done as the library does them (see the package
// comment): durations are whole nanoseconds (int64 here, never negative
// where lightyear's are unsigned), seconds pass through f32 or f64 as the
// library's do, and tick instants are 64-bit fixed point with 32
// fractional bits (instant unsigned, delta signed; both wrap).
//
// Go evaluates constant expressions exactly, so every f32 or f64 constant
// that lightyear computes at run time (1 − 1/12, 0.10 − 0.02) is computed
// here at run time from the rounded operands, and every product that a
// sum follows is wrapped in its own conversion so that no FMA is fused.

// nsPerSec is one second in nanoseconds.
const nsPerSec = 1_000_000_000

// secs32 is a duration's seconds as f32: the whole seconds and the
// nanoseconds converted apart, the nanoseconds divided by 1e9, then added.
func secs32(d int64) float32 {
	return float32(d/nsPerSec) + float32(float32(d%nsPerSec)/float32(nsPerSec))
}

// secs64 is a duration's seconds as f64, the same way.
func secs64(d int64) float64 {
	return float64(d/nsPerSec) + float64(d%nsPerSec)/float64(nsPerSec)
}

// fromSecs32 is the duration of x seconds, rounded to the nearest
// nanosecond, ties to even, from x's exact value; 0 for x ≤ 0 or NaN.
func fromSecs32(x float32) int64 {
	if !(x > 0) {
		return 0
	}
	b := math.Float32bits(x)
	exp := int(b >> 23 & 0xff)
	mant := uint64(b & 0x7fffff)
	if exp == 0 {
		exp = 1 // subnormal
	} else {
		mant |= 1 << 23
	}
	return scaleNs(0, mant*nsPerSec, exp-150)
}

// fromSecs64 is the duration of x seconds, rounded to the nearest
// nanosecond, ties to even, from x's exact value; 0 for x ≤ 0 or NaN.
func fromSecs64(x float64) int64 {
	if !(x > 0) {
		return 0
	}
	b := math.Float64bits(x)
	exp := int(b >> 52 & 0x7ff)
	mant := b & (1<<52 - 1)
	if exp == 0 {
		exp = 1
	} else {
		mant |= 1 << 52
	}
	hi, lo := bits.Mul64(mant, nsPerSec)
	return scaleNs(hi, lo, exp-1075)
}

// scaleNs is (hi·2^64 + lo)·2^e rounded to a whole number, ties to even,
// saturating at the largest int64.
func scaleNs(hi, lo uint64, e int) int64 {
	if e >= 0 {
		if hi != 0 || e >= 64 || lo>>(63-e) != 0 {
			return math.MaxInt64
		}
		return int64(lo << e)
	}
	k := uint(-e)
	if k >= 128 {
		return 0
	}
	// q = the whole part, and the discarded bits' half and sticky parts.
	var q uint64
	var half, sticky bool
	switch {
	case k < 64:
		q = lo>>k | hi<<(64-k)
		if hi>>k != 0 {
			return math.MaxInt64
		}
		half = lo>>(k-1)&1 == 1
		sticky = lo&(1<<(k-1)-1) != 0
	case k == 64:
		q = hi
		half = lo>>63 == 1
		sticky = lo&(1<<63-1) != 0
	default:
		q = hi >> (k - 64)
		half = hi>>(k-65)&1 == 1
		sticky = lo != 0 || hi&(1<<(k-65)-1) != 0
	}
	if half && (sticky || q&1 == 1) {
		q++
	}
	if q > math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(q)
}

// mulF32 is d·x as lightyear scales a duration by an f32: x times d's f32
// seconds, in f32, back to whole nanoseconds.
func mulF32(d int64, x float32) int64 { return fromSecs32(x * secs32(d)) }

// divF32 is d/x the same way.
func divF32(d int64, x float32) int64 { return fromSecs32(secs32(d) / x) }

// fix is x ticks as fixed point: x·2^32 rounded to the nearest whole
// number, ties to even (wrapping; the lab's ticks never come near).
func fix(x float32) int64 { return int64(math.RoundToEven(float64(x) * (1 << 32))) }

// toF32 is a fixed-point delta as f32, with one rounding.
func toF32(bits int64) float32 { return float32(bits) * 0x1p-32 }

// ticks is the tick delta of duration d with ticks of tick ns: the two f32
// second counts divided in f32, then fixed point.
func ticks(d, tick int64) int64 { return fix(secs32(d) / secs32(tick)) }

// wire is a non-negative tick delta as it crosses the wire: whole ticks
// plus the fraction floored to 1/256 tick.
func wire(bits int64) int64 { return bits &^ (1<<24 - 1) }

// toDuration is a tick delta as a duration: the tick scaled by the
// delta's f32 value.
func toDuration(bits, tick int64) int64 { return mulF32(tick, toF32(bits)) }
