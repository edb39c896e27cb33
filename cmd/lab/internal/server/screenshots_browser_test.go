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
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"interplab/cmd/lab/internal/store"
	"interplab/engine"
)

var screenshots = flag.Bool("screenshots", false, "write a 1440×900 screenshot of every page to docs/screens/")

// screensDir is docs/screens/ of the repository, from this package.
const screensDir = "../../../../docs/screens"

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
	for i, d := range []store.Draft{
		{Name: "Harbor Vanguard: wet docks", Notes: "120 ms from Singapore, 2 % burst loss: the buffer at 100 ms stops the skating", Settings: engine.Defaults()},
		{Name: "Mirror 30 Hz, mobile", Notes: "bufferTimeMultiplier 2 against the handover scenario", Settings: engine.Defaults()},
		{Name: "LAN baseline", Notes: "what a perfect link looks like", Settings: engine.Defaults()},
	} {
		if _, err := st.Create(d, now.Add(time.Duration(i-3)*time.Hour)); err != nil {
			t.Fatal(err)
		}
	}

	b := openLabOn(t, h, "/?preset=wifi&techniques=epic,snap,buffer,hermite,mirror&entities=8")
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

	b.open("/compare?" + compareTestQuery("preset:wifi", "preset:4g", "preset:lan"))
	shot("compare")

	// A small sweep, finished, with its chart.
	b.open("/sweep?base=" + strings.ReplaceAll("q:preset=wifi&duration=8&entities=4", "&", "%26"))
	if !b.poll(`!!document.getElementById('job-form')`, 10*time.Second) {
		t.Fatal("no sweep form")
	}
	b.do(chromedp.Evaluate[chromedp.Void](`(() => {
		const f = document.getElementById('job-form');
		f.elements['technique'].value = 'buffer';
		f.elements['x.name'].value = 'delay';
		f.elements['x.name'].dispatchEvent(new Event('change'));
		f.elements['x.min'].value = '0.02';
		f.elements['x.max'].value = '0.2';
		f.elements['x.steps'].value = '10';
	})()`), chromedp.Click(chromedp.ID("start")))
	jobsBrowserWait(b, `document.getElementById('job')?.dataset.state === 'done' && document.getElementById('sweep-chart')?.dataset.drawn === '10'`, 60*time.Second)
	shot("sweep")

	b.open("/tune?base=q%3Apreset%3Dwifi")
	shot("tune")
	b.open("/population?base=q%3Apreset%3Dwifi")
	shot("population")
	b.open("/traces")
	shot("traces")
}
