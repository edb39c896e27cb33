package server

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"path"
	"slices"
	"strings"
	"testing"
	"time"

	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"interplab/web"
)

// atFirstFrame runs before the page's own scripts. It records the time of
// the page's first rendering (its first animation frame, firstRender, ms
// after navigation) and, when the page marks its first simulated frame
// (lab-first-frame), what the page had done by then: whether the A/B
// view's controls existed and whether the page's test hooks were set, the
// address bar's query, how often the page had read the browser's storage
// and had the engine parse a value's text (interplab.parse), and the clock
// readout the first frame left (the metrics panel's refresh writes it).
const atFirstFrame = `(() => {
  requestAnimationFrame(() => { globalThis.firstRender = performance.now(); });
  let reads = 0;
  const getItem = Storage.prototype.getItem;
  Storage.prototype.getItem = function (...args) {
    reads++;
    return getItem.apply(this, args);
  };
  let parses = 0;
  let engine;
  Object.defineProperty(globalThis, 'interplab', {
    configurable: true,
    get: () => engine,
    set: (v) => {
      const parse = v.parse;
      v.parse = (...args) => {
        parses++;
        return parse.apply(v, args);
      };
      engine = v;
    },
  });
  const mark = performance.mark.bind(performance);
  performance.mark = (name, ...rest) => {
    if (name === 'lab-first-frame' && !globalThis.atFirstFrame) {
      globalThis.atFirstFrame = { ab: !!document.getElementById('ab-pin'), hooks: !!globalThis.lab, search: location.search, storageReads: reads, parses };
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
// and the first frame does not wait for the A/B view, the share link's
// rewriting or the rest of the set-up, which follow it, nor refresh the
// metrics panel, filled at the run's creation, nor read the browser's
// storage (only a first visit's page asks the library question), nor
// have the engine parse the preset's values (the run starts from the
// controls'; the share link needs the preset's, after); the page is
// ready, A/B view, canonical link and all, after.
func TestBrowserStartOrder(t *testing.T) {
	const late = 800 * time.Millisecond
	s := newBrowserServer(t)
	b := startChromium(t, newLoopbackServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/static/"+web.LabBundle {
			time.Sleep(late)
		}
		s.ServeHTTP(w, r)
	})), browserTimeout)
	if _, err := chromedp.Call(b.ctx, cdppage.AddScriptToEvaluateOnNewDocument, cdppage.AddScriptToEvaluateOnNewDocumentParams{Source: atFirstFrame}); err != nil {
		t.Fatal(err)
	}
	// latency=1ms is the preset's own: the canonical link leaves it out.
	const opened, canonical = "?preset=lan&latency=1ms", "?preset=lan"
	b.navigate("/" + opened)

	var got struct {
		LabJS       float64 // lab.js's (the bundle's) responseEnd, ms after navigation
		FirstRender float64
		FirstFrame  float64
		At          struct {
			AB, Hooks    bool
			Search       string
			StorageReads int
			Parses       int
			Clock        string
		}
		Search    string // once ready
		Ready     bool
		Resources []string // what the document itself fetched
	}
	b.eval(`(() => {
		const js = performance.getEntriesByType('resource').find((e) => e.name.endsWith('/static/`+web.LabBundle+`'));
		return {
			labJS: js ? js.responseEnd : -1,
			firstRender: globalThis.firstRender,
			firstFrame: performance.getEntriesByName('lab-first-frame')[0].startTime,
			at: globalThis.atFirstFrame,
			search: location.search,
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
	if got.At.Search != opened || got.Search != canonical {
		t.Errorf("address bar's query %q at the first frame, %q once ready; want the link as opened (%q), then its canonical form (%q): the share link is written after the first frame", got.At.Search, got.Search, opened, canonical)
	}
	if got.At.Parses != 0 {
		t.Errorf("the engine parsed %d texts before the first frame, want none: the preset's values are read when first needed, after it", got.At.Parses)
	}
	if got.At.StorageReads != 0 {
		t.Errorf("the page read the browser's storage %d times before its first frame, want none on a page that does not ask the library question", got.At.StorageReads)
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

// TestBrowserStartRequests checks how many requests the lab page makes
// before its first simulated frame: boot.js, wasm_exec.js, the style
// sheet and the page's module (bundles of four sheets and of 20 modules),
// and boot.js's worker's script (the worker's own request, /lab.wasm, is
// not the document's). On Chromium's six connections per host, every
// request more queued the worker's script and /lab.wasm behind it; the
// page once made 27.
func TestBrowserStartRequests(t *testing.T) {
	const most = 5
	b := startChromium(t, newLoopbackServer(t, newBrowserServer(t)), browserTimeout)
	b.navigate("/?preset=lan")
	var got []string
	b.eval(`(() => {
		const frame = performance.getEntriesByName('lab-first-frame')[0].startTime;
		return performance.getEntriesByType('resource').filter((e) => e.startTime < frame).map((e) => new URL(e.name).pathname);
	})()`, &got)
	if len(got) > most || !slices.Contains(got, "/static/bootworker.js") {
		t.Errorf("before its first frame the page made %d requests, want at most %d, boot.js's worker's among them: %q", len(got), most, got)
	}
}

// TestBrowserBootWithoutWorker checks boot.js's fallback: when its worker
// cannot start (here its script is missing), the page downloads and
// compiles the engine itself and runs as usual.
func TestBrowserBootWithoutWorker(t *testing.T) {
	b := startChromiumWithout(t, "/static/bootworker.js")
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

// atContentLoaded runs before the page's own scripts and counts the form
// controls the document holds when DOMContentLoaded fires: Chromium's form
// extraction (autofill) walks them then, and the parser's style and layout
// at the end of parsing lay them out, both before the engine starts.
const atContentLoaded = `document.addEventListener('DOMContentLoaded', () => {
  globalThis.controlsAtContentLoaded = document.querySelectorAll('input, select, textarea').length;
})`

// TestBrowserFieldsAfterEngine checks that the side panel's fields are not
// in the document the parser builds (DOMContentLoaded finds only the
// header's, toolbar's and dialogs' few controls) and that, once the page is
// ready, every parameter of the engine's table has its control in the side
// panel, bound: a slider moved there changes the run's settings.
func TestBrowserFieldsAfterEngine(t *testing.T) {
	const most = 40 // the page's controls outside the side panel, with room
	b := startChromium(t, newLoopbackServer(t, newBrowserServer(t)), browserTimeout)
	if _, err := chromedp.Call(b.ctx, cdppage.AddScriptToEvaluateOnNewDocument, cdppage.AddScriptToEvaluateOnNewDocumentParams{Source: atContentLoaded}); err != nil {
		t.Fatal(err)
	}
	b.navigate("/?preset=lan")
	var got struct {
		AtContentLoaded, Now int
		Missing              []string
		Templates            int
		Latency              [2]string // the setting before and after the slider's move
	}
	b.eval(`(() => {
		const named = new Set([...document.querySelectorAll('#controls [name]')].map((el) => el.name));
		const slider = document.getElementById('p-latency');
		const before = lab.settings().latency;
		slider.value = String(Number(slider.value) === Number(slider.max) ? slider.min : slider.max);
		slider.dispatchEvent(new Event('input', { bubbles: true }));
		return {
			atContentLoaded: globalThis.controlsAtContentLoaded,
			now: document.querySelectorAll('input, select, textarea').length,
			missing: interplab.params().map((p) => p.name).filter((n) => !named.has(n)),
			templates: document.querySelectorAll('#controls template').length,
			latency: [before, lab.settings().latency],
		};
	})()`, &got)
	t.Logf("form controls: %d at DOMContentLoaded, %d once ready", got.AtContentLoaded, got.Now)
	if got.AtContentLoaded > most {
		t.Errorf("at DOMContentLoaded the document held %d form controls, want at most %d: the side panel's fields were parsed into it", got.AtContentLoaded, most)
	}
	if got.Now < got.AtContentLoaded+100 {
		t.Errorf("once ready the document holds %d form controls (%d at DOMContentLoaded), want the side panel's 100 and more placed", got.Now, got.AtContentLoaded)
	}
	if len(got.Missing) > 0 || got.Templates > 0 {
		t.Errorf("once ready: parameters without a control %q, %d field templates left in the panel; want none", got.Missing, got.Templates)
	}
	if got.Latency[0] == got.Latency[1] {
		t.Errorf("moving the latency slider left latency at %s: the placed controls are not bound", got.Latency[0])
	}
}

// TestBrowserNoEngine checks the page a failed engine leaves: the error
// says the lab could not start, and the side panel's fields, which the
// engine's arrival would have put in place, are there beside it, showing
// the link's settings.
func TestBrowserNoEngine(t *testing.T) {
	b := startChromiumWithout(t, "/lab.wasm")
	if err := chromedp.Do(b.ctx, chromedp.Navigate(b.url+"/?preset=lan")); err != nil {
		t.Fatal(err)
	}
	if !b.poll(`!document.getElementById('errors').hidden`, 30*time.Second) {
		t.Fatal("no error shown within 30 s of a start without /lab.wasm")
	}
	var got struct {
		Title, Error string
		Latency      bool
		Templates    int
	}
	b.eval(`({
		title: document.querySelector('#errors strong').textContent,
		error: document.getElementById('error-list').textContent,
		latency: !!document.getElementById('p-latency'),
		templates: document.querySelectorAll('#controls template').length,
	})`, &got)
	if got.Title != "The lab could not start:" || !strings.Contains(got.Error, "/lab.wasm") {
		t.Errorf("error shown %q %q, want the lab could not start, naming /lab.wasm", got.Title, got.Error)
	}
	if !got.Latency || got.Templates > 0 {
		t.Errorf("beside the error: latency's control present %v, %d field templates left; want the fields in place", got.Latency, got.Templates)
	}
}

// startChromiumWithout starts Chromium on a lab whose path answers 404 Not
// Found, with the console's errors for it allowed: a start with a piece of
// the page missing.
func startChromiumWithout(t *testing.T, path string) *labTab {
	s := newBrowserServer(t)
	b := startChromium(t, newLoopbackServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == path {
			http.NotFound(w, r)
			return
		}
		s.ServeHTTP(w, r)
	})), browserTimeout)
	b.allow(path[strings.LastIndexByte(path, '/')+1:])
	b.allow("404 (Not Found)")
	return b
}

// TestBrowserSetUpForcesNoStyle checks that the page's set-up, from the
// engine's arrival to the first simulated frame, has the browser compute
// no style or layout of the page on its own: a read of a computed style or
// of a size there, after the side panel's fields are in place, had
// Chromium style all of the fields' ~900 elements in the middle of the
// set-up (the technique colours' first read, colors.js), work the first
// frame's own style update does once. It reads the style updates and
// layouts a script forced (those Chromium's trace gives a JavaScript stack)
// up to the lab-first-frame mark. The engine is held back, so that it
// arrives after the page was parsed, styled and laid out, as on a cold
// start.
func TestBrowserSetUpForcesNoStyle(t *testing.T) {
	const late = 400 * time.Millisecond
	s := newBrowserServer(t)
	b := startChromium(t, newLoopbackServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/lab.wasm" {
			time.Sleep(late)
		}
		s.ServeHTTP(w, r)
	})), browserTimeout)
	forced := tracedForced(t, b, func() { b.navigate("/?preset=lan") }, "", "lab-first-frame")
	if len(forced) > 0 {
		t.Errorf("before the first simulated frame, scripts forced %d style updates or layouts:\n%s", len(forced), strings.Join(forced, "\n"))
	}
}

