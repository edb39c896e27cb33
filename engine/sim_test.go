package engine

import (
	"math"
	"reflect"
	"testing"

	"interplab/engine/geom"
	"interplab/engine/motion"
	"interplab/engine/technique"
)

func TestRunDeterministic(t *testing.T) {
	s := Defaults()
	s.Duration = 5
	s.Techniques = TechniqueNames // the library techniques too
	s.Jitter, s.Loss, s.Duplicate = 0.02, 0.05, 0.02
	s.Techniques = TechniqueNames
	a, err := Run(s)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Run(s)
	for k := range a.Techniques {
		if a.Techniques[k].Metrics != b.Techniques[k].Metrics {
			t.Errorf("technique %s: run 1 = %+v, run 2 = %+v", a.Techniques[k].Name, a.Techniques[k].Metrics, b.Techniques[k].Metrics)
		}
	}
	if len(a.Techniques) != len(s.Techniques) {
		t.Errorf("Run gave %d techniques, want %d", len(a.Techniques), len(s.Techniques))
	}
}

// The metrics after T simulated seconds do not depend on how the steps
// reached T: the page steps by display frames, lab sim in whole frames.
func TestStepSizeIndependent(t *testing.T) {
	s := Defaults()
	s.Jitter, s.Loss = 0.03, 0.1
	a, _ := NewSim(s)
	b, _ := NewSim(s)
	a.StepFrames(600)
	for b.Frames() < 600 {
		b.Step(0.007)
		if b.Frames() > 600 {
			t.Fatalf("Step overshot to %d frames", b.Frames())
		}
	}
	// b may sit between frames 600 and 601; both rendered frame 600 last.
	ma, mb := a.Metrics(nil), b.Metrics(nil)
	for k := range ma {
		if ma[k] != mb[k] {
			t.Errorf("%s: StepFrames = %+v, Step(0.007) = %+v", a.Techniques()[k], ma[k], mb[k])
		}
	}
}

func TestSimSetValidates(t *testing.T) {
	m, _ := NewSim(Defaults())
	m.StepFrames(10)
	if _, err := m.Set("latency", 5); err == nil {
		t.Error("Set(latency, 5) = nil error, want out of range")
	}
	if _, err := m.Set("sendRate", 100); err == nil {
		t.Error("Set(sendRate, 100) above tickRate 60 = nil error")
	}
	if r, err := m.Set("displayBehind", 0.1); err != nil || r {
		t.Errorf("Set(displayBehind) = %v, %v; want live change", r, err)
	}
	if m.Frames() != 10 {
		t.Errorf("Frames() = %d after a live change, want 10", m.Frames())
	}
	if r, err := m.Set("seed", 7); err != nil || !r {
		t.Errorf("Set(seed) = %v, %v; want a restart", r, err)
	}
	if m.Frames() != 0 {
		t.Errorf("Frames() = %d after a restart, want 0", m.Frames())
	}
}

func TestPosesLayout(t *testing.T) {
	s := Defaults()
	s.Entities = 3
	s.Techniques = []string{TechSnap, TechEPIC}
	m, _ := NewSim(s)
	m.StepFrames(30)
	if got, want := m.Techniques(), []string{TechEPIC, TechSnap}; got[0] != want[0] || got[1] != want[1] {
		t.Errorf("Techniques() = %v, want %v (display order)", got, want)
	}
	p := m.Poses()
	if len(p) != 3*3*PoseStride {
		t.Fatalf("len(Poses()) = %d, want %d", len(p), 3*3*PoseStride)
	}
	for e := 0; e < 3; e++ {
		tr := m.movers[e].At(m.Time()).Pos
		if got := p[e*PoseStride]; math.Abs(float64(got)-tr[0]) > 1e-4 {
			t.Errorf("truth x of entity %d = %v, want %v", e, got, tr[0])
		}
	}
}

