package mirror

import (
	"math"
	"testing"

	"interplab/engine/geom"
	"interplab/engine/param"
	"interplab/engine/technique"
)

// Table tests of the Mirror behaviours the peers README lists, each named
// after the behaviour.

// mirrorServerStart is the server's clock when the client's reads 0.
const mirrorServerStart = 1000.0

// newMirrorTest returns a mirror technique at 10 Hz with Mirror's other
// defaults, changed by change.
func newMirrorTest(change func(m *Settings)) *mirrorTechnique {
	s := param.Defaults(Params)
	s.SendRate = 10
	if change != nil {
		change(&s)
	}
	return newMirrorTechnique(&s, &technique.Env{SendRate: 10})
}

// mirrorDrive sends a snapshot every 0.1 s of server time from send 0 while
// keep(send index) says so, the entity at x = its server time, arriving
// latency later, and renders 60 fps frames up to local time end; visit sees
// every frame.
func mirrorDrive(t *mirrorTechnique, latency, end float64, keep func(i int) bool, visit func(T float64, smp technique.Sample)) {
	type pkt struct{ send, arrive float64 }
	var pkts []pkt
	for i := 0; float64(i)*0.1 < end; i++ {
		if keep(i) {
			send := mirrorServerStart + float64(i)*0.1
			pkts = append(pkts, pkt{send, send - mirrorServerStart + latency})
		}
	}
	next := 0
	for k := 0; float64(k)/60 <= end; k++ {
		T := float64(k) / 60
		for ; next < len(pkts) && pkts[next].arrive <= T; next++ {
			t.Receive(technique.Snapshot{Time: pkts[next].send, Pos: geom.Vec3{pkts[next].send - mirrorServerStart, 0, 0}, Rot: geom.QuatIdentity}, pkts[next].arrive)
		}
		visit(T, t.Sample(T))
	}
}

func always(int) bool { return true }

func TestMirrorDisplayedLagIsLatencyPlusBufferTimePlusSendInterval(t *testing.T) {
	tests := []struct {
		name    string
		change  func(m *Settings)
		wantLag float64 // beyond the latency: bufferTime + the transform's shift, s
	}{
		{"defaults: (1+tolerance)·0.1 + 0.1", nil, 0.3},
		{"no timeline offset", func(m *Settings) { m.TimelineOffset = false }, 0.2},
		{"fixed multiplier 3", func(m *Settings) { m.DynamicAdjustment = false; m.BufferTimeMultiplier = 3 }, 0.4},
	}
	const latency = 0.05
	for _, tt := range tests {
		tech := newMirrorTest(tt.change)
		var lag float64
		mirrorDrive(tech, latency, 10, always, func(T float64, smp technique.Sample) { lag = T - smp.Pos[0] })
		// Less at most one frame: the frame that handles the first packet
		// also steps the timeline.
		if got := lag - latency; got > tt.wantLag+1e-6 || got < tt.wantLag-1.0/60-1e-6 {
			t.Errorf("%s: displayed lag − latency = %.6f s, want %.6f less at most a frame", tt.name, got, tt.wantLag)
		}
		if d := Def.Delay(tech.settings, tech.env); math.Abs(d-tt.wantLag) > 1e-6 {
			t.Errorf("%s: Def.Delay = %v, want %v", tt.name, d, tt.wantLag)
		}
	}
}

func TestMirrorHoldsWhenDryWithoutExtrapolating(t *testing.T) {
	tech := newMirrorTest(nil)
	const stop = 30 // sends 0..29: the last is at x = 2.9
	var last technique.Sample
	var timelineAt5 float64
	mirrorDrive(tech, 0.05, 6, func(i int) bool { return i < stop }, func(T float64, smp technique.Sample) {
		last = smp
		if T <= 5 {
			timelineAt5 = tech.clock.timeline
		}
	})
	if last.Mode != technique.Freeze || last.Pos[0] != float64(float32(2.9)) {
		t.Errorf("dry buffer: mode %v at x = %v, want freeze at the last snapshot, %v", last.Mode, last.Pos[0], float32(2.9))
	}
	if got := tech.clock.timeline - timelineAt5; math.Abs(got-1) > 0.02 {
		t.Errorf("timeline moved %v s in the last second while dry, want about 1 (it keeps running)", got)
	}
}

