package engine

import "testing"

// BenchmarkTechniqueFrame runs each technique alone over 1,000 entities on
// the default link (20 Hz send, 60 Hz render, 10 ms jitter, 2% loss), one
// 60 Hz frame per op after 2 s of priming, and reports the cost per
// entity-frame, metrics included: the figure to hold the techniques to
// against one another (a library technique within 2× of buffer).
func BenchmarkTechniqueFrame(b *testing.B) {
	for _, name := range TechniqueNames {
		b.Run(name, func(b *testing.B) {
			s := Defaults()
			s.Entities, s.Jitter, s.Loss = 1000, 0.01, 0.02
			s.Techniques = []string{name}
			m, err := NewSim(s)
			if err != nil {
				b.Fatal(err)
			}
			m.StepFrames(120)
			b.ReportAllocs()
			for b.Loop() {
				m.StepFrames(1)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(s.Entities), "ns/entity-frame")
		})
	}
}
