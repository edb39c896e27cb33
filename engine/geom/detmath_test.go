package geom

import (
	"math"
	"math/big"
	"runtime"
	"testing"
)

// ulpDiff returns how many representable float64 values lie between a and b
// (0 when they are identical, including two NaNs of any payload).
func ulpDiff(a, b float64) uint64 {
	if math.IsNaN(a) && math.IsNaN(b) {
		return 0
	}
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.MaxUint64
	}
	ord := func(x float64) int64 { // monotone map of floats onto integers
		i := int64(math.Float64bits(x))
		if i < 0 {
			i = math.MinInt64 - i
		}
		return i
	}
	d := ord(a) - ord(b)
	if d < 0 {
		d = -d
	}
	return uint64(d)
}

// bigPrec is the working precision of the reference functions, in bits.
const bigPrec = 160

// bigLn2 is ln 2 to bigPrec bits: Σ 1/(k·2^k).
var bigLn2 = func() *big.Float {
	sum := new(big.Float).SetPrec(bigPrec)
	for k := 1; k < bigPrec+10; k++ {
		term := new(big.Float).SetPrec(bigPrec).SetInt64(1)
		term.Quo(term, new(big.Float).SetPrec(bigPrec).SetInt64(int64(k)))
		sum.Add(sum, term.SetMantExp(term, -k)) // SetMantExp keeps term's precision

	}
	return sum
}()

// refExp returns e^x correctly rounded to float64 (up to a double rounding
// of probability ~2^−100): x = k·ln2 + r, and e^r by its Taylor series.
func refExp(x float64) float64 {
	k := math.Round(x / math.Ln2)
	r := new(big.Float).SetPrec(bigPrec).SetFloat64(x)
	r.Sub(r, new(big.Float).SetPrec(bigPrec).Mul(bigLn2, big.NewFloat(k)))
	sum := new(big.Float).SetPrec(bigPrec).SetInt64(1)
	term := new(big.Float).SetPrec(bigPrec).SetInt64(1)
	for n := 1; n < 60; n++ {
		term.Mul(term, r)
		term.Quo(term, new(big.Float).SetPrec(bigPrec).SetInt64(int64(n)))
		sum.Add(sum, term)
	}
	sum.SetMantExp(sum, int(k))
	f, _ := sum.Float64()
	return f
}

// refLog returns ln x correctly rounded to float64 for finite x > 0:
// x = m·2^e with m in [√2/2, √2), ln m = 2·atanh((m−1)/(m+1)).
func refLog(x float64) float64 {
	m := new(big.Float).SetPrec(bigPrec)
	e := new(big.Float).SetPrec(bigPrec).SetFloat64(x).MantExp(m) // m in [0.5, 1)
	if m.Cmp(big.NewFloat(math.Sqrt2/2)) < 0 {
		m.SetMantExp(m, 1)
		e--
	}
	one := big.NewFloat(1)
	s := new(big.Float).SetPrec(bigPrec).Sub(m, one)
	s.Quo(s, new(big.Float).SetPrec(bigPrec).Add(m, one))
	s2 := new(big.Float).SetPrec(bigPrec).Mul(s, s)
	sum := new(big.Float).SetPrec(bigPrec)
	pow := new(big.Float).SetPrec(bigPrec).Set(s)
	for n := 0; n < 60; n++ {
		term := new(big.Float).SetPrec(bigPrec).Quo(pow, big.NewFloat(float64(2*n+1)))
		sum.Add(sum, term)
		pow.Mul(pow, s2)
	}
	sum.Mul(sum, big.NewFloat(2))
	sum.Add(sum, new(big.Float).SetPrec(bigPrec).Mul(bigLn2, big.NewFloat(float64(e))))
	f, _ := sum.Float64()
	return f
}

