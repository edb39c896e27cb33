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
	if !waitFor(b.ctx, func() bool {
		var n int
		b.eval(`lab.state().frames`, &n)
		return n >= 30
	}, 30*time.Second) {
		t.Fatal("the lab did not run 30 frames")
	}
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