// TestBrowserFramesForceNoLayout checks that the page's animation frames
// read no layout: with something on the page changed between frames (as a
// slider's readout is while the designer drags it), a size read in a
// frame's callback has the browser lay the page out there, on the frame's
// clock, before the frame's own style and layout. The view's labels did
// (fillText on a page's canvas has Chromium update its style first; they
// are drawn from images now: Labels), and so did the timeline, reading its
// canvas's size in every draw (now from a ResizeObserver, as the view).
func TestBrowserFramesForceNoLayout(t *testing.T) {
	b := startChromium(t, newLoopbackServer(t, newBrowserServer(t)), browserTimeout)
	b.navigate("/?preset=lan")
	if !b.poll(`lab.state().frames >= 10`, 20*time.Second) {
		t.Fatal("the lab draws no frames")
	}
	// For a second, a timer changes the perf readout's text between
	// frames, as input does, so every frame starts with the layout stale.
	forced := tracedForced(t, b, func() {
		b.eval(`new Promise((done) => {
			const el = document.getElementById('perf');
			performance.mark('frames-from');
			let i = 0;
			const id = setInterval(() => { el.textContent = 'changed ' + i++; }, 7);
			setTimeout(() => { clearInterval(id); performance.mark('frames-to'); done(i); }, 1000);
		})`, nil)
	}, "frames-from", "frames-to")
	if len(forced) > 0 {
		t.Errorf("in a second of frames, scripts forced %d style updates or layouts:\n%s", len(forced), strings.Join(forced, "\n"))
	}
}