func TestMirrorHoldsFirstSnapshotUntilTheTimelineReachesIt(t *testing.T) {
	tech := newMirrorTest(nil)
	var first *technique.Sample
	var moved float64
	mirrorDrive(tech, 0.05, 1, always, func(T float64, smp technique.Sample) {
		if first == nil && smp.Mode != technique.Empty {
			first = &smp
			return
		}
		if first != nil && smp.Mode == technique.Freeze && smp.Pos != first.Pos {
			t.Errorf("t = %v: moved while holding", T)
		}
		if first != nil && smp.Mode == technique.Interpolate && moved == 0 {
			moved = T
		}
	})
	if first == nil || first.Mode != technique.Freeze || first.Pos[0] != 0 {
		t.Fatalf("first drawn frame = %+v, want freeze at the first snapshot", first)
	}
	// The first snapshot is keyed send + 0.1; the timeline starts bufferTime
	// (0.2 s) behind it: 0.3 s of hold from its arrival at 0.05.
	if math.Abs(moved-0.35) > 1.0/60 {
		t.Errorf("started moving at %v s, want about 0.35", moved)
	}
}

func TestMirrorRemoveRangeRemovesOnlyHalf(t *testing.T) {
	tests := []struct{ count, amount, left int }{
		{4, 0, 4}, {4, 1, 3}, {4, 2, 2}, {4, 3, 2}, {5, 4, 2}, {10, 9, 5}, {3, 2, 1}, {1, 0, 1},
	}
	for _, tt := range tests {
		buf := make([]int, tt.count)
		for i := range buf {
			buf[i] = i
		}
		got := mirrorRemoveRange(buf, tt.amount)
		if len(got) != tt.left || got[0] != tt.count-tt.left {
			t.Errorf("RemoveRange(%d entries, %d) leaves %v, want the last %d", tt.count, tt.amount, got, tt.left)
		}
	}
}

// mirrorTimelineAt returns a 10 Hz timeline without dynamic adjustment
// (bufferTime 0.2 s) that holds one time snapshot at 100 and sits at tl.
func mirrorTimelineAt(tl float64) *mirrorTimeline {
	s := param.Defaults(Params)
	s.SendRate, s.DynamicAdjustment = 10, false
	c := newMirrorTimeline(&s)
	c.insert(mirrorTimeSnap{100, 0})
	c.timeline = tl
	return &c
}

func TestMirrorTimelineClampUsesTheInsertedSnapshot(t *testing.T) {
	tests := []struct {
		name     string
		timeline float64
		remote   float64
		want     float64
	}{
		{"late insert pulls the timeline back", 100.5, 100.1, 100.1},
		{"far behind jumps forward to 2·bufferTime behind", 99.0, 100.2, 99.8},
		{"within ±bufferTime of the target: kept", 99.95, 100.1, 99.95},
	}
	for _, tt := range tests {
		c := mirrorTimelineAt(tt.timeline)
		c.insert(mirrorTimeSnap{tt.remote, 1})
		if math.Abs(c.timeline-tt.want) > 1e-6 { // bufferTime is 0.2 in float32 products
			t.Errorf("%s: timeline %v after inserting %v = %v, want %v", tt.name, tt.timeline, tt.remote, c.timeline, tt.want)
		}
	}
}

