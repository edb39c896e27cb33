package buffer

import (
	"cmp"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"interplab/engine/geom"
	"interplab/engine/param"
	"interplab/engine/technique"
)

// bufPacket is a snapshot and the client time it arrives at.
type bufPacket struct {
	sn technique.Snapshot
	at float64
}

// sortByArrival puts packets in arrival order, stably: packets that
// arrive at the same time keep their send order.
func sortByArrival(ps []bufPacket) {
	slices.SortStableFunc(ps, func(a, b bufPacket) int { return cmp.Compare(a.at, b.at) })
}

// bufStream returns the snapshots of path sent every period s from 0 to end
// inclusive, arriving latency + jitter(i) after they were sent, in arrival
// order (a stable sort, so equal arrival times keep send order).
func bufStream(path func(t float64) technique.Snapshot, period, end, latency float64, jitter func(i int) float64) []bufPacket {
	var ps []bufPacket
	for i := 0; float64(i)*period <= end+1e-9; i++ {
		t := float64(i) * period
		at := t + latency
		if jitter != nil {
			at += jitter(i)
		}
		ps = append(ps, bufPacket{path(t), at})
	}
	sortByArrival(ps)
	return ps
}

// bufRun plays packets into tech and samples it every frame seconds from
// start to end, calling check with each frame's time and sample.
func bufRun(tech technique.Technique, ps []bufPacket, start, end, frame float64, check func(now float64, got technique.Sample)) {
	for k := 0; ; k++ {
		now := start + float64(k)*frame
		if now > end {
			return
		}
		for len(ps) > 0 && ps[0].at <= now {
			tech.Receive(ps[0].sn, ps[0].at)
			ps = ps[1:]
		}
		check(now, tech.Sample(now))
	}
}

// Motion paths: the truth the tests compare the display with.

func bufLinear(t float64) technique.Snapshot {
	v := geom.Vec3{3, -4, 0.5}
	const yawRate = 2.5 // rad/s: passes ±180° in a few seconds
	return technique.Snapshot{Time: t, Pos: geom.Vec3{1, 2, 0}.Add(v.Scale(t)), Vel: v, Rot: geom.QuatFromYaw(-1 + yawRate*t)}
}

func bufBallistic(t float64) technique.Snapshot {
	v0, g := geom.Vec3{2, 1, 6}, geom.Vec3{0, 0, -9.81}
	return technique.Snapshot{Time: t, Pos: v0.Scale(t).Add(g.Scale(t * t / 2)), Vel: v0.Add(g.Scale(t)), Rot: geom.QuatIdentity}
}

func bufCircle(t float64) technique.Snapshot {
	const r, w = 5, 1.4 // m, rad/s: 7 m/s
	s, c := math.Sincos(w * t)
	return technique.Snapshot{Time: t, Pos: geom.Vec3{r * c, r * s, 0}, Vel: geom.Vec3{-r * w * s, r * w * c, 0}, Rot: geom.QuatFromYaw(w*t + math.Pi/2)}
}

// bufLab is a buffer's settings and the Env of the run it is in.
type bufLab struct {
	Settings
	technique.Env
}

// bufSettings returns the lab's defaults (a 20 Hz send rate, a 7 m/s top
// speed), which tests then adjust.
func bufSettings() *bufLab {
	return &bufLab{param.Defaults(Params),
		technique.Env{SendRate: 20, TickRate: 60, RenderRate: 60, MaxSpeed: 7, Latency: 0.05, Jitter: 0.01}}
}

// newBufferIn returns the buffer technique for one entity of r.
func newBufferIn(r *bufLab, hermite bool) technique.Technique {
	return newBuffer(&r.Settings, &r.Env, hermite)
}

func bufDist(a, b geom.Vec3) float64 { return a.Sub(b).Len() }

