package chart

import (
	"testing"

	"interplab/engine"
)

// A one-parameter sweep is a line over it with a gap for each point not
// finished; an unknown metric is an error, not a chart.
func TestSweep(t *testing.T) {
	spec := engine.SweepSpec{Base: engine.Defaults(), Technique: engine.TechBuffer,
		X: engine.Axis{Name: "delay", Min: 0.05, Max: 0.15, Steps: 3}}
	points := []engine.SweepPoint{{I: 0, X: 0.05}, {I: 2, X: 0.15}}
	points[0].Metrics.ErrP95, points[1].Metrics.ErrP95 = 0.012, 0.034
	ch, err := Sweep(spec, "defaults", points, "errP95")
	if err != nil {
		t.Fatal(err)
	}
	o := testOptionOf(t, Figure{ID: "sweep-chart", Chart: ch})
	if len(o.Series) != 1 || len(o.Series[0].Data) != 3 {
		t.Fatalf("sweep chart = %+v, want one line of 3 points", o)
	}
	want := []any{[]any{50.0, 1.2}, []any{100.0, "-"}, []any{150.0, 3.4}} // delay in ms, error in cm
	for i, d := range o.Series[0].Data {
		if got, w := d.Value.([]any), want[i].([]any); got[0] != w[0] || got[1] != w[1] {
			t.Errorf("point %d = %v, want %v", i, got, w)
		}
	}
	if _, err := Sweep(spec, "defaults", points, "nope"); err == nil {
		t.Error("Sweep of an unknown metric: no error")
	}
}
