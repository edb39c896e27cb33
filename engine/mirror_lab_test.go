package engine_test

import (
	"math"
	"testing"

	"interplab/engine"
	"interplab/presets"
)

// TestMirrorInTheLab runs the mirror technique beside buffer on a few
// presets' links, with jitter, loss and clock drift: it draws every entity,
// no NaN, and errors of the buffer's order (Mirror renders later, so more).
func TestMirrorInTheLab(t *testing.T) {
	for _, name := range []string{"mirror-30hz", "wifi", "4g", "ping120", "harbor-after"} {
		p, err := presets.Get(name)
		if err != nil {
			t.Fatal(err)
		}
		s := p.Settings
		s.Techniques = []string{engine.TechBuffer, engine.TechMirror}
		s.MirrorSettings.SendRate = int(s.SendRate)
		s.Duration, s.Entities, s.ClockDrift = 20, 8, 0.002
		s.Jitter, s.Loss = max(s.Jitter, 0.01), max(s.Loss, 0.02)
		res, err := engine.Run(s)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		buf, mir := res.Techniques[0].Metrics, res.Techniques[1].Metrics
		for _, v := range []float64{mir.ErrRMS, mir.ErrMax, mir.AddedLatency, mir.Smoothness, mir.Frozen} {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("%s: mirror metrics %+v hold a NaN or Inf", name, mir)
			}
		}
		delay, _ := engine.EffectiveDelay(engine.TechMirror, &s)
		if !(mir.ErrRMS > 0.2*buf.ErrRMS && mir.ErrRMS < 5*buf.ErrRMS+0.5) {
			t.Errorf("%s: mirror RMS error %.3f m against buffer's %.3f m: not of the same order", name, mir.ErrRMS, buf.ErrRMS)
		}
		// Mirror's own timeline: the added latency is about its effective
		// delay behind the stream plus the transit.
		if lat := mir.AddedLatency; lat < delay || lat > delay+s.Latency+0.3 {
			t.Errorf("%s: mirror added latency %.3f s, want about its delay %.3f s + latency %.3f s", name, lat, delay, s.Latency)
		}
		t.Logf("%s: buffer RMS %.3f m, mirror RMS %.3f m, latency %.0f ms (delay %.0f ms), frozen %.1f%%",
			name, buf.ErrRMS, mir.ErrRMS, mir.AddedLatency*1000, delay*1000, mir.Frozen*100)
	}
}
