package geom

import "math"

// Deterministic elementary functions.
//
// The engine promises bit-identical results natively and under WebAssembly.
// On amd64 math.Log and math.Exp run assembly that rounds differently in the
// last bit from the portable Go code the same calls run under WebAssembly
// (math.Log even misreads subnormals). And the portable code itself, math.Sincos
// included, changes in the last bit on builds whose compiler fuses x*y + z
// into one rounding, which the Go spec allows: arm64 always, amd64 with
// GOAMD64=v3. An explicit float64 conversion of a product forbids the fusion.
//
// So Log, Exp and Sincos are the algorithms Go's portable code uses
// (fdlibm's log and exp, Cephes' sin and cos) written here with every
// product that is added to something wrapped in a conversion. Log and
// Exp are within 1 ulp of the exact values; all three give the same bits
// as math does under WebAssembly, where nothing is fused.

const (
	detLn2Hi = 6.93147180369123816490e-01 // upper bits of ln 2: k·detLn2Hi is exact for |k| < 2^11
	detLn2Lo = 1.90821492927058770002e-10 // ln 2 − detLn2Hi
)

// Log returns the natural logarithm of x: NaN for x < 0 or NaN, −Inf for
// ±0, +Inf for +Inf. Subnormal x is handled exactly.
func Log(x float64) float64 {
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

// Exp returns e^x: +Inf for x > ~709.78 or +Inf, 0 for x < ~−745.13 or
// −Inf, NaN for NaN. Results in the subnormal range are rounded once.
func Exp(x float64) float64 {
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
	// x = k·ln2 + r with |r| ≤ ln2/2, r carried as hi − lo. k rounds
	// log2e·x half away from zero: ±0.5 by the sign of x, without a
	// branch, which a run's draws (a lognormal delay's exponent is
	// negative two times in three) would mispredict every other time.
	// (Adding −0.5 is subtracting 0.5, to the bit; x = −0 returned above.)
	k := int(float64(log2e*x) + math.Copysign(0.5, x))
	hi := x - float64(float64(k)*detLn2Hi)
	lo := float64(float64(k) * detLn2Lo)

	// e^r = 1 + r + r·c/(2−c) with c = r − r²·P(r²), P a minimax polynomial.
	r := hi - lo
	t := r * r
	c := r - float64(t*(p1+float64(t*(p2+float64(t*(p3+float64(t*(p4+float64(t*p5)))))))))
	y := 1 - ((lo - float64(r*c)/(2-c)) - hi)
	if -1022 <= k && k <= 1023 {
		return y * detPow2(k) // detScale's normal case, without the call
	}
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

// NormQuantile returns the standard normal quantile Φ⁻¹(p) for p in
// (0, 1), by Wichura's algorithm AS 241 (PPND16), accurate to about 1e−16
// relative. It needs only Log and Sqrt, so it is deterministic too. It
// returns ∓Inf at p = 0 and 1 and NaN outside [0, 1].
//
// The link draws normal and lognormal delays through it from a single
// uniform, so that the same draw gives a larger delay under every
// distribution when it is larger under one.
func NormQuantile(p float64) float64 {
	q := p - 0.5
	if q >= -0.425 && q <= 0.425 { // 0.075 ≤ p ≤ 0.925
		r := 0.180625 - float64(q*q)
		num, den := detHorner2(r, &wichuraA, &wichuraB)
		return q * num / den
	}
	if !(p >= 0 && p <= 1) {
		return math.NaN()
	}
	r := p // the smaller tail, computed without cancellation
	if q > 0 {
		r = 1 - p // exact for p ≥ 1/2
	}
	if r == 0 {
		return math.Copysign(math.Inf(1), q)
	}
	r = math.Sqrt(-Log(r))
	var x float64
	if r <= 5 { // tail ≥ e^−25 ≈ 1.4e−11
		r -= 1.6
		num, den := detHorner2(r, &wichuraC, &wichuraD)
		x = num / den
	} else {
		r -= 5
		num, den := detHorner2(r, &wichuraE, &wichuraF)
		x = num / den
	}
	if q < 0 {
		x = -x
	}
	return x
}

// detHorner2 evaluates a[0] + a[1]·r + … + a[7]·r^7 and the same of b by
// Horner's rule without fused multiply-adds, the two step by step side by
// side: for a quotient of polynomials, one call, and two independent
// chains of products that the processor runs at once.
func detHorner2(r float64, a, b *[8]float64) (pa, pb float64) {
	y, z := float64(a[7]*r)+a[6], float64(b[7]*r)+b[6]
	y, z = float64(y*r)+a[5], float64(z*r)+b[5]
	y, z = float64(y*r)+a[4], float64(z*r)+b[4]
	y, z = float64(y*r)+a[3], float64(z*r)+b[3]
	y, z = float64(y*r)+a[2], float64(z*r)+b[2]
	y, z = float64(y*r)+a[1], float64(z*r)+b[1]
	return float64(y*r) + a[0], float64(z*r) + b[0]
}

// Coefficients of AS 241 (Wichura 1988, Applied Statistics 37(3), 477–484),
// lowest power first; each denominator's constant term is 1.
var (
	wichuraA = [8]float64{3.3871328727963666080, 133.14166789178437745, 1971.5909503065514427,
		13731.693765509461125, 45921.953931549871457, 67265.770927008700853,
		33430.575583588128105, 2509.0809287301226727}
	wichuraB = [8]float64{1, 42.313330701600911252, 687.18700749205790830, 5394.1960214247511077,
		21213.794301586595867, 39307.895800092710610, 28729.085735721942674,
		5226.4952788528545610}
	wichuraC = [8]float64{1.42343711074968357734, 4.63033784615654529590, 5.76949722146069140550,
		3.64784832476320460504, 1.27045825245236838258, 0.241780725177450611770,
		0.0227238449892691845833, 0.000774545014278341407640}
	wichuraD = [8]float64{1, 2.05319162663775882187, 1.67638483018380384940, 0.689767334985100004550,
		0.148103976427480074590, 0.0151986665636164571966,
		0.000547593808499534494600, 1.05075007164441684324e-9}
	wichuraE = [8]float64{6.65790464350110377720, 5.46378491116411436990, 1.78482653991729133580,
		0.296560571828504891230, 0.0265321895265761230930,
		0.00124266094738807843860, 0.0000271155556874348757815,
		2.01033439929228813265e-7}
	wichuraF = [8]float64{1, 0.599832206555887937690, 0.136929880922735805310, 0.0148753612908506148525,
		0.000786869131145613259100, 1.84631831751005468180e-5,
		1.42151175831644588870e-7, 2.04426310338993978564e-15}
)

// Sincos returns sin x and cos x for |x| < 2^29 (NaN, NaN beyond, and for
// ±Inf and NaN). It is Go's math.Sincos (the Cephes algorithm: reduction by
// π/4 in three parts, then minimax polynomials on [−π/4, π/4]) with every
// product wrapped against fusion, and so gives the same bits as math.Sincos
// does on amd64 (GOAMD64=v1) and WebAssembly, where nothing is fused, while
// math.Sincos itself changes in the last bits on builds that fuse: arm64,
// and amd64 with GOAMD64=v3.
func Sincos(x float64) (sin, cos float64) {
	const (
		pi4A = 7.85398125648498535156e-1  // 0x3fe921fb40000000: π/4 in three parts
		pi4B = 3.77489470793079817668e-8  // 0x3e64442d00000000
		pi4C = 2.69515142907905952645e-15 // 0x3ce8469898cc5170
		// Beyond this the three-part reduction loses accuracy (math
		// switches to Payne–Hanek); the engine's angles are far smaller.
		reduceThreshold = 1 << 29
	)
	switch {
	case x == 0:
		return x, 1
	case !(x > -reduceThreshold && x < reduceThreshold):
		return math.NaN(), math.NaN()
	}
	sinSign, cosSign := false, false
	if x < 0 {
		x = -x
		sinSign = true
	}
	// The octant, through int64: x < 2^29 fits, and the conversions
	// to and from uint64 would each test the sign first.
	j := uint64(int64(x * (4 / math.Pi)))
	y := float64(int64(j))
	if j&1 == 1 { // map zeros to the origin
		j++
		y++
	}
	j &= 7
	z := ((x - float64(y*pi4A)) - float64(y*pi4B)) - float64(y*pi4C)
	if j > 3 {
		j -= 4
		sinSign, cosSign = !sinSign, !cosSign
	}
	if j > 1 {
		cosSign = !cosSign
	}
	zz := z * z
	cos = (1.0 - float64(0.5*zz)) + float64(float64(zz*zz)*detHorner6(zz, &detCosCoef))
	sin = z + float64(float64(z*zz)*detHorner6(zz, &detSinCoef))
	if j == 1 || j == 2 {
		sin, cos = cos, sin
	}
	if cosSign {
		cos = -cos
	}
	if sinSign {
		sin = -sin
	}
	return sin, cos
}

// detHorner6 evaluates c[0]·z^5 + c[1]·z^4 + … + c[5] (highest power first,
// as Cephes lists them) without fused multiply-adds.
func detHorner6(z float64, c *[6]float64) float64 {
	y := float64(c[0]*z) + c[1]
	y = float64(y*z) + c[2]
	y = float64(y*z) + c[3]
	y = float64(y*z) + c[4]
	return float64(y*z) + c[5]
}

// Cephes sin and cos coefficients on [−π/4, π/4], as in Go's math.
var (
	detSinCoef = [6]float64{
		1.58962301576546568060e-10, // 0x3de5d8fd1fd19ccd
		-2.50507477628578072866e-8, // 0xbe5ae5e5a9291f5d
		2.75573136213857245213e-6,  // 0x3ec71de3567d48a1
		-1.98412698295895385996e-4, // 0xbf2a01a019bfdf03
		8.33333333332211858878e-3,  // 0x3f8111111110f7d0
		-1.66666666666666307295e-1, // 0xbfc5555555555548
	}
	detCosCoef = [6]float64{
		-1.13585365213876817300e-11, // 0xbda8fa49a0861a9b
		2.08757008419747316778e-9,   // 0x3e21ee9d7b4e3f05
		-2.75573141792967388112e-7,  // 0xbe927e4f7eac4bc6
		2.48015872888517045348e-5,   // 0x3efa01a019c844f5
		-1.38888888888730564116e-3,  // 0xbf56c16c16c14f91
		4.16666666666665929218e-2,   // 0x3fa555555555554b
	}
)

// Abs32 is |x| in single precision (the libraries that compute in float32).
func Abs32(x float32) float32 { return math.Float32frombits(math.Float32bits(x) &^ (1 << 31)) }
