package unreal

import (
	"math"
	"testing"

	"interplab/engine/geom"
	"interplab/engine/param"
	"interplab/engine/technique"
)

// unrealUpdate is one replicated movement update: what the server sent
// (server time t, location x along X in m, velocity vx in m/s, yaw in
// degrees) and the local time it arrived.
type unrealUpdate struct {
	at, t, x, vx, yaw float64
}

// unrealReplay feeds the updates to a fresh unreal-cmc with settings s and
// samples it at every local frame time, applying first the updates that
// arrived by then; it returns the samples.
func unrealReplay(s *Settings, updates []unrealUpdate, frames []float64) []technique.Sample {
	tech := Def.One(s, nil)
	out := make([]technique.Sample, len(frames))
	next := 0
	for i, now := range frames {
		for ; next < len(updates) && updates[next].at <= now; next++ {
			u := updates[next]
			tech.Receive(technique.Snapshot{Time: u.t, Pos: geom.Vec3{u.x, 0, 0}, Vel: geom.Vec3{u.vx, 0, 0},
				Rot: geom.QuatFromYaw(u.yaw * math.Pi / 180)}, u.at)
		}
		out[i] = tech.Sample(now)
	}
	return out
}

// frameTimes returns n frames of dt seconds from dt.
func frameTimes(n int, dt float64) []float64 {
	f := make([]float64, n)
	for k := range f {
		f[k] = float64(k+1) * dt
	}
	return f
}

// rest is an update at time 0 putting the character at the origin, still.
var rest = unrealUpdate{}

