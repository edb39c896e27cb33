package engine

import (
	"math"
	"path/filepath"
	"testing"

	"interplab/engine/geom"
	"interplab/engine/technique"
)

// FuzzUnrealTechnique feeds fuzzed updates (the EPIC cases' packet format,
// seeded from them) to unreal-cmc with fuzzed settings, sampling frames
// after each, and checks its invariants: finite positions from sane input,
// the newest update's time never decreasing, and the mesh never drawn
// farther from the capsule than NetworkMaxSmoothUpdateDistance.
func FuzzUnrealTechnique(f *testing.F) {
	ins, _ := filepath.Glob("testdata/epic/case-*.in")
	for i, in := range ins {
		f.Add(uint8(i%3), 0.1, 0.05, 256.0, 384.0, epicFuzzEncode(epicReadCase(f, in)))
	}
	f.Fuzz(func(t *testing.T, mode uint8, loc, rot, maxD, noD float64, data []byte) {
		s := Defaults()
		s.NetworkSmoothingMode = UnrealSmoothingModes[int(mode)%len(UnrealSmoothingModes)]
		s.NetworkSimulatedSmoothLocationTime, s.NetworkSimulatedSmoothRotationTime = loc, rot
		s.NetworkMaxSmoothUpdateDistance, s.NetworkNoSmoothUpdateDistance = maxD, noD
		if s.Validate() != nil {
			return
		}
		tech := &unrealCMC{s: &s}
		now, newest := 0.0, math.Inf(-1)
		for i, p := range epicFuzzPackets(data, 32) {
			if !epicSane(p) {
				return
			}
			now = max(now, float64(p.t)+float64(i%5)*0.04)
			tech.Receive(technique.Snapshot{Time: float64(p.t),
				Pos: geom.Vec3{float64(p.pos[0]), float64(p.pos[1]), float64(p.pos[2])},
				Vel: geom.Vec3{float64(p.vel[0]), float64(p.vel[1]), float64(p.vel[2])},
				Rot: geom.QuatFromYaw(float64(p.pos[0]))}, now)
			for range 3 { // frames at 60 Hz
				got := tech.Sample(now)
				now += 1.0 / 60
				lag := got.Pos.Sub(tech.capsule).Len()
				switch {
				case got.Mode != technique.Extrapolate:
					t.Fatalf("Sample(%v).Mode = %v after an update", now, got.Mode)
				case got.Newest < newest:
					t.Fatalf("Sample(%v).Newest = %v after %v", now, got.Newest, newest)
				case !got.Pos.Finite() || math.IsNaN(got.Rot[3]):
					t.Fatalf("Sample(%v) = %+v from finite input", now, got)
				case lag > maxD/cmPerM*(1+1e-9)+1e-9:
					t.Fatalf("Sample(%v): mesh %v m from the capsule, more than the max smooth distance %v cm", now, lag, maxD)
				}
				newest = got.Newest
			}
		}
	})
}