func TestMirrorTimescaleIsQuantized(t *testing.T) {
	tests := []struct {
		name     string
		timeline float64 // before inserting 100.1; the drift EMA starts at its first sample
		want     float64
	}{
		{"on target: 1", 99.9, 1},
		{"behind by more than a send interval: 1 + catchupSpeed", 99.75, 1 + 0.02},
		{"ahead by more than a send interval: 1 − slowdownSpeed", 100.05, 1 - 0.04},
	}
	for _, tt := range tests {
		c := mirrorTimelineAt(tt.timeline)
		c.drift = mirrorEMA{}
		c.insert(mirrorTimeSnap{100.1, 1})
		if c.scale != tt.want {
			t.Errorf("%s: timescale = %v, want %v", tt.name, c.scale, tt.want)
		}
	}
}

func TestMirrorDynamicAdjustmentIgnoresTheConfiguredMultiplier(t *testing.T) {
	tests := []struct {
		name    string
		dynamic bool
		before  float64 // bufferTime before the first snapshot
		after   float64 // and after it, with no delivery spread yet
	}{
		{"dynamic: 1 + 0 + tolerance", true, 0.4, 0.2},
		{"fixed: the configured 4", false, 0.4, 0.4},
	}
	for _, tt := range tests {
		s := param.Defaults(Params)
		s.SendRate, s.BufferTimeMultiplier, s.DynamicAdjustment = 10, 4, tt.dynamic
		c := newMirrorTimeline(&s)
		b := c.bufferTime()
		c.insert(mirrorTimeSnap{100, 0})
		if a := c.bufferTime(); math.Abs(b-tt.before) > 1e-6 || math.Abs(a-tt.after) > 1e-6 {
			t.Errorf("%s: bufferTime %v then %v, want %v then %v", tt.name, b, a, tt.before, tt.after)
		}
	}
}

func TestMirrorDuplicateSkipsTheEMAsButOverwritesLocalTime(t *testing.T) {
	c := mirrorTimelineAt(99.8)
	c.insert(mirrorTimeSnap{100.1, 0.1})
	ema := c.delivery
	c.insert(mirrorTimeSnap{100.1, 0.5}) // the duplicate, handled later
	if len(c.buf) != 2 || c.buf[1].local != 0.5 || c.delivery != ema {
		t.Errorf("after a duplicate: %d snapshots, local time %v, delivery EMA %+v; want 2, 0.5, %+v unchanged",
			len(c.buf), c.buf[1].local, c.delivery, ema)
	}
}

func TestMirrorBufferLimitDropsNewSnapshots(t *testing.T) {
	var buf []int
	key := func(v *int) float64 { return float64(*v) }
	for _, v := range []int{3, 1, 2, 5} {
		buf, _ = mirrorInsert(buf, 3, v, float64(v), key)
	}
	if len(buf) != 3 || buf[0] != 1 || buf[2] != 3 {
		t.Errorf("inserting 3 1 2 5 with limit 3 = %v, want [1 2 3] (sorted, 5 dropped)", buf)
	}
}

func TestMirrorTransformBufferResetsAfterAGap(t *testing.T) {
	tests := []struct {
		name     string
		only     bool
		gap      int // send intervals between the last sync and the next
		wantSize int
	}{
		// The newest key already holds the timeline offset: a gap of
		// bufferResetMultiplier + 1 intervals is still kept.
		{"4 intervals: kept", true, 4, 4},
		{"5 intervals: reset, the object snaps to the new sync", true, 5, 1},
		{"without onlySyncOnChange: never reset", false, 10, 4},
	}
	for _, tt := range tests {
		tech := newMirrorTest(func(m *Settings) { m.OnlySyncOnChange = tt.only })
		c := &tech.clock.cfg
		for i := range 3 {
			tech.nt.receive(100+0.1*float64(i), mirrorAxesAll, [3]float32{float32(i)}, geom.QuatIdentity, c)
		}
		tech.nt.receive(100.2+0.1*float64(tt.gap), mirrorAxesAll, [3]float32{9}, geom.QuatIdentity, c)
		if len(tech.nt.buf) != tt.wantSize {
			t.Errorf("%s: %d snapshots buffered, want %d", tt.name, len(tech.nt.buf), tt.wantSize)
		}
	}
}

