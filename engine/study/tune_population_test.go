package study

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"interplab/engine"
)

// testPopulationTune is the guide's objective over a tiny population.
func testPopulationTune() TuneSpec {
	spec := testPopulationSpec()
	pop := spec.Population
	pop.Entities, pop.Rounds, pop.Round = 4, 2, 4
	return TuneSpec{Base: spec.Base, Technique: engine.TechBuffer, Population: &pop,
		Weights:     TuneWeights{ErrP95: 1},
		Constraints: []Constraint{{Metric: "underrunRounds", Max: 0.05}, {Metric: "addedLatencyP90", Max: 0.15}},
		Budget:      6, Seed: 3}
}

func TestTunePopulation(t *testing.T) {
	spec := testPopulationTune()
	r1, err := Tune(context.Background(), spec, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	r2, err := Tune(context.Background(), spec, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(r1, r2) {
		t.Errorf("Tune over a population differs between 1 and 2 workers")
	}
	if n := len(r1.Candidates); n < 2 || n > spec.Budget {
		t.Errorf("%d candidates, want 2 to %d", n, spec.Budget)
	}
	for i, c := range r1.Candidates {
		if c.Population == nil {
			t.Fatalf("candidate %d has no population figures", i)
		}
		if want := spec.Weights.PopulationCost(*c.Population); c.Cost != want {
			t.Errorf("candidate %d cost = %v, want PopulationCost %v", i, c.Cost, want)
		}
		feasible := c.Population.UnderrunRounds <= 0.05 && c.Population.AddedLatencyP90 <= 0.15
		if c.Feasible != feasible {
			t.Errorf("candidate %d feasible = %v, want %v (%+v)", i, c.Feasible, feasible, *c.Population)
		}
	}
	// A candidate's figures are those of its settings run over the
	// population: the last one's, which the search moved furthest.
	last := r1.Candidates[len(r1.Candidates)-1]
	s := last.Settings
	s.Techniques = []string{engine.TechBuffer}
	res, err := RunPopulation(context.Background(), PopulationSpec{Base: s, Population: *spec.Population}, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Techniques[0].Metrics; got != *last.Population {
		t.Errorf("the last candidate's population figures %+v, want RunPopulation's %+v", *last.Population, got)
	}
}

func TestTunePopulationValidate(t *testing.T) {
	tests := []struct {
		name   string
		change func(s *TuneSpec)
		field  string
	}{
		{"motions", func(s *TuneSpec) { s.Motions = []string{"strafe"} }, "motions"},
		{"frame metric", func(s *TuneSpec) { s.Constraints = []Constraint{{Metric: "errRMS", Max: 1}} }, "constraints[0].metric"},
		{"entities", func(s *TuneSpec) { s.Population.Entities = 0 }, "population.entities"},
	}
	for _, tt := range tests {
		spec := testPopulationTune()
		pop := *spec.Population
		spec.Population = &pop
		tt.change(&spec)
		var fe *engine.FieldError
		if err := spec.Validate(); !errors.As(err, &fe) || fe.Field != tt.field {
			t.Errorf("%s: Validate() = %v, want a FieldError on %s", tt.name, err, tt.field)
		}
	}
	if _, err := ParseConstraints("underrunRounds=0.05,addedLatencyP90=0.15"); err != nil {
		t.Errorf("ParseConstraints(population figures) = %v", err)
	}
}

// BenchmarkTunePopulationValidate validates a tuning over 20,000 entities
// with a bound on addedLatencyP90, on a link with a scenario: Validate runs
// before every search and for every candidate a worker evaluates, and it
// checks the bound against each entity's latency floor.
func BenchmarkTunePopulationValidate(b *testing.B) {
	for _, scenario := range []string{"none", "outage-2s"} {
		b.Run("scenario="+scenario, func(b *testing.B) {
			spec := testPopulationTune()
			pop := *spec.Population
			pop.Entities, pop.Rounds, pop.Round = 20000, 1, 60
			spec.Population = &pop
			spec.Base.Scenario = scenario
			for b.Loop() {
				if err := spec.Validate(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
