package engine

import (
	"math"
	"testing"
)

// TestLatencyFlatSameSums checks that the added latency's sums of a Sim of
// one entity come out to the bit whether a window on the ground leaves z
// out (accumulateLag1's flat case) or not: a twin told before every frame
// that its truth just left the ground takes every sum in three dimensions.
// Jumping entities take both cases in one run; the others only the flat.
func TestLatencyFlatSameSums(t *testing.T) {
	// At 30 frames a second the window has an odd number of candidates
	// (39), at 60 an even one (76).
	for _, rate := range []float64{60, 30} {
		for _, motion := range []string{"strafe", "jump"} {
			for _, stride := range []int{1, 8} {
				s := Defaults()
				s.Entities, s.Duration, s.Motion, s.RenderRate = 1, 60, motion, rate
				s.Latency, s.Jitter, s.JitterDist, s.Loss = 0.06, 0.03, "lognormal", 0.05
				s.Techniques = TechniqueNames
				flat, err := NewLeanSim(s)
				if err != nil {
					t.Fatal(err)
				}
				full, err := NewLeanSim(s)
				if err != nil {
					t.Fatal(err)
				}
				flat.SetLatencyStride(stride)
				full.SetLatencyStride(stride)
				offGround := false
				for range 3000 {
					full.lagZ = math.MaxInt / 2
					flat.StepFrames(1)
					full.StepFrames(1)
					offGround = offGround || flat.lagZ >= 0
				}
				if want := motion != "strafe"; offGround != want {
					t.Errorf("%s: truth off the ground = %v, want %v", motion, offGround, want)
				}
				for k := range flat.accs {
					a, b := &flat.accs[k], &full.accs[k]
					if a.lagFrames != b.lagFrames || a.lagFrames == 0 {
						t.Fatalf("%g fps, %s stride %d, %s: lagFrames = %d, want %d (and some)", rate, motion, stride, flat.techs[k], a.lagFrames, b.lagFrames)
					}
					for j := range a.lagSSE {
						if math.Float64bits(a.lagSSE[j]) != math.Float64bits(b.lagSSE[j]) {
							t.Fatalf("%g fps, %s stride %d, %s: sse[%d] = %v, want %v", rate, motion, stride, flat.techs[k], j, a.lagSSE[j], b.lagSSE[j])
						}
					}
				}
			}
		}
	}
}
