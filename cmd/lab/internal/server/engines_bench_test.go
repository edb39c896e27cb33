package server

import (
	"fmt"
	"net/http"
	"testing"
	"time"
)

// BenchmarkBrowserEngines measures the lab page in each engine
// (engines_browser_test.go) at 1440×900: the cold start (a fresh browser's
// first load, nothing cached, to the first simulated frame and to that
// frame painted), then per scene
// the frame rate, the engine's step time per animation frame and the draw
// time, and the CPU time the browser (every process of it, its driver and
// its display) spends a frame, which follows the browser's own work where
// the frame rate follows the machine's load too (childrenCPU). Run it with
// make bench-browser-engines:
//
//	go test -run='^$' -bench=BenchmarkBrowserEngines -benchtime=1x ./cmd/lab/internal/server
//
// The scenes: the default one (as a returning designer sees it: the
// first visit's library question answered), ?preset=mirror-30hz, 1,000
// entities, and 10,000 entities alone and with the A/B view open; and
// minimal-canvas, the engine's own ceiling: a page with nothing but one
// canvas of the lab view's size redrawn every frame (minimalCanvasPage).
// Compare engines within one run: the figures follow the machine's load.
//
// WebKit runs twice: as the tests run it ("webkit": WebKitGTK compositing
// in OpenGL, which on this GPU-less machine is Mesa's llvmpipe, a software
// rasteriser, and costs the whole window every frame), and as
// "webkit-nocompositing", with its compositing turned off
// (webkitNoCompositing), the closest this machine gets to Safari on a Mac,
// which composites on its GPU. The second measures the page's own cost.
func BenchmarkBrowserEngines(b *testing.B) {
	benchEngines := append(engines[:len(engines):len(engines)], struct {
		name string
		open func(t testing.TB, base string) enginePage
	}{"webkit-nocompositing", func(t testing.TB, base string) enginePage {
		return openWebKitEnv(t, base, webkitNoCompositing)
	}})
	for _, e := range benchEngines {
		b.Run(e.name, func(b *testing.B) {
			mux := http.NewServeMux()
			mux.Handle("/", newBrowserServer(b))
			mux.HandleFunc("GET /bench/minimal-canvas", func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/html; charset=utf-8")
				fmt.Fprint(w, minimalCanvasPage)
			})
			srv := newLoopbackServer(b, mux)
			p := page{e.open(b, srv), b}
			p.viewport(1440, 900)
			b.Run("cold-start", func(b *testing.B) {
				p := page{p.enginePage, b}
				var ms, painted float64
				for b.Loop() {
					p.navigate("/?preset=lan")
					if !p.poll(`performance.getEntriesByName('lab-first-frame-painted').length > 0`, 30*time.Second) {
						b.Fatal("no simulated frame painted within 30 s")
					}
					p.eval(`performance.getEntriesByName('lab-first-frame')[0].startTime`, &ms)
					p.eval(`performance.getEntriesByName('lab-first-frame-painted')[0].startTime`, &painted)
				}
				b.ReportMetric(ms, "first-frame-ms")
				b.ReportMetric(painted, "first-painted-ms")
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
				{"minimal-canvas", "", false},
			} {
				b.Run(sc.name, func(b *testing.B) {
					p := page{p.enginePage, b}
					link := sc.link
					if link == "" {
						link = "/"
					}
					p.navigate(link)
					p.viewport(1440, 900)
					// The library question a first visit asks (a modal
					// dialog over the lab) is answered once per browser.
					p.eval(`(d => { if (d && d.open) d.close(); return true })(document.getElementById('library-start'))`, nil)
					if sc.link == "" {
						// The same canvas as the lab's view, alone on a page.
						var size struct{ W, H int }
						p.eval(`({w: document.getElementById('view').clientWidth, h: document.getElementById('view').clientHeight})`, &size)
						p.navigate(fmt.Sprintf("/bench/minimal-canvas?w=%d&h=%d", size.W, size.H))
						p.viewport(1440, 900)
					}
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
					var cpuPerFrame float64
					for b.Loop() {
						cpu0, err0 := childrenCPU()
						start := time.Now()
						p.eval(`lab.measure(5)`, &m)
						wall := time.Since(start)
						cpu1, err1 := childrenCPU()
						if err0 == nil && err1 == nil && m.FPS > 0 {
							cpuPerFrame = float64(cpu1-cpu0) / float64(time.Millisecond) / wall.Seconds() / m.FPS
						}
					}
					b.ReportMetric(m.FPS, "fps")
					if cpuPerFrame > 0 {
						b.ReportMetric(cpuPerFrame, "browser-cpu-ms/frame")
					}
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

// minimalCanvasPage is the floor of what an engine spends to show a frame:
// one canvas, at the size the query gives (the lab view's), asked for as
// the lab asks for its view (VIEW_CONTEXT in web/canvas.js), filled and
// stroked with 60 segments that move every animation frame, and nothing
// else on the page. It offers the lab's measure hook, so the benchmark
// reads it as it reads the lab.
const minimalCanvasPage = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>minimal canvas</title>
<style>html, body { margin: 0; background: #0b0f14; } canvas { display: block; margin: 150px 0 0 300px; }</style></head>
<body><canvas id="view"></canvas><script>
const q = new URLSearchParams(location.search);
const c = document.getElementById('view');
c.width = Number(q.get('w')) || 640;
c.height = Number(q.get('h')) || 440;
const ctx = c.getContext('2d', { alpha: false, willReadFrequently: true });
let frames = 0;
const samplers = [];
function frame(now) {
  frames++;
  const t0 = performance.now();
  ctx.fillStyle = '#0d1117';
  ctx.fillRect(0, 0, c.width, c.height);
  ctx.strokeStyle = '#58a6ff';
  ctx.lineWidth = 1.5;
  ctx.beginPath();
  for (let i = 0; i <= 60; i++) {
    const x = (i / 60) * c.width;
    const y = c.height / 2 + Math.sin(i / 6 + now / 300) * c.height / 3;
    if (i === 0) ctx.moveTo(x, y); else ctx.lineTo(x, y);
  }
  ctx.stroke();
  const draw = performance.now() - t0;
  for (const s of samplers.slice()) s(now, draw);
  requestAnimationFrame(frame);
}
requestAnimationFrame(frame);
globalThis.lab = {
  state: () => ({ frames }),
  measure: (seconds) => new Promise((resolve) => {
    let start = 0, n = 0, drawSum = 0;
    const s = (now, draw) => {
      if (!start) { start = now; return; }
      n++;
      drawSum += draw;
      if (now - start >= seconds * 1000) {
        samplers.splice(samplers.indexOf(s), 1);
        resolve({ fps: n / ((now - start) / 1000), stepMs: 0, stepMsPerSimFrame: 0, drawMs: drawSum / n, pinnedStepMs: 0, entities: 0, techniques: 0 });
      }
    };
    samplers.push(s);
  }),
};
document.documentElement.dataset.ready = '1';
</script></body></html>
`
