package fit

import (
	"math"
	"strings"
	"testing"

	"interplab/engine"
)

// capture generates what a game client would record on the lab's link:
// engine.SyntheticTrace of one entity under the settings given by set,
// with the arrivals read on a client clock that runs drift faster than the
// server's and is offset ahead by offset seconds.
func capture(t testing.TB, set func(*engine.Settings), drift, offset float64) *engine.Trace {
	t.Helper()
	s := engine.Defaults()
	s.Entities, s.Duration, s.Seed, s.Motion = 1, 120, 7, "strafe"
	s.Techniques = []string{"buffer"}
	set(&s)
	tr, err := engine.SyntheticTrace(s)
	if err != nil {
		t.Fatalf("SyntheticTrace: %v", err)
	}
	for i := range tr.Packets {
		p := &tr.Packets[i]
		if !math.IsNaN(p.Arrive) {
			p.Arrive += offset + drift*p.Arrive
		}
	}
	tr.Name = "generated"
	return tr
}

// Tolerances of the recovery tests (the issue's).
const (
	tolLatency = 0.002 // s, on the latency and on the mean delay (latency + jitter)
	tolJitter  = 0.15  // relative
	tolLoss    = 0.20  // relative
	tolBurst   = 0.25  // relative
	tolDrift   = 5e-6  // fraction (5 ppm)
	tolAt      = 1.0   // s, where a step or an outage is located
)

