package engine

import "math"

// Quat is a unit rotation quaternion stored as X, Y, Z, W.
type Quat [4]float64

// QuatIdentity is the rotation that leaves every vector as it is.
var QuatIdentity = Quat{0, 0, 0, 1}

// QuatFromYaw returns the rotation by yaw radians about the up (Z) axis.
// Yaw 0 faces +X; positive yaw turns towards +Y.
func QuatFromYaw(yaw float64) Quat {
	s, c := math.Sincos(yaw / 2)
	return Quat{0, 0, s, c}
}

// Yaw returns the heading of q about the up axis, in radians in (−π, π].
func (q Quat) Yaw() float64 {
	x, y, z, w := q[0], q[1], q[2], q[3]
	return math.Atan2(2*(w*z+x*y), 1-2*(y*y+z*z))
}

// displayYaw is Yaw to within 2e-5 rad, several times faster: for drawing,
// never for metrics.
func (q Quat) displayYaw() float64 {
	x, y, z, w := q[0], q[1], q[2], q[3]
	return fastAtan2(2*(w*z+x*y), 1-2*(y*y+z*z))
}

// fastAtan2 approximates math.Atan2 with an odd degree-11 polynomial on
// [0, 1] after folding the octants; the error is below 2e-5 rad.
func fastAtan2(y, x float64) float64 {
	ax, ay := math.Abs(x), math.Abs(y)
	if ax == 0 && ay == 0 {
		return 0
	}
	lo, hi := min(ax, ay), max(ax, ay)
	a := lo / hi
	s := a * a
	r := a * (0.99997726 + s*(-0.33262347+s*(0.19354346+s*(-0.11643287+s*(0.05265332+s*-0.01172120)))))
	if ay > ax {
		r = math.Pi/2 - r
	}
	if x < 0 {
		r = math.Pi - r
	}
	if y < 0 {
		r = -r
	}
	return r
}