func TestRefFunctions(t *testing.T) {
	// The references themselves, against values known exactly or to math.
	tests := []struct {
		name      string
		got, want float64
	}{
		{"refExp(1)", refExp(1), math.E},
		{"refExp(-1)", refExp(-1), 1 / math.E},
		{"refExp(ln2)", refExp(math.Ln2), 2},
		{"refLog(e)", refLog(math.E), 1},
		{"refLog(2)", refLog(2), math.Ln2},
		{"refLog(10)", refLog(10), math.Ln10},
		{"refLog(2^-1074)", refLog(0x1p-1074), -744.4400719213812},
		{"refExp(564.7878943124689)", refExp(564.7878943124689), 1.9242697188440782e+245}, // Python decimal, 60 digits
	}
	for _, tt := range tests {
		if ulpDiff(tt.got, tt.want) > 1 {
			t.Errorf("%s = %v, want %v", tt.name, tt.got, tt.want)
		}
	}
}

// TestDetLogRange compares detLog with a 160-bit reference over every binade
// from the smallest subnormal to the largest float, at pseudo-random points,
// and densely near 1 where log(1+f) cancels most. fdlibm's log is within
// 1 ulp of the exact value, so it may differ from the correctly rounded one
// by 1.
func TestDetLogRange(t *testing.T) {
	r := NewRNG(1, 0)
	bad := 0
	check := func(x float64) {
		got, want := Log(x), refLog(x)
		if ulpDiff(got, want) > 1 {
			if bad++; bad <= 10 {
				t.Errorf("detLog(%v) = %v, want %v (%d ulp)", x, got, want, ulpDiff(got, want))
			}
		}
	}
	for e := -1074; e <= 1023; e++ {
		for range 4 {
			if x := detScale(1+r.Float64(), e); x != 0 { // in [2^e, 2^(e+1)); subnormal below 2^−1022
				check(x)
			}
		}
	}
	for range 4000 {
		check(1 + (r.Float64()-0.5)*0x1p-6)
	}
	for range 4000 {
		check(r.Open()) // the inputs the link gives it
	}
}

// TestDetExpRange compares detExp with a 160-bit reference from the
// underflow to the overflow threshold, subnormal results included.
func TestDetExpRange(t *testing.T) {
	r := NewRNG(2, 0)
	bad := 0
	check := func(x float64) {
		got, want := Exp(x), refExp(x)
		if ulpDiff(got, want) > 1 {
			if bad++; bad <= 10 {
				t.Errorf("detExp(%v) = %v, want %v (%d ulp)", x, got, want, ulpDiff(got, want))
			}
		}
	}
	for range 8000 {
		check(-745.13 + r.Float64()*(709.78+745.13))
	}
	for range 4000 {
		check((r.Float64() - 0.5) * 8) // the range the link uses
	}
	for range 1000 {
		check(-745.13 + r.Float64()*37) // subnormal results
	}
}

// TestDetMatchesPortableMath: under WebAssembly math.Log and math.Exp are the
// same fdlibm algorithms in portable Go, and detLog and detExp must give the
// very same bits; that is what makes the engine's numbers platform
// independent. (On amd64 math uses assembly, which even misreads subnormals
// in Log, so there is nothing to compare with.)
func TestDetMatchesPortableMath(t *testing.T) {
	if runtime.GOARCH != "wasm" {
		t.Skip("math.Log and math.Exp are assembly on " + runtime.GOARCH)
	}
	r := NewRNG(3, 0)
	for range 100000 {
		x := Exp((r.Float64() - 0.5) * 1400)
		if got, want := Log(x), math.Log(x); math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("detLog(%v) = %v, want %v", x, got, want)
		}
		y := (r.Float64() - 0.5) * 1400
		if got, want := Exp(y), math.Exp(y); math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("detExp(%v) = %v, want %v", y, got, want)
		}
		y = (r.Float64() - 0.5) * 8 // the link's range, both signs
		if got, want := Exp(y), math.Exp(y); math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("detExp(%v) = %v, want %v", y, got, want)
		}
	}
}

// TestDetLogExpInverse checks the pair against each other: exp(log x) ≈ x.
func TestDetLogExpInverse(t *testing.T) {
	for _, x := range []float64{1e-300, 1e-10, 0.001, 0.5, 1, 3, 1000, 1e100} {
		got := Exp(Log(x))
		if math.Abs(got-x) > 1e-13*x {
			t.Errorf("detExp(detLog(%v)) = %v, want %v", x, got, x)
		}
	}
}

