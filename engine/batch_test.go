package engine

import (
	"testing"

	"interplab/engine/technique/unreal"
)

// TestGeckosBatchMatchesOne checks that the lab's batch (one vault shared
// by every entity, as a geckos snapshot carries them all) draws what one
// technique per entity draws.
func TestGeckosBatchMatchesOne(t *testing.T) {
	s := Defaults()
	s.Entities, s.Jitter, s.Loss, s.Duplicate, s.Duration = 5, 0.03, 0.05, 0.05, 10
	s.JitterDist = "pareto"
	s.Techniques = []string{TechGeckos}
	a, err := Run(s)
	if err != nil {
		t.Fatal(err)
	}
	// The same run with one technique per entity, by hand.
	m, err := NewSim(s)
	if err != nil {
		t.Fatal(err)
	}
	m.batches[0] = newPerEntity(TechGeckos, &m.set, &m.env, s.Entities)
	b := m.runFor(0)
	if a.Techniques[0].Metrics != b.Techniques[0].Metrics {
		t.Errorf("batch metrics %+v\nper entity %+v", a.Techniques[0].Metrics, b.Techniques[0].Metrics)
	}
}

// TestUnrealBatchMatchesTechnique runs the batch the simulation uses and
// one Technique per entity on the same run: the same frames, to the bit.
func TestUnrealBatchMatchesTechnique(t *testing.T) {
	for _, mode := range unreal.SmoothingModes {
		s := Defaults()
		s.Entities, s.Duration, s.Jitter, s.Loss, s.ClockDrift = 4, 5, 0.03, 0.05, 0.001
		s.NetworkSmoothingMode = mode
		s.Techniques = []string{TechUnreal}
		a, err := NewSim(s)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := NewSim(s)
		b.batches[0] = newPerEntity(TechUnreal, &b.set, &b.env, s.Entities)
		for range 300 {
			a.StepFrames(1)
			b.StepFrames(1)
			pa, pb := a.Poses(), b.Poses()
			for i := range pa {
				if pa[i] != pb[i] {
					t.Fatalf("%s: frame %d: batch pose %d = %v, per entity %v", mode, a.Frames(), i, pa[i], pb[i])
				}
			}
		}
	}
}
