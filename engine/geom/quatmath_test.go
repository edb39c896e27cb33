package geom

import (
	"math"
	"testing"
)

const qmDeg = math.Pi / 180

// qmSameRotation reports whether q and r are the same rotation (q = ±r)
// within tol per component.
func qmSameRotation(q, r Quat, tol float64) bool {
	plus, minus := true, true
	for i := range q {
		plus = plus && math.Abs(q[i]-r[i]) <= tol
		minus = minus && math.Abs(q[i]+r[i]) <= tol
	}
	return plus || minus
}

func qmLen(q Quat) float64 {
	return math.Sqrt(q[0]*q[0] + q[1]*q[1] + q[2]*q[2] + q[3]*q[3])
}

// qmAxisAngle returns the unit rotation by angle radians about axis.
func qmAxisAngle(axis Vec3, angle float64) Quat {
	axis = axis.Scale(1 / axis.Len())
	s, c := math.Sincos(angle / 2)
	return Quat{axis[0] * s, axis[1] * s, axis[2] * s, c}
}

// qmWrap returns x wrapped to (−π, π].
func qmWrap(x float64) float64 {
	x = math.Mod(x+math.Pi, 2*math.Pi)
	if x <= 0 {
		x += 2 * math.Pi
	}
	return x - math.Pi
}

var slerpCases = []struct {
	name string
	q, r Quat
}{
	{"yaw 10° to 80°", QuatFromYaw(10 * qmDeg), QuatFromYaw(80 * qmDeg)},
	{"yaw 170° to −170°", QuatFromYaw(170 * qmDeg), QuatFromYaw(-170 * qmDeg)},
	{"yaw −90° to 89°", QuatFromYaw(-90 * qmDeg), QuatFromYaw(89 * qmDeg)},
	{"close", QuatFromYaw(30 * qmDeg), QuatFromYaw(30.5 * qmDeg)},
	{"nearly parallel (linear)", QuatFromYaw(30 * qmDeg), QuatFromYaw(30.005 * qmDeg)},
	{"equal", QuatFromYaw(1), QuatFromYaw(1)},
	{"opposite signs of one rotation", QuatFromYaw(2), QuatFromYaw(2 + 2*math.Pi)},
	{"tilted axes", qmAxisAngle(Vec3{1, 2, 3}, 2.5), qmAxisAngle(Vec3{-1, 0.5, 0.2}, -1)},
}

func TestSlerpEnds(t *testing.T) {
	for _, c := range slerpCases {
		if got := c.q.Slerp(c.r, 0); !qmSameRotation(got, c.q, 1e-12) {
			t.Errorf("%s: Slerp(t=0) = %v, want %v", c.name, got, c.q)
		}
		if got := c.q.Slerp(c.r, 1); !qmSameRotation(got, c.r, 1e-12) {
			t.Errorf("%s: Slerp(t=1) = %v, want ±%v", c.name, got, c.r)
		}
	}
}

func TestSlerpUnitLength(t *testing.T) {
	for _, c := range slerpCases {
		for i := 0; i <= 20; i++ {
			a := float64(i) / 20
			if n := qmLen(c.q.Slerp(c.r, a)); math.Abs(n-1) > 1e-12 {
				t.Errorf("%s: |Slerp(t=%g)| = %.17g, want 1", c.name, a, n)
			}
		}
	}
}

// TestSlerpYaw checks slerp against the closed form for yaw-only rotations:
// the yaw moves linearly along the shorter way round, so 170° to −170°
// passes 180°, not 0°.
func TestSlerpYaw(t *testing.T) {
	cases := []struct {
		name       string
		from, turn float64 // degrees; turn is the signed shortest turn
	}{
		{name: "small left", from: 10, turn: 70},
		{name: "across ±180°", from: 170, turn: 20},
		{name: "across ±180° rightwards", from: -170, turn: -20},
		{name: "nearly half a turn", from: -90, turn: 179},
		{name: "tiny", from: 30, turn: 0.5},
		{name: "tinier", from: 30, turn: 0.02},
		{name: "below the linear threshold", from: -3, turn: 0.005},
		{name: "none", from: 45, turn: 0},
	}
	for _, c := range cases {
		q, r := QuatFromYaw(c.from*qmDeg), QuatFromYaw((c.from+c.turn)*qmDeg)
		for i := 0; i <= 10; i++ {
			a := float64(i) / 10
			want := qmWrap((c.from + c.turn*a) * qmDeg)
			got := q.Slerp(r, a).Yaw()
			if d := math.Abs(qmWrap(got - want)); d > 1e-9 {
				t.Errorf("%s: Slerp(t=%g).Yaw() = %.6f°, want %.6f°", c.name, a, got/qmDeg, want/qmDeg)
			}
		}
	}
}

