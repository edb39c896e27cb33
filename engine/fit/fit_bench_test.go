package fit

import (
	"runtime"
	"sync"
	"testing"
	"time"

	"interplab/engine"
)

// hourCapture is a one-hour capture at 20 Hz (72,001 sends) of a link
// with every part the fit looks for.
var hourCapture = sync.OnceValue(func() *engine.Trace {
	s := engine.Defaults()
	s.Entities, s.Duration, s.Seed, s.Motion = 1, 3600, 11, "strafe"
	s.Techniques = []string{"buffer"}
	s.Latency, s.Jitter, s.JitterDist = 0.05, 0.012, "pareto"
	s.Loss, s.LossModel, s.BurstLength, s.Reorder, s.Duplicate = 0.02, "burst", 3, 0.01, 0.005
	s.Scenario, s.ScenarioText = "custom", "step at=1200 latency=90ms\noutage at=2000 for=3 backlog=burst\nstep at=2400 latency=60ms"
	t, err := engine.SyntheticTrace(s)
	if err != nil {
		panic(err)
	}
	for i := range t.Packets {
		t.Packets[i].Arrive += 5e-5 * t.Packets[i].Arrive
	}
	return t
})

// BenchmarkFitHour fits the one-hour capture.
func BenchmarkFitHour(b *testing.B) {
	t := hourCapture()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Fit(t, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFitHourPeak fits the one-hour capture and reports peak-heap-B,
// the largest heap in use during one fit above the heap before it, sampled
// every millisecond (the sampling's stops slow it: read the time from
// BenchmarkFitHour); trace-B is the trace's own packets, for scale.
func BenchmarkFitHourPeak(b *testing.B) {
	t := hourCapture()
	b.ReportAllocs()
	var peak uint64
	for b.Loop() {
		runtime.GC()
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		done := make(chan uint64)
		stop := make(chan struct{})
		go func() {
			var m runtime.MemStats
			top := uint64(0)
			tick := time.NewTicker(time.Millisecond)
			defer tick.Stop()
			for {
				runtime.ReadMemStats(&m)
				top = max(top, m.HeapAlloc)
				select {
				case <-stop:
					done <- top
					return
				case <-tick.C:
				}
			}
		}()
		if _, err := Fit(t, Options{}); err != nil {
			b.Fatal(err)
		}
		close(stop)
		if top := <-done; top > before.HeapAlloc {
			peak = max(peak, top-before.HeapAlloc)
		}
	}
	b.ReportMetric(float64(peak), "peak-heap-B")
	b.ReportMetric(float64(len(t.Packets))*float64(sizeofPacket), "trace-B")
}

// BenchmarkNetworkHour is the baseline: the lab's existing estimate of a
// trace's network (engine.Trace.Network) on the same capture.
func BenchmarkNetworkHour(b *testing.B) {
	t := hourCapture()
	b.ReportAllocs()
	for b.Loop() {
		_ = t.Network()
	}
}