// Without headings the poses carry (1, 0) for every heading and the same
// positions and modes, and the run (its metrics) is the same.
func TestSetHeadings(t *testing.T) {
	s := Defaults()
	s.Entities = 20
	s.Motion = "turn"
	with, _ := NewSim(s)
	without, _ := NewSim(s)
	without.SetHeadings(false)
	for range 10 {
		with.StepFrames(7)
		without.StepFrames(7)
	}
	a, b := with.Poses(), without.Poses()
	turned := 0
	for i := 0; i < len(a); i += PoseStride {
		for _, k := range []int{0, 1, 2, 5} {
			if a[i+k] != b[i+k] {
				t.Fatalf("pose %d field %d: %v with headings, %v without", i/PoseStride, k, a[i+k], b[i+k])
			}
		}
		if b[i+3] != 1 || b[i+4] != 0 {
			t.Fatalf("pose %d without headings: heading (%v, %v), want (1, 0)", i/PoseStride, b[i+3], b[i+4])
		}
		if a[i+3] != 1 || a[i+4] != 0 {
			turned++
		}
	}
	if turned == 0 {
		t.Error("with headings, every entity faces +X: the test shows nothing")
	}
	if ma, mb := with.Metrics(nil), without.Metrics(nil); !reflect.DeepEqual(ma, mb) {
		t.Errorf("metrics differ without headings:\n%+v\n%+v", ma, mb)
	}
	// Back on, mid-run: the next frame's poses are the ones a run that
	// kept them all along shows, headings included (the techniques that
	// skipped blending rotations blend them again).
	without.SetHeadings(true)
	for i := range 4 {
		with.StepFrames(1)
		without.StepFrames(1)
		if a, b := with.Poses(), without.Poses(); !reflect.DeepEqual(a, b) {
			t.Fatalf("frame %d with headings back on: the poses differ from a run that kept them", i+1)
		}
	}
}

func TestDrain(t *testing.T) {
	s := Defaults()
	m, _ := NewSim(s)
	m.StepFrames(60)
	pk, fr := m.Drain(nil, nil)
	if len(fr) != 60 {
		t.Errorf("Drain gave %d frames, want 60", len(fr))
	}
	if want := 21; len(pk) != want { // sends at 0, 0.05, ..., 1.0
		t.Errorf("Drain gave %d packets, want %d", len(pk), want)
	}
	pk, fr = m.Drain(pk[:0], fr[:0])
	if len(pk)+len(fr) != 0 {
		t.Errorf("second Drain gave %d packets and %d frames, want none", len(pk), len(fr))
	}
}

func TestHistQuantile(t *testing.T) {
	for _, x := range []float64{1e-5, 0.001, 0.0123, 0.5, 1, 3.7, 250} {
		got := histValue(histBin(x * x))
		if math.Abs(got-x)/x > 0.016 {
			t.Errorf("histValue(histBin(%v²)) = %v, want within 1.6%%", x, got)
		}
	}
	if histBin(0) != 0 || histValue(0) != 0 {
		t.Errorf("zero error lands in bin %d, value %v; want bin 0, value 0", histBin(0), histValue(0))
	}
}

func TestLagGridBest(t *testing.T) {
	g := lagGrid{period: 0.01, ahead: 2, behind: 10}
	// A parabola with its minimum at 3.4 frames of delay: index 5.4.
	sse := make([]float64, g.size())
	for j := range sse {
		d := float64(j) - 5.4
		sse[j] = d*d + 1
	}
	if got, least := g.best(sse, 1); math.Abs(got-0.034) > 1e-12 || math.Abs(least-1) > 1e-12 {
		t.Errorf("best = %v, %v; want 0.034, 1", got, least)
	}
}

// delayed is a test technique that shows the truth of an entity exactly
// delay seconds late, or early for a negative delay.
type delayed struct {
	mv    *motion.Mover
	delay float64
}

func (d *delayed) Receive(technique.Snapshot, float64) {}
func (d *delayed) Sample(now float64) technique.Sample {
	return technique.Sample{Pos: d.mv.At(now - d.delay).Pos, Mode: technique.Interpolate, Time: now, Newest: now}
}

