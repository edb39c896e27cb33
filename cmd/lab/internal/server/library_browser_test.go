package server

import (
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

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
