package server

import (
	"strconv"
	"testing"
	"time"
)

// countDrawsJS wraps the 2D contexts of the view and the timeline so that
// every drawing call counts (window.__draws.view, .timeline). getContext
// returns the canvas's one context, the one the page draws with.
const countDrawsJS = `(() => {
	window.__draws = { view: 0, timeline: 0 };
	for (const id of ['view', 'timeline']) {
		const ctx = document.getElementById(id).getContext('2d');
		for (const m of ['fillRect', 'stroke', 'fill', 'drawImage', 'putImageData', 'fillText']) {
			const f = ctx[m];
			ctx[m] = function (...a) { window.__draws[id]++; return f.apply(this, a); };
		}
	}
	return true;
})()`

// TestBrowserDrawsOnlyChanges checks that the view and the timeline draw
// nothing on animation frames that have nothing new to show (a paused
// run): a browser then has no canvas to repaint and composite, which is
// what a frame costs WebKitGTK without a GPU. They draw again as soon as
// something changes: a step, a zoom, a focus, the run resuming.
func TestBrowserDrawsOnlyChanges(t *testing.T) {
	b := openLab(t, "/?seed=1")
	defer b.finish()
	b.waitFrames(t, 30)
	b.eval(countDrawsJS, nil)

	type draws struct{ View, Timeline int }
	// frames waits for n animation frames and returns the draws counted
	// meanwhile, then resets the counts.
	frames := func(n int) draws {
		t.Helper()
		var d draws
		b.eval(`new Promise((done) => { let k = 0; const f = () => (++k < `+strconv.Itoa(n)+` ? requestAnimationFrame(f) : done(true)); requestAnimationFrame(f); })`, nil)
		b.eval(`(() => { const d = window.__draws; window.__draws = { view: 0, timeline: 0 }; return d; })()`, &d)
		return d
	}

	if d := frames(10); d.View == 0 || d.Timeline == 0 {
		t.Fatalf("running: draws over 10 frames = %+v, want some in both", d)
	}
	b.eval(`lab.pause()`, nil)
	// The camera eases to its target for a while (about 50 frames here),
	// then the view is still: frames without draws, then more of them.
	var d draws
	for range 15 {
		if d = frames(20); d.View == 0 && d.Timeline == 0 {
			break
		}
	}
	if d.View != 0 || d.Timeline != 0 {
		t.Fatalf("paused 300 frames: draws over the last 20 = %+v, want none", d)
	}
	if d := frames(20); d.View != 0 || d.Timeline != 0 {
		t.Errorf("paused and still: draws over 20 frames = %+v, want none", d)
	}
	b.eval(`document.getElementById('zoom-in').click()`, nil)
	if d := frames(5); d.View == 0 {
		t.Errorf("paused, after a zoom: view draws = %d, want some", d.View)
	}
	b.eval(`lab.advance(1)`, nil)
	if d := frames(2); d.View == 0 || d.Timeline == 0 {
		t.Errorf("paused, after a step: draws = %+v, want some in both", d)
	}
	b.eval(`lab.resume()`, nil)
	if d := frames(10); d.View == 0 || d.Timeline == 0 {
		t.Errorf("resumed: draws over 10 frames = %+v, want some in both", d)
	}
}

// recordDrawsJS wraps the 2D contexts of the view and the timeline so that
// each drawing call is recorded (window.__calls.view, .timeline): its
// method, the line width and, for a stroke of the context's own path, how
// many segments that path has (lineTo calls since beginPath).
const recordDrawsJS = `(() => {
	window.__calls = { view: [], timeline: [] };
	for (const id of ['view', 'timeline']) {
		const ctx = document.getElementById(id).getContext('2d');
		let segs = 0;
		const begin = ctx.beginPath, lineTo = ctx.lineTo;
		ctx.beginPath = function (...a) { segs = 0; return begin.apply(this, a); };
		ctx.lineTo = function (...a) { segs++; return lineTo.apply(this, a); };
		for (const m of ['fillRect', 'stroke', 'fill', 'drawImage', 'putImageData', 'fillText', 'strokeRect']) {
			const f = ctx[m];
			ctx[m] = function (...a) {
				window.__calls[id].push({ m, width: this.lineWidth, segs: m === 'stroke' && a.length === 0 ? segs : 0 });
				return f.apply(this, a);
			};
		}
	}
	return true;
})()`