func TestAddedLatency(t *testing.T) {
	for _, delay := range []float64{0, 0.0123, 0.1, 0.2345, -0.05} {
		s := Defaults()
		s.Entities, s.Jitter = 4, 0 // no jitter: the clock estimate is exact
		s.Motion = "circle"
		s.Techniques = []string{TechSnap}
		m, _ := NewSim(s)
		p := &technique.PerEntity{Techs: make([]technique.Technique, m.n)}
		for e := range p.Techs {
			p.Techs[e] = &delayed{mv: &m.movers[e], delay: delay}
		}
		m.batches[0] = p
		m.StepFrames(300)
		mt := m.Metrics(nil)[0]
		if got := mt.AddedLatency; math.Abs(got-delay) > 0.002 {
			t.Errorf("AddedLatency of a display %v s late = %v, want within 2 ms", delay, got)
		}
		// Shifted by its delay the display is the truth: the aligned
		// error is what interpolating the delay between frames leaves.
		if mt.ErrAligned > 0.01 {
			t.Errorf("ErrAligned of a display %v s late = %v m, want under 1 cm", delay, mt.ErrAligned)
		}
	}
}

func TestErrorMetrics(t *testing.T) {
	s := Defaults()
	s.Entities, s.Jitter = 2, 0 // no jitter: the clock estimate is exact
	s.Techniques = []string{TechSnap}
	m, _ := NewSim(s)
	// A display 0.3 m off along x: every error is 0.3 m, no snaps, no
	// acceleration error.
	p := &technique.PerEntity{Techs: make([]technique.Technique, m.n)}
	for e := range p.Techs {
		p.Techs[e] = &offset{mv: &m.movers[e], off: geom.Vec3{0.3, 0, 0}}
	}
	m.batches[0] = p
	m.StepFrames(120)
	got := m.Metrics(nil)[0]
	if got.Frames != 240 {
		t.Errorf("Frames = %d, want 240", got.Frames)
	}
	for _, c := range []struct {
		name      string
		got, want float64
		tol       float64
	}{
		{"ErrRMS", got.ErrRMS, 0.3, 1e-9},
		{"ErrMax", got.ErrMax, 0.3, 1e-9},
		{"ErrP95", got.ErrP95, 0.3, 0.3 * 0.016},
		{"Smoothness", got.Smoothness, 0, 1e-6},
		{"Snaps", float64(got.Snaps), 0, 0},
		{"Underrun", got.Underrun, 0, 0},
	} {
		if math.Abs(c.got-c.want) > c.tol {
			t.Errorf("%s = %v, want %v ± %v", c.name, c.got, c.want, c.tol)
		}
	}
}

type offset struct {
	mv  *motion.Mover
	off geom.Vec3
}

func (o *offset) Receive(technique.Snapshot, float64) {}
func (o *offset) Sample(now float64) technique.Sample {
	return technique.Sample{Pos: o.mv.At(now).Pos.Add(o.off), Mode: technique.Interpolate, Time: now, Newest: now}
}

