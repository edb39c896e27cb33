package server

import (
	"math"
	"regexp"
	"strconv"
	"testing"

	"interplab/engine"
	"interplab/presets"
)

// TestBrowserLiveDelay opens Mirror on a jittery link: the metrics table's
// game delay row shows the steady-state figure and, beside it, the delay
// Mirror's dynamic adjustment has moved to, which is the engine's for the
// same run; the technique without a game delay shows none.
func TestBrowserLiveDelay(t *testing.T) {
	const link = "latency=0.055&jitter=0.04&jitterDist=normal"
	b := openLab(t, "/?preset=mirror-30hz&"+link)
	const frames = 600
	b.eval(`lab.pause(), lab.restart(), lab.advance(`+strconv.Itoa(frames)+`)`, nil)
	var cells []struct{ Tech, Text, Title, Steady, Live string }
	b.eval(`[...document.querySelectorAll('#metrics tr.game-delay td')].map(td => ({
		Tech: td.dataset.tech, Text: td.textContent, Title: td.title, Steady: td.dataset.steady ?? '', Live: td.dataset.live ?? ''}))`, &cells)

	p, err := presets.Get("mirror-30hz")
	if err != nil {
		t.Fatal(err)
	}
	_, s := settingsFromLink(t, "/?preset=mirror-30hz&"+link)
	m, err := engine.NewSim(s)
	if err != nil {
		t.Fatal(err)
	}
	for range frames * 4 {
		m.Step(1 / s.RenderRate / 4) // as lab.advance steps
	}
	live := m.LiveDelays(nil)
	steady, _ := engine.EffectiveDelay(engine.TechMirror, &p.Settings)

	shown := regexp.MustCompile(`^([0-9.]+) \(now ([0-9.]+)\)$`)
	for k, c := range cells {
		if c.Tech != m.Techniques()[k] {
			t.Fatalf("game delay cell %d is %s's, want %s's", k, c.Tech, m.Techniques()[k])
		}
		if _, ok := engine.EffectiveDelay(c.Tech, &s); !ok {
			if c.Text != "–" {
				t.Errorf("%s: game delay shows %q, want –", c.Tech, c.Text)
			}
			continue
		}
		g := shown.FindStringSubmatch(c.Text)
		if g == nil || c.Title == "" {
			t.Errorf("%s: game delay shows %q (title %q), want \"STEADY (now LIVE)\" with a tooltip", c.Tech, c.Text, c.Title)
			continue
		}
		now, _ := strconv.ParseFloat(g[2], 64)
		if want := live[k] * 1000; math.Abs(now-want) > 0.05*want {
			t.Errorf("%s: game delay now %v ms, want the engine's %.1f ms", c.Tech, now, want)
		}
		if c.Tech == engine.TechMirror {
			st, _ := strconv.ParseFloat(g[1], 64)
			if math.Abs(st-steady*1000) > 1 {
				t.Errorf("mirror: steady-state game delay %v ms, want %.1f", st, steady*1000)
			}
			if !(now > st+10) {
				t.Errorf("mirror under 40 ms of jitter: game delay now %v ms, want well above the steady state's %v ms (dynamic adjustment)", now, st)
			}
		}
	}
}
