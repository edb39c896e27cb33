package geom

import "math"

// slerpLinearDot is the cosine of the half-angle above which Slerp blends
// linearly and renormalises: closer than about 1.4e−4 rad, sin θ is too small
// to divide by safely, and a normalised lerp strays from the arc by under
// 1e−12 rad. (Slerp's weights stay accurate much closer than the 0.9995
// often used, which would leave errors near 1e−6 rad.)
const slerpLinearDot = 1 - 1e-8

// Slerp returns the rotation a fraction t of the way from q to r along the
// shortest great arc between them: t = 0 gives q, t = 1 gives r (possibly as
// −r, the same rotation). q and r must be unit quaternions; the result is one
// too. Rotations nearly parallel are blended by a normalised lerp.
func (q Quat) Slerp(r Quat, t float64) Quat {
	var p SlerpPair
	p.Init(q, r)
	return p.At(t)
}

// SlerpPair is a Slerp between two fixed rotations with the arc's angle
// worked out once, so that each further point costs one sincos polynomial
// and no Acos. The buffer keeps one per pair of snapshots it is between.
type SlerpPair struct {
	a, b   Quat    // the ends; b is negated if that makes the arc shorter
	cos    float64 // cosine of the half-angle θ between a and b, in [0, 1]
	theta  float64 // θ, radians in [0, π/2]
	invSin float64 // 1/sin θ
	linear bool    // a and b nearly parallel: normalised lerp
}

// Init makes p the arc from a to b.
func (p *SlerpPair) Init(a, b Quat) {
	d := float64(a[0]*b[0]) + float64(a[1]*b[1]) + float64(a[2]*b[2]) + float64(a[3]*b[3])
	if d < 0 {
		// q and −q are the same rotation; of the two arcs to b and −b take
		// the one under 180°, or a yaw from 170° to −170° would go the long
		// way round.
		b = Quat{-b[0], -b[1], -b[2], -b[3]}
		d = -d
	}
	*p = SlerpPair{a: a, b: b, cos: d}
	if d > slerpLinearDot {
		p.linear = true
		return
	}
	p.theta = slerpAcos(d)
	p.invSin = 1 / math.Sqrt(1-float64(d*d))
}

// End returns the rotation the pair's arc ends at: b, or −b when that
// made the arc shorter (the same rotation).
func (p *SlerpPair) End() Quat { return p.b }

// At returns the rotation a fraction t of the way along the pair's arc.
func (p *SlerpPair) At(t float64) Quat {
	x, y, z, w := p.At4(t)
	return Quat{x, y, z, w}
}

// At4 is At with the result in four scalars, which Go returns in registers
// (a Quat goes through memory).
//
// For t in [0, 1], as the buffer asks, sin tθ and cos tθ come from the
// Cephes polynomials math.Sincos uses on [0, π/4], evaluated at tθ/2 and
// doubled, which skips math.Sincos's range reduction and call (dear in
// WebAssembly); they agree with math.Sincos to 4e−16. Every product is
// rounded on its own (no fused multiply-add), so the result is the same on
// every platform.
func (p *SlerpPair) At4(t float64) (x, y, z, w float64) {
	a, b := &p.a, &p.b
	if p.linear {
		q := Quat{
			a[0] + float64((b[0]-a[0])*t),
			a[1] + float64((b[1]-a[1])*t),
			a[2] + float64((b[2]-a[2])*t),
			a[3] + float64((b[3]-a[3])*t),
		}
		n := float64(q[0]*q[0]) + float64(q[1]*q[1]) + float64(q[2]*q[2]) + float64(q[3]*q[3])
		if !(n > 0) { // a and b cancel (not unit quaternions): keep a
			return a[0], a[1], a[2], a[3]
		}
		k := 1 / math.Sqrt(n)
		return q[0] * k, q[1] * k, q[2] * k, q[3] * k
	}
	var s, c float64
	if x := t * p.theta; x >= 0 && x <= math.Pi/2 {
		h := x * 0.5
		z := float64(h * h)
		ps := -2.50507477628578072866e-8 + float64(z*1.58962301576546568060e-10)
		ps = 2.75573136213857245213e-6 + float64(z*ps)
		ps = -1.98412698295895385996e-4 + float64(z*ps)
		ps = 8.33333333332211858878e-3 + float64(z*ps)
		ps = -1.66666666666666307295e-1 + float64(z*ps)
		pc := 2.08757008419747316778e-9 + float64(z*-1.13585365213876817300e-11)
		pc = -2.75573141792967388112e-7 + float64(z*pc)
		pc = 2.48015872888517045348e-5 + float64(z*pc)
		pc = -1.38888888888730564116e-3 + float64(z*pc)
		pc = 4.16666666666665929218e-2 + float64(z*pc)
		sh := h + float64(float64(h*z)*ps)                  // sin x/2
		ch := 1 - float64(0.5*z) + float64(float64(z*z)*pc) // cos x/2
		s, c = float64(2*sh)*ch, float64(ch*ch)-float64(sh*sh)
	} else { // Slerp asked to extrapolate
		s, c = math.Sincos(x)
	}
	// sin((1−t)θ)/sin θ = cos tθ − cos θ · sin tθ/sin θ, so one sincos
	// gives both weights.
	wb := s * p.invSin
	wa := c - float64(p.cos*wb)
	return float64(a[0]*wa) + float64(b[0]*wb),
		float64(a[1]*wa) + float64(b[1]*wb),
		float64(a[2]*wa) + float64(b[2]*wb),
		float64(a[3]*wa) + float64(b[3]*wb)
}

