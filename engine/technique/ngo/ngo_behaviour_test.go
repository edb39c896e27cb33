package ngo

import (
	"math"
	"testing"

	"interplab/engine/geom"
	"interplab/engine/param"
)

// The behaviours of NGO 2.1.1 that golden/peers/README.md lists, one test
// each, on the client code the technique and NGOCase share.

func ngoDefaults() ngoConst {
	s := param.Defaults(Params)
	return newNGOConst(&s)
}

func TestNGOTickIntervalIsFloat32Widened(t *testing.T) {
	tests := []struct {
		rate int
		want float64
	}{
		{30, 0.03333333507180214},
		{60, 0.01666666753590107},
		{20, 0.05000000074505806},
	}
	for _, tt := range tests {
		if got := ngoTickInterval(tt.rate); got != tt.want {
			t.Errorf("ngoTickInterval(%d) = %v, want %v", tt.rate, got, tt.want)
		}
	}
}

// approved returns a client approved at tick 3000 (100 s at 30 ticks/s).
func approved(k *ngoConst) *ngoClient {
	var cl ngoClient
	cl.approve(3000, k)
	return &cl
}

func TestNGOApprovalPutsServerTimeServerBufferBehind(t *testing.T) {
	k := ngoDefaults()
	cl := approved(&k)
	want := 3000*k.tickInterval - 0.05000000074505806
	if got := cl.time.serverTime(); math.Abs(got-want) > 1e-12 {
		t.Errorf("ServerTime after approval = %.12f, want %.12f (tick time − 0.05f)", got, want)
	}
	wantLocal := 3000*k.tickInterval + 0.15000000596046448 + 0.0333333
	if got := cl.time.localTime(); math.Abs(got-wantLocal) > 1e-12 {
		t.Errorf("LocalTime after approval = %.12f, want %.12f (tick time + approval RTT + localBufferSec)", got, wantLocal)
	}
}

func TestNGOSlewIsBangBangOnePercent(t *testing.T) {
	k := ngoDefaults()
	cl := approved(&k)
	const dt = float32(1.0 / 60)
	step := float64(float64(dt) * 0.01)
	// On target, the offset steps down; below it, up: it dithers by one step.
	var offs []float64
	for range 6 {
		cl.frame(dt, 0.15000000596046448, &k)
		offs = append(offs, cl.time.serverOff)
	}
	for i, o := range offs {
		want := -step
		if i%2 == 1 {
			want = 0
		}
		if math.Abs(o-want) > 1e-15 {
			t.Errorf("server offset after frame %d = %g, want %g", i, o, want)
		}
	}
}

func TestNGORTTOnlyMovesLocalTime(t *testing.T) {
	k := ngoDefaults()
	a, b := approved(&k), approved(&k)
	for range 120 {
		a.frame(1.0/60, 0.1, &k)
		b.frame(1.0/60, 0.25, &k)
	}
	if a.server != b.server {
		t.Errorf("ServerTime with RTT 0.1 = %v, with 0.25 = %v; want equal", a.server, b.server)
	}
	if d := b.time.localTime() - a.time.localTime(); !(d > 0.01) {
		t.Errorf("LocalTime(RTT 0.25) − LocalTime(RTT 0.1) = %g, want it to lead", d)
	}
}

func TestNGOHardResetBeyondThreshold(t *testing.T) {
	tests := []struct {
		name      string
		jump      float64 // how far the TimeSync is ahead of the current sync, s
		wantReset bool
	}{
		{"0.15 s slews", 0.15, false},
		{"0.3 s jumps", 0.3, true},
		{"-0.3 s jumps back", -0.3, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k := ngoDefaults()
			cl := approved(&k)
			cl.frame(1.0/60, 0.15000000596046448, &k)
			before := cl.server
			ticks := int64(math.Round(tt.jump * 30))
			cl.timeSync(3000+ticks, 0.15000000596046448, &k)
			cl.frame(1.0/60, 0.15000000596046448, &k)
			if cl.reset != tt.wantReset {
				t.Errorf("reset = %v, want %v", cl.reset, tt.wantReset)
			}
			// The sync is at the approval tick + the jump, one frame after
			// the approval's: it moves ServerTime by the jump less a frame.
			step := cl.server - before - 1.0/60
			want := float64(ticks)*k.tickInterval - 1.0/60
			if tt.wantReset && math.Abs(step-want) > 0.001 {
				t.Errorf("ServerTime stepped %g s, want about %g", step, want)
			}
			if !tt.wantReset && math.Abs(step) > 0.001 {
				t.Errorf("ServerTime stepped %g s, want a slew of at most 1%% of the frame", step)
			}
		})
	}
}

