package server

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// reviewLab is issue 22's lab: Mirror at 30 Hz on a 120 ms link with 30 ms
// of jitter and 2% loss, typed with their units (which mean the same
// whatever a plain number means).
const reviewLab = "/?preset=mirror-30hz&latency=120ms&jitter=30ms&loss=2%25"

// TestStudiesFromAMirrorLabBrowser: Tune…, Sweep… and Population… from a
// Mirror lab open on mirror: the tuner's and the sweep's technique is
// mirror, the population form checks mirror alone, first, with the lab's
// comparison (epic and buffer, what "Compare with the lab's techniques"
// adds) after it, unchecked.
func TestStudiesFromAMirrorLabBrowser(t *testing.T) {
	s := newBrowserServer(t)
	b := openLabOn(t, s, reviewLab)
	for _, link := range []string{"tune-link", "sweep-link"} {
		b.navigate(reviewLab)
		jobsFollowLink(b, link, "q%3Apreset%3Dmirror-30hz")
		jobsBrowserWait(b, `document.readyState === 'complete' && !!document.getElementById('job-form')`, 30*time.Second)
		var got struct{ Technique, First string }
		b.eval(`(() => { const sel = document.getElementById('job-form').elements['technique'];
			return {Technique: sel.value, First: sel.options[0].value}; })()`, &got)
		if got.Technique != "mirror" || got.First != "mirror" {
			t.Errorf("%s from a Mirror lab: technique %q, listed first %q; want mirror, first", link, got.Technique, got.First)
		}
	}
	b.navigate(reviewLab)
	jobsFollowLink(b, "population-link", "q%3Apreset%3Dmirror-30hz")
	jobsBrowserWait(b, `document.readyState === 'complete' && !!document.getElementById('job-form')`, 30*time.Second)
	var boxes []struct {
		Value   string
		Checked bool
	}
	b.eval(`[...document.querySelectorAll('input[name="techniques"]')].map((c) => ({Value: c.value, Checked: c.checked}))`, &boxes)
	if len(boxes) < 3 || boxes[0].Value != "mirror" || !boxes[0].Checked {
		t.Fatalf("Population… from a Mirror lab: boxes %+v, want mirror first and checked", boxes)
	}
	for _, c := range boxes[1:] {
		if c.Checked {
			t.Errorf("Population… from a Mirror lab checks %s too: buffer and epic are a comparison to opt into", c.Value)
		}
	}
	if boxes[1].Value != "epic" || boxes[2].Value != "buffer" {
		t.Errorf("Population… from a Mirror lab lists %s, %s after mirror; want the lab's comparison, epic and buffer", boxes[1].Value, boxes[2].Value)
	}
}

// TestTuneFloorBrowser: the review's case on the tuner. The form says what
// the link allows mirror; the review's bound, addedLatency ≤ 120 ms, is
// refused with that floor on its row; one above the floor that mirror's
// knobs cannot reach ends with nothing recommended: the closest candidates
// with what they break in ms, and no Apply and no export link.
func TestTuneFloorBrowser(t *testing.T) {
	s := newBrowserServer(t)
	b := openLabOn(t, s, reviewLab+"&duration=6&entities=2")
	jobsFollowLink(b, "tune-link", "q%3Apreset%3Dmirror-30hz")
	jobsBrowserWait(b, `document.readyState === 'complete' && !!document.getElementById('job-form')`, 30*time.Second)

	var hint string
	b.eval(`document.getElementById('floor').hidden ? '' : document.getElementById('floor').textContent`, &hint)
	if !strings.Contains(hint, "mirror's addedLatency goes no lower than 180 ms (the least a search of its settings reaches; whatever they are it cannot go below 123 ms") {
		t.Errorf("the tune form's floor hint = %q, want mirror's floor on this link", hint)
	}

	setBound := func(metric, max string) {
		b.do(chromedp.Evaluate[chromedp.Void](`(() => {
			const f = document.getElementById('job-form');
			f.querySelector('select[name="constraint.metric"]').value = '`+metric+`';
			f.querySelector('input[name="constraint.max"]').value = '`+max+`';
			f.elements['budget'].value = '6';
		})()`), chromedp.Click(chromedp.ID("start")))
	}
	b.allow("400 (Bad Request)")
	setBound("addedLatency", "120")
	jobsBrowserWait(b, `!document.getElementById('job-error').hidden`, 10*time.Second)
	var refused struct {
		Text, Field string
		Apply       bool
		Exports     int
	}
	probe := `(() => ({Text: document.getElementById('job-error').textContent, Field: document.getElementById('job-error').dataset.field,
		Apply: !!document.getElementById('apply'), Exports: document.querySelectorAll('a.export').length}))()`
	b.eval(probe, &refused)
	if !strings.Contains(refused.Text, "addedLatency cannot go below 123 ms on this link") || refused.Field != "constraints[0].max" ||
		refused.Apply || refused.Exports != 0 {
		t.Errorf("addedLatency ≤ 120 ms on the review's link: %+v; want the floor named on constraints[0].max, no Apply, no export", refused)
	}

	setBound("addedLatency", "130")
	jobsBrowserWait(b, `location.pathname.startsWith('/tune/') && !!document.getElementById('tune-result')`, 60*time.Second)
	var result struct {
		Verdict string
		Closest []string
		Apply   bool
		Exports int
	}
	b.eval(`(() => ({Verdict: document.getElementById('verdict').dataset.verdict,
		Closest: [...document.querySelectorAll('#closest tbody tr td:first-child')].map((td) => td.textContent),
		Apply: !!document.getElementById('apply'), Exports: document.querySelectorAll('a.export').length}))()`, &result)
	if result.Verdict != "infeasible" || result.Apply || result.Exports != 0 || len(result.Closest) != 4 {
		t.Fatalf("addedLatency ≤ 130 ms: %+v; want nothing recommended, no Apply, no export, the 3 closest and the base", result)
	}
	for _, c := range result.Closest {
		if !strings.Contains(c, "ms > 130 ms bound, by ") {
			t.Errorf("a closest candidate breaks %q, want the added latency over 130 ms, in ms", c)
		}
	}

	// The closest candidates, with every setting they change, fit a
	// 1280 px window: the page does not scroll sideways.
	if _, err := chromedp.Call(b.ctx, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{
		Width: 1280, Height: 720, DeviceScaleFactor: 1,
	}); err != nil {
		t.Fatal(err)
	}
	var fit struct{ Right, View, Scroll float64 }
	b.eval(`new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(() => {
		const de = document.documentElement;
		done({Right: document.getElementById('closest').getBoundingClientRect().right, View: de.clientWidth, Scroll: de.scrollWidth});
	})))`, &fit)
	if fit.View > 1280 || fit.Right > fit.View+0.5 || fit.Scroll > fit.View+0.5 {
		t.Errorf("at 1280 px the closest candidates end at %.0f px, the page is %.0f px wide in a %.0f px window; want them inside it",
			fit.Right, fit.Scroll, fit.View)
	}
}
