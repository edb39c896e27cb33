package engine

import "testing"

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