func TestMirrorUnsentAxesComeFromTheNewestSnapshot(t *testing.T) {
	tech := newMirrorTest(nil)
	c := &tech.clock.cfg
	tech.nt.spawn([3]float32{7, 8, 9}, geom.QuatIdentity)
	tech.nt.receive(100, mirrorAxisX, [3]float32{1, 2, 3}, geom.QuatIdentity, c)
	tech.nt.receive(100.1, mirrorAxisY, [3]float32{4, 5, 6}, geom.QuatIdentity, c)
	want := [][3]float32{{1, 8, 9}, {1, 5, 9}}
	for i, w := range want {
		if tech.nt.buf[i].pos != w {
			t.Errorf("snapshot %d = %v, want %v (unsent axes from the newest, then the spawn position)", i, tech.nt.buf[i].pos, w)
		}
	}
}

func TestMirrorServerSyncsOnlyOnChange(t *testing.T) {
	type step struct {
		pos      geom.Vec3
		wantAxes uint8
		wantSent bool
	}
	tests := []struct {
		name   string
		change func(m *Settings)
		steps  []step
	}{
		{"still object: one unchanged sync, then none", nil, []step{
			{geom.Vec3{1, 1, 1}, mirrorAxesAll, true}, {geom.Vec3{1, 1, 1}, 0, true}, {geom.Vec3{1, 1, 1}, 0, false}, {geom.Vec3{1.5, 1, 1}, mirrorAxisX, true}}},
		{"moves under positionSensitivity are not sent", nil, []step{
			{geom.Vec3{1, 1, 1}, mirrorAxesAll, true}, {geom.Vec3{1.005, 1, 1}, 0, true}, {geom.Vec3{1.009, 1, 1}, 0, false}, {geom.Vec3{1.02, 1, 1}, mirrorAxisX, true}}},
		{"without onlySyncOnChange every sync is sent", func(m *Settings) { m.OnlySyncOnChange = false }, []step{
			{geom.Vec3{1, 1, 1}, mirrorAxesAll, true}, {geom.Vec3{1, 1, 1}, 0, true}, {geom.Vec3{1, 1, 1}, 0, true}}},
	}
	for _, tt := range tests {
		tech := newMirrorTest(tt.change)
		for i, st := range tt.steps {
			axes, sent := tech.sender.sync(technique.Snapshot{Time: 100 + 0.1*float64(i), Pos: st.pos}, tech.env.SendRate, &tech.clock.cfg)
			if axes != st.wantAxes || sent != st.wantSent {
				t.Errorf("%s: send %d at %v: axes %03b sent %v, want %03b %v", tt.name, i, st.pos, axes, sent, st.wantAxes, st.wantSent)
			}
		}
	}
}

func TestMirrorServerSyncsEverySendIntervalMultiplierSends(t *testing.T) {
	tech := newMirrorTest(func(m *Settings) { m.SendIntervalMultiplier = 3; m.OnlySyncOnChange = false })
	var sent []int
	for k := range 10 {
		// The lab stamps a snapshot with its tick, up to a tick before the send.
		time := float64(k)/10 - 0.01
		if _, ok := tech.sender.sync(technique.Snapshot{Time: time, Pos: geom.Vec3{float64(k)}}, tech.env.SendRate, &tech.clock.cfg); ok {
			sent = append(sent, k)
		}
	}
	if want := []int{0, 3, 6, 9}; len(sent) != len(want) || sent[1] != 3 || sent[3] != 9 {
		t.Errorf("sends with a sync = %v, want %v", sent, want)
	}
}

func TestMirrorEMA(t *testing.T) {
	var e mirrorEMA
	for _, v := range []float64{1, 2, 3} {
		e.add(v, 0.5)
	}
	if e.value != 2.25 || e.variance != 0.6875 || e.std != math.Sqrt(0.6875) {
		t.Errorf("EMA of 1, 2, 3 with alpha 0.5 = %+v, want value 2.25, variance 0.6875", e)
	}
}
