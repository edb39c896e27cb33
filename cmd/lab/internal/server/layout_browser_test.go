package server

// The lab page's layout at the window sizes designers use: the parts of
// the page never overlap, and at laptop and desktop sizes they are all on
// screen together.

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"interplab/cmd/lab/internal/store"
	"interplab/engine"
	"interplab/presets"
)

// layoutShots makes TestBrowserLayout* save a screenshot of every window
// size to testout/, to look at what the assertions measured.
var layoutShots = flag.Bool("layout-shots", false, "save a screenshot of each window size of the layout tests to testout/")

// layoutSize is a browser window the layout must fit; together says that
// every part must be at least partly on screen without scrolling.
type layoutSize struct {
	w, h     int64
	together bool
}

var layoutSizes = []layoutSize{
	{1280, 720, true},
	{1440, 900, true},
	{1920, 1080, true},
	{1024, 768, false}, // usable: the page scrolls, nothing overlaps
}

// layoutParts are the parts of the lab page checked, by name → selector.
var layoutParts = [][2]string{
	{"header", "header.top"},
	{"controls", "#controls"},
	{"toolbar", ".stage .toolbar"},
	{"canvas", "#view"},
	{"legend", "#legend"},
	{"perf", "#perf"},
	{"timeline", "#timeline"},
	{"metrics", "#metrics"},
}

// layoutPartsAB are the parts the A/B view adds: the pinned run's canvas.
var layoutPartsAB = [][2]string{
	{"pinned", "#ab-view"},
}

// layoutOverlays may overlap: the legend and the perf readout are drawn over
// the canvas on purpose.
var layoutOverlays = map[[2]string]bool{
	{"canvas", "legend"}: true,
	{"canvas", "perf"}:   true,
}

// controlsWholeJS opens every collapsible part of the side panel and lists
// what of it is not whole: a control, a knob's name or its number box and
// unit cut off by the panel's visible box (the panel may scroll up and
// down, never sideways), or two of them overlapping.
const controlsWholeJS = `(() => {
	const panel = document.getElementById('controls');
	for (const d of panel.querySelectorAll('details')) d.open = true;
	panel.scrollTop = 0;
	const pr = panel.getBoundingClientRect();
	const left = pr.left + panel.clientLeft, right = left + panel.clientWidth;
	const bottom = pr.top + panel.clientTop + panel.scrollHeight;
	const bad = [];
	if (panel.scrollWidth > panel.clientWidth + 0.5) {
		bad.push('the panel is ' + panel.scrollWidth + ' px wide inside a ' + panel.clientWidth + ' px box: it scrolls sideways');
	}
	const name = (el) => {
		const f = el.closest('.field');
		const what = el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') + (el.className && typeof el.className === 'string' ? '.' + el.className.split(' ').join('.') : '');
		return what + (f ? ' of ' + (f.querySelector('code')?.textContent ?? '?') : '');
	};
	const items = [];
	for (const el of panel.querySelectorAll('input, select, textarea, button, summary, .field code, .field .shown, label.tech')) {
		if (el.getClientRects().length === 0 || getComputedStyle(el).visibility === 'hidden') continue;
		const r = el.getBoundingClientRect();
		if (r.width < 1 || r.height < 1) continue;
		if (r.left < left - 0.5 || r.right > right + 0.5) {
			bad.push(name(el) + ' spans x ' + r.left.toFixed(0) + '…' + r.right.toFixed(0) + ', the panel shows ' + left.toFixed(0) + '…' + right.toFixed(0));
		}
		if (r.bottom > bottom + 0.5) bad.push(name(el) + ' is below the panel\'s scroll height');
		items.push([el, r]);
	}
	for (let i = 0; i < items.length; i++) {
		for (let j = i + 1; j < items.length; j++) {
			const [a, ra] = items[i], [b, rb] = items[j];
			if (a.contains(b) || b.contains(a)) continue;
			const w = Math.min(ra.right, rb.right) - Math.max(ra.left, rb.left);
			const h = Math.min(ra.bottom, rb.bottom) - Math.max(ra.top, rb.top);
			if (w > 0.5 && h > 0.5) bad.push(name(a) + ' overlaps ' + name(b) + ' (' + w.toFixed(0) + '×' + h.toFixed(0) + ' px)');
		}
	}
	return {Count: items.length, Bad: bad};
})()`

