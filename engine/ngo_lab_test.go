package engine_test

import (
	"math"
	"testing"

	"interplab/engine"
	"interplab/presets"
)

// TestNGOInTheLab runs the ngo technique beside buffer on presets' links,
// with jitter, loss and clock drift added, and checks it draws every
// entity with errors of the order of the lab's own interpolator and an added
// latency near the one-way latency plus its effective delay.
func TestNGOInTheLab(t *testing.T) {
	tests := []struct {
		preset string
		drift  float64
		loss   float64
	}{
		{"ngo-defaults", 0, 0},
		{"ngo-defaults", 0.002, 0.05},
		{"wifi", 0.001, 0},
		{"4g", -0.002, 0},
		{"ping200", 0, 0.02},
		{"lan", 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.preset, func(t *testing.T) {
			p, err := presets.Get(tt.preset)
			if err != nil {
				t.Fatal(err)
			}
			s := p.Settings
			s.Duration, s.Entities = 20, 4
			s.ClockDrift = tt.drift
			s.Loss = max(s.Loss, tt.loss)
			s.Techniques = []string{engine.TechBuffer, engine.TechNGO}
			r, err := engine.Run(s)
			if err != nil {
				t.Fatal(err)
			}
			buf, ngo := r.Techniques[0].Metrics, r.Techniques[1].Metrics
			if want := int(s.Duration*s.RenderRate) * s.Entities; ngo.Frames < want*9/10 {
				t.Errorf("ngo drew %d entity-frames, want nearly %d", ngo.Frames, want)
			}
			for name, v := range map[string]float64{"errRMS": ngo.ErrRMS, "errMax": ngo.ErrMax,
				"addedLatency": ngo.AddedLatency, "smoothness": ngo.Smoothness} {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					t.Errorf("%s = %v", name, v)
				}
			}
			// Errors of the lab's own order: NGO's delay is larger than
			// buffer's 100 ms, so its error against the truth at the same
			// instant is larger, within a few times.
			if !(ngo.ErrRMS > 0.2*buf.ErrRMS && ngo.ErrRMS < 6*buf.ErrRMS+0.05) {
				t.Errorf("errRMS = %.3f m, buffer's %.3f m: not of the same order", ngo.ErrRMS, buf.ErrRMS)
			}
			delay, _ := engine.EffectiveDelay(engine.TechNGO, &s)
			want := s.Latency + s.Jitter + delay
			if math.Abs(ngo.AddedLatency-want) > 0.05 {
				t.Errorf("added latency = %.3f s, want about latency + jitter + effective delay = %.3f s", ngo.AddedLatency, want)
			}
			t.Logf("errRMS %.3f m (buffer %.3f), added latency %.3f s (expected %.3f), frozen %.3f",
				ngo.ErrRMS, buf.ErrRMS, ngo.AddedLatency, want, ngo.Frozen)
		})
	}
}

// TestNGOPresetAtNGODefaults: the preset is NGO as shipped, the same numbers
// as the parameter table's defaults.
func TestNGOPresetAtNGODefaults(t *testing.T) {
	p, err := presets.Get("ngo-defaults")
	if err != nil {
		t.Fatal(err)
	}
	if d := engine.Defaults(); p.Settings.NGOSettings != d.NGOSettings {
		t.Errorf("preset ngo-defaults = %+v, want the defaults %+v", p.Settings.NGOSettings, d.NGOSettings)
	}
}
