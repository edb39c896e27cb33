package unreal

import (
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"interplab/engine/geom"
	"interplab/engine/param"
	"interplab/engine/technique"
)

// FuzzUnrealTechnique feeds fuzzed updates (the EPIC cases' packet format,
// seeded from them) to unreal-cmc with fuzzed settings, sampling frames
// after each, and checks its invariants: finite positions from sane input,
// the newest update's time never decreasing, and the mesh never drawn
// farther from the capsule than NetworkMaxSmoothUpdateDistance.
func FuzzUnrealTechnique(f *testing.F) {
	ins, _ := filepath.Glob(unrealFuzzSeeds)
	for i, in := range ins {
		f.Add(uint8(i%3), 0.1, 0.05, 256.0, 384.0, unrealFuzzSeed(f, in))
	}
	f.Fuzz(func(t *testing.T, mode uint8, loc, rot, maxD, noD float64, data []byte) {
		s := param.Defaults(Params)
		s.NetworkSmoothingMode = SmoothingModes[int(mode)%len(SmoothingModes)]
		s.NetworkSimulatedSmoothLocationTime, s.NetworkSimulatedSmoothRotationTime = loc, rot
		s.NetworkMaxSmoothUpdateDistance, s.NetworkNoSmoothUpdateDistance = maxD, noD
		if unrealValidate(&s) != nil {
			return
		}
		tech := &unrealCMC{s: &s}
		now, newest := 0.0, math.Inf(-1)
		for i := 0; len(data) >= 28 && i < 32; i, data = i+1, data[28:] {
			var p [7]float64 // position, velocity, time
			for k := range p {
				p[k] = float64(math.Float32frombits(binary.LittleEndian.Uint32(data[4*k:])))
			}
			for _, v := range p[:6] {
				if !(math.Abs(v) <= 1e4) { // finite, and within 10 km (per second)
					return
				}
			}
			if !(p[6] >= -10 && p[6] <= 100) {
				return
			}
			now = max(now, p[6]+float64(i%5)*0.04)
			tech.Receive(technique.Snapshot{Time: p[6], Pos: geom.Vec3{p[0], p[1], p[2]}, Vel: geom.Vec3{p[3], p[4], p[5]},
				Rot: geom.QuatFromYaw(p[0])}, now)
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

// unrealFuzzSeeds are the seed driver's packet streams, the EPIC golden
// cases: lines "x,y,z / x,y,z / t" until one that starts with q.
const unrealFuzzSeeds = "../epic/testdata/case-*.in"

// unrealFuzzSeed encodes a case's packets as the fuzz data: seven
// little-endian float32s each (position, velocity, time).
func unrealFuzzSeed(t testing.TB, path string) []byte {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []byte
	for line := range strings.Lines(string(data)) {
		if strings.HasPrefix(line, "q") {
			break
		}
		fields := strings.FieldsFunc(line, func(r rune) bool { return r == ',' || r == '/' || unicode.IsSpace(r) })
		if len(fields) != 7 {
			continue
		}
		var p [7]float32
		ok := true
		for k, f := range fields {
			v, err := strconv.ParseFloat(f, 32)
			p[k], ok = float32(v), ok && err == nil
		}
		for k := range p {
			if ok {
				out = binary.LittleEndian.AppendUint32(out, math.Float32bits(p[k]))
			}
		}
	}
	return out
}
