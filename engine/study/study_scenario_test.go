package study

import (
	"context"
	"errors"
	"testing"

	"interplab/engine"
	"interplab/engine/netsim"
)

// A scenario is a network like any other for sweeps and populations: the
// base's scenario reaches every run.
func TestScenarioAsJobNetwork(t *testing.T) {
	const outage = "outage at=3 for=4 backlog=drop"
	s := engine.Defaults()
	s.Entities, s.Duration = 2, 12
	spec := SweepSpec{Base: s, Technique: engine.TechSnap, X: Axis{Name: "delay", Min: 0.05, Max: 0.05, Steps: 1}}
	plain, err := Sweep(context.Background(), spec, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	spec.Base.Scenario, spec.Base.ScenarioText = netsim.ScenarioCustom, outage
	withOutage, err := Sweep(context.Background(), spec, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := plain[0].Metrics.ErrRMS, withOutage[0].Metrics.ErrRMS; !(b > 2*a) {
		t.Errorf("sweep: errRMS %v without the outage, %v with it", a, b)
	}

	ps := testPopulationSpec()
	ps.Population.Entities, ps.Population.Rounds, ps.Population.Round = 3, 1, 12
	p0, err := RunPopulation(context.Background(), ps, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	ps.Base.Scenario, ps.Base.ScenarioText = netsim.ScenarioCustom, outage
	p1, err := RunPopulation(context.Background(), ps, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := p0.Techniques[0].Metrics.ErrP95P50, p1.Techniques[0].Metrics.ErrP95P50; !(b > a) {
		t.Errorf("population: median errP95 %v without the outage, %v with it", a, b)
	}
	// Longer than the population's run: refused as for any run.
	ps.Population.Round = 5
	var se *netsim.ScenarioError
	if err := ps.Validate(); !errors.As(err, &se) {
		t.Errorf("a scenario past a population's run: %v", err)
	}
}
