package engine

import (
	"math"
	"testing"

	"interplab/engine/geom"
)

// replayDemanding is the determinism test's run: heavy-tailed jitter, burst
// loss, duplicates, clock drift, every technique.
func replayDemanding() Settings {
	s := Defaults()
	s.Entities, s.Duration = 12, 20
	s.Jitter, s.JitterDist = 0.03, "pareto"
	s.Loss, s.LossModel, s.BurstLength = 0.05, "burst", 4
	s.Duplicate, s.ClockDrift = 0.02, 0.002
	s.Adaptive, s.Seed = true, 42
	return s
}

// A trace recorded from a synthetic run replays exactly the same packets:
// every metric that does not read the truth comes out identical, and those
// that do differ only by the Hermite truth between sends: under 0.5% for
// the errors, and up to 10% for the smoothness, whose true acceleration the
// curve rounds off (the jump's take-off and landing impulses most).
func TestReplayMatchesRun(t *testing.T) {
	for _, motion := range []string{"mix", "circle", "jump"} {
		s := replayDemanding()
		s.Motion = motion
		run, err := Run(s)
		if err != nil {
			t.Fatal(err)
		}
		tr, err := SyntheticTrace(s)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := RunTrace(tr, s)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Settings.Entities != s.Entities || rep.Settings.SendRate != s.SendRate || rep.Settings.Duration != s.Duration {
			t.Errorf("%s: replay settings: entities %d sendRate %v duration %v, want %d %v %v", motion,
				rep.Settings.Entities, rep.Settings.SendRate, rep.Settings.Duration, s.Entities, s.SendRate, s.Duration)
		}
		for k, a := range run.Techniques {
			w, g := a.Metrics, rep.Techniques[k].Metrics
			where := motion + " " + a.Name
			if g.Frames != w.Frames || g.Underrun != w.Underrun || g.UnderrunRounds != w.UnderrunRounds ||
				g.Extrapolating != w.Extrapolating || g.Frozen != w.Frozen || g.Snaps != w.Snaps || g.SnapMax != w.SnapMax {
				t.Errorf("%s: replay = %+v,\nrun = %+v: want the same frames, underruns, modes and snaps", where, g, w)
			}
			rel := func(name string, got, want, tol float64) {
				if math.Abs(got-want) > tol*math.Abs(want)+1e-9 {
					t.Errorf("%s: replay %s = %v, run %v: want within %v%%", where, name, got, want, tol*100)
				}
			}
			rel("errRMS", g.ErrRMS, w.ErrRMS, 0.005)
			rel("errMax", g.ErrMax, w.ErrMax, 0.005)
			rel("addedLatency", g.AddedLatency, w.AddedLatency, 0.01)
			rel("smoothness", g.Smoothness, w.Smoothness, 0.1)
		}
	}
}

// The truth between sends is the Hermite curve through the recorded states:
// exact for a path of degree three (a jump under gravity).
func TestReplayTruth(t *testing.T) {
	path := func(t float64) (geom.Vec3, geom.Vec3) {
		return geom.Vec3{3 * t, -t, 4*t - 4.9*t*t + 0.1*t*t*t}, geom.Vec3{3, -1, 4 - 9.8*t + 0.3*t*t}
	}
	tr := &Trace{Entities: 1}
	for k := range 11 {
		sent := 100 + 0.1*float64(k) // any origin: the replay starts at the first send
		p, v := path(sent - 100)
		tr.Packets = append(tr.Packets, TracePacket{Seq: k, Sent: sent, Arrive: sent + 0.05, Pos: p, Vel: v})
	}
	tr.Packets[4].Arrive = math.NaN() // a lost state is still the truth
	m, err := NewReplay(tr, Defaults())
	if err != nil {
		t.Fatal(err)
	}
	r := m.rp
	for _, at := range []float64{0, 0.013, 0.25, 0.399, 0.4, 0.437, 0.999} {
		got := r.at(0, at)
		want, wantV := path(at)
		if d := got.Pos.Sub(want).Len(); d > 1e-9 {
			t.Errorf("truth at %v = %v, want %v (off by %g m)", at, got.Pos, want, d)
		}
		if d := got.Vel.Sub(wantV).Len(); d > 1e-9 {
			t.Errorf("truth velocity at %v = %v, want %v", at, got.Vel, wantV)
		}
	}
	end, _ := path(1)
	if got := r.at(0, 3); got.Pos != end {
		t.Errorf("truth after the last send = %v, want it held at %v", got.Pos, end)
	}
	r.restart()
	if got, _ := path(0); r.at(0, -1).Pos != got {
		t.Errorf("truth before the first send = %v, want it held at %v", r.at(0, -1).Pos, got)
	}
}