// perfJS measures the perf readout against the scale bar the view draws at
// its bottom left and its view: the readout must be whole (wrapped if need
// be, never cut), inside the view and clear of the bar.
const perfJS = `(() => {
	const el = document.getElementById('perf');
	const r = el.getBoundingClientRect();
	const v = el.closest('.view').getBoundingClientRect();
	const s = lab.scaleBox();
	return {Perf: {Name: 'perf', X: r.x, Y: r.y, W: r.width, H: r.height},
		Scale: {Name: 'scale bar', X: s.x, Y: s.y, W: s.w, H: s.h},
		Cut: el.scrollWidth > el.clientWidth + 0.5 || el.scrollHeight > el.clientHeight + 0.5,
		Inside: r.left >= v.left - 0.5 && r.right <= v.right + 0.5 && r.top >= v.top - 0.5 && r.bottom <= v.bottom + 0.5};
})()`

type layoutBox struct {
	Name                     string
	X, Y, W, H               float64
	ViewW, ViewH             float64
	ScrollWidth, ScrollTotal float64
}

// layoutJS returns the page-relative boxes of parts, after two frames (so
// the canvases have resized to their new boxes).
func layoutJS(parts [][2]string) string {
	var sel []string
	for _, p := range parts {
		sel = append(sel, fmt.Sprintf("[%q, %q]", p[0], p[1]))
	}
	return `new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(() => {
		window.scrollTo(0, 0);
		const de = document.documentElement;
		done([` + strings.Join(sel, ",") + `].map(([name, sel]) => {
			const el = document.querySelector(sel);
			const r = el ? el.getBoundingClientRect() : {x: 0, y: 0, width: 0, height: 0};
			return {Name: name, X: r.x, Y: r.y, W: r.width, H: r.height,
				ViewW: de.clientWidth, ViewH: de.clientHeight,
				ScrollWidth: de.scrollWidth, ScrollTotal: de.scrollHeight};
		}));
	})))`
}

// overlap is the area two boxes share, in CSS pixels².
func (a layoutBox) overlap(b layoutBox) float64 {
	w := min(a.X+a.W, b.X+b.W) - max(a.X, b.X)
	h := min(a.Y+a.H, b.Y+b.H) - max(a.Y, b.Y)
	if w <= 0.5 || h <= 0.5 {
		return 0
	}
	return w * h
}

func (a layoutBox) String() string {
	return fmt.Sprintf("%s %.0f×%.0f at (%.0f, %.0f)", a.Name, a.W, a.H, a.X, a.Y)
}

// checkLayout sets b's window to each size and checks the parts' boxes,
// the side panel's knobs and, with the A/B view open, its pinned canvas and
// the perf readout against the scale bar.
func checkLayout(t *testing.T, b *labTab) {
	t.Helper()
	checkLayoutSizes(t, b, layoutSizes)
}

// layoutPage is what the layout checks need of a tab, in any engine.
type layoutPage interface {
	eval(expr string, out any)
	poll(cond string, within time.Duration) bool
	viewport(w, h int64)
}