func TestNGOFirstRTTFarFromApprovalRTTResets(t *testing.T) {
	k := ngoDefaults()
	cl := approved(&k)
	cl.frame(1.0/60, 0.5, &k) // LocalTime's target moves 0.35 s: beyond 0.2 s
	if cl.reset {
		t.Fatal("the frame that first sees the RTT reset; want the next (the target moves after Advance)")
	}
	cl.frame(1.0/60, 0.5, &k)
	if !cl.reset {
		t.Error("a first RTT 0.35 s above approvalRttSec did not hard-reset")
	}
}

// lerpAt returns an interpolator that consumed a first state at time end.
func lerpAt(k *ngoConst, end float64, pos vec32) *ngoLerp {
	var l ngoLerp
	l.resetTo(vec32{}, geom.QuatIdentity)
	l.add(ngoItem{time: end, pos: pos})
	l.update(0, end, end, k, false)
	return &l
}

func TestNGOLateStatesAreDropped(t *testing.T) {
	k := ngoDefaults()
	l := lerpAt(&k, 10, vec32{1, 0, 0})
	l.add(ngoItem{time: 10, pos: vec32{2, 0, 0}})
	l.add(ngoItem{time: 9.9, pos: vec32{3, 0, 0}})
	if len(l.buf) != 0 {
		t.Errorf("buffered %d states not after the segment end, want 0", len(l.buf))
	}
	l.add(ngoItem{time: 10.1, pos: vec32{4, 0, 0}})
	if len(l.buf) != 1 {
		t.Errorf("buffered %d states after the segment end, want 1", len(l.buf))
	}
}

func TestNGOConsumesOnlyWhenRenderReachesSegmentEnd(t *testing.T) {
	k := ngoDefaults()
	l := lerpAt(&k, 10, vec32{1, 0, 0})
	l.add(ngoItem{time: 10.1, pos: vec32{2, 0, 0}})
	l.update(0, 9.99, 11, &k, false)
	if len(l.buf) != 1 || l.end != 10 {
		t.Errorf("render before the end: buffered %d, end %v; want 1, 10 (nothing consumed)", len(l.buf), l.end)
	}
	l.update(0, 10, 11, &k, false)
	if len(l.buf) != 0 || l.end != 10.1 {
		t.Errorf("render at the end: buffered %d, end %v; want 0, 10.1", len(l.buf), l.end)
	}
}

func TestNGOConsumesEveryStateUpToServerTime(t *testing.T) {
	k := ngoDefaults()
	l := lerpAt(&k, 10, vec32{})
	for i := 1; i <= 4; i++ {
		l.add(ngoItem{time: 10 + float64(i)/30, pos: vec32{float32(i), 0, 0}})
	}
	l.update(0, 10, 10+3.0/30, &k, false) // ServerTime reaches the third state
	if l.start != 10 || l.end != 10+3.0/30 || l.to != (vec32{3, 0, 0}) || len(l.buf) != 1 {
		t.Errorf("segment [%v, %v] to %v, %d left; want [10, 10.1] to {3 0 0}, 1 left (states 1 and 2 skipped)",
			l.start, l.end, l.to, len(l.buf))
	}
}

