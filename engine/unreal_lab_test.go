package engine_test

import (
	"math"
	"testing"

	"interplab/engine"
	"interplab/engine/technique/unreal"
	"interplab/presets"
)

// TestUnrealInTheLab runs unreal-cmc beside snap on presets' links with
// clock drift, in each smoothing mode, and checks it draws what Unreal's
// simulated proxies are known for: every frame drawn, no NaN, errors of the
// order of the one-way latency times the speed (below snap's, which waits
// for each packet, since the proxy is extrapolated to the present), and
// smoothing that trades snaps for a little error.
func TestUnrealInTheLab(t *testing.T) {
	for _, name := range []string{"lan", "wifi", "4g", "harbor-after", "ping200"} {
		p, err := presets.Get(name)
		if err != nil {
			t.Fatal(err)
		}
		s := p.Settings
		s.Duration, s.ClockDrift = 20, 0.001
		s.Techniques = []string{engine.TechSnap, engine.TechUnreal}
		byMode := map[string]engine.Metrics{}
		for _, mode := range unreal.SmoothingModes {
			s.NetworkSmoothingMode = mode
			r, err := engine.Run(s)
			if err != nil {
				t.Fatalf("%s %s: %v", name, mode, err)
			}
			snap, ue := r.Techniques[0].Metrics, r.Techniques[1].Metrics
			byMode[mode] = ue
			if ue.Frames != snap.Frames || ue.Frames == 0 {
				t.Errorf("%s %s: %d frames drawn, want snap's %d", name, mode, ue.Frames, snap.Frames)
			}
			for _, v := range []float64{ue.ErrRMS, ue.ErrMax, ue.Smoothness, ue.AddedLatency} {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					t.Fatalf("%s %s: metrics not finite: %+v", name, mode, ue)
				}
			}
			// Bound: the one-way delay (latency + jitter) times the top speed, plus a metre of turns.
			bound := (s.Latency+s.Jitter)*s.MaxSpeed + 1
			if !(ue.ErrRMS > 0 && ue.ErrRMS < snap.ErrRMS && ue.ErrRMS < bound) {
				t.Errorf("%s %s: errRMS %.3f m, want in (0, min(snap's %.3f, %.3f))", name, mode, ue.ErrRMS, snap.ErrRMS, bound)
			}
			if ue.AddedLatency >= snap.AddedLatency {
				t.Errorf("%s %s: added latency %.3f s, want below snap's %.3f", name, mode, ue.AddedLatency, snap.AddedLatency)
			}
		}
		exp, lin, off := byMode["exponential"], byMode["linear"], byMode["disabled"]
		if !(exp.Snaps < lin.Snaps && lin.Snaps < off.Snaps) || !(exp.Smoothness < off.Smoothness && lin.Smoothness < off.Smoothness) {
			t.Errorf("%s: snaps exponential %d, linear %d, disabled %d; smoothness %.0f, %.0f, %.0f: want smoothing to smooth",
				name, exp.Snaps, lin.Snaps, off.Snaps, exp.Smoothness, lin.Smoothness, off.Smoothness)
		}
	}
}
