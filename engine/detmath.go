package engine

import "math"

// Deterministic elementary functions.
//
// On amd64 math.Log and math.Exp run assembly that may round differently in
// the last bit from the pure-Go code the same calls run under WebAssembly, and
// the engine promises bit-identical results on both. detLog and detExp are the
// fdlibm algorithms (the ones Go's portable code also follows) written here in
// plain Go, with every product that is added to something wrapped in an
// explicit float64 conversion: the Go spec lets a compiler fuse x*y + z into
// one rounding (arm64 does, and amd64 with GOAMD64=v3), and a conversion
// forbids that. Both are accurate to within 1 ulp.

const (
	detLn2Hi = 6.93147180369123816490e-01 // upper bits of ln 2: k·detLn2Hi is exact for |k| < 2^11
	detLn2Lo = 1.90821492927058770002e-10 // ln 2 − detLn2Hi
)

// detLog returns the natural logarithm of x: NaN for x < 0 or NaN, −Inf for
// ±0, +Inf for +Inf. Subnormal x is handled exactly.
func detLog(x float64) float64 {
	const (
		l1 = 6.666666666666735130e-01 // 3FE55555 55555593
		l2 = 3.999999999940941908e-01 // 3FD99999 9997FA04
		l3 = 2.857142874366239149e-01 // 3FD24924 94229359
		l4 = 2.222219843214978396e-01 // 3FCC71C5 1D8E78AF
		l5 = 1.818357216161805012e-01 // 3FC74664 96CB03DE
		l6 = 1.531383769920937332e-01 // 3FC39A09 D078C69F
		l7 = 1.479819860511658591e-01 // 3FC2F112 DF3E5244
	)
	switch {
	case x != x || x < 0:
		return math.NaN()
	case x == 0:
		return math.Inf(-1)
	case x > math.MaxFloat64:
		return x
	}
	// x = f1·2^ki with f1 in [√2/2, √2), so that f = f1 − 1 is small.
	f1, ki := detFrexp(x)
	if f1 < math.Sqrt2/2 {
		f1 *= 2
		ki--
	}
	f := f1 - 1
	k := float64(ki)

	// log(1+f) = 2s + s·R(s²) with s = f/(2+f), R a minimax polynomial.
	s := f / (2 + f)
	s2 := s * s
	s4 := s2 * s2
	t1 := s2 * (l1 + float64(s4*(l3+float64(s4*(l5+float64(s4*l7))))))
	t2 := s4 * (l2 + float64(s4*(l4+float64(s4*l6))))
	r := float64(t1) + float64(t2)
	hfsq := float64(0.5*f) * f
	return float64(k*detLn2Hi) - ((float64(hfsq) - (float64(s*(float64(hfsq)+r)) + float64(k*detLn2Lo))) - f)
}

// detExp returns e^x: +Inf for x > ~709.78 or +Inf, 0 for x < ~−745.13 or
// −Inf, NaN for NaN. Results in the subnormal range are rounded once.
func detExp(x float64) float64 {
	const (
		log2e     = 1.44269504088896338700e+00
		overflow  = 7.09782712893383973096e+02
		underflow = -7.45133219101941108420e+02
		nearZero  = 0x1p-28

		p1 = 1.66666666666666657415e-01  // 0x3FC55555; 0x55555555
		p2 = -2.77777777770155933842e-03 // 0xBF66C16C; 0x16BEBD93
		p3 = 6.61375632143793436117e-05  // 0x3F11566A; 0xAF25DE2C
		p4 = -1.65339022054652515390e-06 // 0xBEBBBD41; 0xC5D26BF1
		p5 = 4.13813679705723846039e-08  // 0x3E663769; 0x72BEA4D0
	)
	switch {
	case x != x || x > overflow:
		return x + math.Inf(1) // NaN stays NaN, large x gives +Inf
	case x < underflow:
		return 0
	case -nearZero < x && x < nearZero:
		return 1 + x
	}
	// x = k·ln2 + r with |r| ≤ ln2/2, r carried as hi − lo.
	var k int
	if x < 0 {
		k = int(float64(log2e*x) - 0.5)
	} else {
		k = int(float64(log2e*x) + 0.5)
	}
	hi := x - float64(float64(k)*detLn2Hi)
	lo := float64(float64(k) * detLn2Lo)

	// e^r = 1 + r + r·c/(2−c) with c = r − r²·P(r²), P a minimax polynomial.
	r := hi - lo
	t := r * r
	c := r - float64(t*(p1+float64(t*(p2+float64(t*(p3+float64(t*(p4+float64(t*p5)))))))))
	y := 1 - ((lo - float64(r*c)/(2-c)) - hi)
	return detScale(y, k)
}

// detFrexp splits finite, positive x into f·2^e with f in [1/2, 1),
// normalising subnormals.
func detFrexp(x float64) (f float64, e int) {
	if x < 0x1p-1022 { // subnormal: scale into the normal range first
		x *= 0x1p52
		e = -52
	}
	b := math.Float64bits(x)
	e += int(b>>52&0x7ff) - 1022
	b = b&^(0x7ff<<52) | 1022<<52
	return math.Float64frombits(b), e
}

// detScale returns y·2^k for y in [1/2, 2], rounding once even when the
// result is subnormal.
func detScale(y float64, k int) float64 {
	switch {
	case k > 1023:
		// y·2^1023 is exact and finite; the second product is exact or
		// overflows to +Inf.
		return y * 0x1p1023 * detPow2(k-1023)
	case k < -1074:
		// Only k = −1075 gets here (x near the underflow limit): halve y
		// first, which is exact, then scale by the smallest subnormal.
		return y * 0.5 * detPow2(-1074)
	}
	return y * detPow2(k)
}

// detPow2 returns 2^k exactly for k in [−1074, 1023].
func detPow2(k int) float64 {
	if k < -1022 {
		return math.Float64frombits(1 << uint(k+1074)) // subnormal
	}
	return math.Float64frombits(uint64(k+1023) << 52)
}
