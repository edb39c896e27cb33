package epic

import (
	"testing"

	"interplab/engine/geom"
	"interplab/engine/param"
	"interplab/engine/technique"
)

func TestEPICTechniqueEmpty(t *testing.T) {
	s := param.Defaults(Params)
	for _, fix := range []bool{false, true} {
		got := newTech(&s, fix).Sample(3)
		if want := (technique.Sample{Mode: technique.Empty, Time: 3}); got != want {
			t.Errorf("fix %v: Sample(3) before any packet = %+v, want %+v", fix, got, want)
		}
	}
}

func TestEPICTechniqueSample(t *testing.T) {
	s := param.Defaults(Params)
	s.CalcAhead, s.DisplayBehind, s.SlopTime = 0.1, 0.2, 0.5
	first := technique.Snapshot{Time: 1, Pos: geom.Vec3{1, 0, 0}, Vel: geom.Vec3{2, 0, 0}, Rot: geom.QuatFromYaw(0.5)}
	second := technique.Snapshot{Time: 1.1, Pos: geom.Vec3{1.2, 1, 0}, Vel: geom.Vec3{2, 0, 0}, Rot: geom.QuatFromYaw(1)}
	older := technique.Snapshot{Time: 1.05, Pos: geom.Vec3{9, 9, 9}, Vel: geom.Vec3{9, 9, 9}, Rot: geom.QuatFromYaw(2)}

	tech := newTech(&s, false)
	tech.Receive(first, 1.05)
	tests := []struct {
		name    string
		receive []technique.Snapshot
		now     float64
		want    technique.Sample
	}{
		{"dead reckons the first snapshot", nil, 1.1,
			technique.Sample{Pos: geom.Vec3{1.2, 0, 0}, Rot: first.Rot, Mode: technique.Extrapolate, Time: 1.1, Newest: 1}},
		// The line starts at the last shown (1.2,0,0), timed from the packet
		// (1.1), towards (1.2,1,0)+(0.2,0,0) at 1.3: velocity (1,5,0).
		{"heads for the next packet", []technique.Snapshot{second}, 1.2,
			technique.Sample{Pos: geom.Vec3{1.3, 0.5, 0}, Rot: second.Rot, Mode: technique.Extrapolate, Time: 1.2, Newest: 1.1}},
		{"discards an older packet", []technique.Snapshot{older}, 1.3,
			technique.Sample{Pos: geom.Vec3{1.4, 1, 0}, Rot: second.Rot, Mode: technique.Extrapolate, Time: 1.3, Newest: 1.1}},
		{"freezes at slopTime past the newest packet", nil, 1.6,
			technique.Sample{Pos: geom.Vec3{1.4, 1, 0}, Rot: second.Rot, Mode: technique.Freeze, Time: 1.6, Newest: 1.1}},
	}
	for _, tt := range tests {
		for _, snap := range tt.receive {
			tech.Receive(snap, tt.now)
		}
		got := tech.Sample(tt.now)
		if !epicNear(got.Pos, tt.want.Pos) {
			t.Errorf("%s: Sample(%v).Pos = %v, want %v", tt.name, tt.now, got.Pos, tt.want.Pos)
		}
		got.Pos = tt.want.Pos
		if got != tt.want {
			t.Errorf("%s: Sample(%v) = %+v, want %+v", tt.name, tt.now, got, tt.want)
		}
	}
}

