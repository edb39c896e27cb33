package study

import (
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	"interplab/engine"
	"interplab/engine/technique/mirror"
)

// harborBefore is the harbor-before preset (presets/harbor-before.json): the
// guide's Harbor Vanguard launch, 20 Hz tick and send, a fixed 50 ms delay,
// dead reckoning up to 1 s without speed clamp, on an 80 ms ping link.
func harborBefore() engine.Settings {
	s := engine.Defaults()
	s.Latency, s.Jitter, s.JitterDist, s.Loss = 0.04, 0.02, "lognormal", 0.01
	s.TickRate, s.SendRate = 20, 20
	s.Delay, s.Adaptive, s.ExtrapolateCap, s.SpeedClamp, s.Rotation = 0.05, false, 1, false, "slerp"
	return s
}

// harborTuneSpec tunes the buffer on harbor-before's network under the
// issue's constraint, small enough to run in about a second.
func harborTuneSpec() TuneSpec {
	s := harborBefore()
	s.Entities, s.Duration = 3, 15
	return TuneSpec{
		Base:        s,
		Technique:   engine.TechBuffer,
		Motions:     []string{"strafe", "turn"},
		Weights:     DefaultTuneWeights(),
		Constraints: []Constraint{{Metric: "addedLatency", Max: 0.150}},
		Budget:      40,
		Seed:        7,
	}
}