// TestBufferLinearExact checks that with no jitter or loss both buffer and
// hermite reproduce straight-line motion at a steady turn rate exactly once
// two snapshots bracket the render time.
func TestBufferLinearExact(t *testing.T) {
	cases := []struct {
		name    string
		hermite bool
		latency float64 // one-way, s
		delay   float64 // s
	}{
		{name: "buffer", latency: 0.03, delay: 0.1},
		{name: "hermite", hermite: true, latency: 0.03, delay: 0.1},
		{name: "buffer, no latency, short delay", latency: 0, delay: 0.06},
		{name: "hermite, long delay", hermite: true, latency: 0.01, delay: 0.5},
	}
	for _, c := range cases {
		s := bufSettings()
		s.Delay = c.delay
		tech := newBufferIn(s, c.hermite)
		var frames, interpolated int
		bufRun(tech, bufStream(bufLinear, 0.05, 6, c.latency, nil), 0, 5.5, 1.0/60, func(now float64, got technique.Sample) {
			frames++
			if got.Time < 0 { // before the first snapshot: shown as is
				return
			}
			interpolated++
			if got.Mode != technique.Interpolate {
				t.Fatalf("%s: Sample(%g).Mode = %v, want interpolate", c.name, now, got.Mode)
			}
			want := bufLinear(got.Time)
			if d := bufDist(got.Pos, want.Pos); d > 1e-9 {
				t.Errorf("%s: Sample(%g).Pos = %v, want %v (off by %g)", c.name, now, got.Pos, want.Pos, d)
			}
			if !bufSameRotation(got.Rot, want.Rot, 1e-9) {
				t.Errorf("%s: Sample(%g).Rot = %v, want ±%v", c.name, now, got.Rot, want.Rot)
			}
		})
		if interpolated < frames/2 {
			t.Errorf("%s: %d of %d frames interpolated, want most", c.name, interpolated, frames)
		}
	}
}

// TestHermiteCurves checks that hermite follows curved paths far better
// than lerp: a ballistic arc (a quadratic) exactly, a circle to well under
// a hundredth of lerp's error.
func TestHermiteCurves(t *testing.T) {
	cases := []struct {
		name       string
		path       func(float64) technique.Snapshot
		hermiteMax float64 // largest allowed hermite error, m
		lerpMin    float64 // smallest expected worst lerp error, m
		ratio      float64 // lerp's worst error over hermite's, at least
	}{
		{name: "ballistic", path: bufBallistic, hermiteMax: 1e-9, lerpMin: 2e-3},
		{name: "circle", path: bufCircle, hermiteMax: 1e-6, lerpMin: 2e-3, ratio: 100},
	}
	for _, c := range cases {
		worst := [2]float64{}
		for i, hermite := range []bool{false, true} {
			tech := newBufferIn(bufSettings(), hermite)
			bufRun(tech, bufStream(c.path, 0.05, 3, 0.02, nil), 0.2, 2.5, 1.0/60, func(now float64, got technique.Sample) {
				if got.Mode != technique.Interpolate {
					t.Fatalf("%s: Sample(%g).Mode = %v, want interpolate", c.name, now, got.Mode)
				}
				worst[i] = max(worst[i], bufDist(got.Pos, c.path(got.Time).Pos))
			})
		}
		lerp, herm := worst[0], worst[1]
		if herm > c.hermiteMax {
			t.Errorf("%s: hermite's worst error = %g m, want ≤ %g", c.name, herm, c.hermiteMax)
		}
		if lerp < c.lerpMin {
			t.Errorf("%s: lerp's worst error = %g m, want ≥ %g (the test would not tell them apart)", c.name, lerp, c.lerpMin)
		}
		if c.ratio > 0 && lerp < c.ratio*herm {
			t.Errorf("%s: lerp error %g / hermite error %g = %g, want ≥ %g", c.name, lerp, herm, lerp/herm, c.ratio)
		}
	}
}

