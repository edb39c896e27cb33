package presets

import (
	"math"
	"slices"
	"testing"

	"interplab/engine"
)

// TestGeckosPresetDefaults pins geckos-20fps to the library's own defaults
// (SnapshotInterpolation(20): buffer 3 frames, no set call, vault 120,
// autoCorrectTimeOffset true) and the techniques it compares.
func TestGeckosPresetDefaults(t *testing.T) {
	p, err := Get("geckos-20fps")
	if err != nil {
		t.Fatal(err)
	}
	want := engine.GeckosSettings{ServerFPS: 20, InterpolationBuffer: -1, VaultSize: 120, AutoCorrectTimeOffset: true}
	if p.Settings.GeckosSettings != want {
		t.Errorf("geckos-20fps: %+v, want %+v", p.Settings.GeckosSettings, want)
	}
	if p.Settings.SendRate != 20 {
		t.Errorf("geckos-20fps: sendRate = %v, want the server's 20 FPS", p.Settings.SendRate)
	}
	if d, _ := engine.EffectiveDelay(engine.TechGeckos, &p.Settings); d != 0.15 {
		t.Errorf("geckos-20fps: effective delay %v s, want 0.15", d)
	}
	if !slices.Equal(p.Settings.Techniques, []string{engine.TechGeckos}) {
		t.Errorf("geckos-20fps: techniques %v, want geckos alone (the lab's are a comparison the page offers)", p.Settings.Techniques)
	}
}

// TestGeckosOnPresets runs the geckos technique beside the buffer on a few
// presets' links, roughened with jitter, loss, duplicates and clock drift,
// and checks that it draws sensibly: finite metrics, an error of the same
// order as the buffer's, a delay near its buffer plus the latency.
func TestGeckosOnPresets(t *testing.T) {
	for _, name := range []string{"geckos-20fps", "lan", "wifi", "4g", "ping200", "harbor-after"} {
		p, err := Get(name)
		if err != nil {
			t.Fatal(err)
		}
		s := p.Settings
		s.Techniques = []string{engine.TechBuffer, engine.TechGeckos}
		s.Entities, s.Duration = 4, 30
		s.Jitter, s.Loss, s.Duplicate, s.ClockDrift = max(s.Jitter, 0.015), max(s.Loss, 0.02), 0.01, 0.001
		r, err := engine.Run(s)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		buf, gk := r.Techniques[0].Metrics, r.Techniques[1].Metrics
		for i, v := range gk.Values(nil) {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Errorf("%s: geckos %s = %v", name, engine.MetricFields[i].Name, v)
			}
		}
		if gk.Frames == 0 {
			t.Errorf("%s: geckos drew nothing", name)
			continue
		}
		if !(gk.ErrRMS < 5*buf.ErrRMS+0.1) {
			t.Errorf("%s: geckos RMS error %.3f m, buffer's %.3f m: want the same order", name, gk.ErrRMS, buf.ErrRMS)
		}
		delay, _ := engine.EffectiveDelay(engine.TechGeckos, &s)
		if lo, hi := delay, delay+s.Latency+s.Jitter+0.1; !(gk.AddedLatency >= lo-0.05 && gk.AddedLatency <= hi) {
			t.Errorf("%s: geckos added latency %.3f s, want in [%.3f, %.3f] (buffer %.3f s + latency)", name, gk.AddedLatency, lo-0.05, hi, delay)
		}
		t.Logf("%s: geckos RMS %.3f m (buffer %.3f), added latency %.0f ms, frozen %.1f%%, underrun %.1f%%",
			name, gk.ErrRMS, buf.ErrRMS, gk.AddedLatency*1000, gk.Frozen*100, gk.Underrun*100)
	}
}
