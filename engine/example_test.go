package engine_test

import (
	"context"
	"fmt"

	"interplab/engine"
)

// A whole run: every technique on the same packets, one Metrics each.
func ExampleRun() {
	s := engine.Defaults()
	s.Duration = 10
	s.Jitter, s.Loss = 0.02, 0.05
	s.Techniques = []string{engine.TechSnap, engine.TechBuffer}
	res, err := engine.Run(s)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, t := range res.Techniques {
		// 6 entities × 600 frames, less the first frames before any packet.
		fmt.Println(t.Name, t.Metrics.Frames > 3500 && t.Metrics.Frames < 3600)
	}
	// Output:
	// snap true
	// buffer true
}

// The page's loop: change a setting live, step by display frames, read the
// poses to draw.
func ExampleSim() {
	m, err := engine.NewSim(engine.Defaults())
	if err != nil {
		fmt.Println(err)
		return
	}
	if _, err := m.Set("displayBehind", 0.1); err != nil {
		fmt.Println(err)
	}
	for range 30 {
		m.Step(1.0 / 60)
	}
	rows := 1 + len(m.Techniques())
	fmt.Println(m.Frames(), len(m.Poses()) == rows*m.Entities()*engine.PoseStride)
	// Output: 30 true
}

// Validation names the field, the value and the allowed range.
func ExampleSettings_Validate() {
	s := engine.Defaults()
	s.Loss = 1.2
	fmt.Println(s.Validate())
	// Output: loss = "120%" is not allowed: want [0, 90] %
}

// A population run: the buffer at one tick of delay against two ticks, over
// eight players of mixed connections, two rounds of 10 s each.
func ExampleRunPopulation() {
	pop := engine.Population{
		Latency:    engine.Spread{Min: 0.015, Max: 0.06},
		ClockDrift: engine.Spread{Min: -0.00005, Max: 0.00005},
		Stable: engine.LinkSpread{Jitter: engine.Spread{Min: 0.0001, Max: 0.001, Log: true}, JitterDist: "lognormal",
			Loss: engine.Spread{Min: 0.0001, Max: 0.0001}, LossModel: "random", BurstLength: engine.Spread{Min: 1, Max: 1}},
		HighVariance: engine.LinkSpread{Jitter: engine.Spread{Min: 0.005, Max: 0.01}, JitterDist: "pareto",
			Loss: engine.Spread{Min: 0.005, Max: 0.005}, LossModel: "burst", BurstLength: engine.Spread{Min: 2, Max: 2}},
		HighVarianceShare: 0.25,
		Motion:            "mix",
		Entities:          8, Rounds: 2, Round: 10, Seed: 7,
	}
	for _, delay := range []float64{0.05, 0.1} {
		s := engine.Defaults()
		s.Techniques = []string{engine.TechBuffer}
		s.TickRate, s.SendRate, s.Delay = 20, 20, delay
		res, err := engine.RunPopulation(context.Background(), engine.PopulationSpec{Base: s, Population: pop}, 0, nil)
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
