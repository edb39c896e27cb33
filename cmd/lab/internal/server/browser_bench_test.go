package server

import (
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/heapprofiler"
	"github.com/chromedp/chromedp"
)

// BenchmarkBrowser measures the lab page in headless Chromium: the frame
// rate, the engine step time per animation frame and per engine frame
// (1/renderRate of simulated time; under load an animation frame steps up
// to 50 ms of simulated time, several engine frames), and the draw time,
// with every technique running. Run it with make bench-browser:
//
//	go test -run='^$' -bench=BenchmarkBrowser -benchtime=1x ./cmd/lab
//
// The frame budget: with 1,000 entities the page holds 60 fps; with 10,000
// the engine step stays under 8 ms a frame (goal 4 ms). With the A/B view
// open (entities=10000/ab) the pinned simulation steps in a worker, on
// another core: step-ms is the page's own, pinned-step-ms the worker's per
// step. alloc-KB/frame is what the page's JavaScript allocates per frame
// (Chromium's sampling heap profiler, collected objects included): garbage
// the collector clears mid-animation, whose pauses drop frames.
func BenchmarkBrowser(b *testing.B) {
	for _, bc := range []struct {
		name string
		link string
		ab   bool // with the A/B view open: a second run of the same settings pinned
	}{
		{"entities=1000", "/?entities=1000", false},
		{"entities=10000", "/?entities=10000", false},
		{"entities=10000/ab", "/?entities=10000", true},
	} {
		b.Run(bc.name, func(b *testing.B) {
			tab := openLab(b, bc.link)
			if bc.ab {
				tab.eval(`document.getElementById('ab-pin').click()`, nil)
				if !tab.poll(`lab.ab().pinned && lab.ab().frames > 0`, 30*time.Second) {
					b.Fatal("the A/B view did not start within 30 s")
				}
			}
			// Warm up: the first frames compile and allocate.
			if !tab.poll(`lab.state().frames >= 60`, 30*time.Second) {
				b.Fatal("the page did not draw 60 frames within 30 s")
			}
			var m struct {
				FPS, StepMs, StepMsPerSimFrame, StepMaxMs, DrawMs, PinnedStepMs float64
				Frames, Entities, Techniques                                    int
			}
			yes := true
			if _, err := chromedp.Call(tab.ctx, heapprofiler.StartSampling, heapprofiler.StartSamplingParams{
				SamplingInterval: 4096, IncludeObjectsCollectedByMajorGC: &yes, IncludeObjectsCollectedByMinorGC: &yes,
			}); err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				tab.eval(`lab.measure(5)`, &m)
			}
			res, err := chromedp.Call(tab.ctx, heapprofiler.StopSampling, cdp.Empty{})
			if err != nil {
				b.Fatal(err)
			}
			if m.Entities == 0 || m.Techniques != 5 {
				b.Fatalf("measured %d entities × %d techniques, want every technique", m.Entities, m.Techniques)
			}
			b.ReportMetric(m.FPS, "fps")
			b.ReportMetric(m.StepMs, "step-ms/frame")
			b.ReportMetric(m.StepMsPerSimFrame, "step-ms/sim-frame")
			b.ReportMetric(m.StepMaxMs, "step-max-ms")
			b.ReportMetric(m.DrawMs, "draw-ms/frame")
			b.ReportMetric(heapBytes(res.Profile.Head)/1024/float64(m.Frames), "alloc-KB/frame")
			if bc.ab {
				b.ReportMetric(m.PinnedStepMs, "pinned-step-ms")
			}
			b.ReportMetric(0, "ns/op") // the wall time of a measurement says nothing
		})
	}
}

// heapBytes sums the sampled allocations under n.
func heapBytes(n *heapprofiler.SamplingHeapProfileNode) float64 {
	sum := n.SelfSize
	for _, c := range n.Children {
		sum += heapBytes(c)
	}
	return sum
}
