package engine_test

import (
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