func BenchmarkDetLog(b *testing.B) {
	x, s := 1.2345, 0.0
	for i := 0; i < b.N; i++ {
		s += Log(x)
		x += 0.001
	}
	detBenchSink = s
}

func BenchmarkDetExp(b *testing.B) {
	x, s := -3.0, 0.0
	for i := 0; i < b.N; i++ {
		s += Exp(x)
		x += 1e-6
	}
	detBenchSink = s
}

var detBenchSink float64

// TestDetNormQuantile checks Φ⁻¹ against Φ(x) = erfc(−x/√2)/2 (math.Erfc is
// only the test's reference): Φ⁻¹(Φ(x)) must give x back, in the centre and
// far into both tails, and it must be increasing and odd about 1/2.
func TestDetNormQuantile(t *testing.T) {
	phi := func(x float64) float64 { return math.Erfc(-x/math.Sqrt2) / 2 }
	for x := -8.0; x <= 8; x += 0.01 {
		p := phi(x)
		got := NormQuantile(p)
		// Φ(x) is rounded to a float64 before the inversion, which alone
		// moves the answer by up to ulp(p)/φ(x); near p = 1 that is large.
		density := math.Exp(-x*x/2) / math.Sqrt(2*math.Pi)
		ulp := math.Nextafter(p, 2) - p
		tol := 2*ulp/density + 1e-14*(1+math.Abs(x))
		if math.Abs(got-x) > tol {
			t.Errorf("detNormQuantile(Φ(%v)) = %v, want %v ± %v", x, got, x, tol)
		}
	}
	tests := []struct {
		p, want float64
	}{
		{0.5, 0},
		{0.975, 1.959963984540054},
		{0.025, -1.959963984540054},
		{0.75, 0.6744897501960817},
		{1e-300, -37.0471},
		{0, math.Inf(-1)},
		{1, math.Inf(1)},
	}
	for _, tt := range tests {
		if got := NormQuantile(tt.p); math.Abs(got-tt.want) > 1e-4*math.Max(1e-12, math.Abs(tt.want)) && got != tt.want {
			t.Errorf("detNormQuantile(%v) = %v, want %v", tt.p, got, tt.want)
		}
	}
	for _, p := range []float64{-0.1, 1.1, math.NaN()} {
		if got := NormQuantile(p); !math.IsNaN(got) {
			t.Errorf("detNormQuantile(%v) = %v, want NaN", p, got)
		}
	}
	r := NewRNG(5, 0)
	for range 10000 {
		p := r.Open()
		a, b := NormQuantile(p), NormQuantile(1-p)
		if a != -b {
			t.Fatalf("detNormQuantile(%v) = %v, detNormQuantile(1−p) = %v, want opposites", p, a, b)
		}
		if q := p + 0x1p-30; q < 1 && NormQuantile(q) < a {
			t.Fatalf("detNormQuantile decreases between %v and %v", p, q)
		}
	}
}

// fusesMultiplyAdd reports whether this build fuses x*y + z (arm64 does, and
// amd64 with GOAMD64=v3; amd64 v1 and WebAssembly do not). 1+2^−30 times
// 1−2^−30 is 1−2^−60, which rounds to 1: minus 1 it gives 0 unfused and
// −2^−60 fused.
func fusesMultiplyAdd() bool { return detMulAdd(1+0x1p-30, 1-0x1p-30, -1) != 0 }

// detMulAdd is x*y + z as the compiler sees fit to compile it. It takes its
// operands in registers and is not inlined, so that they are neither folded
// as constants nor loaded from memory into the multiplication (which would
// also keep the compiler from fusing).
//
//go:noinline
func detMulAdd(x, y, z float64) float64 { return x*y + z }