// Entities sent in packets of their own arrive on their own; a replay's
// timeline records the focus entity's sends, lost and duplicated ones too.
func TestReplayPackets(t *testing.T) {
	tr := traceTwo()
	// Entity 1's copies of send 0 arrive later than entity 0's.
	tr.Packets[1].Arrive = 10.07
	m, err := NewReplay(tr, Defaults())
	if err != nil {
		t.Fatal(err)
	}
	r := m.rp
	if len(r.copies) != 6 {
		t.Errorf("copies = %d, want 6 (2 for send 0, 1 lost, 2 for send 2, 1 for send 3)", len(r.copies))
	}
	var pk []PacketRecord
	m.SetFocus(1)
	m.StepFrames(20)
	pk, _ = m.Drain(pk, nil)
	want := []PacketRecord{
		{Seq: 0, Sent: 0, Tick: 0, Arrive: 0.07},
		{Seq: 1, Sent: 0.05, Tick: 0.05, Arrive: math.NaN()},
		{Seq: 2, Sent: 0.1, Tick: 0.1, Arrive: 0.16, Dup: true},
		{Seq: 3, Sent: 0.15, Tick: 0.15, Arrive: 0.2},
	}
	if len(pk) != len(want) {
		t.Fatalf("Drain gave %d packet records, want %d: %+v", len(pk), len(want), pk)
	}
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 || math.IsNaN(a) && math.IsNaN(b) }
	for i, w := range want {
		g := pk[i]
		if g.Seq != w.Seq || !near(g.Sent, w.Sent) || !near(g.Tick, w.Tick) || !near(g.Arrive, w.Arrive) || g.Dup != w.Dup {
			t.Errorf("record %d = %+v, want %+v", i, g, w)
		}
		if g.Pos[0] != 1 {
			t.Errorf("record %d shows entity at x = %v, want the focus entity 1's x = 1", i, g.Pos[0])
		}
	}
	for k, mt := range m.Metrics(nil) {
		if mt.Frames == 0 {
			t.Errorf("%s measured no frames", m.Techniques()[k])
		}
	}
}

func TestReplaySet(t *testing.T) {
	s := Defaults()
	s.Entities, s.SendRate, s.Duration = 2, 30, 20
	tr, err := SyntheticTrace(s)
	if err != nil {
		t.Fatal(err)
	}
	m, err := NewReplay(tr, Defaults()) // 6 entities at 20 Hz
	if err != nil {
		t.Fatal(err)
	}
	if !m.Replaying() || m.Entities() != 2 || m.Settings().SendRate != 30 {
		t.Fatalf("replay: Replaying %v, entities %d, sendRate %v; want true, 2, 30",
			m.Replaying(), m.Entities(), m.Settings().SendRate)
	}
	if _, err := m.Set("entities", 5); err == nil {
		t.Error("Set(entities, 5) on a replay = nil error, want the trace's 2")
	}
	if _, err := m.Set("sendRate", 20); err == nil {
		t.Error("Set(sendRate, 20) on a replay = nil error, want the trace's 30")
	}
	if r, err := m.Set("delay", 0.15); err != nil || r {
		t.Errorf("Set(delay, 0.15) = %v, %v; want a live change", r, err)
	}
	m.StepFrames(300)
	first := m.Metrics(nil)
	if r, err := m.Set("seed", 7); err != nil || !r {
		t.Fatalf("Set(seed, 7) = %v, %v; want a restart", r, err)
	}
	if m.Time() != 0 || m.Entities() != 2 {
		t.Errorf("after a restart: time %v, entities %d; want 0, 2", m.Time(), m.Entities())
	}
	m.StepFrames(300)
	again := m.Metrics(nil)
	for k := range first {
		// Only the client clock's pings changed: the same packets, nearly the same display.
		if again[k].Frames != first[k].Frames || math.Abs(again[k].ErrRMS-first[k].ErrRMS) > 0.2*first[k].ErrRMS {
			t.Errorf("%s: restarted replay = %+v, want close to %+v", m.Techniques()[k], again[k], first[k])
		}
	}
	if m.Settings().TickRate < 30 {
		t.Errorf("tickRate = %v, want raised to the trace's 30 Hz", m.Settings().TickRate)
	}
}

