package server

import (
	"net/http"
	"testing"
	"time"

	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// atFirstFrame runs before the page's own scripts. It records the time of
// the page's first rendering (its first animation frame, firstRender, ms
// after navigation) and, when the page marks its first simulated frame
// (lab-first-frame), what the page had done by then: whether the A/B
// view's controls existed and whether the page's test hooks were set.
const atFirstFrame = `(() => {
  requestAnimationFrame(() => { globalThis.firstRender = performance.now(); });
  const mark = performance.mark.bind(performance);
  performance.mark = (name, ...rest) => {
    if (name === 'lab-first-frame' && !globalThis.atFirstFrame) {
      globalThis.atFirstFrame = { ab: !!document.getElementById('ab-pin'), hooks: !!globalThis.lab };
    }
    return mark(name, ...rest);
  };
})()`

// TestBrowserStartOrder checks the cold start's order with lab.js served
// late, as over a slow link: the page is not painted before lab.js has
// run (lab.js blocks rendering, so the page's first paint is its first
// simulated frame, not the page laid out and painted as it was parsed),
// and the first frame does not wait for the A/B view or the rest of the
// set-up, which follow it; the page is ready, A/B view and all, after.
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
		At          struct{ AB, Hooks bool }
		Ready       bool
	}
	b.eval(`(() => {
		const js = performance.getEntriesByType('resource').find((e) => e.name.endsWith('/static/lab.js'));
		return {
			labJS: js ? js.responseEnd : -1,
			firstRender: globalThis.firstRender,
			firstFrame: performance.getEntriesByName('lab-first-frame')[0].startTime,
			at: globalThis.atFirstFrame,
			ready: !!document.getElementById('ab-pin') && document.documentElement.dataset.ready === '1',
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
	if !got.Ready {
		t.Error("the page is ready without its A/B view")
	}
}
