package server

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"interplab/cmd/lab/internal/chart"
	"interplab/cmd/lab/internal/compare"
	"interplab/cmd/lab/internal/store"
	"interplab/engine"
)

// compareBrowserPath returns the Chromium to test with: $CHROMIUM, else
// /usr/bin/chromium (make browser-deps installs it).
func compareBrowserPath(t *testing.T) string {
	t.Helper()
	path := os.Getenv("CHROMIUM")
	if path == "" {
		path = "/usr/bin/chromium"
	}
	if _, err := exec.LookPath(path); err != nil {
		t.Skipf("no Chromium at %s (make browser-deps installs it; CHROMIUM names another): %v", path, err)
	}
	return path
}

// compareBrowserChart is what the page drew in one chart's canvas.
type compareBrowserChart struct {
	Canvas        bool   // the chart's element holds a canvas
	Width, Height int    // of the canvas, in device pixels
	Box           int    // width of the chart's element, in device pixels
	Background    [3]int // the colour of the canvas's top-left pixel
	Ink           int    // pixels that are not that background
	Data          int    // pixels of a variant's colour inside the plot (below the legend)
}

// compareBrowserReport is what a real browser saw of a page.
type compareBrowserReport struct {
	Charts   map[string]compareBrowserChart // by element id
	Console  []string                       // console errors and uncaught exceptions
	Blocked  []string                       // requests outside the page's own server, failed
	Requests []string                       // requests the server answered, as paths
}

// compareBrowserLoad opens pageURL in headless Chromium at chrome, lets no
// request leave origin (the test server), waits up to wait for every chart
// of ids to draw data, and reports what it drew, the console errors and the
// requests. It is independent of the comparison code, for any page that
// draws ECharts charts into elements with those ids. scheme, if not "",
// is the prefers-color-scheme the page sees ("dark" or "light").
func compareBrowserLoad(ctx context.Context, chrome, origin, pageURL string, ids []string, wait time.Duration, scheme string) (*compareBrowserReport, error) {
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chrome),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.WindowSize(1280, 1024),
	)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	defer cancelAlloc()
	tab, cancelTab := chromedp.NewContext(allocCtx)
	defer cancelTab()
	if err := chromedp.Do(tab); err != nil {
		return nil, fmt.Errorf("start chromium: %w", err)
	}

	rep := &compareBrowserReport{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	console := chromedp.Console(tab)
	wg.Go(func() {
		for m, err := range console {
			if err != nil {
				return
			}
			if m.Type == chromedp.ConsoleError || m.IsException() {
				mu.Lock()
				rep.Console = append(rep.Console, fmt.Sprintf("%s:%d %s", m.URL, m.Line+1, m))
				mu.Unlock()
			}
		}
	})
	paused := chromedp.Events(tab, fetch.RequestPaused)
	if _, err := chromedp.Call(tab, fetch.Enable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{{URLPattern: "*"}}}); err != nil {
		return nil, fmt.Errorf("intercept requests: %w", err)
	}
	wg.Go(func() {
		for ev, err := range paused {
			if err != nil {
				return
			}
			url := ev.Request.URL
			if strings.HasPrefix(url, origin+"/") {
				mu.Lock()
				rep.Requests = append(rep.Requests, strings.TrimPrefix(url, origin))
				mu.Unlock()
				chromedp.Call(tab, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: ev.RequestID})
				continue
			}
			mu.Lock()
			rep.Blocked = append(rep.Blocked, url)
			mu.Unlock()
			chromedp.Call(tab, fetch.FailRequest, fetch.FailRequestParams{RequestID: ev.RequestID, ErrorReason: network.ErrorReasonBlockedByClient})
		}
	})

	if scheme != "" {
		if _, err := chromedp.Call(tab, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}}}); err != nil {
			return nil, fmt.Errorf("emulate prefers-color-scheme: %s: %w", scheme, err)
		}
	}
	if err := chromedp.Do(tab, chromedp.Navigate(pageURL)); err != nil {
		return nil, fmt.Errorf("open %s: %w", pageURL, err)
	}
	idsJSON, err := json.Marshal(ids)
	if err != nil {
		return nil, err
	}
	// Count the chart pixels that are not the background (the top-left
	// pixel's colour), and those near a variant colour below the legend
	// (ECharts draws the legend at 52 px, the plot from 92 px).
	script := `(() => {
		const palette = ` + compareBrowserPalette() + `;
		const out = {};
		for (const id of ` + string(idsJSON) + `) {
			const el = document.getElementById(id), cv = el && el.querySelector('canvas');
			if (!cv) { out[id] = {Canvas: false}; continue; }
			const d = cv.getContext('2d').getImageData(0, 0, cv.width, cv.height).data;
			const top = Math.round(92 * window.devicePixelRatio) * cv.width * 4;
			let ink = 0, data = 0;
			const bg = [d[0], d[1], d[2]];
			for (let i = 0; i < d.length; i += 4) {
				if (d[i+3] === 0) continue;
				if (Math.abs(d[i]-bg[0]) + Math.abs(d[i+1]-bg[1]) + Math.abs(d[i+2]-bg[2]) > 60) ink++;
				if (i >= top && palette.some(c => Math.abs(d[i]-c[0]) + Math.abs(d[i+1]-c[1]) + Math.abs(d[i+2]-c[2]) < 24)) data++;
			}
			out[id] = {Canvas: true, Width: cv.width, Height: cv.height, Background: bg, Ink: ink, Data: data,
				Box: Math.round(el.clientWidth * window.devicePixelRatio)};
		}
		return out;
	})()`
	var readErr error
	waitFor(tab, func() bool {
		charts, err := chromedp.Run(tab, chromedp.Evaluate[map[string]compareBrowserChart](script))
		if err != nil {
			readErr = err
			return true
		}
		rep.Charts = charts
		for _, id := range ids {
			if charts[id].Data == 0 {
				return false
			}
		}
		return true
	}, wait)
	if readErr != nil {
		return nil, fmt.Errorf("read the charts: %w", readErr)
	}
	cancelTab()
	wg.Wait()
	return rep, nil
}