// TestBrowserDrawCalls checks what one frame of the view and the timeline
// asks of the browser's rasteriser, which in WebKit without a GPU (Skia on
// the CPU) the page pays for on its own thread: the timeline draws its
// spans, packets and lines in a few calls per lane whatever the number of
// frames and packets in its window (a call per frame or per packet cost
// WebKit 3.5–6 ms a frame), and every long line (a trail, a lane's
// margin) is at most one device pixel wide, which Skia draws as a hairline
// instead of outlining it with its stroker (the view's 36 trails at 1.5 px:
// 4–6 ms a frame in WebKit, at 1 px: 0.5).
func TestBrowserDrawCalls(t *testing.T) {
	// Loss and jitter: lost packets, extrapolation and underruns, so that
	// every kind of span and mark is in the timeline's window.
	b := openLab(t, "/?seed=1&loss=0.2&jitter=0.04")
	defer b.finish()
	b.eval(`lab.pause()`, nil)
	b.eval(`lab.advance(240)`, nil) // four seconds: a full window
	b.eval(recordDrawsJS, nil)
	b.eval(`lab.advance(1)`, nil)
	type call struct {
		M     string
		Width float64
		Segs  int
	}
	var calls struct{ View, Timeline []call }
	b.eval(`window.__calls`, &calls)
	var dpr float64
	b.eval(`window.devicePixelRatio || 1`, &dpr)
	var techs int
	b.eval(`lab.state().techniques.length`, &techs)
	if len(calls.View) == 0 || len(calls.Timeline) == 0 {
		t.Fatalf("one frame: view calls %d, timeline calls %d, want some in both", len(calls.View), len(calls.Timeline))
	}
	// Per lane: five kinds of span, the depth and margin lines, the snaps'
	// marks; besides them the backdrop, the network strip and its label,
	// the packets' three paths and an outage's marks.
	if max := 8*techs + 12; len(calls.Timeline) > max {
		t.Errorf("timeline: %d drawing calls for one frame of %d lanes, want at most %d", len(calls.Timeline), techs, max)
	}
	for name, cs := range map[string][]call{"view": calls.View, "timeline": calls.Timeline} {
		for _, c := range cs {
			if c.M == "stroke" && c.Segs > 20 && c.Width > dpr {
				t.Errorf("%s: a stroke of %d segments %g px wide, want at most %g (a hairline)", name, c.Segs, c.Width, dpr)
			}
		}
	}
}

// TestBrowserMetricsStill checks that the metrics panel, refreshed four
// times a second, changes nothing in the page while its figures stay the
// same (a paused run): a cell written again with its own text has the
// browser lay out the table and repaint the panel, in WebKit without a GPU
// a few milliseconds each time.
func TestBrowserMetricsStill(t *testing.T) {
	b := openLab(t, "/?seed=1")
	defer b.finish()
	b.waitFrames(t, 30)
	b.eval(`lab.pause()`, nil)
	var n int
	b.eval(`new Promise((done) => {
		const panel = document.querySelector('section.metrics');
		let n = 0;
		const o = new MutationObserver((rs) => { n += rs.length; });
		// A refresh after the pause shows the paused figures first.
		setTimeout(() => {
			o.observe(panel, { subtree: true, childList: true, characterData: true, attributes: true });
			setTimeout(() => { o.disconnect(); done(n); }, 1500);
		}, 600);
	})`, &n)
	if n != 0 {
		t.Errorf("paused, 1.5 s: %d changes in the metrics panel, want none", n)
	}
}

