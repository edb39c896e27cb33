package server

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"interplab/engine"
	"interplab/presets"
)

// TestBrowserLibraryPicker opens the lab as a first-time visitor: the page
// asks which library the game is on, and picking Mirror starts from the
// Mirror preset with the Mirror knobs, the Mirror export and the delay the
// game will have in view, and the other libraries' out of the way. The
// question is not asked again.
func TestBrowserLibraryPicker(t *testing.T) {
	b := openLab(t, "/?preset=wifi") // a link: no question
	if b.holds(`document.getElementById('library-start').open`) {
		t.Fatal("the library picker opened on a shared link")
	}
	b.navigateFirst("/")
	if !b.poll(`document.getElementById('library-start').open`, 10*time.Second) {
		t.Fatal("the library picker did not open on a first visit")
	}
	var offered []string
	b.eval(`[...document.querySelectorAll('#library-start .library')].map(l => l.dataset.technique || '')`, &offered)
	for _, want := range []string{engine.TechMirror, engine.TechNGO, engine.TechSource, engine.TechUnreal, engine.TechGeckos, ""} {
		if !strings.Contains(","+strings.Join(offered, ",")+",", ","+want+",") {
			t.Errorf("picker offers %q, want %q among them", offered, want)
		}
	}

	b.do(chromedp.Click(chromedp.CSS(`#library-start button[value="mirror-30hz"]`)))
	if !b.poll(`lab.state().techniques.includes('mirror') && location.search.includes('preset=mirror-30hz')`, 10*time.Second) {
		t.Fatalf("picking Mirror did not load its preset: %s", b.location())
	}
	var shown struct {
		MirrorGroup, NGOGroup, MirrorExport, NGOExport bool
		Delay                                          string
	}
	b.eval(`(() => {
		const vis = (sel) => { const e = document.querySelector(sel); return !!e && !e.hidden && e.offsetParent !== null; };
		const i = lab.state().techniques.indexOf('mirror');
		const cells = document.querySelectorAll('#metrics tr.game-delay td');
		return { MirrorGroup: vis('fieldset.group-mirror'), NGOGroup: vis('fieldset.group-ngo'),
			MirrorExport: vis('#export-mirror'), NGOExport: vis('#export-ngo'), Delay: cells[i].textContent };
	})()`, &shown)
	if !shown.MirrorGroup || shown.NGOGroup {
		t.Errorf("Mirror knobs shown %v, NGO knobs shown %v; want only Mirror's", shown.MirrorGroup, shown.NGOGroup)
	}
	if !shown.MirrorExport || shown.NGOExport {
		t.Errorf("Mirror export shown %v, NGO export shown %v; want only Mirror's", shown.MirrorExport, shown.NGOExport)
	}
	p, err := presets.Get("mirror-30hz")
	if err != nil {
		t.Fatal(err)
	}
	want, _ := engine.EffectiveDelay(engine.TechMirror, &p.Settings)
	if got, err := strconv.ParseFloat(shown.Delay, 64); err != nil || math.Abs(got-want*1000) > 1 {
		t.Errorf("game delay shown for mirror = %q, want %.1f ms (bufferTime + NetworkTransform's offset)", shown.Delay, want*1000)
	}

	if b.holds(`!document.getElementById('advice').hidden`) {
		t.Error("advice shown for the Mirror preset, whose rates agree")
	}
	// The server's send rate moved, Mirror's not: the page says so.
	b.navigate("/?preset=mirror-30hz&sendRate=20")
	var advice string
	b.eval(`document.getElementById('advice').hidden ? '' : document.getElementById('advice-list').textContent`, &advice)
	if !strings.Contains(advice, "mirror.sendRate is 30 Hz but the server sends at 20 Hz") {
		t.Errorf("advice = %q, want mirror.sendRate flagged against sendRate", advice)
	}

	b.navigateFirst("/")
	if b.holds(`document.getElementById('library-start').open`) {
		t.Error("the library picker asked again after a choice")
	}
	b.do(chromedp.Click(chromedp.ID("library-open")))
	if !b.poll(`document.getElementById('library-start').open`, 5*time.Second) {
		t.Error("the Library… button did not open the picker")
	}
}