// The acceptance: on the Harbor Vanguard network the tuner
// recommends buffer settings whose underrun rate is lower than
// harbor-before's at no more than 150 ms of added latency; its Pareto front
// is monotone; the same seed gives the same result, on one worker or many.
func TestTuneHarbor(t *testing.T) {
	spec := harborTuneSpec()
	r, err := Tune(context.Background(), spec, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Feasible || !r.Best.Feasible {
		t.Fatalf("Tune found nothing feasible: best %+v", r.Best)
	}
	if got := math.Abs(r.Best.Metrics.AddedLatency); got > 0.150 {
		t.Errorf("recommended addedLatency = %.4f s, want ≤ 0.150", got)
	}
	if got, base := r.Best.Metrics.Underrun, r.Base.Metrics.Underrun; !(got < base) {
		t.Errorf("recommended underrun = %.4f, want below harbor-before's %.4f", got, base)
	}
	// The base is harbor-before itself, Candidates[0], run again on the
	// seed set.
	if !reflect.DeepEqual(r.Base.Settings, r.Candidates[0].Settings) || r.Base.Settings.Delay != 0.05 || r.Base.Confirm == nil {
		t.Errorf("Base = %+v, want harbor-before itself, Candidates[0], confirmed", r.Base.Settings)
	}
	checkVerdict(t, "harbor", &r)
	if n := len(r.Candidates); n > spec.Budget || n < spec.Budget/2 {
		t.Errorf("Tune evaluated %d candidates, want at most the budget %d and most of it", n, spec.Budget)
	}
	checkFront(t, r)
	t.Logf("harbor-before: delay %v, underrun %.4f, addedLatency %.4f s, errP95 %.3f m, cost %.3f",
		r.Base.Settings.Delay, r.Base.Metrics.Underrun, r.Base.Metrics.AddedLatency, r.Base.Metrics.ErrP95, r.Base.Cost)
	b := r.Best.Settings
	t.Logf("recommended: delay %v adaptive %v margin %v delayCap %v extrapolateCap %v speedClamp %v: underrun %.4f, addedLatency %.4f s, errP95 %.3f m, cost %.3f",
		b.Delay, b.Adaptive, b.Margin, b.DelayCap, b.ExtrapolateCap, b.SpeedClamp,
		r.Best.Metrics.Underrun, r.Best.Metrics.AddedLatency, r.Best.Metrics.ErrP95, r.Best.Cost)
	for _, c := range r.Pareto {
		t.Logf("front: addedLatency %.4f s, errAligned %.3f m, delay %v", c.Metrics.AddedLatency, c.Metrics.ErrAligned, c.Settings.Delay)
	}

	again, err := Tune(context.Background(), spec, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(r, again) {
		t.Errorf("Tune twice with seed %d gave different results: best %+v, then %+v", spec.Seed, r.Best.Settings, again.Best.Settings)
	}
	all, err := Tune(context.Background(), spec, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(r, all) {
		t.Errorf("Tune on all cores differs from one worker: best %+v, want %+v", all.Best.Settings, r.Best.Settings)
	}
	spec.Seed++
	other, err := Tune(context.Background(), spec, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if reflect.DeepEqual(r.Candidates, other.Candidates) {
		t.Errorf("seeds %d and %d evaluated the same candidates: the seed is not used", spec.Seed-1, spec.Seed)
	}
}

// checkFront checks the tuner's invariants on r: the front is monotone and
// made of feasible, undominated candidates; every feasible candidate off it
// is dominated; Best is the feasible candidate of least cost.
func checkFront(t *testing.T, r TuneResult) {
	t.Helper()
	if len(r.Pareto) == 0 && r.Feasible {
		t.Errorf("Pareto front is empty, though candidates are feasible")
	}
	for i, c := range r.Pareto {
		if !c.Feasible {
			t.Errorf("Pareto[%d] is not feasible", i)
		}
		if i > 0 {
			p := r.Pareto[i-1]
			if !(math.Abs(c.Metrics.AddedLatency) > math.Abs(p.Metrics.AddedLatency) && c.Metrics.ErrAligned < p.Metrics.ErrAligned) {
				t.Errorf("Pareto[%d] = (latency %v, errP95 %v) after (%v, %v): want latency up, error strictly down",
					i, c.Metrics.AddedLatency, c.Metrics.ErrP95, p.Metrics.AddedLatency, p.Metrics.ErrP95)
			}
		}
	}
	for _, c := range r.Candidates {
		if !c.Feasible {
			continue
		}
		dominated := false
		for _, f := range r.Pareto {
			if math.Abs(f.Metrics.AddedLatency) <= math.Abs(c.Metrics.AddedLatency) && f.Metrics.ErrP95 <= c.Metrics.ErrP95 {
				dominated = true
			}
		}
		if !dominated {
			t.Errorf("feasible candidate (latency %v, errP95 %v) is neither on the front nor dominated by it",
				c.Metrics.AddedLatency, c.Metrics.ErrP95)
		}
	}
	for _, c := range r.Finalists {
		if c.Confirm.Verdict == "recommended" && c.Cost < r.Best.Cost {
			t.Errorf("a recommendable finalist of cost %v over the seed set is cheaper than Best's %v", c.Cost, r.Best.Cost)
		}
	}
}

// Every candidate is valid, changes only the searched parameters, holds
// values in the searched ranges on their slider steps, and its metrics are
// the combined runs of its settings on each motion.
func TestTuneCandidates(t *testing.T) {
	spec := harborTuneSpec()
	spec.Base.Duration, spec.Budget = 5, 24
	spec.Space = []TuneRange{{Name: "delay", Min: 0.02, Max: 0.2}, {Name: "adaptive", Max: 1}, {Name: "margin", Max: 0.05}}
	r, err := Tune(context.Background(), spec, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range r.Candidates {
		s := c.Settings
		if err := s.Validate(); err != nil {
			t.Errorf("candidate %d: %v", i, err)
		}
		if !reflect.DeepEqual(s.Techniques, spec.Base.Techniques) || s.Motion != spec.Base.Motion {
			t.Errorf("candidate %d: techniques %v, motion %s; want the base's %v, %s", i, s.Techniques, s.Motion, spec.Base.Techniques, spec.Base.Motion)
		}
		if i > 0 && (s.Delay < 0.02 || s.Delay > 0.2 || s.Margin > 0.05) {
			t.Errorf("candidate %d: delay %v, margin %v outside the space", i, s.Delay, s.Margin)
		}
		if k := math.Round(s.Delay * 1000); k/1000 != s.Delay {
			t.Errorf("candidate %d: delay %v is not on the 0.001 s step", i, s.Delay)
		}
		if !s.Adaptive && (s.Margin != spec.Base.Margin || s.DelayCap != spec.Base.DelayCap) {
			t.Errorf("candidate %d: margin %v, delayCap %v without adaptive; want the base's", i, s.Margin, s.DelayCap)
		}
		s.Delay, s.Adaptive, s.Margin, s.DelayCap = spec.Base.Delay, spec.Base.Adaptive, spec.Base.Margin, spec.Base.DelayCap
		if !reflect.DeepEqual(s, spec.Base) {
			t.Errorf("candidate %d changed a parameter outside the space: %+v", i, c.Settings)
		}
	}
	for _, c := range []Candidate{r.Candidates[1], r.Candidates[len(r.Candidates)-1]} {
		var runs []engine.Metrics
		for _, m := range spec.Motions {
			s := c.Settings
			s.Techniques, s.Motion = []string{spec.Technique}, m
			res, err := engine.Run(s)
			if err != nil {
				t.Fatal(err)
			}
			runs = append(runs, res.Techniques[0].Metrics)
		}
		if want := CombineMetrics(runs); c.Metrics != want {
			t.Errorf("candidate metrics = %+v, want the combined runs %+v", c.Metrics, want)
		}
		if want := spec.Weights.Cost(c.Metrics, c.Settings.RenderRate); c.Cost != want {
			t.Errorf("candidate cost = %v, want %v", c.Cost, want)
		}
	}
}

// With constraints no candidate meets, Tune says so and recommends
// nothing: it lists the three that break them least, each with what it
// breaks and by how much.
func TestTuneInfeasible(t *testing.T) {
	spec := harborTuneSpec()
	spec.Base.Duration, spec.Budget = 4, 12
	spec.Constraints = []Constraint{{Metric: "errP95", Max: 0.001}, {Metric: "snaps", Max: -1}}
	r, err := Tune(context.Background(), spec, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.Feasible || r.Recommended || !reflect.DeepEqual(r.Best, Candidate{}) || len(r.Pareto) != 0 {
		t.Errorf("impossible constraints: Feasible %v, Recommended %v, Best %+v, %d on the front; want false, false, none, 0",
			r.Feasible, r.Recommended, r.Best.Settings, len(r.Pareto))
	}
	if len(r.Closest) != 3 {
		t.Fatalf("%d closest candidates, want 3", len(r.Closest))
	}
	for i, c := range r.Candidates {
		want := (c.Metrics.ErrP95-0.001)*100 + float64(c.Metrics.Snaps+1)
		if math.Abs(c.Violation-want) > 1e-9*want {
			t.Errorf("candidate %d: Violation = %v, want %v (cm above 1 mm plus snaps above −1)", i, c.Violation, want)
		}

		want2 := []TuneBreach{{Metric: "errP95", Value: c.Metrics.ErrP95, Max: 0.001, Over: c.Metrics.ErrP95 - 0.001},
			{Metric: "snaps", Value: float64(c.Metrics.Snaps), Max: -1, Over: float64(c.Metrics.Snaps + 1)}}
		if !reflect.DeepEqual(c.Breaks, want2) {
			t.Errorf("candidate %d breaks %+v, want %+v", i, c.Breaks, want2)
		}
	}
	// The closest are the finalists, confirmed on the seed set, that break
	// the bounds least.
	for _, c := range r.Finalists {
		if c.Confirm == nil || c.Violation < r.Closest[0].Violation {
			t.Errorf("finalist violates by %v over the seed set, less than the closest's %v", c.Violation, r.Closest[0].Violation)
		}
	}
	for i := 1; i < len(r.Closest); i++ {
		if r.Closest[i].Violation < r.Closest[i-1].Violation {
			t.Errorf("closest[%d] violates by %v, less than closest[%d]'s %v", i, r.Closest[i].Violation, i-1, r.Closest[i-1].Violation)
		}
	}
}

// The review's case: mirror on a 120 ms link with addedLatency ≤ 130 ms,
// above the floor (123 ms) but beyond what mirror's own knobs reach. Nothing
// is recommended; the closest say what they break, in the metric's units.
func TestTuneNothingMeetsTheBounds(t *testing.T) {
	spec := TuneSpec{Base: mirrorFar(), Technique: mirror.Name, Weights: DefaultTuneWeights(),
		Constraints: []Constraint{{Metric: "addedLatency", Max: 0.13}}, Budget: 16, Seed: 1}
	r, err := Tune(context.Background(), spec, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.Feasible || r.Recommended || len(r.Closest) != 3 {
		t.Fatalf("Feasible %v, Recommended %v, %d closest; want false, false, 3", r.Feasible, r.Recommended, len(r.Closest))
	}
	for i, c := range r.Closest {
		lat := math.Abs(c.Metrics.AddedLatency)
		if len(c.Breaks) != 1 || c.Breaks[0].Metric != "addedLatency" || c.Breaks[0].Value != lat || c.Breaks[0].Over != lat-0.13 {
			t.Errorf("closest[%d] breaks %+v, want addedLatency %v over 0.13 s", i, c.Breaks, lat)
		}
	}
}

// A budget of one evaluates the base alone: nothing beats it, so nothing is
// recommended, though it meets the bounds.
func TestTuneKeepsTheBase(t *testing.T) {
	spec := harborTuneSpec()
	spec.Base.Duration, spec.Budget = 3, 1
	r, err := Tune(context.Background(), spec, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Feasible || r.Recommended || !reflect.DeepEqual(r.Best, Candidate{}) || len(r.Closest) != 0 {
		t.Errorf("the base alone: Feasible %v, Recommended %v, Best %+v, %d closest; want true, false, none, 0",
			r.Feasible, r.Recommended, r.Best.Settings, len(r.Closest))
	}
}

// A recommendation is never worse than the base: whenever Tune recommends
// over a base that meets the bounds, the recommendation meets them and
// costs less over the seed set, beyond noise, worsening no headline
// metric; over a base that breaks them it is the cheapest finalist that
// meets them (see checkVerdict). Over a few bases, techniques, bounds and
// seeds.
func TestTuneNeverWorseThanTheBase(t *testing.T) {
	far := mirrorFar()
	harbor := harborBefore()
	harbor.Entities, harbor.Duration = 3, 6
	cases := []struct {
		name      string
		base      engine.Settings
		technique string
		bounds    []Constraint
	}{
		{"mirror far, no bound", far, mirror.Name, nil},
		{"mirror far, extraLatency ≤ 60 ms", far, mirror.Name, []Constraint{{Metric: ExtraLatencyMetric, Max: 0.06}}},
		{"mirror far, addedLatency ≤ 250 ms", far, mirror.Name, []Constraint{{Metric: "addedLatency", Max: 0.25}}},
		{"buffer far, underrun ≤ 1%", far, engine.TechBuffer, []Constraint{{Metric: "underrun", Max: 0.01}}},
		{"harbor, addedLatency ≤ 150 ms", harbor, engine.TechBuffer, []Constraint{{Metric: "addedLatency", Max: 0.15}}},
		{"harbor epicfix, frozen ≤ 1%", harbor, engine.TechEPICFix, []Constraint{{Metric: "frozen", Max: 0.01}}},
	}
	for _, tc := range cases {
		for seed := uint64(1); seed <= 3; seed++ {
			spec := TuneSpec{Base: tc.base, Technique: tc.technique, Weights: DefaultTuneWeights(), Constraints: tc.bounds,
				Motions: []string{"strafe", "stopgo"}, Budget: 12, Seed: seed}
			r, err := Tune(context.Background(), spec, 0, nil)
			if err != nil {
				t.Fatal(err)
			}
			checkVerdict(t, fmt.Sprintf("%s, seed %d", tc.name, seed), &r)
		}
	}
}

// checkVerdict checks a tuning's verdict against its confirmation on the
// seed set: a recommendation meets every bound over the set; over a base
// that meets them it costs less by more than TuneGainSE standard errors of
// the mean paired gain, and worsens no headline metric; over a base
// that breaks them it is the cheapest finalist that meets them. Without
// one, no finalist passes those tests.
func checkVerdict(t *testing.T, name string, r *TuneResult) {
	t.Helper()
	if len(r.Seeds) == 0 || r.Base.Confirm == nil {
		t.Fatalf("%s: nothing confirmed on a seed set", name)
	}
	least := math.Inf(1) // the least cost over the set that meets the bounds
	var pass *Candidate  // the cheapest finalist the rule lets through
	for i := range r.Finalists {
		c := &r.Finalists[i]
		cf := c.Confirm
		if !c.Feasible {
			continue
		}
		least = min(least, c.Cost)
		ok := !r.Base.Feasible || cf.Gain > TuneGainSE*cf.GainSE && len(cf.Worse) == 0
		if ok && (pass == nil || c.Cost < pass.Cost) {
			pass = c
		}
	}
	switch {
	case r.Recommended && !r.Best.Feasible:
		t.Errorf("%s: recommends a setting that breaks the bounds over the seed set: %+v", name, r.Best.Breaks)
	case r.Recommended && r.Base.Feasible && !(r.Best.Cost < r.Base.Cost && r.Best.Confirm.Gain > TuneGainSE*r.Best.Confirm.GainSE && len(r.Best.Confirm.Worse) == 0):
		t.Errorf("%s: recommends cost %v against the base's %v, cheaper on %d of %d seeds, worse on %+v",
			name, r.Best.Cost, r.Base.Cost, r.Best.Confirm.Wins, len(r.Seeds), r.Best.Confirm.Worse)
	case r.Recommended && !r.Base.Feasible && r.Best.Cost != least:
		t.Errorf("%s: the base breaks the bounds and Tune offers cost %v; the cheapest finalist that meets them costs %v", name, r.Best.Cost, least)
	case r.Recommended && r.Best.Cost != pass.Cost:
		t.Errorf("%s: recommends cost %v, want the cheapest finalist that passes, %v", name, r.Best.Cost, pass.Cost)
	case !r.Recommended && pass != nil:
		t.Errorf("%s: recommends nothing, though a finalist passes: cost %v against the base's %v", name, pass.Cost, r.Base.Cost)
	case r.Feasible != (r.Base.Feasible || least < math.Inf(1)):
		t.Errorf("%s: Feasible %v; the base meets the bounds %v, the least feasible finalist costs %v", name, r.Feasible, r.Base.Feasible, least)
	}
}

// A space of one Bool has two points: the search ends there, under budget.
func TestTuneSmallSpace(t *testing.T) {
	spec := harborTuneSpec()
	spec.Base.Duration, spec.Budget = 3, 30
	spec.Space = []TuneRange{{Name: "speedClamp", Max: 1}}
	r, err := Tune(context.Background(), spec, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Candidates) != 2 || r.Candidates[0].Settings.SpeedClamp == r.Candidates[1].Settings.SpeedClamp {
		t.Errorf("Tune over speedClamp evaluated %d candidates, want both values once", len(r.Candidates))
	}
}

func TestTuneCancel(t *testing.T) {
	one := harborTuneSpec()
	one.Base.Duration, one.Budget = 3, 30
	// Over a population the workers take a candidate's entities, a
	// candidate finishing when its last entity does.
	pop := testPopulationTune()
	pop.Budget = 30
	for name, spec := range map[string]TuneSpec{"one link": one, "population": pop} {
		t.Run(name, func(t *testing.T) {
			full, err := Tune(context.Background(), spec, 2, nil)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			calls := 0
			r, err := Tune(ctx, spec, 2, func(c Candidate, done, total int) {
				calls++
				// The total counts the confirmation: the base and 3 finalists on
				// each seed of the set.
				if want := spec.Budget + 4*DefaultTuneSeeds; done != calls || total != want {
					t.Errorf("progress(done %d, total %d) on call %d, want (%d, %d)", done, total, calls, calls, want)
				}
				if done == 5 {
					cancel()
				}
			})
			if !errors.Is(err, context.Canceled) {
				t.Errorf("cancelled Tune error = %v, want context.Canceled", err)
			}
			if n := len(r.Candidates); n < 5 || n >= len(full.Candidates) || n != calls {
				t.Errorf("cancelled Tune kept %d candidates after %d progress calls, want them all, at least 5 and fewer than %d",
					n, calls, len(full.Candidates))
			}
			for i, c := range r.Candidates {
				found := false
				for _, f := range full.Candidates {
					if reflect.DeepEqual(c, f) {
						found = true
					}
				}
				if !found {
					t.Errorf("cancelled Tune's candidate %d is not one of the full run's", i)
				}
			}
		})
	}
}

func TestTuneSpecValidate(t *testing.T) {
	tests := []struct {
		name    string
		edit    func(*TuneSpec)
		field   string // the FieldError's Field; "" for no error
		allowed string // a substring of its Allowed
	}{
		{"valid", func(*TuneSpec) {}, "", ""},
		{"defaults", func(s *TuneSpec) { s.Motions, s.Space, s.Budget = nil, nil, 0 }, "", ""},
		{"epic", func(s *TuneSpec) { s.Technique = engine.TechEPICFix }, "", ""},
		{"snap", func(s *TuneSpec) { s.Technique = engine.TechSnap }, "technique", "snap has no settings"},
		{"unknown technique", func(s *TuneSpec) { s.Technique = "lerp" }, "technique", "buffer"},
		{"bad base", func(s *TuneSpec) { s.Base.SendRate = 30 }, "sendRate", "tickRate"},
		{"unknown motion", func(s *TuneSpec) { s.Motions = []string{"strafe", "moonwalk"} }, "motions[1]", "circle"},
		{"repeated motion", func(s *TuneSpec) { s.Motions = []string{"turn", "turn"} }, "motions[1]", "not already"},
		{"negative weight", func(s *TuneSpec) { s.Weights.Snaps = -1 }, "weights.snaps", "[0, 1000000]"},
		{"NaN weight", func(s *TuneSpec) { s.Weights.ErrP95 = math.NaN() }, "weights.errP95", "[0, 1000000]"},
		// A weight of 1e308 made the cost +Inf, which the server could not
		// encode as JSON: it must be refused where it is read.
		{"huge weight", func(s *TuneSpec) { s.Weights.ErrP95 = 1e308 }, "weights.errP95", "[0, 1000000]"},
		{"infinite weight", func(s *TuneSpec) { s.Weights.Underrun = math.Inf(1) }, "weights.underrun", "[0, 1000000]"},
		{"zero weights", func(s *TuneSpec) { s.Weights = TuneWeights{} }, "weights", "positive"},
		{"unknown metric", func(s *TuneSpec) { s.Constraints[0].Metric = "lag" }, "constraints[0].metric", "MetricFields"},
		{"infinite bound", func(s *TuneSpec) { s.Constraints[0].Max = math.Inf(1) }, "constraints[0].max", "finite"},
		{"other group", func(s *TuneSpec) { s.Space = []TuneRange{{Name: "calcAhead", Max: 1}} }, "space[0].name", "group buffer"},
		{"enum", func(s *TuneSpec) { s.Space = []TuneRange{{Name: "rotation", Max: 1}} }, "space[0].name", "Float, Int or Bool"},
		{"searched twice", func(s *TuneSpec) {
			s.Space = []TuneRange{{Name: "delay", Max: 0.1}, {Name: "delay", Max: 0.2}}
		}, "space[1].name", "not already"},
		{"range out of table", func(s *TuneSpec) { s.Space = []TuneRange{{Name: "delay", Max: 0.7}} }, "space[0].max", "[0, 500] ms"},
		{"range reversed", func(s *TuneSpec) { s.Space = []TuneRange{{Name: "delay", Min: 0.2, Max: 0.1}} }, "space[0].max", "space[0].min = 200ms"},
		{"negative budget", func(s *TuneSpec) { s.Budget = -1 }, "budget", "[1, 5000]"},
		{"huge budget", func(s *TuneSpec) { s.Budget = 5001 }, "budget", "[1, 5000]"},
	}
	for _, tt := range tests {
		spec := harborTuneSpec()
		tt.edit(&spec)
		err := spec.Validate()
		if tt.field == "" {
			if err != nil {
				t.Errorf("%s: Validate() = %v, want nil", tt.name, err)
			}
			continue
		}
		var fe *engine.FieldError
		if !errors.As(err, &fe) || fe.Field != tt.field || !strings.Contains(fe.Allowed, tt.allowed) {
			t.Errorf("%s: Validate() = %v, want a FieldError for %s allowing %q", tt.name, err, tt.field, tt.allowed)
		}
		if _, terr := Tune(context.Background(), spec, 1, nil); terr == nil || terr.Error() != err.Error() {
			t.Errorf("%s: Tune error = %v, want Validate's %v", tt.name, terr, err)
		}
	}
}

func TestTuneSpace(t *testing.T) {
	for _, tech := range engine.TechniqueNames {
		space := TuneSpace(tech)
		if (len(space) == 0) != (tech == engine.TechSnap) {
			t.Errorf("TuneSpace(%s) = %v, want parameters unless snap", tech, space)
		}
		spec := harborTuneSpec()
		spec.Technique, spec.Space = tech, space
		if err := spec.Validate(); err != nil && tech != engine.TechSnap {
			t.Errorf("TuneSpace(%s) does not validate: %v", tech, err)
		}
	}
}

func TestCombineMetrics(t *testing.T) {
	a := engine.Metrics{Frames: 100, ErrRMS: 0.1, ErrP95: 0.2, ErrMax: 0.5, AddedLatency: 0.1, Snaps: 3, SnapMax: 0.4,
		Underrun: 0.1, UnderrunRounds: 1, Extrapolating: 0.2, Frozen: 0, Idle: 0.3, Smoothness: 10}
	b := engine.Metrics{Frames: 98, ErrRMS: 0.3, ErrP95: 0.4, ErrMax: 0.7, AddedLatency: 0.2, Snaps: 1, SnapMax: 0.6,
		Underrun: 0.3, UnderrunRounds: 0, Extrapolating: 0.4, Frozen: 0.1, Idle: 0.1, Smoothness: 20}
	want := engine.Metrics{Frames: 198, ErrRMS: 0.2, ErrP95: 0.3, ErrMax: 0.7, AddedLatency: 0.15, Snaps: 4, SnapMax: 0.6,
		Underrun: 0.2, UnderrunRounds: 0.5, Extrapolating: 0.3, Frozen: 0.05, Idle: 0.2, Smoothness: 15}
	got := CombineMetrics([]engine.Metrics{a, b})
	gv, wv := got.Values(nil), want.Values(nil)
	for i := range gv {
		if math.Abs(gv[i]-wv[i]) > 1e-12 {
			t.Errorf("CombineMetrics(a, b).%s = %v, want %v", engine.MetricFields[i].Name, gv[i], wv[i])
		}
	}
	if got.Frames != want.Frames {
		t.Errorf("CombineMetrics(a, b).Frames = %d, want %d", got.Frames, want.Frames)
	}
	if one := CombineMetrics([]engine.Metrics{a}); one != a {
		t.Errorf("CombineMetrics(a) = %+v, want a", one)
	}
}

func TestTuneWeightsCost(t *testing.T) {
	// 60 Hz, 3600 entity-frames: one entity-minute.
	m := engine.Metrics{Frames: 3600, ErrP95: 0.2, AddedLatency: 0.15, Snaps: 3, Underrun: 0.05}
	tests := []struct {
		w    TuneWeights
		m    engine.Metrics
		want float64
	}{
		{TuneWeights{ErrP95: 1}, m, 2},
		{TuneWeights{AddedLatency: 1}, m, 1.5},
		{TuneWeights{Snaps: 1}, m, 3},
		{TuneWeights{Underrun: 1}, m, 0.5},
		{DefaultTuneWeights(), m, 7},
		{TuneWeights{ErrP95: 0.5, Snaps: 2}, m, 7},
		{TuneWeights{AddedLatency: 1}, engine.Metrics{Frames: 10, AddedLatency: -0.05}, 0.5}, // leading counts by magnitude
		{DefaultTuneWeights(), engine.Metrics{}, 0},
	}
	for _, tt := range tests {
		if got := tt.w.Cost(tt.m, 60); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("%+v.Cost(%+v, 60) = %v, want %v", tt.w, tt.m, got, tt.want)
		}
	}
}

// TestTuneSpendsTheWholeBudget: a budget of N evaluates N candidates, also
// when the polish needs no combined undo (it used to stop at N−1).
func TestTuneSpendsTheWholeBudget(t *testing.T) {
	for _, tech := range []string{engine.TechBuffer, engine.TechHermite, engine.TechEPIC} {
		for _, loss := range []float64{0, 0.02} {
			s := engine.Defaults()
			s.Duration, s.Entities, s.Loss, s.Jitter = 2, 2, loss, 0.012
			spec := TuneSpec{Base: s, Technique: tech, Weights: DefaultTuneWeights(), Budget: 120, Seed: 3}
			res, err := Tune(context.Background(), spec, 0, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Candidates) != 120 {
				t.Errorf("%s, loss %g: %d candidates for a budget of 120", tech, loss, len(res.Candidates))
			}
		}
	}
}