// TestSlerpAngle checks that a general slerp turns at a constant rate: the
// angle from q grows linearly to the angle between q and r.
func TestSlerpAngle(t *testing.T) {
	q, r := qmAxisAngle(Vec3{1, 2, 3}, 2.5), qmAxisAngle(Vec3{-1, 0.5, 0.2}, -1)
	angle := func(a, b Quat) float64 { // rotation angle between a and b, radians
		d := math.Abs(a[0]*b[0] + a[1]*b[1] + a[2]*b[2] + a[3]*b[3])
		return 2 * math.Acos(math.Min(d, 1))
	}
	total := angle(q, r)
	for i := 1; i < 10; i++ {
		a := float64(i) / 10
		p := q.Slerp(r, a)
		if got, want := angle(q, p), a*total; math.Abs(got-want) > 1e-9 {
			t.Errorf("angle(q, Slerp(t=%g)) = %.12f, want %.12f", a, got, want)
		}
		if got, want := angle(p, r), (1-a)*total; math.Abs(got-want) > 1e-9 {
			t.Errorf("angle(Slerp(t=%g), r) = %.12f, want %.12f", a, got, want)
		}
	}
}

// TestEulerLerpWrongArc pins the pitfall the lab shows: lerping yaw angles
// as numbers turns 170° to −170° the long way, through 0°.
func TestEulerLerpWrongArc(t *testing.T) {
	cases := []struct {
		name     string
		from, to float64 // degrees
		wantMid  float64 // Euler lerp's yaw at t = 0.5, degrees
		slerpMid float64 // slerp's, degrees
		wrongArc bool    // the two differ
	}{
		{name: "across ±180°", from: 170, to: -170, wantMid: 0, slerpMid: 180, wrongArc: true},
		{name: "across ±180° leftwards", from: -150, to: 150, wantMid: 0, slerpMid: 180, wrongArc: true},
		{name: "small turn agrees", from: 10, to: 70, wantMid: 40, slerpMid: 40},
	}
	for _, c := range cases {
		q, r := QuatFromYaw(c.from*qmDeg), QuatFromYaw(c.to*qmDeg)
		got := quatEulerLerp(q, r, 0.5).Yaw()
		if math.Abs(qmWrap(got-c.wantMid*qmDeg)) > 1e-9 {
			t.Errorf("%s: quatEulerLerp(t=0.5).Yaw() = %.6f°, want %g°", c.name, got/qmDeg, c.wantMid)
		}
		s := q.Slerp(r, 0.5).Yaw()
		if math.Abs(qmWrap(s-c.slerpMid*qmDeg)) > 1e-9 {
			t.Errorf("%s: Slerp(t=0.5).Yaw() = %.6f°, want %g°", c.name, s/qmDeg, c.slerpMid)
		}
		if differ := math.Abs(qmWrap(got-s)) > 1e-6; differ != c.wrongArc {
			t.Errorf("%s: Euler and slerp midpoints differ = %v, want %v", c.name, differ, c.wrongArc)
		}
		for _, a := range []float64{0, 1} {
			if got, want := quatEulerLerp(q, r, a), []Quat{q, r}[int(a)]; !qmSameRotation(got, want, 1e-12) {
				t.Errorf("%s: quatEulerLerp(t=%g) = %v, want ±%v", c.name, a, got, want)
			}
		}
	}
}

// TestSlerpAcos checks the flattened Acos against math.Acos across [0, 1],
// including the branch points of its argument reduction.
func TestSlerpAcos(t *testing.T) {
	check := func(d float64) {
		if got, want := slerpAcos(d), math.Acos(d); math.Abs(got-want) > 2.3e-16 {
			t.Errorf("slerpAcos(%v) = %v, want %v", d, got, want)
		}
	}
	for i := 0; i <= 100000; i++ {
		check(float64(i) / 100000)
	}
	for _, d := range []float64{0, 0.7, math.Nextafter(0.7, 1), 0.55, 0.9, 0.383, 0.924, 1 - 1e-8, 1} {
		check(d)
	}
}

// TestSlerpWeights checks the polynomial sincos inside slerpPair.at
// against the textbook formula a·sin((1−t)θ)/sin θ + b·sin tθ/sin θ, for t
// in [0, 1] and, through math.Sincos, outside it.
func TestSlerpWeights(t *testing.T) {
	pairs := []struct{ q, r Quat }{
		{QuatFromYaw(0.3), QuatFromYaw(0.31)},
		{QuatFromYaw(-2), QuatFromYaw(2.5)},
		{QuatFromYaw(0), QuatFromYaw(math.Pi - 1e-9)},
		{qmAxisAngle(Vec3{1, 2, 3}, 2.5), qmAxisAngle(Vec3{-1, 0.5, 0.2}, -1)},
	}
	for _, c := range pairs {
		r := c.r
		d := c.q[0]*r[0] + c.q[1]*r[1] + c.q[2]*r[2] + c.q[3]*r[3]
		if d < 0 {
			r, d = Quat{-r[0], -r[1], -r[2], -r[3]}, -d
		}
		theta := math.Acos(d)
		for i := -5; i <= 25; i++ {
			a := float64(i) / 20
			wa, wb := math.Sin((1-a)*theta)/math.Sin(theta), math.Sin(a*theta)/math.Sin(theta)
			got := c.q.Slerp(c.r, a)
			for k := range got {
				if want := c.q[k]*wa + r[k]*wb; math.Abs(got[k]-want) > 1e-14 {
					t.Errorf("Slerp(%v, %v, t=%g)[%d] = %.17g, want %.17g", c.q, c.r, a, k, got[k], want)
				}
			}
		}
	}
}
