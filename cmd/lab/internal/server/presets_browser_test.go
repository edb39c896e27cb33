package server

// A real-browser round trip of custom presets (web/presets.js): save the
// lab's settings as a preset, find it in the picker, load it back.

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

func TestBrowserSaveAsPreset(t *testing.T) {
	b := openLab(t, "/?preset=wifi&loss=3&delay=150&techniques=buffer,epic")
	var want map[string]string
	b.eval(`lab.settings()`, &want)

	// A built-in name is refused with the server's message, in the dialog
	// (the browser logs the 409).
	b.allow("status of 409")
	b.do(chromedp.Click(chromedp.ID("preset-save")))
	b.do(chromedp.SendKeys(chromedp.ID("preset-name"), "wifi"), chromedp.SendKeys(chromedp.ID("preset-doc-input"), "ours"))
	b.do(chromedp.Click(chromedp.ID("preset-submit")))
	if !b.poll(`!document.getElementById('preset-save-error').hidden && document.getElementById('preset-save-error').textContent.includes('built-in')`, 5*time.Second) {
		t.Errorf("saving as wifi: the dialog does not say built-in presets cannot be overwritten")
	}
	b.eval(`document.getElementById('preset-name').value = ''`, nil)
	b.do(chromedp.SendKeys(chromedp.ID("preset-name"), "team-lossy"), chromedp.SendKeys(chromedp.ID("preset-title"), "Team lossy"))
	b.do(chromedp.Click(chromedp.ID("preset-submit")))
	if !b.poll(`!document.getElementById('preset-dialog').open && document.getElementById('preset').value === 'team-lossy'`, 5*time.Second) {
		t.Fatalf("saved as team-lossy: the picker does not show it selected")
	}
	var opt struct {
		Text   string
		Custom bool
	}
	b.eval(`(() => { const o = document.querySelector('#preset-custom option[value="team-lossy"]'); return {text: o.textContent, custom: o.dataset.custom !== undefined}; })()`, &opt)
	if !strings.Contains(opt.Text, "Team lossy") || !strings.Contains(opt.Text, "(custom)") || !opt.Custom {
		t.Errorf("the picker lists it as %+v, want Team lossy marked (custom)", opt)
	}

	// Load another preset, then the custom one: the same settings.
	choose := func(name string) {
		b.eval(`(() => { const s = document.getElementById('preset'); s.value = `+jsString(name)+`; s.dispatchEvent(new Event('change')); })()`, nil)
	}
	choose("lan")
	if !b.poll(`lab.settings().loss !== '3%'`, 5*time.Second) {
		t.Fatalf("chose lan: settings %v", b.setting("loss"))
	}
	// After a reload the server lists it.
	b.navigate("/")
	if !b.poll(`!!document.querySelector('#preset-custom option[value="team-lossy"]') && !document.getElementById('preset-custom').hidden`, 5*time.Second) {
		t.Fatalf("after a reload the picker does not list team-lossy")
	}
	choose("team-lossy")
	if !b.poll(`lab.settings().loss === '3%'`, 5*time.Second) {
		t.Fatalf("chose team-lossy: loss %s", b.setting("loss"))
	}
	var got map[string]string
	b.eval(`lab.settings()`, &got)
	if !reflect.DeepEqual(got, want) {
		for k, v := range want {
			if got[k] != v {
				t.Errorf("after loading team-lossy: %s = %s, want %s", k, got[k], v)
			}
		}
	}
	// Its link carries the values, not the custom name: it opens on any lab.
	if u := b.location(); strings.Contains(u, "team-lossy") || !strings.Contains(u, "loss=3%25") {
		t.Errorf("address %s: want the values against the defaults", u)
	}
	var href string
	b.eval(`document.getElementById('preset-file').getAttribute('href')`, &href)
	if href != "/api/presets/team-lossy.json" {
		t.Errorf("File link %q", href)
	}
	b.finish()
}
