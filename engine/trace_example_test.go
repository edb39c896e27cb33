package engine_test

import (
	"fmt"

	"interplab/engine"
)

// A trace recorded over a 4G-like link (30 ms, 15 ms lognormal jitter, 2%
// loss in bursts of 4) gives its network back, within what 12,000 sends can
// tell, and replays through every technique.
func ExampleTrace_Network() {
	s := engine.Defaults()
	s.Entities, s.Duration = 1, 600
	s.Latency, s.Jitter, s.JitterDist = 0.03, 0.015, "lognormal"
	s.Loss, s.LossModel, s.BurstLength = 0.02, "burst", 4
	tr, err := engine.SyntheticTrace(s) // a real trace would come from a game
	if err != nil {
		panic(err)
	}
	e := tr.Network()
	fmt.Printf("latency %.1f ms, jitter %.1f ms %s\n", e.Latency*1000, e.Jitter*1000, e.JitterDist)
	fmt.Printf("loss %.1f%% in %s runs of %.1f, %g Hz\n", e.Loss*100, e.LossModel, e.BurstLength, e.SendRate)

	replay, _ := e.Apply(engine.Defaults()) // the clock's pings see the trace's network
	res, err := engine.RunTrace(tr, replay)
	if err != nil {
		panic(err)
	}
	for _, t := range res.Techniques {
		fmt.Printf("%s: %d frames\n", t.Name, t.Metrics.Frames)
	}
	// Output:
	// latency 29.9 ms, jitter 15.4 ms lognormal
	// loss 1.5% in burst runs of 3.2, 20 Hz
	// epic: 3598 frames
	// epicfix: 3598 frames
	// snap: 3598 frames
	// buffer: 3598 frames
	// hermite: 3598 frames
}