func TestRunTraceDuration(t *testing.T) {
	s := Defaults()
	s.Duration = 10
	tr, err := SyntheticTrace(s)
	if err != nil {
		t.Fatal(err)
	}
	run, err := Run(s)
	if err != nil {
		t.Fatal(err)
	}
	s.Duration = 60
	res, err := RunTraceSeries(tr, s, 1)
	if err != nil {
		t.Fatal(err)
	}
	if res.Settings.Duration != 10 {
		t.Errorf("duration = %v, want the trace's span 10", res.Settings.Duration)
	}
	for k, tr := range res.Techniques {
		if want := run.Techniques[k].Metrics.Frames; tr.Metrics.Frames != want || len(tr.Series) != 10 {
			t.Errorf("%s: %d frames, %d series points; want %d (as a 10 s run), 10", tr.Name, tr.Metrics.Frames, len(tr.Series), want)
		}
	}
	if _, err := RunTraceSeries(tr, s, 11); err == nil {
		t.Error("RunTraceSeries(step 11 > span 10) = nil error")
	}
	if _, err := RunTrace(&Trace{}, s); err == nil {
		t.Error("RunTrace(empty trace) = nil error")
	}
}

// FuzzReplay replays traces made from arbitrary bytes: a valid trace never
// panics a replay and gives finite metrics.
func FuzzReplay(f *testing.F) {
	f.Add([]byte{0, 10, 20, 1, 0, 5, 30, 40})
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24})
	f.Fuzz(func(t *testing.T, b []byte) {
		tr := &Trace{Entities: 1 + int(len(b)%3)}
		sent := 0.0
		seq := make([]int, 3)
		for i := 0; i+3 < len(b) && len(tr.Packets) < 200; i += 4 {
			e := int(b[i]) % tr.Entities
			sent += float64(b[i+1]) / 200
			arrive := sent + float64(b[i+2])/500
			if b[i+2] == 255 {
				arrive = math.NaN()
			}
			seq[e] += 1 + int(b[i+3]%3)
			x := float64(b[i+3]) - 128
			tr.Packets = append(tr.Packets, TracePacket{Entity: e, Seq: seq[e], Sent: sent, Arrive: arrive,
				Pos: geom.Vec3{x, x / 2, 0}, Vel: geom.Vec3{float64(b[i]) - 128, 0, 1}})
		}
		if tr.Validate() != nil {
			return
		}
		s := Defaults()
		s.Duration = 5
		res, err := RunTrace(tr, s)
		if err != nil {
			t.Fatalf("RunTrace(valid trace) = %v", err)
		}
		for _, tech := range res.Techniques {
			for i, v := range tech.Metrics.Values(nil) {
				if !geom.Finite(v) {
					t.Fatalf("%s: %s = %v, want finite", tech.Name, MetricFields[i].Name, v)
				}
			}
		}
	})
}

// BenchmarkReplayStep is one 60 Hz frame of a 1,000-entity replay, every
// technique: compare BenchmarkSimStep's 10,000 synthetic entities.
func BenchmarkReplayStep(b *testing.B) {
	s := Defaults()
	s.Entities, s.Duration, s.Jitter = 1000, 9, 0.01 // 181,000 packets, near TraceMaxPackets
	tr, err := SyntheticTrace(s)
	if err != nil {
		b.Fatal(err)
	}
	m, err := NewReplay(tr, s)
	if err != nil {
		b.Fatal(err)
	}
	m.StepFrames(120)
	b.ReportAllocs()
	for b.Loop() {
		if m.Time() > 8.5 {
			m.Restart()
			m.StepFrames(120)
		}
		m.StepFrames(1)
	}
}
