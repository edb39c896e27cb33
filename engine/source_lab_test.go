package engine_test

import (
	"math"
	"testing"

	"interplab/engine"
	"interplab/presets"
)

// TestSourceLabSanity runs the source technique in the lab on presets'
// links with jitter, loss and clock drift: it must draw every entity every
// frame once the first snapshot is in, with finite positions, an added
// latency near its interp amount and errors of the order of the speed
// times that delay.
func TestSourceLabSanity(t *testing.T) {
	for _, name := range []string{"source-66tick", "wifi", "4g", "harbor-after"} {
		p, err := presets.Get(name)
		if err != nil {
			t.Fatal(err)
		}
		s := p.Settings
		s.Duration, s.Entities = 20, 8
		s.Jitter = max(s.Jitter, 0.01)
		s.Loss = max(s.Loss, 0.02)
		s.ClockDrift = 0.001
		s.Techniques = []string{engine.TechSource, engine.TechBuffer}
		r, err := engine.Run(s)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var m, buf engine.Metrics
		for _, tr := range r.Techniques {
			switch tr.Name {
			case engine.TechSource:
				m = tr.Metrics
			case engine.TechBuffer:
				buf = tr.Metrics
			}
		}
		delay, _ := engine.EffectiveDelay(engine.TechSource, &s)
		for _, v := range m.Values(nil) {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("%s: metrics %+v are not all finite", name, m)
			}
		}
		if m.Frames < int(0.9*s.Duration*s.RenderRate)*s.Entities {
			t.Errorf("%s: %d entity-frames measured, want about %v", name, m.Frames, s.Duration*s.RenderRate*float64(s.Entities))
		}
		// The display lags the truth by the interp amount plus about the
		// one-way delay, and misses it by about the distance covered in
		// that time.
		lag := m.AddedLatency
		if lag < delay || lag > delay+s.Latency+0.2 {
			t.Errorf("%s: added latency %.3f s, want between the interp amount %.3f s and %.3f s", name, lag, delay, delay+s.Latency+0.2)
		}
		if bound := s.MaxSpeed * (lag + 0.1); m.ErrRMS <= 0 || m.ErrRMS > bound {
			t.Errorf("%s: RMS error %.3f m, want in (0, %.3f] m", name, m.ErrRMS, bound)
		}
		t.Logf("%s: interp %.0f ms, added latency %.0f ms, RMS error %.2f m (buffer %.2f m), extrapolating %.1f%%, frozen %.1f%%",
			name, delay*1000, lag*1000, m.ErrRMS, buf.ErrRMS, 100*m.Extrapolating, 100*m.Frozen)
	}
}
