package server

import (
	"testing"
	"time"
)

// BenchmarkBrowserEngines measures the lab page in each engine
// (engines_browser_test.go) at 1440×900: the cold start (a fresh browser's
// first load, nothing cached, to the first simulated frame), then per scene
// the frame rate, the engine's step time per animation frame and the draw
// time. Run it with make bench-browser-engines:
//
//	go test -run='^$' -bench=BenchmarkBrowserEngines -benchtime=1x ./cmd/lab/internal/server
//
// The scenes: the default one, ?preset=mirror-30hz, 1,000 entities, and
// 10,000 entities alone and with the A/B view open. Compare engines within
// one run: the figures follow the machine's load.
func BenchmarkBrowserEngines(b *testing.B) {
	for _, e := range engines {
		b.Run(e.name, func(b *testing.B) {
			srv := newLoopbackServer(b, newBrowserServer(b))
			p := page{e.open(b, srv), b}
			p.viewport(1440, 900)
			b.Run("cold-start", func(b *testing.B) {
				p := page{p.enginePage, b}
				var ms float64
				for b.Loop() {
					p.navigate("/?preset=lan")
					if !p.poll(`performance.getEntriesByName('lab-first-frame').length > 0`, 30*time.Second) {
						b.Fatal("no simulated frame within 30 s")
					}
					p.eval(`performance.getEntriesByName('lab-first-frame')[0].startTime`, &ms)
				}
				b.ReportMetric(ms, "first-frame-ms")
				b.ReportMetric(0, "ns/op")
			})
			for _, sc := range []struct {
				name, link string
				ab         bool
			}{
				{"default", "/", false},
				{"mirror-30hz", "/?preset=mirror-30hz", false},
				{"entities=1000", "/?entities=1000", false},
				{"entities=10000", "/?entities=10000", false},
				{"entities=10000/ab", "/?entities=10000", true},
			} {
				b.Run(sc.name, func(b *testing.B) {
					p := page{p.enginePage, b}
					p.navigate(sc.link)
					p.viewport(1440, 900)
					if sc.ab {
						p.eval(`document.getElementById('ab-pin').click()`, nil)
						if !p.poll(`lab.ab().pinned && lab.ab().frames > 0`, 30*time.Second) {
							b.Fatal("the A/B view did not start within 30 s")
						}
					}
					// Warm up: the first frames compile and allocate. (The
					// A/B view runs in slow motion on a machine that cannot
					// keep up: fewer frames, more time.)
					if !p.poll(`lab.state().frames >= 30`, 60*time.Second) {
						b.Fatal("the page did not draw 30 frames within 60 s")
					}
					var m struct {
						FPS, StepMs, StepMsPerSimFrame, DrawMs, PinnedStepMs float64
						Entities, Techniques                                 int
					}
					for b.Loop() {
						p.eval(`lab.measure(5)`, &m)
					}
					b.ReportMetric(m.FPS, "fps")
					b.ReportMetric(m.StepMs, "step-ms/frame")
					b.ReportMetric(m.StepMsPerSimFrame, "step-ms/sim-frame")
					b.ReportMetric(m.DrawMs, "draw-ms/frame")
					if sc.ab {
						b.ReportMetric(m.PinnedStepMs, "pinned-step-ms")
					}
					b.ReportMetric(0, "ns/op")
				})
			}
		})
	}
}