// TestUnrealSmoothing pins the documented behaviours to numbers worked out
// by hand from the formulas in unrealCMC's doc: each want is the drawn X
// at each frame. Unless a row says otherwise the settings are Unreal's
// defaults (exponential, 100 ms, 256 cm, 384 cm).
func TestUnrealSmoothing(t *testing.T) {
	tests := []struct {
		name    string
		set     func(s *Settings)
		updates []unrealUpdate
		frames  []float64
		want    []float64
	}{
		// 1 m correction; at 60 Hz the offset keeps 1 − (1/60)/0.1 = 5/6
		// a frame: drawn = 1 − (5/6)^n.
		{name: "exponential decay at 60 Hz keeps 5/6 a frame",
			updates: []unrealUpdate{rest, {at: 0.005, t: 0.05, x: 1}},
			frames:  frameTimes(6, 1.0/60),
			want:    []float64{1.0 / 6, 0.3055555556, 0.4212962963, 0.5177469136, 0.5981224280, 0.6651020233}},
		// At 30 Hz: 1 − (1/30)/0.1 = 2/3 a frame.
		{name: "exponential decay at 30 Hz keeps 2/3 a frame",
			updates: []unrealUpdate{rest, {at: 0.005, t: 0.05, x: 1}},
			frames:  frameTimes(3, 1.0/30),
			want:    []float64{1.0 / 3, 5.0 / 9, 19.0 / 27}},
		{name: "exponential decay with a 200 ms smooth time keeps 11/12 at 60 Hz",
			set:     func(s *Settings) { s.NetworkSimulatedSmoothLocationTime = 0.2 },
			updates: []unrealUpdate{rest, {at: 0.005, t: 0.05, x: 1}},
			frames:  frameTimes(2, 1.0/60),
			want:    []float64{1.0 / 12, 1 - 121.0/144}},
		{name: "a frame as long as the smooth time snaps",
			set:     func(s *Settings) { s.NetworkSimulatedSmoothLocationTime = 1.0 / 60 },
			updates: []unrealUpdate{rest, {at: 0.005, t: 0.05, x: 1}},
			frames:  frameTimes(2, 1.0/60),
			want:    []float64{1, 1}},
		{name: "smooth time 0 snaps",
			set:     func(s *Settings) { s.NetworkSimulatedSmoothLocationTime = 0 },
			updates: []unrealUpdate{rest, {at: 0.005, t: 0.05, x: 1}},
			frames:  frameTimes(1, 1.0/60),
			want:    []float64{1}},
		{name: "disabled snaps the mesh to each update",
			set:     func(s *Settings) { s.NetworkSmoothingMode = "disabled" },
			updates: []unrealUpdate{rest, {at: 0.005, t: 0.05, x: 1}},
			frames:  frameTimes(2, 1.0/60),
			want:    []float64{1, 1}},
		// 385 cm > 384 cm: teleport, no offset.
		{name: "an update beyond the no-smooth distance teleports",
			updates: []unrealUpdate{rest, {at: 0.005, t: 0.05, x: 3.85}},
			frames:  frameTimes(2, 1.0/60),
			want:    []float64{3.85, 3.85}},
		// 383 cm: smoothed, the offset cut to 256 cm: 3.83 − 2.56·5/6.
		{name: "just within the no-smooth distance the offset is cut to the max smooth distance",
			updates: []unrealUpdate{rest, {at: 0.005, t: 0.05, x: 3.83}},
			frames:  frameTimes(2, 1.0/60),
			want:    []float64{3.83 - 2.56*5/6, 3.83 - 2.56*25/36}},
		{name: "an offset within the max smooth distance is kept whole",
			updates: []unrealUpdate{rest, {at: 0.005, t: 0.05, x: 2.5}},
			frames:  frameTimes(1, 1.0/60),
			want:    []float64{2.5 / 6}},
		{name: "the max smooth distance bounds the lag",
			set:     func(s *Settings) { s.NetworkMaxSmoothUpdateDistance = 100 },
			updates: []unrealUpdate{rest, {at: 0.005, t: 0.05, x: 3}},
			frames:  frameTimes(1, 1.0/60),
			want:    []float64{3 - 5.0/6}},
		{name: "a no-smooth distance of 1 m teleports a 1.5 m update",
			set:     func(s *Settings) { s.NetworkNoSmoothUpdateDistance = 100 },
			updates: []unrealUpdate{rest, {at: 0.005, t: 0.05, x: 1.5}},
			frames:  frameTimes(1, 1.0/60),
			want:    []float64{1.5}},
		// Linear: the offset goes from −1 m to 0 over the 0.1 s between the
		// updates' server times, whatever the smooth time.
		{name: "linear goes straight over the server interval",
			set:     func(s *Settings) { s.NetworkSmoothingMode = "linear" },
			updates: []unrealUpdate{rest, {at: 0.005, t: 0.1, x: 1}},
			frames:  frameTimes(5, 0.025),
			want:    []float64{0.25, 0.5, 0.75, 1, 1}},
		{name: "linear ignores the smooth time",
			set: func(s *Settings) {
				s.NetworkSmoothingMode, s.NetworkSimulatedSmoothLocationTime = "linear", 0.001
			},
			updates: []unrealUpdate{rest, {at: 0.005, t: 0.1, x: 1}},
			frames:  frameTimes(2, 0.025),
			want:    []float64{0.25, 0.5}},
		{name: "linear over a lost update takes twice as long",
			set:     func(s *Settings) { s.NetworkSmoothingMode = "linear" },
			updates: []unrealUpdate{rest, {at: 0.005, t: 0.2, x: 1}},
			frames:  frameTimes(4, 0.05),
			want:    []float64{0.25, 0.5, 0.75, 1}},
		{name: "linear teleports beyond the no-smooth distance",
			set:     func(s *Settings) { s.NetworkSmoothingMode = "linear" },
			updates: []unrealUpdate{rest, {at: 0.005, t: 0.1, x: 4}},
			frames:  frameTimes(1, 0.025),
			want:    []float64{4}},
		// Between updates the capsule moves with the replicated velocity.
		{name: "extrapolation with the replicated velocity",
			updates: []unrealUpdate{{vx: 2}},
			frames:  []float64{0, 0.05, 0.1, 0.15, 1},
			want:    []float64{0, 0.1, 0.2, 0.3, 2}},
		// At 0.1 s the capsule is at 0.1 and the update says 0.2: offset
		// −0.1 m, halved by each 50 ms frame while the capsule moves on.
		{name: "the capsule extrapolates under the decaying offset",
			updates: []unrealUpdate{{vx: 1}, {at: 0.12, t: 0.1, x: 0.2, vx: 1}},
			frames:  []float64{0, 0.05, 0.1, 0.15, 0.2},
			want:    []float64{0, 0.05, 0.1, 0.25 - 0.05, 0.3 - 0.025}},
		{name: "stale and duplicate updates are dropped",
			updates: []unrealUpdate{rest, {at: 0.005, t: 0.1, x: 1}, {at: 0.006, t: 0.05, x: 5}, {at: 0.007, t: 0.1, x: 9}},
			frames:  frameTimes(1, 1.0/60),
			want:    []float64{1.0 / 6}},
		// A second update while the first is still smoothing: the mesh
		// keeps its drawn place, 1/6 m, so the offset is 1/6 − 2.
		{name: "a new update restarts from the drawn location",
			updates: []unrealUpdate{rest, {at: 0.005, t: 0.05, x: 1}, {at: 0.02, t: 0.1, x: 2}},
			frames:  frameTimes(2, 1.0/60),
			want:    []float64{1.0 / 6, 2 + (1.0/6-2)*5/6}},
	}
	const tol = 1e-9
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := param.Defaults(Params)
			if tt.set != nil {
				tt.set(&s)
			}
			if err := unrealValidate(&s); err != nil {
				t.Fatal(err)
			}
			got := unrealReplay(&s, tt.updates, tt.frames)
			for i, smp := range got {
				if smp.Mode != technique.Extrapolate || math.Abs(smp.Pos[0]-tt.want[i]) > tol || smp.Pos[1] != 0 || smp.Pos[2] != 0 {
					t.Errorf("frame %d at %v s: pos, mode = %v, %v; want x %v, extrapolate", i, tt.frames[i], smp.Pos, smp.Mode, tt.want[i])
				}
			}
		})
	}
}

