package engine

import (
	"encoding/json"
	"math"
	"testing"
)

// EPIC heads for each packet extrapolated calcAhead ahead and reaches it
// displayBehind later; with displayBehind far below the send interval its
// line overshoots by more than the error it corrects, packet after packet,
// and the display leaves the float range within seconds (the seed's own
// arithmetic, kept). The metrics must stay numbers: a display beyond
// DivergedDistance counts as that far off, so a run's JSON encodes and a
// diverged setting reads as the worst there is, never as NaN.
func TestDivergedDisplayKeepsMetricsFinite(t *testing.T) {
	s := Defaults()
	s.Techniques = []string{TechEPIC, TechEPICFix, TechBuffer}
	s.CalcAhead, s.DisplayBehind, s.SlopTime = 0.13, 0.003, 1.23
	s.Duration = 20
	res, err := Run(s)
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range res.Techniques {
		m := tr.Metrics
		for i, v := range m.Values(nil) {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Errorf("%s: %s = %v, want a number", tr.Name, MetricFields[i].Name, v)
			}
		}
		if tr.Name != TechBuffer && m.ErrMax < DivergedDistance {
			t.Errorf("%s: errMax = %v m, want the display to have diverged (≥ %v m)", tr.Name, m.ErrMax, DivergedDistance)
		}
	}
	if _, err := json.Marshal(res); err != nil {
		t.Errorf("the run's JSON: %v", err)
	}
}
