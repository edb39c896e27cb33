package chart

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"interplab/engine"
	"interplab/engine/study"
)

// A one-parameter sweep is a line over it with a gap for each point not
// finished; an unknown metric is an error, not a chart.
func TestSweep(t *testing.T) {
	spec := study.SweepSpec{Base: engine.Defaults(), Technique: engine.TechBuffer,
		X: study.Axis{Name: "delay", Min: 0.05, Max: 0.15, Steps: 3}}
	points := []study.SweepPoint{{I: 0, X: 0.05}, {I: 2, X: 0.15}}
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

// TestSweepHeatmapFramesUnderrun: a cell whose underrun is above
// UnderrunMark is framed and the subtitle says how many; epic's cells,
// which underrun by design, are not.
func TestSweepHeatmapFramesUnderrun(t *testing.T) {
	spec := study.SweepSpec{Base: engine.Defaults(), Technique: engine.TechBuffer,
		X: study.Axis{Name: "delay", Min: 0.02, Max: 0.1, Steps: 2}, Y: &study.Axis{Name: "loss", Min: 0, Max: 0.02, Steps: 2}}
	points := make([]study.SweepPoint, 4)
	for k := range points {
		points[k].I, points[k].J = k%2, k/2
		points[k].Metrics.ErrP95 = 0.01
	}
	points[0].Metrics.Underrun, points[2].Metrics.Underrun, points[1].Metrics.Underrun = 0.2, 0.06, 0.01
	framed := func(spec study.SweepSpec) ([]bool, string) {
		ch, err := Sweep(spec, "defaults", points, "errP95")
		if err != nil {
			t.Fatal(err)
		}
		ch.Validate()
		b, err := json.Marshal(ch.JSON())
		if err != nil {
			t.Fatal(err)
		}
		var o struct {
			Series []struct {
				Data []struct {
					Value     []float64      `json:"value"`
					ItemStyle map[string]any `json:"itemStyle"`
				} `json:"data"`
			} `json:"series"`
		}
		if err := json.Unmarshal(b, &o); err != nil {
			t.Fatalf("%v: %s", err, b)
		}
		var got []bool
		for _, d := range o.Series[0].Data {
			got = append(got, d.ItemStyle != nil)
		}
		return got, string(b)
	}
	got, js := framed(spec)
	if want := []bool{true, false, true, false}; !slices.Equal(got, want) {
		t.Errorf("framed = %v, want %v", got, want)
	}
	if !strings.Contains(js, "framed: 2 cells whose underrun is above 5% of frames") {
		t.Errorf("subtitle does not count the framed cells: %s", js)
	}
	spec.Technique = engine.TechEPIC
	if got, js = framed(spec); slices.Contains(got, true) || !strings.Contains(js, "by design") {
		t.Errorf("epic: framed = %v, %s; want none framed and the by-design note", got, js)
	}
}

// TestCategoryLabel: a heatmap's labels are in the axis's unit without an
// exponent or float noise.
func TestCategoryLabel(t *testing.T) {
	for _, tt := range []struct {
		name string
		v    float64
		want string
	}{{"bandwidth", 1e8, "100000"}, {"latency", 0.3, "300"}, {"loss", 0.000186, "0.0186"}, {"adaptive", 1, "true"}} {
		p, _ := engine.Lookup(tt.name)
		if got := categoryLabel(p, tt.v); got != tt.want {
			t.Errorf("categoryLabel(%s, %v) = %q, want %q", tt.name, tt.v, got, tt.want)
		}
	}
}