// compareBrowserPalette is the variants' colours (chart.Color) as a
// JavaScript array of RGB triples.
func compareBrowserPalette() string {
	var parts []string
	for i := range compare.MaxVariants {
		c := chart.Color(i)
		var r, g, b int
		fmt.Sscanf(c, "#%02x%02x%02x", &r, &g, &b)
		parts = append(parts, fmt.Sprintf("[%d,%d,%d]", r, g, b))
	}
	return "[" + strings.Join(parts, ",") + "]"
}

// The comparison page loads in real Chromium with no console error, asks
// nothing of any other server, and draws data in every chart, in the light
// theme on white and in the dark one on the page's dark panel (style.css
// --panel, #11161d).
func TestCompareBrowser(t *testing.T) {
	chrome := compareBrowserPath(t)
	srv := compareTestServer(t)
	for _, tt := range []struct {
		scheme string
		bg     func(c [3]int) bool
		want   string
	}{
		{"light", func(c [3]int) bool { return c[0] >= 250 && c[1] >= 250 && c[2] >= 250 }, "white"},
		{"dark", func(c [3]int) bool { return c[0] <= 40 && c[1] <= 40 && c[2] <= 45 }, "the dark panel"},
	} {
		t.Run(tt.scheme, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()

			// Charts that must show data: every technique's error over time, the
			// error p95 bars and the scatter. (Other bars may all be 0.)
			ids := []string{"compare-latency", "compare-metric-errP95"}
			for _, tech := range engine.Defaults().Techniques { // the presets compared run the defaults
				ids = append(ids, "compare-error-"+tech)
			}
			page := srv.URL + "/compare?" + compareTestQuery("preset:wifi", "preset:4g", "preset:lan")
			rep, err := compareBrowserLoad(ctx, chrome, srv.URL, page, ids, 20*time.Second, tt.scheme)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range rep.Console {
				t.Errorf("console: %s", m)
			}
			for _, u := range rep.Blocked {
				t.Errorf("the page asked for %s, outside the lab", u)
			}
			if !slices.Contains(rep.Requests, "/static/vendor/echarts/echarts.min.js") || !slices.Contains(rep.Requests, "/static/charts.js") {
				t.Errorf("requests = %q, want the vendored echarts.min.js and charts.js among them", rep.Requests)
			}
			for _, id := range ids {
				c := rep.Charts[id]
				if !c.Canvas || c.Width < 300 || c.Height < 300 {
					t.Errorf("%s: canvas %v, %d×%d, want a canvas of at least 300×300", id, c.Canvas, c.Width, c.Height)
					continue
				}
				if c.Width > c.Box {
					t.Errorf("%s: canvas %d px wide in an element of %d px, want it to fit", id, c.Width, c.Box)
				}
				if !tt.bg(c.Background) {
					t.Errorf("%s: background %v in the %s theme, want %s", id, c.Background, tt.scheme, tt.want)
				}
				if c.Ink < c.Width*c.Height/200 || c.Data == 0 {
					t.Errorf("%s: %d ink pixels, %d of data, want at least %d ink and some data (is it drawn?)", id, c.Ink, c.Data, c.Width*c.Height/200)
				}
			}
			t.Logf("requests %q; charts %+v", rep.Requests, rep.Charts)
		})
	}
}

