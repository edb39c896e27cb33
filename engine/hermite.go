package engine

// hermitePos returns the point a fraction a in [0, 1] of the way along the
// cubic Hermite curve that leaves p0 with velocity v0 and reaches p1 with
// velocity v1 dt seconds later. Unlike a lerp it passes through each
// snapshot with the snapshot's own velocity, so a curved or ballistic path
// has no corners at the snapshots; any path that is a polynomial of degree
// three or less in time (a straight line, a jump under gravity) is
// reproduced exactly.
//
// It is written as p0 + (p1−p0)·h01 + dt·(v0·h10 + v1·h11), which is exact
// for straight lines up to rounding, with each product rounded on its own
// so that no fused multiply-add changes the last bit between platforms.
func hermitePos(p0, v0, p1, v1 Vec3, dt, a float64) Vec3 {
	a2 := float64(a * a)
	a3 := float64(a2 * a)
	h01 := float64(3*a2) - float64(2*a3)          // 3a² − 2a³, towards p1
	h10 := float64((a3 - float64(2*a2) + a) * dt) // (a³ − 2a² + a)·dt, along v0
	h11 := float64((a3 - a2) * dt)                // (a³ − a²)·dt, along v1
	var p Vec3
	for i := range p {
		p[i] = p0[i] + float64((p1[i]-p0[i])*h01) + float64(v0[i]*h10) + float64(v1[i]*h11)
	}
	return p
}
