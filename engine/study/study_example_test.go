package study_test

import (
	"context"
	"fmt"

	"interplab/engine"
	"interplab/engine/study"
)

// A population run: the buffer at one tick of delay against two ticks, over
// eight players of mixed connections, two rounds of 10 s each.
func ExampleRunPopulation() {
	pop := study.Population{
		Latency:    study.Spread{Min: 0.015, Max: 0.06},
		ClockDrift: study.Spread{Min: -0.00005, Max: 0.00005},
		Stable: study.LinkSpread{Jitter: study.Spread{Min: 0.0001, Max: 0.001, Log: true}, JitterDist: "lognormal",
			Loss: study.Spread{Min: 0.0001, Max: 0.0001}, LossModel: "random", BurstLength: study.Spread{Min: 1, Max: 1}},
		HighVariance: study.LinkSpread{Jitter: study.Spread{Min: 0.005, Max: 0.01}, JitterDist: "pareto",
			Loss: study.Spread{Min: 0.005, Max: 0.005}, LossModel: "burst", BurstLength: study.Spread{Min: 2, Max: 2}},
		HighVarianceShare: 0.25,
		Motion:            "mix",
		Entities:          8, Rounds: 2, Round: 10, Seed: 7,
	}
	for _, delay := range []float64{0.05, 0.1} {
		s := engine.Defaults()
		s.Techniques = []string{engine.TechBuffer}
		s.TickRate, s.SendRate, s.Delay = 20, 20, delay
		res, err := study.RunPopulation(context.Background(), study.PopulationSpec{Base: s, Population: pop}, 0, nil)
		if err != nil {
			fmt.Println(err)
			return
		}
		m := res.Techniques[0].Metrics
		fmt.Printf("delay %.0f ms: %.0f%% of entity-rounds underrun, added latency p90 %.0f ms\n",
			delay*1000, m.UnderrunRounds*100, m.AddedLatencyP90*1000)
	}
	// Output:
	// delay 50 ms: 50% of entity-rounds underrun, added latency p90 109 ms
	// delay 100 ms: 19% of entity-rounds underrun, added latency p90 159 ms
}

// A population run in two chunks of entities, as two machines would run
// them, merged: the result is RunPopulation's.
func ExampleMergePopulation() {
	s := engine.Defaults()
	s.Techniques = []string{engine.TechBuffer}
	pop := study.Population{
		Latency: study.Spread{Min: 0.02, Max: 0.06}, ClockDrift: study.Spread{},
		Stable: study.LinkSpread{Jitter: study.Spread{Min: 0.001, Max: 0.005}, JitterDist: "lognormal",
			Loss: study.Spread{Min: 0.001, Max: 0.01}, LossModel: "random", BurstLength: study.Spread{Min: 1, Max: 1}},
		HighVariance: study.LinkSpread{JitterDist: "pareto", LossModel: "random", BurstLength: study.Spread{Min: 1, Max: 1}},
		Motion:       "mix", Entities: 6, Rounds: 2, Round: 5, Seed: 1,
	}
	spec := study.PopulationSpec{Base: s, Population: pop}
	var ents []study.PopulationEntity
	for _, chunk := range [][2]int{{0, 4}, {4, 6}} { // each anywhere, in any order
		part, err := study.RunPopulationEntities(context.Background(), spec, chunk[0], chunk[1], 0, nil)
		if err != nil {
			fmt.Println(err)
			return
		}
		ents = append(ents, part...)
	}
	merged, err := study.MergePopulation(spec, ents)
	if err != nil {
		fmt.Println(err)
		return
	}
	whole, _ := study.RunPopulation(context.Background(), spec, 0, nil)
	fmt.Println(merged.Techniques[0].Metrics == whole.Techniques[0].Metrics)
	// Output:
	// true
}

// A tuning a batch at a time: each batch's candidates could be evaluated
// on other machines, and the search resumed elsewhere from its state.
func ExampleTuneSearch() {
	base := engine.Defaults()
	base.Entities, base.Duration = 2, 3
	spec := study.TuneSpec{Base: base, Technique: engine.TechBuffer, Weights: study.DefaultTuneWeights(), Budget: 12, Seed: 1}
	s, err := study.NewTuneSearch(spec)
	if err != nil {
		fmt.Println(err)
		return
	}
	batches := 0
	for batch := s.Next(); batch != nil; batch = s.Next() {
		cands := make([]study.Candidate, len(batch))
		for i, settings := range batch {
			if cands[i], err = study.EvaluateCandidate(context.Background(), spec, settings, 0); err != nil {
				fmt.Println(err)
				return
			}
		}
		if err := s.Advance(cands); err != nil {
			fmt.Println(err)
			return
		}
		batches++
	}
	whole, _ := study.Tune(context.Background(), spec, 0, nil)
	res := s.Result()
	fmt.Println(batches > 1, len(res.Candidates) == len(whole.Candidates), res.Best.Cost == whole.Best.Cost)
	// Output:
	// true true true
}
