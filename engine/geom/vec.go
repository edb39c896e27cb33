package geom

import "math"

// Vec3 is a position, velocity or acceleration in metres (per second, per
// second squared). X and Y span the ground plane; Z is up.
//
// It is an array so that the generic EPIC interpolator can take it as its
// value type without method calls through a dictionary.
type Vec3 [3]float64

// Add returns a+b.
func (a Vec3) Add(b Vec3) Vec3 { return Vec3{a[0] + b[0], a[1] + b[1], a[2] + b[2]} }

// Sub returns a−b.
func (a Vec3) Sub(b Vec3) Vec3 { return Vec3{a[0] - b[0], a[1] - b[1], a[2] - b[2]} }

// Scale returns a·k. Each product is rounded (an explicit conversion), so
// that a sum it is inlined into is never fused into a multiply-add.
func (a Vec3) Scale(k float64) Vec3 {
	return Vec3{float64(a[0] * k), float64(a[1] * k), float64(a[2] * k)}
}

// Dot returns the dot product a·b.
func (a Vec3) Dot(b Vec3) float64 {
	// Each product rounded on its own: no fused multiply-add, so the same
	// bits on every platform.
	return float64(a[0]*b[0]) + float64(a[1]*b[1]) + float64(a[2]*b[2])
}

// LenSq returns the squared length of a; it needs no square root.
func (a Vec3) LenSq() float64 { return a.Dot(a) }

// Len returns the length of a.
func (a Vec3) Len() float64 { return math.Sqrt(a.LenSq()) }

// Lerp returns the point a fraction t of the way from a to b; t = 0 gives a,
// t = 1 gives b.
func (a Vec3) Lerp(b Vec3, t float64) Vec3 { return a.Add(b.Sub(a).Scale(t)) }

// Finite reports whether every component of a is neither NaN nor infinite.
func (a Vec3) Finite() bool {
	return Finite(a[0]) && Finite(a[1]) && Finite(a[2])
}

// Finite reports whether x is neither NaN nor infinite.
func Finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
