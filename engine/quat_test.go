package engine

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

func TestFastAtan2(t *testing.T) {
	worst := 0.0
	for i := 0; i < 100000; i++ {
		a := float64(i) / 100000 * 2 * math.Pi
		for _, r := range []float64{1e-3, 1, 70} {
			y, x := r*math.Sin(a), r*math.Cos(a)
			d := math.Abs(fastAtan2(y, x) - math.Atan2(y, x))
			if d > math.Pi {
				d = 2*math.Pi - d // the same angle across ±π
			}
			worst = max(worst, d)
		}
	}
	if worst > 2e-5 {
		t.Errorf("fastAtan2 error up to %v rad, want below 2e-5", worst)
	}
	if got := fastAtan2(0, 0); got != 0 {
		t.Errorf("fastAtan2(0, 0) = %v, want 0", got)
	}
}