// waitFrames waits up to 30 s for the lab to have run n frames.
func (b *labTab) waitFrames(t *testing.T, n int) {
	t.Helper()
	if !waitFor(b.ctx, func() bool {
		var got int
		b.eval(`lab.state().frames`, &got)
		return got >= n
	}, 30*time.Second) {
		t.Fatalf("the lab did not run %d frames", n)
	}
}

// TestBrowserTimelineNoSize hides the timeline, so that it is laid out to
// no size, while the lab runs: drawing from a canvas of no size throws, and
// the throw ended the page's frame loop (TestBrowserLoads failed now and then
// when a full-page screenshot measured the strip at 0×0). The lab must go on
// and the strip draw again once it has a size.
func TestBrowserTimelineNoSize(t *testing.T) {
	b := openLab(t, "/?seed=1")
	defer b.finish()
	b.waitFrames(t, 30)
	b.eval(`document.getElementById('timeline').style.display = 'none'`, nil)
	var before int
	b.eval(`lab.state().frames`, &before)
	b.waitFrames(t, before+30)
	b.eval(`document.getElementById('timeline').style.display = ''`, nil)
	b.eval(`lab.state().frames`, &before)
	b.waitFrames(t, before+30)
	var w int
	b.eval(`document.getElementById('timeline').width`, &w)
	if w == 0 {
		t.Errorf("the timeline shown again has a canvas of width 0")
	}
}

// TestBrowserDrawDotsFocus checks the stress view's frame (dots, above 300
// entities): its pixels in one putImageData, the focus entity's dashed
// ring among them, and no path stroked dashed on the canvas: Skia cuts a
// dashed path into segments and strokes each, which cost a third of that
// view's drawing at 10,000 entities.
func TestBrowserDrawDotsFocus(t *testing.T) {
	b := openLab(t, "/?seed=1&entities=1000")
	defer b.finish()
	b.eval(`lab.pause()`, nil)
	b.eval(`lab.advance(30)`, nil)
	b.eval(`(() => {
		window.__strokes = { dashed: 0, puts: 0 };
		const ctx = document.getElementById('view').getContext('2d');
		const stroke = ctx.stroke, put = ctx.putImageData;
		ctx.stroke = function (...a) { if (this.getLineDash().length > 0) window.__strokes.dashed++; return stroke.apply(this, a); };
		ctx.putImageData = function (...a) { window.__strokes.puts++; return put.apply(this, a); };
		return true;
	})()`, nil)
	b.eval(`lab.advance(1)`, nil)
	var got struct{ Dashed, Puts int }
	b.eval(`window.__strokes`, &got)
	// The camera may still be easing towards the run: a frame or two more.
	if got.Puts == 0 || got.Dashed != 0 {
		t.Errorf("a frame of the stress view: %d putImageData and %d dashed strokes, want some and 0", got.Puts, got.Dashed)
	}
	// The ring: the focus colour (#e6edf3) 12 CSS pixels from the focus
	// entity's truth, in some of 72 directions around it (it is dashed).
	var ring int
	b.eval(`(() => {
		const c = document.getElementById('view');
		const d = window.devicePixelRatio || 1;
		const s = lab.screen(0, 0);
		const px = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
		let n = 0;
		for (let i = 0; i < 72; i++) {
			const a = (2 * Math.PI * i) / 72;
			const x = Math.round((s.x + 12 * Math.cos(a)) * d), y = Math.round((s.y + 12 * Math.sin(a)) * d);
			const o = (y * c.width + x) * 4;
			if (px[o] === 0xe6 && px[o + 1] === 0xed && px[o + 2] === 0xf3) n++;
		}
		return n;
	})()`, &ring)
	if ring < 10 {
		t.Errorf("the focus ring: %d of 72 points around the focus entity in its colour, want at least 10", ring)
	}
}
