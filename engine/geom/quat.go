package geom

import "math"

// Quat is a unit rotation quaternion stored as X, Y, Z, W.
type Quat [4]float64

// QuatIdentity is the rotation that leaves every vector as it is.
var QuatIdentity = Quat{0, 0, 0, 1}

// QuatFromYaw returns the rotation by yaw radians about the up (Z) axis.
// Yaw 0 faces +X; positive yaw turns towards +Y.
func QuatFromYaw(yaw float64) Quat {
	s, c := Sincos(yaw / 2) // the same bits on every platform
	return Quat{0, 0, s, c}
}

// Yaw returns the heading of q about the up axis, in radians in (−π, π].
func (q Quat) Yaw() float64 {
	x, y, z, w := q[0], q[1], q[2], q[3]
	return math.Atan2(2*(w*z+x*y), 1-2*(y*y+z*z))
}

// Heading returns where q turns the +X axis, projected on the ground plane:
// (cos yaw, sin yaw) for a rotation about the up axis only, the case of
// every entity here. It needs no arctangent, so drawing stays cheap.
func (q Quat) Heading() (x, y float64) {
	qx, qy, qz, qw := q[0], q[1], q[2], q[3]
	return 1 - 2*(qy*qy+qz*qz), 2 * (qw*qz + qx*qy)
}
