package geom

import (
	"math"
	"testing"
)

func TestYaw(t *testing.T) {
	for _, yaw := range []float64{0, 0.3, -0.3, 1.5, math.Pi / 2, 3, -3, math.Pi - 1e-9} {
		q := QuatFromYaw(yaw)
		if got := q.Yaw(); math.Abs(got-yaw) > 1e-12 {
			t.Errorf("QuatFromYaw(%v).Yaw() = %v, want %v", yaw, got, yaw)
		}
	}
}

func TestHeading(t *testing.T) {
	for _, yaw := range []float64{0, 0.3, -2, math.Pi / 2, 3} {
		x, y := QuatFromYaw(yaw).Heading()
		if math.Abs(x-math.Cos(yaw)) > 1e-12 || math.Abs(y-math.Sin(yaw)) > 1e-12 {
			t.Errorf("QuatFromYaw(%v).heading() = %v, %v; want %v, %v", yaw, x, y, math.Cos(yaw), math.Sin(yaw))
		}
	}
}
