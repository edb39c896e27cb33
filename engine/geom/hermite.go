package geom

// Cubic Hermite interpolation: the point a fraction a in [0, 1] of the way
// along the cubic curve that leaves p0 with velocity v0 and reaches p1 with
// velocity v1 dt seconds later is
//
//	p0 + (p1−p0)·h01 + v0·h10 + v1·h11
//
// with the weights of HermiteBasis. Unlike a lerp it passes through each
// snapshot with the snapshot's own velocity, so a curved or ballistic path
// has no corners at the snapshots; any path that is a polynomial of degree
// three or less in time (a straight line, a jump under gravity) is
// reproduced exactly (up to rounding). It is split into
// HermiteBasis and Hermite1 so the buffer can work in scalars. Every product
// is rounded on its own so that no fused multiply-add changes the last bit
// between platforms.

// HermiteBasis returns the cubic Hermite weights at a in [0, 1] for a span
// of dt seconds: h01 = 3a² − 2a³ on p1 − p0, and h10 = (a³ − 2a² + a)·dt and
// h11 = (a³ − a²)·dt on the end velocities.
func HermiteBasis(a, dt float64) (h01, h10, h11 float64) {
	a2 := float64(a * a)
	a3 := float64(a2 * a)
	h01 = float64(3*a2) - float64(2*a3)
	h10 = float64((a3 - float64(2*a2) + a) * dt)
	h11 = float64((a3 - a2) * dt)
	return h01, h10, h11
}

// Hermite1 returns one coordinate of the curve for the weights of
// HermiteBasis.
func Hermite1(p0, v0, p1, v1, h01, h10, h11 float64) float64 {
	return p0 + float64((p1-p0)*h01) + float64(v0*h10) + float64(v1*h11)
}