// libraryPanel is what a designer sees of the technique they are on: the
// side panel's groups top to bottom (the group name, whether its knobs
// show), the "Compare with the lab's techniques" toggle (nil when absent),
// the export links left to right and the legend.
type libraryPanel struct {
	Techniques []string
	Groups     []string
	Open       []bool
	Compare    *bool
	Exports    []string
	Legend     []string
	ABFirst    string
}

const libraryPanelJS = `(() => {
	const vis = (el) => !!el && !el.hidden && el.checkVisibility();
	const top = (el) => { const r = el.getBoundingClientRect(); return [r.top, r.left]; };
	const byPlace = (a, b) => { const [ay, ax] = top(a), [by, bx] = top(b); return Math.abs(ay - by) > 4 ? ay - by : ax - bx; };
	const groups = [...document.querySelectorAll('#controls fieldset.group')].filter(vis).sort(byPlace);
	const toggle = document.getElementById('compare-lab-toggle');
	const ab = document.querySelector('#ab-deltas thead th[style]');
	return {
		Techniques: lab.state().techniques,
		Groups: groups.map((g) => [...g.classList].find((c) => c.startsWith('group-')).slice(6)),
		Open: groups.map((g) => vis(g.querySelector('.field'))),
		Compare: vis(toggle) ? toggle.checked : null,
		Exports: [...document.querySelectorAll('a.export')].filter(vis).sort(byPlace).map((a) => a.dataset.technique || a.dataset.format),
		Legend: [...document.querySelectorAll('#legend .legend-item')].map((s) => s.textContent),
		ABFirst: ab ? ab.textContent : '',
	};
})()`

func (b *labTab) libraryPanel() libraryPanel {
	b.t.Helper()
	var p libraryPanel
	b.eval(libraryPanelJS, &p)
	return p
}

// TestBrowserLibraryFirst: a library's preset runs the library alone, its
// knobs first in the side panel and open, its export first. The lab's
// buffer and EPIC come in only when the designer ticks "Compare with the
// lab's techniques", then after the library, collapsed; the legend and the
// A/B view's deltas start on the library.
func TestBrowserLibraryFirst(t *testing.T) {
	b := openLab(t, "/")
	if p := b.libraryPanel(); p.Compare != nil || p.Groups[0] != "scenario" {
		t.Errorf("the lab's own page: compare toggle %v, groups %v; want no toggle and the lab's order", p.Compare, p.Groups)
	}
	for _, tt := range []struct{ preset, tech string }{
		{"mirror-30hz", engine.TechMirror}, {"ngo-defaults", engine.TechNGO}, {"source-66tick", engine.TechSource},
		{"unreal-defaults", engine.TechUnreal}, {"geckos-20fps", engine.TechGeckos},
		{"lightyear-defaults", "lightyear"}, {"ioquake3-defaults", "ioquake3"},
	} {
		t.Run(tt.preset, func(t *testing.T) {
			group := engine.TechniqueGroup(tt.tech)
			b.navigate("/?preset=" + tt.preset)
			p := b.libraryPanel()
			if !slices.Equal(p.Techniques, []string{tt.tech}) {
				t.Errorf("techniques %v, want %s alone: the lab's are a comparison to opt into", p.Techniques, tt.tech)
			}
			if len(p.Groups) == 0 || p.Groups[0] != group || !p.Open[0] {
				t.Errorf("side panel groups %v (open %v), want %s first and open", p.Groups, p.Open, group)
			}
			if p.Compare == nil || *p.Compare {
				t.Errorf("compare toggle %v, want it shown and off", p.Compare)
			}
			if len(p.Exports) == 0 || p.Exports[0] != tt.tech {
				t.Errorf("exports %v, want %s's first", p.Exports, tt.tech)
			}

			b.do(chromedp.Click(chromedp.ID("compare-lab-toggle")))
			if !b.poll(`lab.state().techniques.includes('buffer') && lab.state().techniques.includes('epic')`, 5*time.Second) {
				t.Fatalf("the compare toggle did not add the lab's techniques: %v", b.libraryPanel().Techniques)
			}
			p = b.libraryPanel()
			if len(p.Groups) == 0 || p.Groups[0] != group || !p.Open[0] {
				t.Errorf("comparing: groups %v (open %v), want %s still first and open", p.Groups, p.Open, group)
			}
			at := map[string]int{}
			for i, g := range p.Groups {
				at[g] = i
			}
			for _, lab := range []string{"buffer", "epic"} {
				i, ok := at[lab]
				switch {
				case !ok:
					t.Errorf("comparing: no %s group in %v", lab, p.Groups)
				case p.Open[i]:
					t.Errorf("comparing: the %s group is open, want it collapsed (groups %v, open %v)", lab, p.Groups, p.Open)
				case i < at["network"]:
					t.Errorf("comparing: the %s group comes before the network (groups %v), want the lab's after", lab, p.Groups)
				}
			}
			if p.Compare == nil || !*p.Compare {
				t.Errorf("comparing: toggle %v, want it on", p.Compare)
			}
			if len(p.Exports) == 0 || p.Exports[0] != tt.tech {
				t.Errorf("comparing: exports %v, want %s's first", p.Exports, tt.tech)
			}
			if len(p.Legend) < 2 || p.Legend[1] != tt.tech {
				t.Errorf("comparing: legend %v, want %s first after the ground truth", p.Legend, tt.tech)
			}
			b.do(chromedp.Click(chromedp.ID("ab-pin")))
			if !b.poll(`lab.ab().pinned && !!document.querySelector('#ab-deltas thead th[style]')`, 10*time.Second) {
				t.Fatalf("Pin did not open the A/B view: %+v", b.ab())
			}
			if p := b.libraryPanel(); p.ABFirst != tt.tech {
				t.Errorf("the A/B deltas start on %q, want %s", p.ABFirst, tt.tech)
			}
			b.do(chromedp.Click(chromedp.ID("ab-pin")))

			b.do(chromedp.Click(chromedp.ID("compare-lab-toggle")))
			if !b.poll(`lab.state().techniques.join() === '`+tt.tech+`'`, 5*time.Second) {
				t.Errorf("unticking compare: techniques %v, want %s alone", b.libraryPanel().Techniques, tt.tech)
			}
		})
	}
}

