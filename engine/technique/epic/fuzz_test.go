package epic

import (
	"encoding/binary"
	"math"
	"path/filepath"
	"testing"

	"interplab/engine/geom"
	"interplab/engine/param"
	"interplab/engine/technique"
)

// epicFuzzPackets decodes fuzz data as packets of seven little-endian
// float32s (position, velocity, time), at most max of them.
func epicFuzzPackets(data []byte, max int) []epicPacket {
	var ps []epicPacket
	for len(data) >= 28 && len(ps) < max {
		var f [7]float32
		for i := range f {
			f[i] = math.Float32frombits(binary.LittleEndian.Uint32(data[4*i:]))
		}
		ps = append(ps, epicPacket{[3]float32{f[0], f[1], f[2]}, [3]float32{f[3], f[4], f[5]}, f[6]})
		data = data[28:]
	}
	return ps
}

func epicFuzzEncode(ps []epicPacket) []byte {
	var b []byte
	for _, p := range ps {
		for _, f := range [...]float32{p.pos[0], p.pos[1], p.pos[2], p.vel[0], p.vel[1], p.vel[2], p.t} {
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(f))
		}
	}
	return b
}

// epicFuzzSeeds adds each golden case to f's corpus twice, as the args
// (calcAhead, displayBehind, slopTime, fix, packets) with fix false and true.
func epicFuzzSeeds(f *testing.F) {
	ins, _ := filepath.Glob("testdata/case-*.in")
	for _, in := range ins {
		base := in[:len(in)-len(".in")]
		s, data := epicReadArgs(f, base+".args"), epicFuzzEncode(epicReadCase(f, in))
		for _, fix := range []bool{false, true} {
			f.Add(float64(s.CalcAhead), float64(s.DisplayBehind), float64(s.SlopTime), fix, data)
		}
	}
}

// epicSane reports whether a packet is finite and of a sane magnitude:
// positions and velocities within 10 km (per second), times within
// [−10, 100] s, so that the seed's driver loop stays short.
func epicSane(p epicPacket) bool {
	for i := range 3 {
		if !(math.Abs(float64(p.pos[i])) <= 1e4 && math.Abs(float64(p.vel[i])) <= 1e4) {
			return false
		}
	}
	return p.t >= -10 && p.t <= 100
}

// epicFuzzSettings maps any three numbers into the parameter table's
// ranges, so that every fuzz input exercises allowed settings.
func epicFuzzSettings(a, b, c float64) Settings[float64] {
	in := func(x float64, name string) float64 {
		p, _ := param.Find(Params, name)
		if x != x || math.IsInf(x, 0) {
			return p.Default
		}
		return p.Min + math.Mod(math.Abs(x), p.Max-p.Min)
	}
	return Settings[float64]{in(a, "calcAhead"), in(b, "displayBehind"), in(c, "slopTime")}
}