// checkLayoutSizes is checkLayout at the window sizes sizes.
func checkLayoutSizes(t *testing.T, b layoutPage, sizes []layoutSize) {
	t.Helper()
	parts := layoutParts
	var ab bool
	b.eval(`!!lab.ab()?.pinned`, &ab)
	if ab {
		parts = append(slices.Clone(parts), layoutPartsAB...)
	}
	for _, sz := range sizes {
		t.Run(fmt.Sprintf("%dx%d", sz.w, sz.h), func(t *testing.T) {
			b.viewport(sz.w, sz.h)
			// The legend and the perf readout fill in as the run goes.
			if !b.poll(`document.getElementById('legend').children.length > 0 && !document.getElementById('perf').textContent.includes('–')`, 10*time.Second) {
				t.Fatalf("legend or perf readout not filled in")
			}
			var boxes []layoutBox
			b.eval(layoutJS(parts), &boxes)
			for _, x := range boxes {
				t.Logf("%v", x)
				if x.W < 1 || x.H < 1 {
					t.Errorf("%s has no box: %v", x.Name, x)
				}
			}
			for i, x := range boxes {
				for _, y := range boxes[i+1:] {
					if layoutOverlays[[2]string{x.Name, y.Name}] {
						continue
					}
					if a := x.overlap(y); a > 0 {
						t.Errorf("%v overlaps %v (%.0f px²)", x, y, a)
					}
				}
			}
			if tab, ok := b.(*labTab); ok && *layoutShots {
				png, err := chromedp.Run(tab.ctx, chromedp.CaptureScreenshot())
				if err != nil {
					t.Fatal(err)
				}
				name := filepath.Join("testout", strings.ReplaceAll(t.Name(), "/", "_")+".png")
				os.MkdirAll("testout", 0o755)
				if err := os.WriteFile(name, png, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			view := boxes[0]
			if view.ScrollWidth > view.ViewW+0.5 {
				t.Errorf("the page is %.0f px wide in a %.0f px window: it scrolls sideways", view.ScrollWidth, view.ViewW)
			}
			// Each view of the A/B pair takes half the stage.
			minW := 400.0
			if ab {
				minW = 300
			}
			for _, x := range boxes {
				if (x.Name == "canvas" || x.Name == "pinned") && (x.W < minW || x.H < 240) {
					t.Errorf("the %s view is too small to read: %v, want %.0f×240 or more", x.Name, x, minW)
				}
				inside := x.X < view.ViewW && x.X+x.W > 0 && x.Y < view.ViewH && x.Y+x.H > 0
				reachable := x.X < view.ViewW && x.X+x.W > 0 && x.Y+x.H <= view.ScrollTotal+0.5
				switch {
				case sz.together && !inside:
					t.Errorf("%v is off screen in a %.0f×%.0f window", x, view.ViewW, view.ViewH)
				case !reachable:
					t.Errorf("%v is out of the page's reach (%.0f×%.0f, %.0f px tall)", x, view.ViewW, view.ViewH, view.ScrollTotal)
				}
			}
			// The metrics table's first row must be readable, not just its edge.
			for _, x := range boxes {
				if x.Name == "metrics" && sz.together && x.Y+40 > view.ViewH {
					t.Errorf("the metrics table starts at y = %.0f, below the fold of a %.0f px window", x.Y, view.ViewH)
				}
			}
			checkPerf(t, b)
			checkControlsWhole(t, b)
			var doc struct{ Cut bool }
			b.eval(`(() => { const el = document.getElementById('preset-doc'); return {Cut: el.scrollWidth > el.clientWidth + 0.5 || el.scrollHeight > el.clientHeight + 0.5}; })()`, &doc)
			if doc.Cut {
				t.Errorf("the preset description is cut: want it whole, wrapped")
			}
		})
	}
}

// checkPerf checks that the perf readout is whole (issue 29: it was cut
// with "…" in the A/B view's half), inside its view and clear of the
// scale bar the view draws.
func checkPerf(t *testing.T, b layoutPage) {
	t.Helper()
	var got struct {
		Perf, Scale layoutBox
		Cut, Inside bool
	}
	b.eval(perfJS, &got)
	if got.Cut || !got.Inside {
		t.Errorf("the perf readout is cut (%v) or outside its view (inside %v): %v", got.Cut, got.Inside, got.Perf)
	}
	if got.Scale.W < 1 {
		t.Errorf("the view drew no scale bar: %v", got.Scale)
	}
	if a := got.Perf.overlap(got.Scale); a > 0 {
		t.Errorf("%v covers the %v (%.0f px²)", got.Perf, got.Scale, a)
	}
}

// checkControlsWhole checks that every knob of the side panel is whole:
// within the panel's visible box, reachable by its own scroll, and clear of
// the others.
func checkControlsWhole(t *testing.T, b layoutPage) {
	t.Helper()
	var got struct {
		Count int
		Bad   []string
	}
	b.eval(controlsWholeJS, &got)
	if got.Count < 10 {
		t.Errorf("the side panel shows %d controls: too few to be the lab's", got.Count)
	}
	const most = 12
	for i, bad := range got.Bad {
		if i == most {
			t.Errorf("… and %d more", len(got.Bad)-most)
			break
		}
		t.Errorf("side panel: %s", bad)
	}
}

// TestBrowserLayout opens the lab with every technique (the widest legend
// and the tallest metrics table) at each window size.
func TestBrowserLayout(t *testing.T) {
	b := openLab(t, "/?techniques="+strings.Join(engine.TechniqueNames, ","))
	checkLayout(t, b)
}

// libraryPresets are the built-in presets on a library technique, in
// display order: every library's, which TestLibraryPresetsCoverLibraries
// holds to at least one a library.
var libraryPresets = func() []string {
	list, err := presets.All()
	if err != nil {
		panic("server tests: " + err.Error())
	}
	var out []string
	for _, p := range list {
		if p.Settings.Library() != "" {
			out = append(out, p.Name)
		}
	}
	return out
}()

// TestLibraryPresetsCoverLibraries: every library technique of the
// engine's list has a preset, so the layout and engine browser tests open
// each library's knobs.
func TestLibraryPresetsCoverLibraries(t *testing.T) {
	for _, tech := range engine.TechniqueNames {
		if !engine.LibraryTechnique(tech) {
			continue
		}
		if !slices.ContainsFunc(libraryPresets, func(name string) bool {
			p, err := presets.Get(name)
			return err == nil && p.Settings.Library() == tech
		}) {
			t.Errorf("library technique %s has no preset in %v", tech, libraryPresets)
		}
	}
}

// TestBrowserLayoutLibraries opens each library's preset, whose knobs have
// the longest names and units, at each window size, then with the A/B view
// open (two canvases side by side, the perf readout over a half-width view).
func TestBrowserLayoutLibraries(t *testing.T) {
	b := openLab(t, "/")
	for _, name := range libraryPresets {
		t.Run(name, func(t *testing.T) {
			b.navigate("/?preset=" + name)
			checkLayout(t, b)
			b.do(chromedp.Click(chromedp.ID("ab-pin")))
			if !b.poll(`lab.ab().pinned && !document.getElementById('ab-pane').hidden`, 10*time.Second) {
				t.Fatalf("Pin did not open the A/B view: %+v", b.ab())
			}
			t.Run("ab", func(t *testing.T) { checkLayout(t, b) })
		})
	}
}

// TestBrowserLayoutSession checks a saved session's page, whose header also
// holds the session's name, revision, sync state and unsaved marker.
func TestBrowserLayoutSession(t *testing.T) {
	h, st := newSessionServer(t)
	s := engine.Defaults()
	s.Techniques = append([]string(nil), engine.TechniqueNames...)
	rev, err := st.Create(store.Draft{Name: "Harbor Vanguard, wet docks, 120 ms from Singapore", Settings: s}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	b := openLabOn(t, h, "/s/"+rev.ID+"?loss=5")
	b.waitLive()
	checkLayout(t, b)
}

// TestBrowserLayoutThemes checks that the page follows the system's light
// or dark setting, and that the legend, drawn over the canvas's dark stage
// in both, stays light on it.
func TestBrowserLayoutThemes(t *testing.T) {
	b := openLab(t, "/")
	got := map[string][2]string{}
	for _, theme := range []string{"dark", "light"} {
		if _, err := chromedp.Call(b.ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: theme}},
		}); err != nil {
			t.Fatal(err)
		}
		var c [2]string
		b.eval(`[getComputedStyle(document.body).backgroundColor, getComputedStyle(document.getElementById('legend')).color]`, &c)
		got[theme] = c
	}
	if got["dark"][0] != "rgb(11, 15, 20)" || got["light"][0] != "rgb(246, 248, 250)" {
		t.Errorf("page background dark %s, light %s: want rgb(11, 15, 20) and rgb(246, 248, 250)", got["dark"][0], got["light"][0])
	}
	for theme, c := range got {
		if c[1] != "rgb(213, 220, 228)" {
			t.Errorf("%s theme: legend text %s, want the light rgb(213, 220, 228) over the dark canvas", theme, c[1])
		}
	}
}