// TestUnrealRotation pins the rotation smoothing: a 90° turn blended by the
// fraction dt/NetworkSimulatedSmoothRotationTime a frame (exponential) or
// over the server interval (linear). A normalised lerp halfway between two
// yaws is their bisector exactly, so halving fractions give hand numbers.
func TestUnrealRotation(t *testing.T) {
	tests := []struct {
		name   string
		set    func(s *Settings)
		frames []float64
		want   []float64 // drawn yaw, degrees
	}{
		{name: "exponential rotation goes half way each 25 ms frame at 50 ms",
			frames: frameTimes(3, 0.025), want: []float64{45, 67.5, 78.75}},
		{name: "a frame as long as the rotation time snaps the rotation",
			set:    func(s *Settings) { s.NetworkSimulatedSmoothRotationTime = 0.025 },
			frames: frameTimes(1, 0.025), want: []float64{90}},
		{name: "linear rotation reaches the update over the server interval",
			set:    func(s *Settings) { s.NetworkSmoothingMode = "linear" },
			frames: frameTimes(3, 0.05), want: []float64{45, 90, 90}},
		{name: "disabled rotation snaps",
			set:    func(s *Settings) { s.NetworkSmoothingMode = "disabled" },
			frames: frameTimes(1, 0.025), want: []float64{90}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := param.Defaults(Params)
			if tt.set != nil {
				tt.set(&s)
			}
			got := unrealReplay(&s, []unrealUpdate{rest, {at: 0.001, t: 0.1, yaw: 90}}, tt.frames)
			for i, smp := range got {
				if yaw := smp.Rot.Yaw() * 180 / math.Pi; math.Abs(yaw-tt.want[i]) > 1e-9 {
					t.Errorf("frame %d: yaw = %v°, want %v°", i, yaw, tt.want[i])
				}
			}
		})
	}
}