func TestRunSeries(t *testing.T) {
	s := Defaults()
	s.Duration, s.Entities = 10, 2
	s.Techniques = []string{TechSnap}
	res, err := RunSeries(s, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	series := res.Techniques[0].Series
	if len(series) != 20 {
		t.Fatalf("len(series) = %d, want 20 windows of 0.5 s", len(series))
	}
	// The windows add up to the run: windows 1..19 hold 30 frames of 2
	// entities each, window 0 the rest (it starts before the first packet).
	mt := res.Techniques[0].Metrics
	n0 := float64(mt.Frames - 19*60)
	total := series[0] * series[0] * n0
	for _, v := range series[1:] {
		total += v * v * 60
	}
	if want := mt.ErrRMS * mt.ErrRMS * float64(mt.Frames); math.Abs(total-want) > 1e-9*want {
		t.Errorf("sum of window squares = %v, want ErrRMS² × Frames = %v", total, want)
	}
	if _, err := RunSeries(s, -1); err == nil {
		t.Error("RunSeries(step = -1) = nil error")
	}
	plain, _ := Run(s)
	if plain.Techniques[0].Metrics != res.Techniques[0].Metrics {
		t.Errorf("RunSeries changed the metrics: %+v, want %+v", res.Techniques[0].Metrics, plain.Techniques[0].Metrics)
	}
}

// The buffer's delay is measured behind the snapshot stream: without jitter
// it adds exactly the latency plus the delay, and never runs dry.
func TestBufferDelayBehindStream(t *testing.T) {
	for _, c := range []struct{ latency, delay float64 }{{0.02, 0.1}, {0.08, 0.1}, {0.15, 0.06}} {
		s := Defaults()
		s.Jitter, s.Latency, s.Delay = 0, c.latency, c.delay
		s.Entities, s.Duration, s.Motion = 4, 10, "circle"
		s.Techniques = []string{TechBuffer}
		res, err := Run(s)
		if err != nil {
			t.Fatal(err)
		}
		m := res.Techniques[0].Metrics
		if want := c.latency + c.delay; math.Abs(m.AddedLatency-want) > 0.003 {
			t.Errorf("latency %v, delay %v: AddedLatency = %v, want %v", c.latency, c.delay, m.AddedLatency, want)
		}
		if m.Underrun != 0 {
			t.Errorf("latency %v, delay %v: Underrun = %v, want 0", c.latency, c.delay, m.Underrun)
		}
	}
}

// The guide's Harbor Vanguard story: one tick of delay at 20 Hz underruns
// under jitter; more delay, or the adaptive delay, cuts the underruns.
func TestUnderrunFallsWithDelay(t *testing.T) {
	run := func(delay float64, adaptive bool) float64 {
		s := Defaults()
		s.TickRate, s.SendRate = 20, 20
		s.Latency, s.Jitter, s.JitterDist = 0.04, 0.02, "lognormal"
		s.Delay, s.Adaptive, s.Margin, s.DelayCap = delay, adaptive, 0.025, 0.2
		s.Entities, s.Duration = 4, 30
		s.Techniques = []string{TechBuffer}
		res, err := Run(s)
		if err != nil {
			t.Fatal(err)
		}
		return res.Techniques[0].Metrics.Underrun
	}
	before, after, adaptive := run(0.05, false), run(0.1, false), run(0.1, true)
	if !(before > 0.2 && after < before/2 && adaptive < after) {
		t.Errorf("underrun share: delay 50 ms = %v, 100 ms = %v, 100 ms adaptive = %v; want falling, the first above 20%%", before, after, adaptive)
	}
}

// A render rate moved mid-run restarts the added-latency history on the
// new frame period, so the metric keeps its meaning.
func TestRenderRateChangeKeepsLatency(t *testing.T) {
	s := Defaults()
	s.Jitter, s.Entities, s.Motion = 0, 4, "circle"
	s.Techniques = []string{TechBuffer}
	m, _ := NewSim(s)
	m.StepFrames(120)
	if _, err := m.Set("renderRate", 120); err != nil {
		t.Fatal(err)
	}
	if want := newLagGrid(120); m.lag != want {
		t.Fatalf("lag grid after Set(renderRate, 120) = %+v, want %+v", m.lag, want)
	}
	m.StepFrames(600)
	got := m.Metrics(nil)[0].AddedLatency
	if want := s.Latency + s.Delay; math.Abs(got-want) > 0.003 {
		t.Errorf("AddedLatency after the rate change = %v, want %v", got, want)
	}
}

// TestRoundSpan checks that a frame finds its round without a division
// exactly when the division would give the round it is in: the round of
// every frame is int((t − dt/2) / round), through a change of renderRate
// (which moves the frame times off the old grid) and a restart.
func TestRoundSpan(t *testing.T) {
	s := Defaults()
	s.Entities, s.Round, s.RenderRate, s.Duration = 1, 1, 60, 200
	m, err := NewLeanSim(s)
	if err != nil {
		t.Fatal(err)
	}
	check := func(when string) {
		t.Helper()
		if want := int((m.t - float64(0.5*m.dt)) / m.set.Round); m.round != want {
			t.Fatalf("%s, frame %d at %v: round = %d, want %d", when, m.frames, m.t, m.round, want)
		}
	}
	for range 400 {
		m.StepFrames(1)
		check("60 Hz")
	}
	if _, err := m.Set("renderRate", 144); err != nil {
		t.Fatal(err)
	}
	for range 1000 {
		m.StepFrames(1)
		check("144 Hz")
	}
	if _, err := m.Set("round", 3); err != nil {
		t.Fatal(err)
	}
	for range 1000 {
		m.StepFrames(1)
		check("round 3 s")
	}
	if m.round < 2 {
		t.Errorf("round after the run = %d, want at least 2", m.round)
	}
}