// tracedForced traces b's tab while do runs, until the page's mark to has
// come in with the trace, and returns what forcedByScripts finds between
// the marks from (the trace's start when "") and to.
func tracedForced(t *testing.T, b *labTab, do func(), from, to string) []string {
	t.Helper()
	tr, err := startTrace(b.ctx, []string{"toplevel", "blink.user_timing", "devtools.timeline", "disabled-by-default-devtools.timeline.stack"}, true)
	if err != nil {
		t.Fatal(err)
	}
	do()
	if err := tr.stop(b.ctx); err != nil {
		t.Fatal(err)
	}
	// The trace's last events may still be on their way (see wait); on a
	// loaded machine they took more than wait's 5 s.
	waitFor(b.ctx, func() bool {
		tr.mu.Lock()
		defer tr.mu.Unlock()
		return slices.ContainsFunc(tr.events, func(e traceEvent) bool { return e.Name == to })
	}, 30*time.Second)
	tr.mu.Lock()
	defer tr.mu.Unlock()
	forced, marked := forcedByScripts(tr.raw, from, to)
	if !marked {
		t.Fatalf("the trace has no %s mark (or no %q)", to, from)
	}
	return forced
}

// forcedByScripts reads a Chromium trace (its events as sent) and
// describes each style update and layout that a script forced on the
// thread that marked to, after the mark from (from the trace's start when
// from is "") and before to: what it did, when, and the script's stack.
// It reports whether the trace has the marks.
func forcedByScripts(raw []json.RawMessage, from, to string) (forced []string, marked bool) {
	type event struct {
		Name string  `json:"name"`
		Pid  int     `json:"pid"`
		Tid  int     `json:"tid"`
		Ts   float64 `json:"ts"`
		Args struct {
			ElementCount int `json:"elementCount"`
			BeginData    struct {
				DirtyObjects int `json:"dirtyObjects"`
				StackTrace   []struct {
					FunctionName string `json:"functionName"`
					URL          string `json:"url"`
					LineNumber   int    `json:"lineNumber"`
				} `json:"stackTrace"`
			} `json:"beginData"`
		} `json:"args"`
	}
	events := make([]event, 0, len(raw))
	start, mark := -1, -1
	for _, r := range raw {
		var e event
		if json.Unmarshal(r, &e) != nil {
			continue
		}
		events = append(events, e)
		if e.Name == to && mark < 0 {
			mark = len(events) - 1
		}
		if e.Name == from && start < 0 {
			start = len(events) - 1
		}
	}
	if mark < 0 || from != "" && start < 0 {
		return nil, false
	}
	end := events[mark]
	begin := math.Inf(-1)
	if start >= 0 {
		begin = events[start].Ts
	}
	for _, e := range events {
		if (e.Name != "UpdateLayoutTree" && e.Name != "Layout") || e.Pid != end.Pid || e.Tid != end.Tid || e.Ts > end.Ts || e.Ts < begin || len(e.Args.BeginData.StackTrace) == 0 {
			continue
		}
		what := fmt.Sprintf("style of %d elements", e.Args.ElementCount)
		if e.Name == "Layout" {
			what = fmt.Sprintf("layout of %d objects", e.Args.BeginData.DirtyObjects)
		}
		var stack []string
		for _, f := range e.Args.BeginData.StackTrace {
			stack = append(stack, fmt.Sprintf("%s (%s:%d)", cmp.Or(f.FunctionName, "(top)"), path.Base(f.URL), f.LineNumber+1))
		}
		forced = append(forced, fmt.Sprintf("\t%.0f ms before %s: %s, forced by %s", (end.Ts-e.Ts)/1000, to, what, strings.Join(stack, " ← ")))
	}
	return forced, true
}