// TestEPICTechniqueIsEPIC checks that the adapter shows exactly what an
// EPIC[Vec3, float64] made from the first snapshot shows, for both variants.
func TestEPICTechniqueIsEPIC(t *testing.T) {
	s := param.Defaults(Params)
	for _, fix := range []bool{false, true} {
		tech := newTech(&s, fix)
		var e *Interpolator[geom.Vec3, float64]
		for frame := range 300 {
			now := float64(frame) / 60
			// A packet every third frame, sent 70 ms earlier, every fifth
			// one late by a frame.
			if frame%3 == 0 {
				sent := now - 0.07
				if frame%15 == 0 {
					sent -= 1.0 / 60
				}
				snap := technique.Snapshot{Time: sent, Pos: geom.Vec3{sent * 3, 1, 0}, Vel: geom.Vec3{3, 0, 0}}
				tech.Receive(snap, now)
				switch {
				case e == nil && fix:
					e = NewFix(Settings[float64]{s.CalcAhead, s.DisplayBehind, s.SlopTime}, snap.Pos, snap.Vel, snap.Time)
				case e == nil:
					e = New(Settings[float64]{s.CalcAhead, s.DisplayBehind, s.SlopTime}, snap.Pos, snap.Vel, snap.Time)
				default:
					e.Update(snap.Pos, snap.Vel, snap.Time)
				}
			}
			got := tech.Sample(now)
			want, _, ok := epicRead(e, now)
			if got.Pos != want || (got.Mode == technique.Extrapolate) != ok {
				t.Fatalf("fix %v, frame %d: Sample = %v %v, want EPIC's %v %v", fix, frame, got.Pos, got.Mode, want, ok)
			}
		}
	}
}

func TestEPICTechniqueFollowsSettings(t *testing.T) {
	s := param.Defaults(Params)
	s.SlopTime = 0.1
	tech := newTech(&s, false)
	tech.Receive(technique.Snapshot{Time: 0, Vel: geom.Vec3{1, 0, 0}}, 0)
	if got := tech.Sample(0.2).Mode; got != technique.Freeze {
		t.Errorf("Sample(0.2) with slopTime 0.1: mode %v, want freeze", got)
	}
	s.SlopTime = 0.5
	if got := tech.Sample(0.3); got.Mode != technique.Extrapolate || !epicNear(got.Pos, geom.Vec3{0.3, 0, 0}) {
		t.Errorf("Sample(0.3) after slopTime moved to 0.5 = %v %v, want extrapolate at [0.3 0 0]", got.Mode, got.Pos)
	}
	// calcAhead is read when a packet arrives: with calcAhead 0 the line
	// heads for the packet itself, reached displayBehind later.
	s.CalcAhead, s.DisplayBehind = 0, 0.1
	tech.Receive(technique.Snapshot{Time: 0.3, Pos: geom.Vec3{1, 0, 0}, Vel: geom.Vec3{5, 0, 0}}, 0.3)
	if got := tech.Sample(0.4); !epicNear(got.Pos, geom.Vec3{1, 0, 0}) {
		t.Errorf("Sample(0.4) with calcAhead 0 = %v, want the packet's [1 0 0]", got.Pos)
	}
}

func TestEPICTechniqueFixRemovesJump(t *testing.T) {
	s := param.Defaults(Params)
	s.CalcAhead, s.DisplayBehind = 0.1, 0.1
	// Still at the origin until a packet, timed 0.1 s before the display,
	// says it moves at 1 m/s: the seed times its line from the packet, so
	// the display jumps ahead by the line's velocity × 0.1 s; the variant
	// does not.
	shown := map[bool]geom.Vec3{}
	for _, fix := range []bool{false, true} {
		tech := newTech(&s, fix)
		tech.Receive(technique.Snapshot{Time: 0}, 0)
		tech.Sample(0.2)
		tech.Receive(technique.Snapshot{Time: 0.1, Pos: geom.Vec3{0, 0, 0}, Vel: geom.Vec3{1, 0, 0}}, 0.2)
		shown[fix] = tech.Sample(0.2).Pos
	}
	// The line: from (0,0,0) towards (0.1,0,0) in 0.1 s, velocity (1,0,0).
	if !epicNear(shown[true], geom.Vec3{}) || !epicNear(shown[false], geom.Vec3{0.1, 0, 0}) {
		t.Errorf("Sample right after the packet = %v (seed), %v (fix); want [0.1 0 0] and [0 0 0]", shown[false], shown[true])
	}
}
