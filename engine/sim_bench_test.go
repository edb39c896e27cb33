package engine

import "testing"

// BenchmarkSimulate is the whole-run anchor: 1,000 entities for 60 simulated
// seconds at 20 Hz send and 60 Hz render, every technique.
func BenchmarkSimulate(b *testing.B) {
	s := Defaults()
	s.Entities, s.Duration, s.SendRate, s.RenderRate = 1000, 60, 20, 60
	s.Jitter, s.Loss = 0.01, 0.02
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Run(s); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(s.Entities)*s.Duration*float64(b.N)/b.Elapsed().Seconds(), "entity-s/s")
}

// BenchmarkSimStep is the page's stress view: one 60 Hz display frame of
// 10,000 entities with every technique, drawn as dots (no headings).
func BenchmarkSimStep(b *testing.B) {
	m := stressSim(b)
	b.ReportAllocs()
	for b.Loop() {
		m.StepFrames(1)
	}
}

// stressSim is the page's stress view (BenchmarkSimStep's): 10,000
// entities, every technique, no headings, 120 frames in so that the
// buffers are primed.
func stressSim(b *testing.B) *Sim {
	b.Helper()
	s := Defaults()
	s.Entities = 10000
	s.Jitter = 0.01
	m, err := NewSim(s)
	if err != nil {
		b.Fatal(err)
	}
	m.SetHeadings(false)
	m.StepFrames(120)
	return m
}
