package study

import (
	"context"
	"testing"

	"interplab/engine"
)

// A candidate that draws nothing has no error, no latency and no snaps to
// count: by the metrics alone it is perfect. geckos.io with an
// interpolationBuffer below its send interval never finds two snapshots
// around its render time, so it draws nothing at all (the lab's geckos-20fps
// preset at 0–19 ms). The tuner must never recommend it, nor count it as
// meeting the bounds.
func TestTuneNeverRecommendsABlankDisplay(t *testing.T) {
	base := engine.Defaults()
	base.Techniques = []string{engine.TechGeckos}
	base.Entities, base.Duration = 2, 6
	spec := TuneSpec{Base: base, Technique: engine.TechGeckos, Weights: DefaultTuneWeights(),
		Motions: []string{"strafe"}, Budget: 40, Seed: 1,
		Space: []TuneRange{{Name: "geckos.interpolationBuffer", Min: 0, Max: 0.3}}}
	r, err := Tune(context.Background(), spec, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	blank := 0
	for _, c := range r.Candidates {
		if c.Metrics.Frames > 0 {
			continue
		}
		blank++
		if c.Feasible {
			t.Errorf("candidate %v draws nothing, yet counts as feasible", engine.Diff(base, c.Settings))
		}
	}
	if blank == 0 {
		t.Fatalf("no candidate drew nothing: the case no longer tests what it is for")
	}
	if r.Recommended && r.Best.Metrics.Frames == 0 {
		t.Errorf("recommends %v, which draws nothing", engine.Diff(base, r.Best.Settings))
	}
	for _, c := range r.Pareto {
		if c.Metrics.Frames == 0 {
			t.Errorf("the Pareto front holds %v, which draws nothing", engine.Diff(base, c.Settings))
		}
	}
}