// TestBufferExtrapolation checks dead reckoning past the newest snapshot:
// along its velocity (clamped to maxSpeed when asked) for at most
// extrapolateCap, then frozen at the pose reached at the cap.
func TestBufferExtrapolation(t *testing.T) {
	cases := []struct {
		name     string
		vel      geom.Vec3
		clamp    bool
		maxSpeed float64
		cap      float64 // extrapolateCap, s
		ahead    float64 // render time − newest snapshot's time, s
		wantMode technique.Mode
		wantDisp geom.Vec3 // displacement from the newest snapshot
	}{
		{name: "at the newest", vel: geom.Vec3{2, 0, 0}, cap: 0.125, ahead: 0, wantMode: technique.Interpolate},
		{name: "within the cap", vel: geom.Vec3{2, 1, 0}, cap: 0.125, ahead: 0.1, wantMode: technique.Extrapolate, wantDisp: geom.Vec3{0.2, 0.1, 0}},
		{name: "at the cap", vel: geom.Vec3{2, 1, 0}, cap: 0.125, ahead: 0.125, wantMode: technique.Extrapolate, wantDisp: geom.Vec3{0.25, 0.125, 0}},
		{name: "past the cap", vel: geom.Vec3{2, 1, 0}, cap: 0.125, ahead: 0.2, wantMode: technique.Freeze, wantDisp: geom.Vec3{0.25, 0.125, 0}},
		{name: "far future", vel: geom.Vec3{2, 1, 0}, cap: 0.125, ahead: 1e6, wantMode: technique.Freeze, wantDisp: geom.Vec3{0.25, 0.125, 0}},
		{name: "no cap freezes at once", vel: geom.Vec3{2, 1, 0}, cap: 0, ahead: 0.05, wantMode: technique.Freeze},
		{name: "clamped", vel: geom.Vec3{30, 40, 0}, clamp: true, maxSpeed: 5, cap: 0.15, ahead: 0.1, wantMode: technique.Extrapolate, wantDisp: geom.Vec3{0.3, 0.4, 0}},
		{name: "clamped past the cap", vel: geom.Vec3{0, 0, -100}, clamp: true, maxSpeed: 7, cap: 0.25, ahead: 5, wantMode: technique.Freeze, wantDisp: geom.Vec3{0, 0, -1.75}},
		{name: "just over", vel: geom.Vec3{6, 8, 0}, clamp: true, maxSpeed: 7, cap: 0.15, ahead: 0.1, wantMode: technique.Extrapolate, wantDisp: geom.Vec3{0.42, 0.56, 0}},
		{name: "slow enough", vel: geom.Vec3{3, 0, 4}, clamp: true, maxSpeed: 5, cap: 0.15, ahead: 0.1, wantMode: technique.Extrapolate, wantDisp: geom.Vec3{0.3, 0, 0.4}},
		{name: "clamp off", vel: geom.Vec3{30, 40, 0}, maxSpeed: 5, cap: 0.15, ahead: 0.1, wantMode: technique.Extrapolate, wantDisp: geom.Vec3{3, 4, 0}},
	}
	for _, c := range cases {
		s := bufSettings()
		s.SpeedClamp, s.MaxSpeed, s.ExtrapolateCap = c.clamp, c.maxSpeed, c.cap
		s.Delay = 0.125 // exact in binary, so render times land where the table says
		tech := newBufferIn(s, false)
		last := technique.Snapshot{Time: 2, Pos: geom.Vec3{10, 20, 1}, Vel: c.vel, Rot: geom.QuatFromYaw(1)}
		tech.Receive(technique.Snapshot{Time: 1.95, Pos: last.Pos.Sub(c.vel.Scale(0.05)), Vel: c.vel, Rot: geom.QuatFromYaw(0.9)}, 1.97)
		tech.Receive(last, 2.02)
		got := tech.Sample(last.Time + c.ahead + s.Delay)
		if got.Mode != c.wantMode {
			t.Errorf("%s: Mode = %v, want %v", c.name, got.Mode, c.wantMode)
		}
		if want := last.Pos.Add(c.wantDisp); bufDist(got.Pos, want) > 1e-9 {
			t.Errorf("%s: Pos = %v, want %v", c.name, got.Pos, want)
		}
		if got.Rot != last.Rot {
			t.Errorf("%s: Rot = %v, want the newest snapshot's %v", c.name, got.Rot, last.Rot)
		}
		if got.Newest != last.Time || got.Depth != 0 {
			t.Errorf("%s: Newest, Depth = %g, %d, want %g, 0", c.name, got.Newest, got.Depth, last.Time)
		}
	}
}

