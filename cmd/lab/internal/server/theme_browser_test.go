package server

import (
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// TestThemeChangeRecolorsBrowser: the technique colours follow the theme
// live. A page opened in the light theme whose system setting turns dark
// (as the screenshots' browser does, and a designer's at dusk) draws the
// dark theme's colours in its view, legend and metrics table, and back.
func TestThemeChangeRecolorsBrowser(t *testing.T) {
	b := openLab(t, "/?preset=mirror-30hz&techniques=epic,buffer,mirror")
	scheme := func(v string) {
		t.Helper()
		if _, err := chromedp.Call(b.ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: v}},
		}); err != nil {
			t.Fatal(err)
		}
	}
	// The colour the theme gives mirror, and the three places that show it.
	const shown = `(() => {
		const want = getComputedStyle(document.documentElement).getPropertyValue('--tech-mirror').trim();
		const legend = [...document.querySelectorAll('#legend .legend-item')].find((e) => e.textContent === 'mirror').style.getPropertyValue('--c');
		const th = document.querySelector('#metrics th[data-tech="mirror"]').style.color;
		const view = lab.colors()[lab.state().techniques.indexOf('mirror') + 1];
		const rgb = (h) => 'rgb(' + [1, 3, 5].map((i) => parseInt(h.slice(i, i + 2), 16)).join(', ') + ')';
		return {Want: want, Legend: legend, View: view, TH: th, WantRGB: rgb(want)};
	})()`
	var light struct{ Want, Legend, View, TH, WantRGB string }
	for _, theme := range []string{"light", "dark", "light"} {
		scheme(theme)
		var got struct{ Want, Legend, View, TH, WantRGB string }
		ok := b.poll(`(() => { const s = `+shown+`; return s.Legend === s.Want && s.View === s.Want && s.TH === s.WantRGB; })()`, 5*time.Second)
		b.eval(shown, &got)
		if !ok {
			t.Errorf("%s theme: mirror is %s in the theme, but the legend shows %s, the view %s, the metrics %s", theme, got.Want, got.Legend, got.View, got.TH)
		}
		if theme == "light" && light.Want == "" {
			light = got
		} else if theme == "dark" && got.Want == light.Want {
			t.Fatalf("the dark theme's mirror colour %s is the light one's: the emulation did not switch", got.Want)
		}
	}
}
