package server

// Real-browser tests of the lab page's A/B view (web/ab.js): pin the
// current settings, change one, and read the deltas (current − pinned)
// (harness in browser_harness_test.go).

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// abState is what lab.ab() answers.
type abState struct {
	Pinned      bool
	Label       string
	Time        float64
	Frames      int
	DeltaFrames int
	Techniques  []string
	Differs     []string
	Note        string
	Deltas      map[string]map[string]*float64
}

func (b *labTab) ab() abState {
	b.t.Helper()
	var s abState
	b.eval(`lab.ab()`, &s)
	return s
}

func TestBrowserABDeltas(t *testing.T) {
	b := openLab(t, "/?techniques=epic,buffer,hermite&duration=30")
	b.eval(`lab.pause()`, nil)
	b.do(chromedp.Click(chromedp.ID("ab-pin")))
	if !b.poll(`lab.ab().pinned && !document.getElementById('ab-pane').hidden && document.querySelector('.stage').classList.contains('ab-on')`, 5*time.Second) {
		t.Fatalf("Pin did not open the A/B view: %+v", b.ab())
	}
	if s := b.ab(); !strings.Contains(s.Note, "Same packets") || len(s.Differs) != 0 {
		t.Errorf("pinned the current settings: note %q, differs %v; want the same packets", s.Note, s.Differs)
	}
	// The split view: the two canvases side by side, the same size.
	var boxes [][4]float64
	b.eval(`['view', 'ab-view'].map((id) => { const r = document.getElementById(id).getBoundingClientRect(); return [r.x, r.y, r.width, r.height]; })`, &boxes)
	if a, p := boxes[0], boxes[1]; p[0] < a[0]+a[2] || p[2] < 100 || p[3] < 100 || a[2] < 100 {
		t.Errorf("the views are not side by side: current %v, pinned %v", a, p)
	}

	// More delay: the buffers add latency; EPIC does not read delay, so on
	// the same packets its deltas are all zero.
	b.typeInto("delay", "200")
	if !b.poll(`lab.settings().delay === '200ms'`, 5*time.Second) {
		t.Fatalf("typed 200 (ms): delay = %s", b.setting("delay"))
	}
	// The pinned run steps in its worker: its deltas are of the frame the
	// current run showed its metrics at.
	var frames int
	b.eval(`lab.advance(600)`, &frames)
	if !b.poll(fmt.Sprintf(`lab.ab().deltaFrames === %d`, frames), 10*time.Second) {
		t.Fatalf("the deltas never came for frame %d: %+v", frames, b.ab())
	}
	s := b.ab()
	if s.Frames != frames {
		t.Errorf("the pinned run is at frame %d, the current one at %d: want them in step (a change restarts both)", s.Frames, frames)
	}
	if !strings.Contains(s.Note, "Same packets") || !strings.Contains(s.Note, "delay") {
		t.Errorf("note %q: want the same packets, differing in delay", s.Note)
	}
	for _, tech := range []string{"buffer", "hermite"} {
		d := s.Deltas[tech]["addedLatency"]
		if d == nil || *d < 0.08 || *d > 0.12 {
			t.Errorf("%s: addedLatency delta %v s, want about +0.1 s (delay 100 → 200 ms)", tech, ptrText(d))
		}
	}
	for field, d := range s.Deltas["epic"] {
		if d != nil && *d != 0 {
			t.Errorf("epic: %s delta %g, want 0 (same packets, and epic does not read delay)", field, *d)
		}
	}
	// The table shows them with their sign, coloured.
	var cell struct {
		Text  string
		Worse bool
	}
	b.eval(`(() => { const td = document.querySelector('#ab-deltas tr[data-metric="addedLatency"] td[data-tech="buffer"]'); return {text: td.textContent, worse: td.classList.contains('ab-worse')}; })()`, &cell)
	if !strings.HasPrefix(cell.Text, "+") || !cell.Worse {
		t.Errorf("buffer's addedLatency delta cell %q (worse: %v), want a + and marked worse", cell.Text, cell.Worse)
	}

	// A network change: the view says the packets differ.
	b.typeInto("latency", "80")
	if !b.poll(`lab.ab().differs.includes('latency') && lab.ab().note.startsWith('Different packets')`, 5*time.Second) {
		t.Errorf("latency changed: %+v, want the view to say the packets differ", b.ab())
	}

	// Pin a preset from the menu.
	b.eval(`(() => { const s = document.getElementById('ab-from'); s.value = 'preset:wifi'; s.dispatchEvent(new Event('change')); })()`, nil)
	if !b.poll(`lab.ab().label.startsWith('preset ')`, 5*time.Second) {
		t.Errorf("pinned wifi from the menu: %+v", b.ab())
	}

	// Another render rate: the runs step the same simulated time in
	// different frames, and the deltas still come, at the same time.
	b.typeInto("renderRate", "30")
	if !b.poll(`lab.settings().renderRate === '30Hz'`, 5*time.Second) {
		t.Fatalf("typed 30 (Hz): renderRate = %s", b.setting("renderRate"))
	}
	b.eval(`lab.advance(90)`, &frames)
	if !b.poll(fmt.Sprintf(`lab.ab().deltaFrames === %d`, frames), 10*time.Second) {
		t.Fatalf("renderRate 30 against the pinned 60: no deltas for frame %d: %+v", frames, b.ab())
	}
	if s := b.ab(); s.Frames != 2*frames {
		t.Errorf("after %d frames at 30 Hz the pinned run (60 Hz) is at frame %d, want %d", frames, s.Frames, 2*frames)
	}

	b.do(chromedp.Click(chromedp.ID("ab-pin")))
	if !b.poll(`!lab.ab().pinned && document.getElementById('ab-pane').hidden && document.getElementById('ab-deltas-box').hidden`, 5*time.Second) {
		t.Errorf("Unpin did not close the A/B view")
	}
	b.finish()
}

func ptrText(p *float64) any {
	if p == nil {
		return "NaN"
	}
	return *p
}
