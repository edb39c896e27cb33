package server

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// atFirstFrame runs before the page's own scripts. It records the time of
// the page's first rendering (its first animation frame, firstRender, ms
// after navigation) and, when the page marks its first simulated frame
// (lab-first-frame), what the page had done by then: whether the A/B
// view's controls existed and whether the page's test hooks were set, and
// the clock readout the first frame left (the metrics panel's refresh
// writes it).
const atFirstFrame = `(() => {
  requestAnimationFrame(() => { globalThis.firstRender = performance.now(); });
  const mark = performance.mark.bind(performance);
  performance.mark = (name, ...rest) => {
    if (name === 'lab-first-frame' && !globalThis.atFirstFrame) {
      globalThis.atFirstFrame = { ab: !!document.getElementById('ab-pin'), hooks: !!globalThis.lab };
      // After the frame's callback, before anything else runs.
      queueMicrotask(() => { globalThis.atFirstFrame.clock = document.getElementById('clock')?.textContent ?? ''; });
    }
    return mark(name, ...rest);
  };
})()`

// TestBrowserStartOrder checks the cold start's order with lab.js served
// late, as over a slow link: the page is not painted before lab.js has
// run (lab.js blocks rendering, so the page's first paint is its first
// simulated frame, not the page laid out and painted as it was parsed),
// and the first frame does not wait for the A/B view or the rest of the
// set-up, which follow it, nor refresh the metrics panel, filled at the
// run's creation; the page is ready, A/B view and all, after.
func TestBrowserStartOrder(t *testing.T) {
	const late = 800 * time.Millisecond
	s := newBrowserServer(t)
	b := startChromium(t, newLoopbackServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/static/lab.js" {
			time.Sleep(late)
		}
		s.ServeHTTP(w, r)
	})), browserTimeout)
	if _, err := chromedp.Call(b.ctx, cdppage.AddScriptToEvaluateOnNewDocument, cdppage.AddScriptToEvaluateOnNewDocumentParams{Source: atFirstFrame}); err != nil {
		t.Fatal(err)
	}
	b.navigate("/?preset=lan")

	var got struct {
		LabJS       float64 // lab.js's responseEnd, ms after navigation
		FirstRender float64
		FirstFrame  float64
		At          struct {
			AB, Hooks bool
			Clock     string
		}
		Ready     bool
		Resources []string // what the document itself fetched
	}
	b.eval(`(() => {
		const js = performance.getEntriesByType('resource').find((e) => e.name.endsWith('/static/lab.js'));
		return {
			labJS: js ? js.responseEnd : -1,
			firstRender: globalThis.firstRender,
			firstFrame: performance.getEntriesByName('lab-first-frame')[0].startTime,
			at: globalThis.atFirstFrame,
			ready: !!document.getElementById('ab-pin') && document.documentElement.dataset.ready === '1',
			resources: performance.getEntriesByType('resource').map((e) => new URL(e.name).pathname),
		};
	})()`, &got)
	if got.LabJS < float64(late.Milliseconds()) {
		t.Fatalf("lab.js arrived %.0f ms after navigation, want it held back %v", got.LabJS, late)
	}
	if got.FirstRender < got.LabJS {
		t.Errorf("first rendering at %.0f ms, before lab.js arrived (%.0f ms): the page was laid out and painted before lab.js ran", got.FirstRender, got.LabJS)
	}
	if got.At.AB || got.At.Hooks {
		t.Errorf("at the first frame (%.0f ms): A/B view built %v, hooks set %v; want the first frame before both", got.FirstFrame, got.At.AB, got.At.Hooks)
	}
	// The panel was filled when the run was created; the first frame
	// leaves it to the next refresh (a refresh there laid the page out a
	// second time before its first paint).
	if want := "frame 0"; !strings.HasSuffix(got.At.Clock, want) {
		t.Errorf("after the first frame the clock reads %q, want it as the run's creation left it (%q): the first frame refreshed the metrics panel", got.At.Clock, want)
	}
	if !got.Ready {
		t.Error("the page is ready without its A/B view")
	}
	// The engine is downloaded and compiled by boot.js's worker, off the
	// main thread: the worker's requests are not the document's.
	if !slices.Contains(got.Resources, "/static/bootworker.js") || slices.Contains(got.Resources, "/lab.wasm") {
		t.Errorf("the document fetched %q; want /static/bootworker.js and not /lab.wasm (the worker fetches it)", got.Resources)
	}
}

// TestBrowserBootWithoutWorker checks boot.js's fallback: when its worker
// cannot start (here its script is missing), the page downloads and
// compiles the engine itself and runs as usual.
func TestBrowserBootWithoutWorker(t *testing.T) {
	s := newBrowserServer(t)
	b := startChromium(t, newLoopbackServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/static/bootworker.js" {
			http.NotFound(w, r)
			return
		}
		s.ServeHTTP(w, r)
	})), browserTimeout)
	b.allow("bootworker.js")
	b.allow("404 (Not Found)")
	b.navigate("/?preset=lan")
	var got struct {
		Frames    float64
		Resources []string
	}
	b.eval(`(async () => {
		const start = lab.state().frames;
		await new Promise((resolve) => setTimeout(resolve, 300));
		return {
			frames: lab.state().frames - start,
			resources: performance.getEntriesByType('resource').map((e) => new URL(e.name).pathname),
		};
	})()`, &got)
	if got.Frames <= 0 {
		t.Errorf("the run advanced %v frames in 300 ms without boot.js's worker, want some", got.Frames)
	}
	if !slices.Contains(got.Resources, "/lab.wasm") {
		t.Errorf("the document fetched %q; want /lab.wasm, compiled in the page when the worker cannot start", got.Resources)
	}
}
