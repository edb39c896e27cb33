package engine

import (
	"context"
	"errors"
	"slices"
	"testing"

	"interplab/engine/netsim"
)

// A scenario is a network like any other for sweeps and populations: the
// base's scenario reaches every run.
func TestScenarioAsJobNetwork(t *testing.T) {
	const outage = "outage at=3 for=4 backlog=drop"
	s := Defaults()
	s.Entities, s.Duration = 2, 12
	spec := SweepSpec{Base: s, Technique: TechSnap, X: Axis{Name: "delay", Min: 0.05, Max: 0.05, Steps: 1}}
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

// The editor's engine side: a text is checked against the running
// settings, sampled, and applied only when good.
func TestSetScenarioText(t *testing.T) {
	s := Defaults()
	s.Duration = 20
	if _, err := CheckScenarioText(s, "spike at=5 for=x delay=100"); err == nil {
		t.Error("a bad text passes the check")
	}
	sc, err := CheckScenarioText(s, "ramp at=0 for=10 latency=150ms\nspike at=15 for=1 delay=200ms")
	if err != nil {
		t.Fatal(err)
	}
	v := SampleScenario(nil, sc, &s, 20)
	if len(v) != 20*ScenarioSampleStride {
		t.Fatalf("%d numbers, want %d", len(v), 20*ScenarioSampleStride)
	}
	if lat := v[19*ScenarioSampleStride]; lat != 0.15 {
		t.Errorf("latency after the ramp %v, want 0.15", lat)
	}
	if extra := v[15*ScenarioSampleStride+4]; extra != 0.2 {
		t.Errorf("extra delay at 15.5 s %v, want 0.2", extra)
	}

	m, err := NewSim(s)
	if err != nil {
		t.Fatal(err)
	}
	if restarted, err := m.SetScenarioText("outage at=2 for=1"); err != nil || restarted {
		t.Errorf("a text while another scenario runs: restarted %v, %v", restarted, err)
	}
	if _, err := m.Set("scenario", float64(slices.Index(netsim.Scenarios, netsim.ScenarioCustom))); err != nil {
		t.Fatal(err)
	}
	if restarted, err := m.SetScenarioText("outage at=4 for=1"); err != nil || !restarted {
		t.Errorf("a text while custom runs: restarted %v, %v", restarted, err)
	}
	if _, err := m.SetScenarioText("outage at=40 for=1"); err == nil {
		t.Error("a text past the run's end was taken")
	}
	if got := m.Settings().ScenarioText; got != "outage at=4 for=1" {
		t.Errorf("after a refused text the run has %q", got)
	}
}