// TestNGOCutsCornersAtTurns drives a 180° turn through the client: the
// state at the turning point falls inside a consumed group and is never
// shown.
func TestNGOCutsCornersAtTurns(t *testing.T) {
	k := ngoDefaults()
	var x ngoTransform
	x.spawn(vec32{}, geom.QuatIdentity)
	ti := k.tickInterval
	path := []float32{0, 1, 2, 3, 4, 5, 4, 3, 2, 1, 0, 0, 0, 0} // out to 5 and back, one state a tick
	most := float32(0)
	for f := 0; f < 60; f++ {
		server := float64(f) / 60
		for i, p := range path {
			if tm := float64(i) * ti; tm <= server && tm > server-1.0/60 {
				x.state(int64(i), vec32{p, 0, 0}, [3]bool{true, true, true}, false, geom.QuatIdentity, &k)
			}
		}
		x.lerp.update(1.0/60, server-2*ti, server, &k, false)
		most = max(most, x.lerp.from[0], x.lerp.to[0])
	}
	if most >= 5 {
		t.Errorf("the segments reached x = %v, want the turning point 5 cut", most)
	}
}

func TestNGONeverExtrapolatesADryBufferHolds(t *testing.T) {
	k := ngoDefaults()
	l := lerpAt(&k, 10, vec32{})
	l.add(ngoItem{time: 10.1, pos: vec32{1, 0, 0}})
	for f := 0; f < 120; f++ {
		l.update(1.0/60, 10+float64(f)/60, 10.2+float64(f)/60, &k, false)
		if l.cur[0] > 1 {
			t.Fatalf("frame %d: x = %v, beyond the newest state 1", f, l.cur[0])
		}
	}
	if l.cur[0] < 0.9999 {
		t.Errorf("after 2 s dry: x = %v, want it settled on the newest state 1", l.cur[0])
	}
}

func TestNGOSecondStageSmoothing(t *testing.T) {
	k := ngoDefaults()
	tests := []struct {
		name string
		dt   float32
		want float32
	}{
		{"one 60 fps frame moves dt/0.1", 1.0 / 60, float32(1.0/60) / float32(0.1)},
		{"a hitch of 0.1 s snaps", 0.1, 1},
		{"a 0.5 s hitch snaps (deltaTime capped at 1/3 s)", k.deltaTime(0.5), 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := lerpAt(&k, 10, vec32{})
			l.add(ngoItem{time: 10.1, pos: vec32{1, 0, 0}})
			l.update(tt.dt, 10.1, 10.1, &k, false) // target: the new state
			if math.Abs(float64(l.cur[0]-tt.want)) > 1e-6 {
				t.Errorf("x = %v, want %v", l.cur[0], tt.want)
			}
		})
	}
	if got := k.deltaTime(0.5); got != float32(1.0/3) {
		t.Errorf("deltaTime(0.5) = %v, want maximumDeltaTime 1/3f", got)
	}
}

func TestNGOSpawnMakesTheFirstSegmentANearSnap(t *testing.T) {
	k := ngoDefaults()
	var l ngoLerp
	l.resetTo(vec32{}, geom.QuatIdentity)
	l.add(ngoItem{time: 100, pos: vec32{1, 0, 0}})
	tt := l.update(0, 99.95, 100, &k, false)
	if l.start != 0 || tt < 0.999 {
		t.Errorf("first segment from %v with t = %v, want from 0 with t ≈ 1", l.start, tt)
	}
}