func TestRecoverJitterDists(t *testing.T) {
	for _, c := range []struct {
		dist            string
		latency, jitter float64
	}{
		{"uniform", 0.04, 0.01},
		{"normal", 0.06, 0.015},
		{"pareto", 0.05, 0.01},
		{"lognormal", 0.08, 0.02},
	} {
		t.Run(c.dist, func(t *testing.T) {
			tr := capture(t, func(s *engine.Settings) {
				s.Latency, s.Jitter, s.JitterDist = c.latency, c.jitter, c.dist
			}, 0, 0)
			l, err := Fit(tr, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if l.JitterDist != c.dist {
				t.Errorf("jitterDist = %s, want %s (fits %+v)", l.JitterDist, c.dist, l.Dists)
			}
			if math.Abs(l.Latency-c.latency) > tolLatency {
				t.Errorf("latency = %.4f, want %.4f ± %g", l.Latency, c.latency, tolLatency)
			}
			if math.Abs(l.Latency+l.Jitter-c.latency-c.jitter) > tolLatency {
				t.Errorf("mean delay = %.4f, want %.4f ± %g", l.Latency+l.Jitter, c.latency+c.jitter, tolLatency)
			}
			if math.Abs(l.Jitter/c.jitter-1) > tolJitter {
				t.Errorf("jitter = %.4f, want %.4f ± %g%%", l.Jitter, c.jitter, tolJitter*100)
			}
			if l.Goodness.JitterKS > l.Goodness.JitterKSCritical {
				t.Errorf("KS = %g above its critical %g", l.Goodness.JitterKS, l.Goodness.JitterKSCritical)
			}
			if l.ScenarioText != "" {
				t.Errorf("a steady link fitted with scenario %q", l.ScenarioText)
			}
		})
	}
}

func TestRecoverLoss(t *testing.T) {
	for _, c := range []struct {
		name     string
		model    string
		loss     float64
		burst    float64
		duration float64 // s: long bursts need more of them for a loss within 20%
	}{
		{"bernoulli", "random", 0.05, 0, 120},
		{"bursty", "burst", 0.05, 4, 300},
		{"bursty long", "burst", 0.1, 8, 900},
	} {
		t.Run(c.name, func(t *testing.T) {
			tr := capture(t, func(s *engine.Settings) {
				s.Duration = c.duration
				s.Loss, s.LossModel = c.loss, c.model
				if c.burst > 0 {
					s.BurstLength = c.burst
				}
			}, 0, 0)
			l, err := Fit(tr, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if l.LossModel != c.model {
				t.Errorf("lossModel = %s, want %s (LR %g)", l.LossModel, c.model, l.Goodness.LossLR)
			}
			if math.Abs(l.Loss/c.loss-1) > tolLoss {
				t.Errorf("loss = %.4f, want %.4f ± %g%%", l.Loss, c.loss, tolLoss*100)
			}
			if c.burst > 0 && math.Abs(l.BurstLength/c.burst-1) > tolBurst {
				t.Errorf("burstLength = %.2f, want %.2f ± %g%%", l.BurstLength, c.burst, tolBurst*100)
			}
			if l.Goodness.LossRunsDoF > 0 && l.Goodness.LossRunsChi2 > 20 {
				t.Errorf("runs χ² = %g on %d dof: the chosen model does not fit its own runs", l.Goodness.LossRunsChi2, l.Goodness.LossRunsDoF)
			}
			if len(l.Events) != 0 {
				t.Errorf("events %+v on a steady link", l.Events)
			}
		})
	}
}

func TestRecoverDriftOffsetReorderDuplicate(t *testing.T) {
	const drift, offset = 2e-4, 0.015
	tr := capture(t, func(s *engine.Settings) {
		s.Duration = 300
		s.Latency, s.Jitter, s.JitterDist = 0.05, 0.008, "normal"
		s.Reorder, s.Duplicate = 0.03, 0.02
	}, drift, offset)
	l, err := Fit(tr, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(l.ClockDrift-drift) > tolDrift {
		t.Errorf("clockDrift = %g, want %g ± %g", l.ClockDrift, drift, tolDrift)
	}
	// The offset cannot be told from the latency: it is in it.
	if math.Abs(l.Latency-(0.05+offset)) > tolLatency {
		t.Errorf("latency = %.4f, want %.4f (latency + offset) ± %g", l.Latency, 0.05+offset, tolLatency)
	}
	if math.Abs(l.Jitter/0.008-1) > tolJitter {
		t.Errorf("jitter = %.4f, want 0.008 ± %g%%", l.Jitter, tolJitter*100)
	}
	if math.Abs(l.Reorder/0.03-1) > tolLoss {
		t.Errorf("reorder = %.4f, want 0.03 ± %g%%", l.Reorder, tolLoss*100)
	}
	if math.Abs(l.Duplicate/0.02-1) > tolLoss {
		t.Errorf("duplicate = %.4f, want 0.02 ± %g%%", l.Duplicate, tolLoss*100)
	}
	if l.ScenarioText != "" {
		t.Errorf("drift fitted as scenario %q", l.ScenarioText)
	}
}

func TestRecoverStepAndOutage(t *testing.T) {
	for _, c := range []struct {
		name, text string
		want       []Event
	}{
		{"step", "step at=47.3 latency=110ms", []Event{{Kind: "step", At: 47.3, Latency: 0.11}}},
		{"step down and back", "step at=30 latency=20ms\nstep at=80 latency=90ms",
			[]Event{{Kind: "step", At: 30, Latency: 0.02}, {Kind: "step", At: 80, Latency: 0.09}}},
		{"outage burst", "outage at=61.2 for=2 backlog=burst", []Event{{Kind: "outage", At: 61.2, For: 2}}},
		{"outage drop", "outage at=33 for=1.5 backlog=drop", []Event{{Kind: "outage", At: 33, For: 1.5, Drop: true}}},
		{"spike", "spike at=50 for=1 delay=200ms", []Event{{Kind: "spike", At: 50, For: 1, Delay: 0.2}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			tr := capture(t, func(s *engine.Settings) {
				s.Latency, s.Jitter, s.JitterDist = 0.05, 0.01, "normal"
				s.Loss = 0.01
				s.Scenario, s.ScenarioText = "custom", c.text
			}, 1e-4, 0)
			l, err := Fit(tr, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(l.Events) != len(c.want) {
				t.Fatalf("events = %+v, want %+v\nscenario:\n%s", l.Events, c.want, l.ScenarioText)
			}
			for i, w := range c.want {
				g := l.Events[i]
				if g.Kind != w.Kind || math.Abs(g.At-w.At) > tolAt || g.Drop != w.Drop {
					t.Errorf("event %d = %+v, want %+v ± %g s", i, g, w, tolAt)
				}
				if w.Kind == "step" && math.Abs(g.Latency-w.Latency) > tolLatency {
					t.Errorf("step %d latency = %.4f, want %.4f ± %g", i, g.Latency, w.Latency, tolLatency)
				}
				if w.For > 0 && math.Abs(g.For-w.For) > tolAt {
					t.Errorf("event %d for = %g, want %g ± %g", i, g.For, w.For, tolAt)
				}
				if w.Delay > 0 && math.Abs(g.Delay/w.Delay-1) > tolJitter {
					t.Errorf("spike delay = %g, want %g ± %g%%", g.Delay, w.Delay, tolJitter*100)
				}
			}
			if math.Abs(l.Latency-0.05) > tolLatency || math.Abs(l.Jitter/0.01-1) > tolJitter {
				t.Errorf("latency, jitter = %.4f, %.4f, want 0.05, 0.01", l.Latency, l.Jitter)
			}
			if math.Abs(l.ClockDrift-1e-4) > tolDrift {
				t.Errorf("clockDrift = %g, want 1e-4 ± %g", l.ClockDrift, tolDrift)
			}
			if !strings.Contains(l.ScenarioText, c.want[0].Kind+" at=") {
				t.Errorf("scenario text %q has no %s", l.ScenarioText, c.want[0].Kind)
			}
		})
	}
}

// Margins within which the techniques agree on a capture and on its
// fitted model (Compare): underrun share of frames, absolute, and error
// p95, relative (with a 1 cm floor for a technique whose error is tiny).
const (
	marginUnderrun = 0.02
	marginErrP95   = 0.10
	floorErrP95    = 0.01
)

func TestCompareCaptureAndModel(t *testing.T) {
	for _, c := range []struct {
		name string
		set  func(*engine.Settings)
	}{
		{"pareto bursty", func(s *engine.Settings) {
			s.Latency, s.Jitter, s.JitterDist = 0.06, 0.02, "pareto"
			s.Loss, s.LossModel, s.BurstLength = 0.05, "burst", 4
		}},
		{"lognormal step outage", func(s *engine.Settings) {
			s.Latency, s.Jitter, s.JitterDist, s.Loss = 0.04, 0.015, "lognormal", 0.02
			s.Scenario, s.ScenarioText = "custom", "step at=40 latency=120ms\noutage at=80 for=2 backlog=burst"
		}},
		{"normal reorder", func(s *engine.Settings) {
			s.Latency, s.Jitter, s.JitterDist, s.Reorder = 0.05, 0.01, "normal", 0.05
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			tr := capture(t, c.set, 5e-5, 0)
			l, err := Fit(tr, Options{})
			if err != nil {
				t.Fatal(err)
			}
			base := engine.Defaults()
			base.Techniques = []string{"epic", "buffer", "snap"}
			ag, err := Compare(tr, l, base, 99)
			if err != nil {
				t.Fatal(err)
			}
			for _, a := range ag {
				t.Logf("%s: underrun %.4f / %.4f, errP95 %.4f / %.4f", a.Technique, a.CaptureUnder, a.ModelUnder, a.CaptureErrP95, a.ModelErrP95)
				if math.Abs(a.CaptureUnder-a.ModelUnder) > marginUnderrun {
					t.Errorf("%s underrun: capture %.4f, model %.4f, want within %g", a.Technique, a.CaptureUnder, a.ModelUnder, marginUnderrun)
				}
				if d := math.Abs(a.CaptureErrP95 - a.ModelErrP95); d > floorErrP95 && d > marginErrP95*a.CaptureErrP95 {
					t.Errorf("%s errP95: capture %.4f, model %.4f, want within %g%%", a.Technique, a.CaptureErrP95, a.ModelErrP95, marginErrP95*100)
				}
			}
		})
	}
}