// EulerPair is the guide's pitfall, kept so the lab can show it: the yaw
// angles of two rotations lerped as plain numbers in (−π, π], without
// wrapping, so a turn from 170° to −170° sweeps 340° the long way round
// instead of 20°. Pitch and roll are dropped; the lab's entities only yaw.
type EulerPair struct {
	yaw0, yaw1 float64 // radians in (−π, π]
}

// Init makes p the blend from a's yaw to b's.
func (p *EulerPair) Init(a, b Quat) { *p = EulerPair{a.Yaw(), b.Yaw()} }

// At returns the Z and W components of the rotation with yaw a fraction t
// of the way from yaw0 to yaw1 (X and Y are 0).
func (p *EulerPair) At(t float64) (z, w float64) {
	return math.Sincos((p.yaw0 + float64((p.yaw1-p.yaw0)*t)) / 2)
}

// quatEulerLerp returns the Euler-lerp (pitfall) rotation a fraction t of the
// way from q to r; see EulerPair.
func quatEulerLerp(q, r Quat, t float64) Quat {
	p := EulerPair{q.Yaw(), r.Yaw()}
	z, w := p.At(t)
	return Quat{0, 0, z, w}
}

// slerpAcos returns math.Acos(d) for d in [0, 1]: the same algorithm (Go's
// Acos → Asin → satan → xatan, with the Cephes constants of Go's
// math/atan.go) flattened into one function. In WebAssembly that chain of
// four calls cost about 200 ns, more than the rest of a buffer frame;
// flattened it is one call, a square root and two divisions. Products are
// rounded on their own (no fused multiply-add), so it is the same on every
// platform, and bit for bit math.Acos wherever that is not fused either.
func slerpAcos(d float64) float64 {
	const (
		p0       = -8.750608600031904122785e-01
		p1       = -1.615753718733365076637e+01
		p2       = -7.500855792314704667340e+01
		p3       = -1.228866684490136173410e+02
		p4       = -6.485021904942025371773e+01
		q0       = +2.485846490142306297962e+01
		q1       = +1.650270098316988542046e+02
		q2       = +4.328810604912902668951e+02
		q3       = +4.853903996359136964868e+02
		q4       = +1.945506571482613964425e+02
		moreBits = 6.123233995736765886130e-17 // π/2 = float64(π/2) + moreBits
		tan3pio8 = 2.41421356237309504880      // tan(3π/8)
	)
	// asin(d) = satan(y) with y = d/√(1−d²), or π/2 − satan(1/y) above 0.7.
	temp := math.Sqrt(1 - float64(d*d))
	y := d / temp
	if d > 0.7 {
		y = temp / d
	}
	// satan(y) = xatan(x) + around, reduced to x in [−0.42, 0.66].
	x, around, flip := y, 0.0, false
	switch {
	case y > tan3pio8:
		x, around, flip = 1/y, math.Pi/2, true
	case y > 0.66:
		x, around = (y-1)/(y+1), math.Pi/4
	}
	z := float64(x * x)
	num := float64(p0*z) + p1
	num = float64(num*z) + p2
	num = float64(num*z) + p3
	num = float64(num*z) + p4
	den := z + q0
	den = float64(den*z) + q1
	den = float64(den*z) + q2
	den = float64(den*z) + q3
	den = float64(den*z) + q4
	z = float64(z*num) / den
	xat := float64(x*z) + x
	var at float64
	switch {
	case flip:
		at = around - xat + moreBits
	case around != 0:
		at = around + xat + float64(0.5*moreBits)
	default:
		at = xat
	}
	if d > 0.7 {
		return math.Pi/2 - (math.Pi/2 - at)
	}
	return math.Pi/2 - at
}

// Nlerp returns the normalised lerp a fraction f of the way from q to r
// along the shorter arc: q for f = 0, r for f = 1.
func Nlerp(q, r Quat, f float64) Quat {
	if f <= 0 {
		return q
	}
	if f >= 1 {
		return r
	}
	if float64(q[0]*r[0])+float64(q[1]*r[1])+float64(q[2]*r[2])+float64(q[3]*r[3]) < 0 {
		r = Quat{-r[0], -r[1], -r[2], -r[3]}
	}
	x, y := q[0]+float64((r[0]-q[0])*f), q[1]+float64((r[1]-q[1])*f)
	z, w := q[2]+float64((r[2]-q[2])*f), q[3]+float64((r[3]-q[3])*f)
	k := 1 / math.Sqrt(float64(x*x)+float64(y*y)+float64(z*z)+float64(w*w))
	return Quat{float64(x * k), float64(y * k), float64(z * k), float64(w * k)}
}