// TestBufferIgnoresStale checks that late (out-of-order) and duplicate
// snapshots, even carrying wild poses, change nothing: not the display, not
// the adaptive delay.
func TestBufferIgnoresStale(t *testing.T) {
	for _, hermite := range []bool{false, true} {
		s := bufSettings()
		s.Adaptive = true
		rng := rand.New(rand.NewPCG(1, 2))
		clean := bufStream(bufCircle, 0.05, 4, 0.03, func(int) float64 { return 0.1 * rng.Float64() })
		// The noisy stream holds every packet of the clean one plus
		// copies of earlier snapshots with bogus poses, arriving later.
		var noisy []bufPacket
		newest := math.Inf(-1)
		for i, p := range clean {
			noisy = append(noisy, p)
			newest = max(newest, p.sn.Time)
			if p.sn.Time < newest || i%3 == 0 { // already late, or a deliberate duplicate
				continue
			}
			bogus := p.sn
			bogus.Pos, bogus.Vel, bogus.Rot = geom.Vec3{1e3, -1e3, 50}, geom.Vec3{1e3, 0, 0}, geom.QuatFromYaw(3)
			noisy = append(noisy, bufPacket{bogus, p.at})
			if i > 2 {
				older := clean[i-2].sn
				older.Pos = geom.Vec3{-1e3, 1e3, 0}
				noisy = append(noisy, bufPacket{older, p.at})
			}
		}
		if len(noisy) < len(clean)*3/2 {
			t.Fatalf("noisy stream has %d packets for %d clean, want many stale ones", len(noisy), len(clean))
		}
		var want []technique.Sample
		bufRun(newBufferIn(s, hermite), clean, 0, 4, 1.0/60, func(_ float64, got technique.Sample) { want = append(want, got) })
		k := 0
		bufRun(newBufferIn(s, hermite), noisy, 0, 4, 1.0/60, func(now float64, got technique.Sample) {
			if got != want[k] {
				t.Fatalf("hermite=%v: Sample(%g) with stale packets = %+v, want %+v", hermite, now, got, want[k])
			}
			k++
		})
	}
}

// TestBufferModes checks the mode sequence through an outage: nothing yet,
// interpolating, dry and dead-reckoning, frozen at the cap, and back to
// interpolating when snapshots return.
func TestBufferModes(t *testing.T) {
	s := bufSettings() // delay 0.1 s, extrapolateCap 0.15 s
	var ps []bufPacket
	for _, p := range bufStream(bufLinear, 0.05, 3, 0.02, nil) {
		if p.sn.Time <= 1 || p.sn.Time >= 1.5 { // an outage from 1 s to 1.5 s
			ps = append(ps, p)
		}
	}
	var modes []technique.Mode
	bufRun(newBufferIn(s, false), ps, -0.1, 2, 1.0/60, func(now float64, got technique.Sample) {
		if len(modes) == 0 || modes[len(modes)-1] != got.Mode {
			modes = append(modes, got.Mode)
		}
		ahead := got.Time - got.Newest
		switch {
		case got.Mode == technique.Extrapolate && !(ahead > 0 && ahead <= s.ExtrapolateCap):
			t.Errorf("Sample(%g) extrapolates %g s past the newest, want (0, %g]", now, ahead, s.ExtrapolateCap)
		case got.Mode == technique.Freeze && !(ahead > s.ExtrapolateCap):
			t.Errorf("Sample(%g) froze %g s past the newest, want past %g", now, ahead, s.ExtrapolateCap)
		}
	})
	want := []technique.Mode{technique.Empty, technique.Interpolate, technique.Extrapolate, technique.Freeze, technique.Interpolate}
	if !slices.Equal(modes, want) {
		t.Errorf("modes = %v, want %v", modes, want)
	}
}