// TestBrowserLibraryPickerPromises: the first-visit picker promises no
// step that does not come, and opens over no error banner: a first visit
// on a link the lab cannot use keeps its errors until the question is
// answered; picking a library clears them (the link is left), Escape
// shows them.
func TestBrowserLibraryPickerPromises(t *testing.T) {
	b := openLab(t, "/?preset=wifi")
	var hint string
	b.eval(`document.querySelector('#library-start .hint').textContent`, &hint)
	if strings.Contains(hint, "network you pick next") || strings.Contains(strings.ToLower(hint), "next") {
		t.Errorf("the picker says %q: it promises a next step, and none comes", hint)
	}

	const visible = `(() => { const e = document.getElementById('errors'); return !e.hidden && e.checkVisibility(); })()`
	for _, answer := range []string{"mirror-30hz", ""} {
		b.eval(`localStorage.clear(), true`, nil)
		b.navigateFirst("/?latncy=0.2")
		if !b.poll(`document.getElementById('library-start').open`, 10*time.Second) {
			t.Fatal("the library picker did not open on a first visit")
		}
		if b.holds(visible) {
			t.Error("the picker opened over the error banner")
		}
		if answer != "" {
			b.do(chromedp.Click(chromedp.CSS(`#library-start button[value="` + answer + `"]`)))
			if !b.poll(`!document.getElementById('library-start').open && location.search.includes('preset=`+answer+`')`, 5*time.Second) {
				t.Fatalf("picking %s did not load it: %s", answer, b.location())
			}
			if b.holds(visible) {
				t.Errorf("after picking %s the link's errors still show", answer)
			}
			continue
		}
		b.do(chromedp.KeyEvent(kb.Escape))
		var text string
		b.eval(`document.getElementById('error-list').textContent`, &text)
		if !b.poll(visible, 5*time.Second) || !strings.Contains(text, "latncy") {
			t.Errorf("after Escape the link's error (%q) does not show", text)
		}
	}
}
