package server

import (
	"math"
	"strconv"
	"testing"

	"interplab/engine"
	"interplab/presets"
)

// TestBrowserLiveDelay opens Mirror on a jittery link: the metrics table's
// game delay row shows the steady-state figure and the row beneath it the
// delay Mirror's dynamic adjustment has moved to, which is the engine's for
// the same run; the technique without a game delay shows none.
func TestBrowserLiveDelay(t *testing.T) {
	const link = "latency=55ms&jitter=40ms&jitterDist=normal"
	b := openLab(t, "/?preset=mirror-30hz&"+link)
	const frames = 600
	b.eval(`lab.pause(), lab.restart(), lab.advance(`+strconv.Itoa(frames)+`)`, nil)
	var cells []struct{ Tech, Steady, Now, SteadyTitle, NowTitle string }
	b.eval(`(() => {
		const steady = [...document.querySelectorAll('#metrics tr.game-delay td')];
		const now = [...document.querySelectorAll('#metrics tr.game-delay-now td')];
		const title = (sel) => document.querySelector(sel)?.title ?? '';
		return steady.map((td, i) => ({Tech: td.dataset.tech, Steady: td.textContent, Now: now[i]?.textContent ?? '',
			SteadyTitle: title('#metrics tr.game-delay th'), NowTitle: title('#metrics tr.game-delay-now th')}));
	})()`, &cells)
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

	for k, c := range cells {
		if c.Tech != m.Techniques()[k] {
			t.Fatalf("game delay cell %d is %s's, want %s's", k, c.Tech, m.Techniques()[k])
		}
		if c.SteadyTitle == "" || c.NowTitle == "" {
			t.Errorf("the game delay rows have no tooltips saying which is which")
		}
		if _, ok := engine.EffectiveDelay(c.Tech, &s); !ok {
			if c.Steady != "–" || c.Now != "–" {
				t.Errorf("%s: game delay shows %q, now %q; want – and –", c.Tech, c.Steady, c.Now)
			}
			continue
		}
		st, err1 := strconv.ParseFloat(c.Steady, 64)
		now, err2 := strconv.ParseFloat(c.Now, 64)
		if err1 != nil || err2 != nil {
			t.Errorf("%s: game delay shows %q, now %q; want two numbers", c.Tech, c.Steady, c.Now)
			continue
		}
		if want := live[k] * 1000; math.Abs(now-want) > 0.05*want {
			t.Errorf("%s: game delay now %v ms, want the engine's %.1f ms", c.Tech, now, want)
		}
		if c.Tech == engine.TechMirror {
			if math.Abs(st-steady*1000) > 1 {
				t.Errorf("mirror: steady-state game delay %v ms, want %.1f", st, steady*1000)
			}
			if !(now > st+10) {
				t.Errorf("mirror under 40 ms of jitter: game delay now %v ms, want well above the steady state's %v ms (dynamic adjustment)", now, st)
			}
		}
	}
}