// TestBufferStart checks the display before two snapshots bracket the
// render time: nothing, then the first snapshot as it is, then dead
// reckoning from it.
func TestBufferStart(t *testing.T) {
	first := technique.Snapshot{Time: 1, Pos: geom.Vec3{1, 1, 0}, Vel: geom.Vec3{1, 0, 0}, Rot: geom.QuatFromYaw(0.5)}
	cases := []struct {
		name      string
		receive   bool
		rt        float64 // render time sampled
		wantMode  technique.Mode
		wantPos   geom.Vec3
		wantDepth int
	}{
		{name: "nothing", rt: 0.5, wantMode: technique.Empty},
		{name: "before the first", receive: true, rt: 0.5, wantMode: technique.Interpolate, wantPos: first.Pos, wantDepth: 1},
		{name: "at the first", receive: true, rt: 1, wantMode: technique.Interpolate, wantPos: first.Pos},
		{name: "after the first", receive: true, rt: 1.1, wantMode: technique.Extrapolate, wantPos: geom.Vec3{1.1, 1, 0}},
	}
	for _, c := range cases {
		s := bufSettings()
		tech := newBufferIn(s, false)
		if c.receive {
			tech.Receive(first, 0.5)
		}
		got := tech.Sample(c.rt + s.Delay)
		if got.Mode != c.wantMode || bufDist(got.Pos, c.wantPos) > 1e-12 || got.Depth != c.wantDepth {
			t.Errorf("%s: Sample = %v at %v depth %d, want %v at %v depth %d",
				c.name, got.Mode, got.Pos, got.Depth, c.wantMode, c.wantPos, c.wantDepth)
		}
		if math.Abs(got.Time-c.rt) > 1e-12 || got.Delay != s.Delay {
			t.Errorf("%s: Time, Delay = %g, %g, want %g, %g", c.name, got.Time, got.Delay, c.rt, s.Delay)
		}
		if c.wantMode == technique.Empty && (got.Pos != geom.Vec3{} || got.Rot != geom.Quat{} || got.Newest != 0) {
			t.Errorf("%s: empty Sample = %+v, want a zero pose", c.name, got)
		}
	}
}

// TestBufferDepth checks Depth (snapshots newer than the render time) and
// Newest against a count over everything received.
func TestBufferDepth(t *testing.T) {
	cases := []struct {
		name      string
		rt        float64
		wantDepth int
	}{
		{name: "before all", rt: -0.5, wantDepth: 21},
		{name: "at the first", rt: 0, wantDepth: 20},
		{name: "between", rt: 8.5 / 16, wantDepth: 12},
		{name: "on a snapshot", rt: 0.5, wantDepth: 12},
		{name: "at the newest", rt: 1.25, wantDepth: 0},
		{name: "past the newest", rt: 1.5, wantDepth: 0},
	}
	for _, c := range cases {
		s := bufSettings()
		s.Delay = 0.125 // times here are exact in binary
		tech := newBufferIn(s, false)
		for i := 0; i <= 20; i++ { // 21 snapshots, more than the ring starts with
			tech.Receive(bufLinear(float64(i)/16), 0)
		}
		got := tech.Sample(c.rt + s.Delay)
		if got.Depth != c.wantDepth || got.Newest != 1.25 {
			t.Errorf("%s: Depth, Newest = %d, %g, want %d, 1.25", c.name, got.Depth, got.Newest, c.wantDepth)
		}
	}
}

// TestBufferRing checks that the ring grows when a long delay at a high send
// rate needs it, stays exact while doing so, and when overfilled drops the
// oldest snapshots without harm.
func TestBufferRing(t *testing.T) {
	s := bufSettings()
	tech := newBufferIn(s, false).(*bufTech)
	if got := len(tech.ring); got != bufMinRing {
		t.Fatalf("len(ring) at the defaults = %d, want %d", got, bufMinRing)
	}
	s.Delay = 0.5 // slider moved after the start: 0.5 s at 128 Hz needs 65 snapshots
	bufRun(tech, bufStream(bufLinear, 1.0/128, 4, 0.01, nil), 0.02, 3.5, 1.0/60, func(now float64, got technique.Sample) {
		if got.Mode != technique.Interpolate {
			t.Fatalf("Sample(%g).Mode = %v, want interpolate", now, got.Mode)
		}
		if got.Time >= 0 {
			if want := bufLinear(got.Time).Pos; bufDist(got.Pos, want) > 1e-9 {
				t.Errorf("Sample(%g).Pos = %v, want %v", now, got.Pos, want)
			}
		}
	})
	if got := len(tech.ring); got != 128 {
		t.Errorf("len(ring) after 0.5 s at 128 Hz = %d, want 128", got)
	}

	over := newBufferIn(bufSettings(), false).(*bufTech)
	for i := range 1000 {
		over.Receive(bufLinear(float64(i)*0.01), 0)
	}
	if got := len(over.ring); got != bufMaxRing {
		t.Errorf("len(ring) after 1000 unsampled snapshots = %d, want %d", got, bufMaxRing)
	}
	got := over.Sample(9 + 0.005 + 0.1) // render time 9.005: among the 256 newest
	if want := bufLinear(9.005).Pos; got.Mode != technique.Interpolate || bufDist(got.Pos, want) > 1e-9 || got.Depth != 99 {
		t.Errorf("overfilled Sample = %v at %v depth %d, want interpolate at %v depth 99", got.Mode, got.Pos, got.Depth, want)
	}
}

