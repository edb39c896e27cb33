package server

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
)

// The floor pages: what a new cache-disabled Chromium costs before the lab
// does anything. Each marks lab-first-frame in its first animation frame, as
// the lab marks its first simulated frame, and lab-first-frame-painted once
// that frame is painted (coldPaintedMark), so coldStart times all alike.
const (
	// coldPaintedMark, run in a page's first animation frame, marks it,
	// then marks it painted in a task that runs after the frame's
	// rendering, as web/lab.js does.
	coldPaintedMark = `performance.mark('lab-first-frame'); const ch = new MessageChannel(); ch.port1.onmessage = () => performance.mark('lab-first-frame-painted'); ch.port2.postMessage(0);`

	// coldEmptyPage is a page with nothing in it.
	coldEmptyPage = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>empty</title>
<script>requestAnimationFrame(() => { ` + coldPaintedMark + ` });</script></head><body></body></html>`
	// coldWasmPage only downloads, compiles and starts lab.wasm, with the
	// lab page's own head lines (wasm_exec.js, boot.js), and marks the
	// first animation frame after the Go program has started.
	coldWasmPage = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>wasm</title>
<script src="/static/dist/wasm_exec.js"></script>
<script src="/static/boot.js"></script>
<script>globalThis.interplabBoot.started.then(() => requestAnimationFrame(() => { ` + coldPaintedMark + ` }),
  (err) => console.error(err));</script></head><body></body></html>`
)

// coldFloorHandler serves h with the floor pages at /cold-floor/empty and
// /cold-floor/wasm.
func coldFloorHandler(h http.Handler) http.Handler {
	mux := http.NewServeMux()
	page := func(body string) http.HandlerFunc {
		return func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Header().Set("Cache-Control", "no-store")
			io.WriteString(w, body)
		}
	}
	mux.Handle("GET /cold-floor/empty", page(coldEmptyPage))
	mux.Handle("GET /cold-floor/wasm", page(coldWasmPage))
	mux.Handle("/", h)
	return mux
}

// BenchmarkBrowserColdStartFloor measures how much of a cold start is the
// lab page's own: in the same harness as BenchmarkBrowserColdStart (a new
// cache-disabled Chromium per start, 1440×900, loopback), alternating the
// three, the first animation frame of an empty page, of a page that only
// compiles and starts lab.wasm, and the first simulated frame of the lab
// (/?preset=lan), with the medians of each and of the main thread's CPU
// until then. The lab's figure less the wasm page's is what the page's
// HTML, styles, modules and set-up add; the wasm page's less the empty
// page's is the engine's download, compilation and start.
//
//	go test -run='^$' -bench=BenchmarkBrowserColdStartFloor -benchtime=10x ./cmd/lab/internal/server
func BenchmarkBrowserColdStartFloor(b *testing.B) {
	browserInstalled(b)
	base := newLoopbackServer(b, coldFloorHandler(newBrowserServer(b)))
	pages := []struct{ name, path string }{
		{"empty", "/cold-floor/empty"},
		{"wasm", "/cold-floor/wasm"},
		{"lab", "/?preset=lan"},
	}
	times, painted, cpus := coldRounds(b, len(pages), func(p, _ int) (ms, paint, cpu float64) {
		return coldStart(b, base+pages[p].path, "")
	})
	var log strings.Builder
	for k, p := range pages {
		b.ReportMetric(coldMedian(times[k]), p.name+"-first-frame-ms")
		b.ReportMetric(coldMedian(painted[k]), p.name+"-painted-ms")
		b.ReportMetric(coldMedian(cpus[k]), p.name+"-main-cpu-ms")
		fmt.Fprintf(&log, "; %s: first frame, ms %.0f, painted, ms %.0f, main thread CPU, ms %.0f", p.name, times[k], painted[k], cpus[k])
	}
	b.Logf("load average %s%s", loadAverage(), log.String())
	b.ReportMetric(0, "ns/op")
}
