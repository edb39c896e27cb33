package engine

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
	var p slerpPair
	p.init(q, r)
	return p.at(t)
}

// slerpPair is a Slerp between two fixed rotations with the arc's angle
// worked out once, so that each further point costs one Sincos. The buffer
// keeps one per pair of snapshots it is between.
type slerpPair struct {
	a, b   Quat    // the ends; b is negated if that makes the arc shorter
	cos    float64 // cosine of the half-angle θ between a and b, in [0, 1]
	theta  float64 // θ, radians in [0, π/2]
	invSin float64 // 1/sin θ
	linear bool    // a and b nearly parallel: normalised lerp
}

func (p *slerpPair) init(a, b Quat) {
	d := float64(a[0]*b[0]) + float64(a[1]*b[1]) + float64(a[2]*b[2]) + float64(a[3]*b[3])
	if d < 0 {
		// q and −q are the same rotation; of the two arcs to b and −b take
		// the one under 180°, or a yaw from 170° to −170° would go the long
		// way round.
		b = Quat{-b[0], -b[1], -b[2], -b[3]}
		d = -d
	}
	*p = slerpPair{a: a, b: b, cos: d}
	if d > slerpLinearDot {
		p.linear = true
		return
	}
	p.theta = math.Acos(d)
	p.invSin = 1 / math.Sqrt(1-float64(d*d))
}

// at returns the rotation a fraction t of the way along the pair's arc.
func (p *slerpPair) at(t float64) Quat {
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
			return p.a
		}
		k := 1 / math.Sqrt(n)
		return Quat{q[0] * k, q[1] * k, q[2] * k, q[3] * k}
	}
	// sin((1−t)θ)/sin θ = cos tθ − cos θ · sin tθ/sin θ, so one Sincos gives
	// both weights.
	s, c := math.Sincos(t * p.theta)
	wb := s * p.invSin
	wa := c - float64(p.cos*wb)
	return Quat{
		float64(a[0]*wa) + float64(b[0]*wb),
		float64(a[1]*wa) + float64(b[1]*wb),
		float64(a[2]*wa) + float64(b[2]*wb),
		float64(a[3]*wa) + float64(b[3]*wb),
	}
}

// eulerPair is the guide's pitfall, kept so the lab can show it: the yaw
// angles of two rotations lerped as plain numbers in (−π, π], without
// wrapping, so a turn from 170° to −170° sweeps 340° the long way round
// instead of 20°. Pitch and roll are dropped; the lab's entities only yaw.
type eulerPair struct {
	yaw0, yaw1 float64 // radians in (−π, π]
}

func (p *eulerPair) init(a, b Quat) { *p = eulerPair{a.Yaw(), b.Yaw()} }

// at returns the rotation with yaw a fraction t of the way from yaw0 to yaw1.
func (p *eulerPair) at(t float64) Quat {
	return QuatFromYaw(p.yaw0 + float64((p.yaw1-p.yaw0)*t))
}

// quatEulerLerp returns the Euler-lerp (pitfall) rotation a fraction t of the
// way from q to r; see eulerPair.
func quatEulerLerp(q, r Quat, t float64) Quat {
	p := eulerPair{q.Yaw(), r.Yaw()}
	return p.at(t)
}
