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