// TestNGOFloat32TimeStepsAfterLongUptime: t is computed from float32 times,
// which step by 0.49 ms after 4096 s of server uptime.
func TestNGOFloat32TimeStepsAfterLongUptime(t *testing.T) {
	k := ngoDefaults()
	tests := []struct {
		uptime   float64
		maxSteps int // distinct values of t over a 2-tick segment sampled every 0.1 ms
	}{
		{100, 10000},
		{5000, 140},
	}
	for _, tt := range tests {
		l := lerpAt(&k, tt.uptime, vec32{})
		end := tt.uptime + 2*k.tickInterval
		l.add(ngoItem{time: end, pos: vec32{1, 0, 0}})
		l.update(0, tt.uptime, end, &k, false)
		seen := map[float32]bool{}
		for r := tt.uptime; r < end; r += 1e-4 {
			seen[l.update(0, r, end, &k, false)] = true
		}
		if tt.uptime > 4096 && len(seen) > tt.maxSteps {
			t.Errorf("uptime %v s: %d distinct t, want at most %d (float32 steps)", tt.uptime, len(seen), tt.maxSteps)
		}
		if tt.uptime < 4096 && len(seen) < 500 {
			t.Errorf("uptime %v s: %d distinct t, want a smooth t", tt.uptime, len(seen))
		}
	}
}

func TestNGOBackwardJumpClampsTToZero(t *testing.T) {
	k := ngoDefaults()
	l := lerpAt(&k, 10, vec32{1, 0, 0})
	l.add(ngoItem{time: 10.1, pos: vec32{2, 0, 0}})
	l.update(0, 10, 10.1, &k, false)
	if got := l.update(0, 9.5, 9.7, &k, false); got != 0 {
		t.Errorf("t after the render time jumped before the segment = %v, want 0", got)
	}
}

func TestNGOOver100StatesInAFrameReset(t *testing.T) {
	k := ngoDefaults()
	l := lerpAt(&k, 10, vec32{})
	for i := 1; i <= 101; i++ {
		l.add(ngoItem{time: 10 + float64(i)/60, pos: vec32{float32(i), 0, 0}})
	}
	if l.cur != (vec32{101, 0, 0}) || len(l.buf) != 0 || l.end != 0 {
		t.Errorf("after 101 states: shown %v, buffered %d, end %v; want the newest at once, empty, 0", l.cur, len(l.buf), l.end)
	}
}

func TestNGONullAxesKeepTheTarget(t *testing.T) {
	k := ngoDefaults()
	var x ngoTransform
	x.spawn(vec32{1, 2, 3}, geom.QuatIdentity)
	x.state(5, vec32{7, 0, 0}, [3]bool{true, false, false}, false, geom.QuatIdentity, &k)
	if len(x.lerp.buf) != 1 || x.lerp.buf[0].pos != (vec32{7, 2, 3}) {
		t.Errorf("buffered %v, want one state at {7 2 3}", x.lerp.buf)
	}
	x.state(6, vec32{}, [3]bool{}, false, geom.QuatIdentity, &k)
	if len(x.lerp.buf) != 1 {
		t.Errorf("a state with no axis added one: %d buffered, want 1", len(x.lerp.buf))
	}
}

func TestNGOUnreliableDeltasDropOlderThanPreviousInbound(t *testing.T) {
	tests := []struct {
		name       string
		unreliable bool
		ticks      []int64
		frameSync  []bool
		want       []int64 // ticks buffered
	}{
		{"reliable keeps every state", false, []int64{10, 8, 9}, nil, []int64{10, 8, 9}},
		{"older than the previous is dropped", true, []int64{10, 8}, nil, []int64{10}},
		{"the previous counts even if it was dropped", true, []int64{10, 8, 9}, nil, []int64{10, 9}},
		{"a frame sync is never dropped", true, []int64{10, 8}, []bool{false, true}, []int64{10, 8}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k := ngoDefaults()
			k.unreliable = tt.unreliable
			var x ngoTransform
			x.spawn(vec32{}, geom.QuatIdentity)
			for i, tick := range tt.ticks {
				fs := tt.frameSync != nil && tt.frameSync[i]
				x.state(tick, vec32{float32(tick), 0, 0}, [3]bool{true, true, true}, fs, geom.QuatIdentity, &k)
			}
			var got []int64
			for _, it := range x.lerp.buf {
				got = append(got, int64(it.pos[0]))
			}
			if len(got) != len(tt.want) {
				t.Fatalf("buffered ticks %v, want %v", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Fatalf("buffered ticks %v, want %v", got, tt.want)
				}
			}
		})
	}
}