// TestDetSincosConstants checks each coefficient against the bit pattern
// noted beside it.
func TestDetSincosConstants(t *testing.T) {
	bits := []struct {
		name string
		got  float64
		want uint64
	}{
		{"sin[0]", detSinCoef[0], 0x3de5d8fd1fd19ccd}, {"sin[1]", detSinCoef[1], 0xbe5ae5e5a9291f5d},
		{"sin[2]", detSinCoef[2], 0x3ec71de3567d48a1}, {"sin[3]", detSinCoef[3], 0xbf2a01a019bfdf03},
		{"sin[4]", detSinCoef[4], 0x3f8111111110f7d0}, {"sin[5]", detSinCoef[5], 0xbfc5555555555548},
		{"cos[0]", detCosCoef[0], 0xbda8fa49a0861a9b}, {"cos[1]", detCosCoef[1], 0x3e21ee9d7b4e3f05},
		{"cos[2]", detCosCoef[2], 0xbe927e4f7eac4bc6}, {"cos[3]", detCosCoef[3], 0x3efa01a019c844f5},
		{"cos[4]", detCosCoef[4], 0xbf56c16c16c14f91}, {"cos[5]", detCosCoef[5], 0x3fa555555555554b},
	}
	for _, b := range bits {
		if got := math.Float64bits(b.got); got != b.want {
			t.Errorf("%s bits = %#x, want %#x", b.name, got, b.want)
		}
	}
}

// TestDetSincos: within 1 ulp of math's (whatever the build) plus a tiny
// absolute slack near the zeros, where math and detSincos may round the
// reduced argument differently when fused; and on builds that do not fuse,
// bit-identical to math.Sincos.
func TestDetSincos(t *testing.T) {
	exact := !fusesMultiplyAdd()
	r := NewRNG(4, 0)
	for i := range 200000 {
		x := (r.Float64() - 0.5) * 200
		if i%4 == 0 {
			x = (r.Float64() - 0.5) * 1e6
		}
		s, c := Sincos(x)
		ws, wc := math.Sincos(x)
		if exact && (math.Float64bits(s) != math.Float64bits(ws) || math.Float64bits(c) != math.Float64bits(wc)) {
			t.Fatalf("detSincos(%v) = %v, %v, want math.Sincos's %v, %v", x, s, c, ws, wc)
		}
		if ulpDiff(s, ws) > 1 && math.Abs(s-ws) > 1e-16 || ulpDiff(c, wc) > 1 && math.Abs(c-wc) > 1e-16 {
			t.Fatalf("detSincos(%v) = %v, %v, want %v, %v", x, s, c, ws, wc)
		}
	}
	for _, x := range []float64{math.Inf(1), math.Inf(-1), math.NaN(), 1 << 29, -(1 << 30)} {
		if s, c := Sincos(x); !math.IsNaN(s) || !math.IsNaN(c) {
			t.Errorf("detSincos(%v) = %v, %v, want NaN, NaN", x, s, c)
		}
	}
	if s, c := Sincos(math.Copysign(0, -1)); math.Float64bits(s) != 1<<63 || c != 1 {
		t.Errorf("detSincos(−0) = %v, %v, want −0, 1", s, c)
	}
	t.Logf("fused multiply-add in this build: %v (bit-identity with math checked: %v)", !exact, exact)
}

// TestDetHorner2 checks the two interleaved polynomials against each
// evaluated alone by Horner's rule, to the bit, over the ranges
// NormQuantile evaluates them on.
func TestDetHorner2(t *testing.T) {
	horner := func(r float64, c *[8]float64) float64 {
		y := float64(c[7]*r) + c[6]
		for k := 5; k >= 0; k-- {
			y = float64(y*r) + c[k]
		}
		return y
	}
	rng := NewRNG(3, 0)
	for i := range 30000 {
		a, b, lo, hi := &wichuraA, &wichuraB, 0.0, 0.180625
		switch i % 3 {
		case 1:
			a, b, lo, hi = &wichuraC, &wichuraD, -1.6, 3.4
		case 2:
			a, b, lo, hi = &wichuraE, &wichuraF, 0, 22
		}
		r := lo + float64((hi-lo)*rng.Float64())
		pa, pb := detHorner2(r, a, b)
		if wa, wb := horner(r, a), horner(r, b); pa != wa || pb != wb {
			t.Fatalf("detHorner2(%v) = %v, %v, want %v, %v", r, pa, pb, wa, wb)
		}
	}
}
