package netsim

import "testing"

// BenchmarkClientClockFrame reads the clock as a run's frame does, at
// 60 Hz: Advance, then Estimate and Local at the same time. ns/op is per
// frame.
func BenchmarkClientClockFrame(b *testing.B) {
	s := clockSettings(0.05, 0.003, "lognormal", 0.0001)
	c := NewClientClock(&s.Settings, 1)
	var sink float64
	for i := 0; i < b.N; i++ {
		t := float64(i) / 60
		c.Advance(t)
		sink += c.Estimate(t) + c.Local(t)
	}
	netBenchSink = sink
}

// BenchmarkClientClockRead is BenchmarkClientClockFrame through Read.
func BenchmarkClientClockRead(b *testing.B) {
	s := clockSettings(0.05, 0.003, "lognormal", 0.0001)
	c := NewClientClock(&s.Settings, 1)
	var sink float64
	for i := 0; i < b.N; i++ {
		est, local := c.Read(float64(i) / 60)
		sink += est + local
	}
	netBenchSink = sink
}

// BenchmarkStreamClock takes packets at 20 Hz and frames at 60 Hz, as a
// run does; ns/op is per frame.
func BenchmarkStreamClock(b *testing.B) {
	var c StreamClock
	var sink float64
	for i := 0; i < b.N; i++ {
		now := float64(i) / 60
		if i%3 == 0 {
			c.Arrive(now, now-0.05-float64(i%7)*0.001)
		}
		c.Advance(now)
		sink += c.Lag
	}
	netBenchSink = sink
}

// BenchmarkClientClockFit refits a full history, as every ping's reply
// does.
func BenchmarkClientClockFit(b *testing.B) {
	s := clockSettings(0.05, 0.003, "lognormal", 0.0001)
	c := NewClientClock(&s.Settings, 1)
	c.Advance(60)
	for i := 0; i < b.N; i++ {
		c.fit()
	}
	netBenchSink = c.fitS
}
