package motion

import "testing"

// BenchmarkMoverPos is BenchmarkMoverAt for the position alone, which a
// run's truth reads on most frames.
func BenchmarkMoverPos(b *testing.B) {
	for _, script := range Names {
		b.Run(script, func(b *testing.B) {
			movers := make([]Mover, 1000)
			for e := range movers {
				movers[e] = NewMover(script, e, 7, 1)
			}
			var sink float64
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				sink += movers[i%1000].Pos(float64(i/1000) / 60)[0]
			}
			motionBenchSink = sink
		})
	}
}
