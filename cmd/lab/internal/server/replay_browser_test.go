package server

import (
	"math"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"interplab/cmd/lab/internal/link"
	"interplab/engine"
)

// TestBrowserReplay opens the lab on a sample trace: the page replays it in
// WebAssembly with the link's settings, the entities move, the trace's
// parameters are disabled, the address keeps the trace, and the metrics are
// the engine's for the same replay, bit for bit.
func TestBrowserReplay(t *testing.T) {
	const share = "/?trace=sample-4g&preset=4g&adaptive=true&seed=3"
	const frames = 600
	h, st := newSessionServer(t)
	_, tr, err := st.LoadTrace("sample-4g")
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(share)
	q := u.Query()
	q.Del(linkTraceKey)
	_, s, errs := link.Parse(q)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	sim, err := engine.NewReplay(tr, s)
	if err != nil {
		t.Fatal(err)
	}
	for sim.Frames() < frames {
		sim.Step(1 / s.RenderRate / 4)
	}

	b := openLabOn(t, h, share)
	var banner string
	b.eval(`document.getElementById('trace-banner')?.textContent ?? ''`, &banner)
	if !strings.Contains(banner, "sample-4g") {
		t.Errorf("banner = %q, want it to name sample-4g", banner)
	}
	var state struct {
		Trace    string
		Entities int
	}
	b.eval(`lab.state()`, &state)
	if state.Trace != "sample-4g" || state.Entities != tr.Entities {
		t.Fatalf("lab.state() = %+v, want trace sample-4g with %d entities", state, tr.Entities)
	}
	var disabled []bool
	b.eval(`['entities', 'sendRate', 'latency'].map((n) => document.querySelector('#controls [name="'+n+'"]').disabled)`, &disabled)
	if want := []bool{true, true, false}; !equalBools(disabled, want) {
		t.Errorf("disabled entities, sendRate, latency = %v, want %v", disabled, want)
	}
	if loc := b.location(); !strings.Contains(loc, "trace=sample-4g") || strings.Contains(loc, "entities=") {
		t.Errorf("address %s: want trace=sample-4g and no entities", loc)
	}

	// The entities move: truth and every technique.
	var before, after [][]float64
	poses := `lab.state().techniques.concat(['truth']).map((_, row) => lab.pose(row, 1))`
	b.eval(`lab.pause(), lab.restart(), lab.advance(30), `+poses, &before)
	b.eval(`lab.advance(60), `+poses, &after)
	for row := range before {
		if math.Hypot(after[row][0]-before[row][0], after[row][1]-before[row][1]) < 0.1 {
			t.Errorf("row %d entity 1 at %v, then %v: it did not move", row, before[row], after[row])
		}
	}

	var n int
	b.eval(`lab.restart(), lab.advance(`+strconv.Itoa(frames)+`)`, &n)
	if n != sim.Frames() {
		t.Fatalf("page at frame %d, engine at %d", n, sim.Frames())
	}
	got := b.pageMetrics()
	for i, m := range sim.Metrics(nil) {
		tech := sim.Techniques()[i]
		for j, w := range m.Values(nil) {
			f := engine.MetricFields[j].Name
			g := got[tech][f]
			switch {
			case g == nil && math.IsNaN(w):
			case g == nil || math.Float64bits(*g) != math.Float64bits(w):
				t.Errorf("%s %s: page %v, engine %v", tech, f, deref(g), w)
			}
		}
	}

	// A slider applies to the replay; the address still names the trace.
	b.eval(`document.getElementById('p-seed').value = '11', document.getElementById('p-seed').dispatchEvent(new Event('change', {bubbles: true}))`, nil)
	if loc := b.location(); !strings.Contains(loc, "trace=sample-4g") || !strings.Contains(loc, "seed=11") {
		t.Errorf("address after seed 11: %s", loc)
	}
	b.eval(`lab.state()`, &state)
	if state.Trace != "sample-4g" {
		t.Errorf("after a change the page replays %q", state.Trace)
	}
}

// TestBrowserReplayUnknown opens a trace that does not exist: the page says
// so and runs the link's settings.
func TestBrowserReplayUnknown(t *testing.T) {
	h, _ := newSessionServer(t)
	b := openLabOn(t, h, "/?trace=no-such-trace&entities=3")
	var errText string
	b.eval(pageErrorsJS, &errText)
	if !strings.Contains(errText, "no-such-trace") {
		t.Errorf("errors shown = %q, want the unknown trace named", errText)
	}
	var state struct {
		Trace    string
		Entities int
	}
	b.eval(`lab.state()`, &state)
	if state.Trace != "" || state.Entities != 3 {
		t.Errorf("lab.state() = %+v, want no trace and the link's 3 entities", state)
	}
	if loc := b.location(); !strings.Contains(loc, "trace=no-such-trace") {
		t.Errorf("address %s: a link with errors stays as it was", loc)
	}
}

func equalBools(a, b []bool) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