// TestUnrealTablesCanFail shows that the tables above can fail: a knob
// nudged by 1% or a quirk dropped moves the drawn position by far more
// than their tolerance.
func TestUnrealTablesCanFail(t *testing.T) {
	updates := []unrealUpdate{rest, {at: 0.005, t: 0.05, x: 3.83}}
	frames := frameTimes(6, 1.0/60)
	base := param.Defaults(Params)
	ref := unrealReplay(&base, updates, frames)
	tests := []struct {
		name string
		set  func(s *Settings)
	}{
		{"smooth time 1% longer", func(s *Settings) { s.NetworkSimulatedSmoothLocationTime *= 1.01 }},
		{"max smooth distance 1 cm longer", func(s *Settings) { s.NetworkMaxSmoothUpdateDistance += 1 }},
		{"no teleport", func(s *Settings) { s.NetworkNoSmoothUpdateDistance = 300 }},
		{"linear instead of exponential", func(s *Settings) { s.NetworkSmoothingMode = "linear" }},
	}
	for _, tt := range tests {
		s := param.Defaults(Params)
		tt.set(&s)
		got := unrealReplay(&s, updates, frames)
		worst := 0.0
		for i := range got {
			worst = max(worst, math.Abs(got[i].Pos[0]-ref[i].Pos[0]))
		}
		if worst <= 1e-6 {
			t.Errorf("%s: largest change %g m, want beyond 1e-6 m", tt.name, worst)
		}
	}
}

// TestUnrealSampleFields checks what the timeline reads: Empty before any
// update; then Extrapolate, Newest the newest update's server time and
// Time that plus the local time ticked since, Depth and Delay 0.
func TestUnrealSampleFields(t *testing.T) {
	s := param.Defaults(Params)
	tech := Def.One(&s, nil)
	if got := tech.Sample(1); got.Mode != technique.Empty || got.Time != 1 {
		t.Errorf("before any update: %+v, want Empty at time 1", got)
	}
	tech.Receive(technique.Snapshot{Time: 50, Rot: geom.QuatIdentity}, 1.01)
	got := tech.Sample(1.05)
	if got.Mode != technique.Extrapolate || got.Newest != 50 || math.Abs(got.Time-50.05) > 1e-12 || got.Depth != 0 || got.Delay != 0 {
		t.Errorf("after an update: %+v, want extrapolate, newest 50, time 50.05", got)
	}
	if d := Def.Delay(&s, nil); d != 0 {
		t.Errorf("Def.Delay = %v, want 0", d)
	}
}

// TestUnrealFinite feeds degenerate settings and input (zero times and
// distances, repeated times, far jumps) and checks nothing turns NaN.
func TestUnrealFinite(t *testing.T) {
	for _, mode := range SmoothingModes {
		s := param.Defaults(Params)
		s.NetworkSmoothingMode = mode
		s.NetworkSimulatedSmoothLocationTime, s.NetworkSimulatedSmoothRotationTime = 0, 0
		s.NetworkMaxSmoothUpdateDistance, s.NetworkNoSmoothUpdateDistance = 0, 0
		updates := []unrealUpdate{rest, {at: 0, t: 0, x: 1}, {at: 0, t: 1e-12, x: 1e6, yaw: 180}, {at: 0.1, t: 0.1, x: -3, vx: 50, yaw: -180}}
		for _, smp := range unrealReplay(&s, updates, []float64{0, 0, 0.05, 0.1, 0.1, 0.2}) {
			if !smp.Pos.Finite() || math.IsNaN(smp.Rot[3]) {
				t.Errorf("%s: not finite: %+v", mode, smp)
			}
		}
	}
}

// unrealValidate checks s against the technique's rows.
func unrealValidate(s *Settings) error {
	for i := range Params {
		if p := &Params[i]; p.Check(p.Get(s)) != nil {
			return p.Check(p.Get(s))
		}
	}
	return nil
}
