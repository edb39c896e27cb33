package server

// The README's screens: every page of the lab at 1440×900 in the dark theme,
// written to docs/screens/ by
//
//	go test ./cmd/lab/internal/server -run Screenshots -screenshots
//
// (not part of make test: the pictures change with every pixel of the
// page, and the repository keeps the ones the README shows).

import (
	"flag"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"interplab/cmd/lab/internal/store"
	"interplab/engine"
	"interplab/presets"
)

var screenshots = flag.Bool("screenshots", false, "write a 1440×900 screenshot of every page to docs/screens/")

// screensDir is docs/screens/ of the repository, from this package.
const screensDir = "../../../../docs/screens"

// screensPreset is the library preset the screens are taken on: the lab as
// a Mirror designer meets it.
const screensPreset = "mirror-30hz"

// settledJS holds once every canvas of the page has drawn the same pixels
// for 30 polls in a row (charts done animating), or at once on a page
// without canvases.
const settledJS = `(() => {
	const s = [...document.querySelectorAll('canvas')].map((c) => { const u = c.toDataURL(); return u.length + u.slice(-96); }).join('|');
	const w = /** @type {any} */ (window);
	w.__shotSame = w.__shot === s ? (w.__shotSame ?? 0) + 1 : 0;
	w.__shot = s;
	return document.readyState === 'complete' && (s === '' || w.__shotSame >= 30);
})()`

func TestScreenshots(t *testing.T) {
	if !*screenshots {
		t.Skip("run with -screenshots to write docs/screens/")
	}
	h, st := newSessionServer(t)
	now := time.Now()
	mirror, err := presets.Get(screensPreset)
	if err != nil {
		t.Fatal(err)
	}
	for i, d := range []store.Draft{
		{Name: "Harbor Vanguard: wet docks", Notes: "120 ms from Singapore, 2 % burst loss: the buffer at 100 ms stops the skating", Settings: engine.Defaults()},
		{Name: "Mirror 30 Hz, mobile", Notes: "bufferTimeMultiplier 2 against the handover scenario", Settings: mirror.Settings},
		{Name: "LAN baseline", Notes: "what a perfect link looks like", Settings: engine.Defaults()},
	} {
		if _, err := st.Create(d, now.Add(time.Duration(i-3)*time.Hour)); err != nil {
			t.Fatal(err)
		}
	}

	// A Mirror designer's lab: the library first, compared with the lab's
	// buffer and EPIC, on a 80 ms link with some jitter.
	b := openLabOn(t, h, "/?preset="+screensPreset+"&latency=80ms&jitter=15ms&techniques=epic,buffer,mirror&entities=8")
	if _, err := chromedp.Call(b.ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
		Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: "dark"}},
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(b.ctx, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{
		Width: 1440, Height: 900, DeviceScaleFactor: 1,
	}); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(screensDir, 0o755); err != nil {
		t.Fatal(err)
	}
	shot := func(name string) {
		t.Helper()
		if !b.poll(settledJS, 30*time.Second) {
			t.Fatalf("%s: the page did not settle", name)
		}
		png, err := chromedp.Run(b.ctx, chromedp.CaptureScreenshot())
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		file := filepath.Join(screensDir, name+".png")
		if err := os.WriteFile(file, png, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d bytes", file, len(png))
	}

	// The lab, paused a few seconds into the run.
	if !b.poll(`/frame (\d+)/.test(document.getElementById('clock').textContent) && +document.getElementById('clock').textContent.match(/frame (\d+)/)[1] > 300`, 30*time.Second) {
		t.Fatal("the lab did not run 300 frames")
	}
	b.do(chromedp.Click(chromedp.ID("pause")))
	shot("lab")

	b.open("/sessions")
	shot("sessions")

	b.open("/compare?" + compareTestQuery("preset:"+screensPreset, "q:preset="+screensPreset+"&latency=80ms&jitter=15ms",
		"q:preset="+screensPreset+"&latency=80ms&jitter=15ms&mirror.dynamicAdjustmentTolerance=0"))
	shot("compare")

	// A small sweep of Mirror's dynamic adjustment tolerance (its buffer
	// time with dynamic adjustment on), finished, with its chart.
	b.open("/sweep?base=" + url.QueryEscape("q:preset="+screensPreset+"&latency=80ms&jitter=15ms&duration=8&entities=4"))
	if !b.poll(`!!document.getElementById('job-form')`, 10*time.Second) {
		t.Fatal("no sweep form")
	}
	b.do(chromedp.Evaluate[chromedp.Void](`(() => {
		const f = document.getElementById('job-form');
		f.elements['technique'].value = 'mirror';
		f.elements['technique'].dispatchEvent(new Event('change'));
		f.elements['x.name'].value = 'mirror.dynamicAdjustmentTolerance';
		f.elements['x.name'].dispatchEvent(new Event('change'));
		f.elements['x.min'].value = '0';
		f.elements['x.max'].value = '4.5';
		f.elements['x.steps'].value = '10';
	})()`), chromedp.Click(chromedp.ID("start")))
	jobsBrowserWait(b, `document.getElementById('job')?.dataset.state === 'done' && document.getElementById('sweep-chart')?.dataset.drawn === '10'`, 60*time.Second)
	shot("sweep")

	// The studies on the Mirror designer's technique (the pages start on it
	// once they follow the base's primary technique; set here either way).
	base := url.QueryEscape("q:preset=" + screensPreset + "&latency=80ms&jitter=15ms")
	b.open("/tune?base=" + base)
	b.do(chromedp.Evaluate[chromedp.Void](`(() => {
		const s = document.querySelector('#job-form [name=technique]');
		if (s && s.value !== 'mirror') { s.value = 'mirror'; s.dispatchEvent(new Event('change', {bubbles: true})); }
	})()`))
	shot("tune")
	b.open("/population?base=" + base)
	b.do(chromedp.Evaluate[chromedp.Void](`(() => {
		for (const c of document.querySelectorAll('input[name=techniques]')) c.checked = c.value === 'mirror';
	})()`))
	shot("population")
	b.open("/traces")
	shot("traces")
}
