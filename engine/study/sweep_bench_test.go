package study

import (
	"context"
	"strconv"
	"testing"

	"interplab/engine"
)

// BenchmarkSweep measures sweep throughput in entity-seconds simulated per
// second of wall time, on one worker and on every core: 8 points of the
// buffer over the delay, 6 entities for 60 s each.
func BenchmarkSweep(b *testing.B) {
	spec := SweepSpec{Base: harborBefore(), Technique: engine.TechBuffer,
		X: Axis{Name: "delay", Min: 0.02, Max: 0.2, Steps: 8}}
	for _, workers := range []int{1, 0} {
		name := "workers=" + strconv.Itoa(workers)
		if workers == 0 {
			name = "workers=all"
		}
		b.Run(name, func(b *testing.B) { benchSweep(b, spec, workers) })
	}
}

// BenchmarkSweep1000 is the anchor: a 1,000-point sweep (delay ×
// extrapolateCap, 40 × 25) of the buffer, 60 s of 6 entities each, on every
// core. Its s/sweep is the wall time of the whole sweep; run it with
// -benchtime=1x.
func BenchmarkSweep1000(b *testing.B) {
	spec := SweepSpec{Base: harborBefore(), Technique: engine.TechBuffer,
		X: Axis{Name: "delay", Min: 0, Max: 0.39, Steps: 40},
		Y: &Axis{Name: "extrapolateCap", Min: 0, Max: 0.96, Steps: 25}}
	benchSweep(b, spec, 0)
}

func benchSweep(b *testing.B, spec SweepSpec, workers int) {
	for b.Loop() {
		pts, err := Sweep(context.Background(), spec, workers, nil)
		if err != nil {
			b.Fatal(err)
		}
		if len(pts) != spec.Points() || pts[0].Err != "" {
			b.Fatalf("Sweep gave %d points (first error %q), want %d", len(pts), pts[0].Err, spec.Points())
		}
	}
	sec := b.Elapsed().Seconds()
	b.ReportMetric(float64(spec.Points()*spec.Base.Entities)*spec.Base.Duration*float64(b.N)/sec, "entity-s/s")
	b.ReportMetric(sec/float64(b.N), "s/sweep")
}