// FuzzEPIC runs the seed's driver loop over fuzzed packets and checks the
// invariants of both variants: no NaN or infinity out of sane finite input,
// a failed read holds the last position, a discarded packet changes
// nothing, and right after an update each variant continues from the last
// position shown (the variant at the last read time, the seed at the
// packet's time).
func FuzzEPIC(f *testing.F) {
	epicFuzzSeeds(f)
	f.Fuzz(func(t *testing.T, ca, db, slop float64, fix bool, data []byte) {
		s := epicFuzzSettings(ca, db, slop)
		packets := epicFuzzPackets(data, 32)
		sane := true
		for _, p := range packets {
			sane = sane && epicSane(p)
		}
		if !sane {
			// Anything goes in: it must not panic.
			e := New(Settings[float32]{float32(s.CalcAhead), float32(s.DisplayBehind), float32(s.SlopTime)}, [3]float32{}, [3]float32{}, -1)
			for _, p := range packets {
				e.Update(p.pos, p.vel, p.t)
				epicRead(e, p.t)
				epicRead(e, p.t+0.05)
			}
			return
		}
		newEPIC := New[geom.Vec3, float64]
		if fix {
			newEPIC = NewFix[geom.Vec3, float64]
		}
		e := newEPIC(s, geom.Vec3{}, geom.Vec3{}, -1)
		var now float64
		var shown geom.Vec3 // the last position a read returned
		var shownAt float64 = -1
		for _, p := range packets {
			pos := geom.Vec3{float64(p.pos[0]), float64(p.pos[1]), float64(p.pos[2])}
			vel := geom.Vec3{float64(p.vel[0]), float64(p.vel[1]), float64(p.vel[2])}
			tp := float64(p.t)
			before := *e
			if !e.Update(pos, vel, tp) {
				if *e != before {
					t.Fatalf("a discarded packet at %v changed the interpolator", tp)
				}
			} else if s.DisplayBehind >= 0.0001 {
				at := tp
				if fix {
					at = shownAt
				}
				probe := *e
				if got, _, _ := epicRead(&probe, at); got != shown {
					t.Fatalf("fix %v: right after the packet at %v, Read(%v) = %v, want the last shown %v", fix, tp, at, got, shown)
				}
			}
			for now < tp+0.15 {
				now += 0.05
				pos, vel, ok := epicRead(e, now)
				if !pos.Finite() || !vel.Finite() {
					t.Fatalf("Read(%v) = %v, %v from finite input", now, pos, vel)
				}
				if !ok && pos != shown {
					t.Fatalf("failed Read(%v) = %v, want the last shown %v", now, pos, shown)
				}
				if ok {
					shown, shownAt = pos, now
				}
			}
		}
	})
}

// FuzzEPICTechnique feeds fuzzed snapshots, each arriving some time after
// the last, to the EPIC techniques, sampling frames after each, and checks
// that the displayed time never runs backwards, the newest packet time
// never decreases, a frozen entity does not move, and sane finite input
// gives finite positions.
func FuzzEPICTechnique(f *testing.F) {
	epicFuzzSeeds(f)
	f.Fuzz(func(t *testing.T, ca, db, slop float64, fix bool, data []byte) {
		es := epicFuzzSettings(ca, db, slop)
		s := param.Defaults(Params)
		s.CalcAhead, s.DisplayBehind, s.SlopTime = es.CalcAhead, es.DisplayBehind, es.SlopTime
		tech := newTech(&s, fix)
		var now float64
		last := tech.Sample(now)
		for i, p := range epicFuzzPackets(data, 32) {
			if !epicSane(p) {
				return
			}
			// Arrival: a packet's time plus a latency in [0, 0.2) s, but
			// the client's clock never runs backwards.
			now = max(now, float64(p.t)+float64(i%5)*0.04)
			tech.Receive(technique.Snapshot{Time: float64(p.t),
				Pos: geom.Vec3{float64(p.pos[0]), float64(p.pos[1]), float64(p.pos[2])},
				Vel: geom.Vec3{float64(p.vel[0]), float64(p.vel[1]), float64(p.vel[2])}}, now)
			for range 3 { // frames at 60 Hz
				at := now
				now += 1.0 / 60
				got := tech.Sample(at)
				switch {
				case got.Time != at || got.Time < last.Time:
					t.Fatalf("Sample(%v).Time = %v after %v", at, got.Time, last.Time)
				case got.Mode == technique.Empty:
					t.Fatalf("Sample(%v) is empty after a packet", at)
				case got.Newest < last.Newest && last.Mode != technique.Empty:
					t.Fatalf("Sample(%v).Newest = %v after %v", at, got.Newest, last.Newest)
				case !got.Pos.Finite():
					t.Fatalf("Sample(%v).Pos = %v from finite input", at, got.Pos)
				case got.Mode == technique.Freeze && last.Mode == technique.Freeze && got.Pos != last.Pos:
					t.Fatalf("frozen entity moved from %v to %v at %v", last.Pos, got.Pos, at)
				}
				last = got
			}
		}
	})
}