// TestCompareChooserBrowser picks what to compare in real Chromium: a
// preset from one row's grouped list, a saved session's older revision
// from another, a ref typed into a third box selects it in that row's
// list; the form then compares those three and names them.
func TestCompareChooserBrowser(t *testing.T) {
	h, st := newSessionServer(t)
	first, err := st.Create(store.Draft{Name: "playtest", Settings: engine.Defaults()}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Update(first.ID, time.Now(), func(prev store.Revision) (store.Draft, error) {
		s := prev.Settings
		s.Delay = 0.15
		return store.Draft{Name: prev.Name, Settings: s}, nil
	}); err != nil {
		t.Fatal(err)
	}
	b := openLabOn(t, h, "/?entities=1")
	b.open("/compare")
	if !b.poll(`document.querySelectorAll('select.ref-pick').length >= 3`, 10*time.Second) {
		t.Fatal("the compare form has no chooser rows")
	}
	var groups []string
	b.eval(`Array.from(document.querySelectorAll('select.ref-pick')[0].querySelectorAll('optgroup'), (g) => g.label)`, &groups)
	if len(groups) < 3 || groups[0] != "Presets" || !strings.HasPrefix(groups[1], "Saved sessions") || !strings.HasPrefix(groups[2], "Recorded traces") {
		t.Errorf("the chooser's groups are %q, want presets, saved sessions, traces", groups)
	}
	pick := func(row int, ref string) {
		t.Helper()
		var ok bool
		b.eval(fmt.Sprintf(`(() => { const s = document.querySelectorAll('select.ref-pick')[%d];
			if (!Array.from(s.options).some((o) => o.value === %q)) return false;
			s.value = %q; s.dispatchEvent(new Event('change')); return true; })()`, row, ref, ref), &ok)
		if !ok {
			t.Fatalf("row %d lists no %s", row+1, ref)
		}
	}
	pick(0, "preset:wifi")
	pick(1, "session:"+first.ID+"@1")
	var boxes []string
	b.eval(`Array.from(document.querySelectorAll('.ref-row input[name=v]'), (i) => i.value)`, &boxes)
	if len(boxes) < 3 || boxes[0] != "preset:wifi" || boxes[1] != "session:"+first.ID+"@1" {
		t.Fatalf("after picking, the boxes hold %q", boxes)
	}
	// Typing a listed ref selects it in the row's list.
	b.do(chromedp.SendKeys(chromedp.ID("v-3"), "preset:lan"))
	var picked string
	b.eval(`document.querySelectorAll('select.ref-pick')[2].value`, &picked)
	if picked != "preset:lan" {
		t.Errorf("typed preset:lan into row 3: its list shows %q", picked)
	}
	b.do(chromedp.Click(chromedp.CSS(`form.refs button[type=submit]`)))
	if !b.poll(`document.querySelectorAll('ul.variants li').length === 3 && !!document.querySelector('#compare-latency canvas')`, 30*time.Second) {
		var page string
		b.eval(`document.body.innerText.slice(0, 600)`, &page)
		t.Fatalf("the comparison did not come: %s", page)
	}
	var labels []string
	b.eval(`Array.from(document.querySelectorAll('ul.variants li b'), (x) => x.textContent)`, &labels)
	if len(labels) != 3 || !strings.Contains(labels[1], "playtest") {
		t.Errorf("compared %q, want wifi, playtest's revision 1 and lan", labels)
	}
	// The rows keep the picks, selected in their lists.
	var kept []string
	b.eval(`Array.from(document.querySelectorAll('select.ref-pick'), (s) => s.value).slice(0, 3)`, &kept)
	if want := []string{"preset:wifi", "session:" + first.ID + "@1", "preset:lan"}; !slices.Equal(kept, want) {
		t.Errorf("after comparing, the lists show %q, want %q", kept, want)
	}
	b.finish()
}
