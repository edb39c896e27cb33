package study

import (
	"context"
	"errors"
	"strings"
	"testing"

	"interplab/engine"
	"interplab/engine/netsim"
)

// outageTuneSpec tunes epicfix through the 2 s outage, bounding its
// recovery time: small enough to run in a second or two.
func outageTuneSpec() TuneSpec {
	s := engine.Defaults()
	s.Entities, s.Duration, s.Scenario = 2, 30, "outage-2s"
	return TuneSpec{Base: s, Technique: engine.TechEPICFix, Weights: DefaultTuneWeights(),
		Constraints: []Constraint{{Metric: RecoveryMetric, Max: 0.5}, {Metric: "frozen", Max: 0.05}}, Budget: 16, Seed: 3}
}

// "Recovers from a 2 s outage in under 500 ms" is a constraint: every
// candidate carries the recovery RunPhases gives for its settings, and is
// feasible only if it is within the bound.
func TestTuneRecovery(t *testing.T) {
	spec := outageTuneSpec()
	if err := spec.Validate(); err != nil {
		t.Fatal(err)
	}
	res, err := Tune(context.Background(), spec, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range []Candidate{res.Candidates[0], res.Candidates[len(res.Candidates)-1]} {
		if c.Recovery == nil {
			t.Fatalf("candidate %d has no recovery", i)
		}
		s := c.Settings
		s.Techniques = []string{engine.TechEPICFix}
		r, err := engine.RunPhases(s)
		if err != nil {
			t.Fatal(err)
		}
		ph := r.Techniques[0].Phases
		if ph.Recovered != c.Recovery.Recovered || ph.Recovered && ph.Recovery != c.Recovery.Time {
			t.Errorf("candidate %d: recovery %+v, RunPhases says %v after %v s", i, *c.Recovery, ph.Recovered, ph.Recovery)
		}
		if r.Techniques[0].Metrics != c.Metrics {
			t.Errorf("candidate %d: metrics differ from RunPhases'", i)
		}
		within := c.Recovery.Recovered && c.Recovery.Time <= 0.5 && c.Metrics.Frozen <= 0.05
		if c.Feasible != within {
			t.Errorf("candidate %d: feasible %v with recovery %+v, frozen %v", i, c.Feasible, *c.Recovery, c.Metrics.Frozen)
		}
	}
	if res.Base.Recovery.Time <= 0.5 {
		t.Fatalf("epicfix's defaults recover in %v s: the test wants a base that breaks the bound", res.Base.Recovery.Time)
	}
	if !res.Feasible {
		t.Errorf("no candidate recovers within 500 ms; the closest %+v", *res.Closest[0].Recovery)
	}

	// Without a recovery bound nothing runs twice and nothing is reported.
	spec.Constraints = spec.Constraints[1:]
	spec.Budget = 2
	res, err = Tune(context.Background(), spec, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Base.Recovery != nil {
		t.Errorf("recovery %+v without a recovery constraint", *res.Base.Recovery)
	}
}

// A recovery bound needs a scenario to recover from; its unit is typed
// like any other metric's.
func TestTuneRecoveryValidate(t *testing.T) {
	cs, err := ParseConstraints("recovery=500ms")
	if err != nil || len(cs) != 1 || cs[0] != (Constraint{RecoveryMetric, 0.5}) {
		t.Fatalf("ParseConstraints(recovery=500ms) = %v, %v", cs, err)
	}
	for _, tc := range []struct {
		edit func(*TuneSpec)
		want string
	}{
		{func(s *TuneSpec) { s.Base.Scenario = netsim.ScenarioNone }, "needs a scenario"},
		{func(s *TuneSpec) { s.Base.Ideal = true }, "network on"},
		{func(s *TuneSpec) { s.Base.Scenario, s.Base.ScenarioText = netsim.ScenarioCustom, "set latency=80ms" }, "disturbs the link"},
		{func(s *TuneSpec) { s.Population = &Population{} }, ""},
	} {
		spec := outageTuneSpec()
		tc.edit(&spec)
		err := spec.Validate()
		var fe *engine.FieldError
		if err == nil || tc.want != "" && (!errors.As(err, &fe) || !strings.Contains(fe.Allowed, tc.want)) {
			t.Errorf("Validate = %v, want a field error saying %q", err, tc.want)
		}
	}
}

// Not recovering within the run breaks the bound, by at least one step.
func TestTuneRecoveryBound(t *testing.T) {
	ts := &tuneSearch{spec: TuneSpec{Constraints: []Constraint{{RecoveryMetric, 5}}}}
	c := Candidate{Feasible: true, Recovery: &TuneRecovery{Time: 2}}
	ts.bound(&c)
	if c.Feasible || c.Violation != engine.RecoveryBucket*1000 {
		t.Errorf("unrecovered after 2 s against 5 s: feasible %v, violation %v", c.Feasible, c.Violation)
	}
	c = Candidate{Feasible: true, Recovery: &TuneRecovery{Time: 0.3, Recovered: true}}
	ts.bound(&c)
	if !c.Feasible || c.Violation != 0 {
		t.Errorf("recovered in 0.3 s against 5 s: feasible %v, violation %v", c.Feasible, c.Violation)
	}
}
