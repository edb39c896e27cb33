package server

// Real-browser test of inert knobs (issue 29): a knob the engine's rules
// say does nothing under the current settings (engine/param.Inert) says so
// beside the knob, in the A/B note and in the sweep form.

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestInertKnobBrowser: on the Mirror preset, whose dynamicAdjustment is
// on (Mirror's default), bufferTimeMultiplier is marked inert in the side
// panel; pinned and changed, the A/B note says it has no effect and the
// deltas read "same", not 0; the sweep opened from the lab starts on a
// knob that acts and marks bufferTimeMultiplier when chosen. With
// dynamicAdjustment off the mark goes.
func TestInertKnobBrowser(t *testing.T) {
	s := newBrowserServer(t)
	b := openLabOn(t, s, reviewLab)
	const knob = "mirror.bufferTimeMultiplier"
	fieldInert := `document.getElementById('p-` + knob + `').closest('.field')`
	if !b.poll(fieldInert+`.classList.contains('inert') && `+fieldInert+`.querySelector('.field-inert').textContent.includes('dynamicAdjustment')`, 5*time.Second) {
		var html string
		b.eval(fieldInert+`.outerHTML`, &html)
		t.Errorf("side panel: %s is not marked inert: %s", knob, html)
	}

	// A/B: pin, then change only the inert knob.
	b.eval(`lab.pause()`, nil)
	b.eval(`document.getElementById('ab-pin').click()`, nil)
	if !b.poll(`lab.ab().pinned`, 5*time.Second) {
		t.Fatalf("Pin did not open the A/B view: %+v", b.ab())
	}
	b.eval(`(() => { const box = document.getElementById('n-`+knob+`'); box.value = '5'; box.dispatchEvent(new Event('input', {bubbles: true})); box.dispatchEvent(new Event('change', {bubbles: true})); })()`, nil)
	if !b.poll(`lab.settings()['`+knob+`'] === '5'`, 5*time.Second) {
		t.Fatalf("typed 5: %s = %q", knob, b.setting(knob))
	}
	if !b.poll(`lab.ab().inert.includes('`+knob+`')`, 5*time.Second) {
		t.Fatalf("A/B with only %s changed: %+v, want it listed as inert", knob, b.ab())
	}
	note := b.ab().Note
	if !strings.Contains(note, knob) || !strings.Contains(note, "no effect") || strings.Contains(note, "differs in "+knob) {
		t.Errorf("A/B note %q: want %s named as having no effect, not as a difference", note, knob)
	}
	var frames int
	b.eval(`lab.advance(300)`, &frames)
	if !b.poll(fmt.Sprintf(`lab.ab().deltaFrames === %d`, frames), 10*time.Second) {
		t.Fatalf("no deltas for frame %d: %+v", frames, b.ab())
	}
	var cells []string
	b.eval(`[...document.querySelectorAll('#ab-deltas td[data-tech="mirror"]')].map((td) => td.textContent)`, &cells)
	if len(cells) == 0 {
		t.Fatal("A/B table: no mirror cells")
	}
	for _, c := range cells {
		if c != "same" {
			t.Errorf("A/B cells of mirror %q: want every one \"same\" (only an inert knob differs)", cells)
			break
		}
	}

	// Sweep… from this lab: starts on a knob that acts; choosing the
	// inert one shows the note.
	b.eval(`document.getElementById('ab-pin').click()`, nil)
	jobsFollowLink(b, "sweep-link", "q%3Apreset%3Dmirror-30hz")
	jobsBrowserWait(b, `document.readyState === 'complete' && !!document.getElementById('job-form')`, 30*time.Second)
	var form struct {
		X, Inert, Label, Note string
		Hidden                bool
	}
	read := `(() => { const sel = document.querySelector('select[name="x.name"]');
		const o = [...sel.options].find((o) => o.value === '` + knob + `');
		const n = document.querySelector('[data-inert-of="x"]');
		return {X: sel.value, Inert: o.dataset.inert, Label: o.textContent, Note: n.textContent, Hidden: n.hidden}; })()`
	b.eval(read, &form)
	if form.X == knob || form.X == "" {
		t.Errorf("sweep from a Mirror lab starts on %q: want a knob that acts", form.X)
	}
	if form.Inert == "" || !strings.Contains(form.Label, "no effect") {
		t.Errorf("sweep form: %s option inert %q, label %q; want it marked", knob, form.Inert, form.Label)
	}
	if !form.Hidden {
		t.Errorf("sweep form on %s shows the inert note %q", form.X, form.Note)
	}
	b.eval(`(() => { const sel = document.querySelector('select[name="x.name"]'); sel.value = '`+knob+`'; sel.dispatchEvent(new Event('change')); })()`, nil)
	b.eval(read, &form)
	if form.Hidden || !strings.Contains(form.Note, "dynamicAdjustment") {
		t.Errorf("sweep form with x = %s: note %q (hidden %v); want it shown, naming dynamicAdjustment", knob, form.Note, form.Hidden)
	}

	// With dynamicAdjustment off the multiplier acts: the mark goes.
	b.navigate(reviewLab + "&mirror.dynamicAdjustment=false")
	b.waitReady()
	if !b.poll(`!`+fieldInert+`.classList.contains('inert')`, 5*time.Second) {
		t.Errorf("dynamicAdjustment off: %s still marked inert", knob)
	}
	if !b.poll(`document.getElementById('p-mirror.dynamicAdjustmentTolerance').closest('.field').classList.contains('inert')`, 5*time.Second) {
		t.Errorf("dynamicAdjustment off: mirror.dynamicAdjustmentTolerance not marked inert")
	}
}