// TestBufferSettingsLive checks that settings are read on every Sample:
// switching rotation blends the very next frame, between the same two
// snapshots.
func TestBufferSettingsLive(t *testing.T) {
	s := bufSettings()
	tech := newBufferIn(s, false)
	tech.Receive(technique.Snapshot{Time: 0, Rot: geom.QuatFromYaw(160 * bufDeg)}, 0)
	tech.Receive(technique.Snapshot{Time: 0.1, Rot: geom.QuatFromYaw(-170 * bufDeg)}, 0.1)
	tech.Receive(technique.Snapshot{Time: 0.2, Rot: geom.QuatFromYaw(-150 * bufDeg)}, 0.2)
	steps := []struct {
		rotation string
		wantYaw  float64 // degrees at render time 0.05
	}{
		{"euler", -5}, {"slerp", 175}, {"euler", -5}, {"slerp", 175},
	}
	for _, st := range steps {
		s.Rotation = st.rotation
		got := tech.Sample(0.15).Rot.Yaw()
		if math.Abs(bufWrap(got-st.wantYaw*bufDeg)) > 1e-9 {
			t.Errorf("rotation %s: yaw = %g°, want %g°", st.rotation, got/bufDeg, st.wantYaw)
		}
	}
}

const bufDeg = math.Pi / 180

// bufSameRotation reports whether q and r are the same rotation (q = ±r)
// within tol per component.
func bufSameRotation(q, r geom.Quat, tol float64) bool {
	plus, minus := true, true
	for i := range q {
		plus = plus && math.Abs(q[i]-r[i]) <= tol
		minus = minus && math.Abs(q[i]+r[i]) <= tol
	}
	return plus || minus
}

// bufWrap returns x wrapped to (−π, π].
func bufWrap(x float64) float64 {
	x = math.Mod(x+math.Pi, 2*math.Pi)
	if x <= 0 {
		x += 2 * math.Pi
	}
	return x - math.Pi
}

// TestSampleKeepsEveryField checks that put, which writes a Sample field by
// field, writes every field of the frame's common part but Pos and Rot: a
// field added to technique.Sample must be added there too.
func TestSampleKeepsEveryField(t *testing.T) {
	lab := bufSettings()
	b := newBufBatch(&lab.Settings, &lab.Env, false, 1)
	c := reflect.ValueOf(&b.common).Elem()
	for i := range c.NumField() {
		f := c.Field(i)
		switch f.Kind() {
		case reflect.Float64:
			f.SetFloat(float64(i) + 0.5)
		case reflect.Int:
			f.SetInt(int64(i) + 1)
		case reflect.Uint8:
			f.SetUint(uint64(i) + 1)
		case reflect.Bool:
			f.SetBool(true)
		case reflect.Array: // Pos and Rot, replaced
		default:
			t.Fatalf("technique.Sample.%s is a %s: teach this test to set it", c.Type().Field(i).Name, f.Kind())
		}
	}
	pos, rot := geom.Vec3{1, 2, 3}, geom.Quat{0, 0, 0.6, 0.8}
	want := b.common
	want.Pos, want.Rot = pos, rot
	// got starts as anything but want: a field put does not write stays so.
	got := technique.Sample{Mode: technique.Freeze, Idle: false, Time: -1, Newest: -2, Depth: -3, Delay: -4}
	if b.put(&got, pos[0], pos[1], pos[2], rot[0], rot[1], rot[2], rot[3]); got != want {
		t.Errorf("put(%v, %v) = %+v, want %+v", pos, rot, got, want)
	}
}
