package server

import (
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// The scenario editor: a bad line shows the engine's line and field as it
// is typed and changes nothing; a good one, applied, runs as scenario
// custom, draws its preview and travels in the share link.
func TestBrowserScenarioEditor(t *testing.T) {
	b := openLab(t, "/")
	typeScenario := func(text string) {
		t.Helper()
		var ok bool
		b.eval(`(() => { const el = document.getElementById('scenario-text'); el.closest('details').open = true;
			el.value = `+strconv.Quote(text)+`; el.dispatchEvent(new Event('input', {bubbles: true})); return true; })()`, &ok)
	}
	typeScenario("set latency=40ms\nspike at=5 for=oops delay=300ms")
	if !b.poll(`!document.getElementById('scenario-error').hidden`, 5*time.Second) {
		t.Fatal("a bad line shows no error")
	}
	var msg string
	b.eval(`document.getElementById('scenario-error').textContent`, &msg)
	if !strings.Contains(msg, "line 2, field for") {
		t.Errorf("error %q does not name line 2, field for", msg)
	}
	b.do(chromedp.Click(chromedp.ID("scenario-apply")))
	if got := b.setting("scenario"); got != "none" {
		t.Errorf("a bad scenario was applied: scenario = %s", got)
	}

	// A good one: 300 ms of latency from the start, a 1 s outage.
	text := "set latency=300ms\noutage at=2 for=1"
	typeScenario(text)
	if !b.poll(`document.getElementById('scenario-error').hidden && document.getElementById('scenario-span').textContent.includes('disturbs 2–3 s')`, 5*time.Second) {
		t.Fatal("a good scenario still shows an error, or no span")
	}
	var painted bool
	b.eval(`(() => { const c = document.getElementById('scenario-preview'); const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
		return d.some((v, i) => i % 4 === 3 && v > 0); })()`, &painted)
	if !painted {
		t.Error("the preview strip is blank")
	}
	b.do(chromedp.Click(chromedp.ID("scenario-apply")))
	if !b.poll(`lab.settings().scenario === 'custom'`, 5*time.Second) {
		t.Fatalf("applied: scenario = %s, want custom", b.setting("scenario"))
	}
	// The run changed: snap's added latency follows the 300 ms link.
	if !b.poll(`(lab.metrics().snap?.addedLatency ?? 0) > 0.25`, 20*time.Second) {
		var m map[string]map[string]float64
		b.eval(`lab.metrics()`, &m)
		t.Errorf("after applying 300 ms of latency snap's addedLatency = %v", m["snap"]["addedLatency"])
	}
	loc := b.location()
	u, err := url.Parse(loc)
	if err != nil || u.Query().Get("scenarioText") != text || u.Query().Get("scenario") != "custom" {
		t.Fatalf("the share link does not carry the scenario: %s", loc)
	}

	// The link opens the same run: the text in the editor, no error.
	c := b.newTab(u.RequestURI())
	if !c.poll(`lab.settings().scenario === 'custom' && document.getElementById('errors').hidden`, 10*time.Second) {
		var errs string
		c.eval(`document.getElementById('errors').textContent`, &errs)
		t.Errorf("the shared link does not run the custom scenario: %s", errs)
	}
	var got string
	c.eval(`document.getElementById('scenario-text').value`, &got)
	if got != text {
		t.Errorf("shared link's editor holds %q, want %q", got, text)
	}
	b.finish()
}

// The toolbar's network switch turns the impairments off and on (the ideal
// setting), and says which.
func TestBrowserNetworkToggle(t *testing.T) {
	b := openLab(t, "/?jitter=30&loss=5")
	var label string
	b.eval(`document.getElementById('network-toggle').textContent`, &label)
	if label != "Network on" {
		t.Errorf("toggle says %q, want Network on", label)
	}
	b.do(chromedp.Click(chromedp.ID("network-toggle")))
	if !b.poll(`lab.settings().ideal === 'true' && document.getElementById('network-toggle').getAttribute('aria-pressed') === 'false'`, 5*time.Second) {
		t.Fatalf("after one click ideal = %s", b.setting("ideal"))
	}
	b.eval(`document.getElementById('network-toggle').textContent`, &label)
	if label != "Network off" || !strings.Contains(b.location(), "ideal=true") {
		t.Errorf("network off: toggle says %q, address %s", label, b.location())
	}
	// With the network off no packet is lost.
	if !b.poll(`interplab.frames() > 120`, 10*time.Second) {
		t.Fatal("the run does not advance")
	}
	b.do(chromedp.Click(chromedp.ID("network-toggle")))
	if !b.poll(`lab.settings().ideal === 'false' && document.getElementById('network-toggle').textContent === 'Network on'`, 5*time.Second) {
		t.Errorf("after two clicks ideal = %s", b.setting("ideal"))
	}
	b.finish()
}
