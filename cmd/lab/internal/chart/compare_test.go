package chart

import (
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"

	"interplab/engine"
)

// testRuns runs two short scenarios of different tuning on the first one's
// scenario, as a comparison does: wifi with every technique, a mobile link
// with two.
func testRuns(t *testing.T) *Runs {
	t.Helper()
	wifi := engine.Defaults()
	wifi.Latency, wifi.Jitter, wifi.Loss = 0.03, 0.02, 0.02
	wifi.Motion, wifi.Duration, wifi.Entities, wifi.Seed = "strafe", 10, 4, 3
	mobile := wifi
	mobile.Latency, mobile.Jitter, mobile.Loss, mobile.LossModel, mobile.Adaptive = 0.06, 0.04, 0.05, "burst", true
	mobile.Techniques = []string{engine.TechSnap, engine.TechBuffer}
	r := &Runs{Labels: []string{"wifi", "4g"}, Step: 0.1, Duration: 10, Techniques: wifi.Techniques}
	for _, s := range []engine.Settings{wifi, mobile} {
		res, err := engine.RunSeries(s, r.Step)
		if err != nil {
			t.Fatal(err)
		}
		r.Results = append(r.Results, res)
	}
	return r
}

// testOption is the part of a chart's ECharts option the tests read.
type testOption struct {
	Series []struct {
		Name string
		Data []struct {
			Name  string
			Value any
		}
	}
	XAxis []struct{ Data []string }
}

func testOptionOf(t *testing.T, ch Figure) testOption {
	t.Helper()
	ch.Chart.Validate()
	b, err := json.Marshal(ch.Chart.JSON())
	if err != nil {
		t.Fatal(err)
	}
	var o testOption
	if err := json.Unmarshal(b, &o); err != nil {
		t.Fatalf("chart %s: %v", ch.ID, err)
	}
	return o
}

// testClose reports whether a charted value (4 significant digits)
// matches the engine's value in display units.
func testClose(got, want float64) bool {
	return math.Abs(got-want) <= 5e-4*math.Abs(want)+1e-12
}

func testPair(t *testing.T, v any) (x, y float64) {
	t.Helper()
	p, ok := v.([]any)
	if !ok || len(p) != 2 {
		t.Fatalf("value %v: want [x, y]", v)
	}
	return p[0].(float64), p[1].(float64)
}

// Every number drawn comes from the run: the error lines from the series,
// the bars and the scatter from the metrics, in display units.
func TestComparisonData(t *testing.T) {
	c := testRuns(t)
	errCharts, metricCharts, latencyCharts := Comparison(c)
	if len(errCharts) != len(c.Techniques) || len(metricCharts) != len(barMetrics) || len(latencyCharts) != 1 {
		t.Fatalf("charts = %d, %d, %d, want %d, %d, 1", len(errCharts), len(metricCharts), len(latencyCharts),
			len(c.Techniques), len(barMetrics))
	}

	for k, ch := range errCharts {
		o := testOptionOf(t, ch)
		if len(o.Series) != len(c.Labels) {
			t.Fatalf("%s: %d lines, want one per variant (%d)", ch.ID, len(o.Series), len(c.Labels))
		}
		for i, s := range o.Series {
			tr := c.Technique(i, c.Techniques[k])
			var want []float64
			if tr != nil {
				want = tr.Series
			}
			if s.Name != c.Labels[i] || len(s.Data) != len(want) {
				t.Fatalf("%s line %d: %q with %d points, want %q with %d", ch.ID, i, s.Name, len(s.Data), c.Labels[i], len(want))
			}
			for w, d := range s.Data {
				x, y := testPair(t, d.Value)
				start, end := c.Window(w)
				if !testClose(x, (start+end)/2) || !testClose(y, want[w]*100) {
					t.Errorf("%s %s point %d = (%v, %v), want (%v, %v cm)", ch.ID, s.Name, w, x, y, (start+end)/2, want[w]*100)
				}
			}
		}
	}

	for _, ch := range metricCharts {
		o := testOptionOf(t, ch)
		f, idx, _ := metric(strings.TrimPrefix(ch.ID, "compare-metric-"))
		if !slices.Equal(o.XAxis[0].Data, c.Techniques) {
			t.Errorf("%s categories = %v, want %v", ch.ID, o.XAxis[0].Data, c.Techniques)
		}
		for i, s := range o.Series {
			for k, d := range s.Data {
				tr := c.Technique(i, c.Techniques[k])
				if tr == nil {
					if d.Value != "-" {
						t.Errorf("%s %s %s = %v, want - (not run)", ch.ID, s.Name, c.Techniques[k], d.Value)
					}
					continue
				}
				want := tr.Metrics.Values(nil)[idx] * f.Scale
				if got, ok := d.Value.(float64); !ok || !testClose(got, want) {
					t.Errorf("%s %s %s = %v, want %v", ch.ID, s.Name, c.Techniques[k], d.Value, want)
				}
			}
		}
	}

	o := testOptionOf(t, latencyCharts[0])
	points := 0
	for i, s := range o.Series {
		for k, d := range s.Data {
			tr := c.Results[i].Techniques[k]
			x, y := testPair(t, d.Value)
			if d.Name != tr.Name || !testClose(x, tr.Metrics.AddedLatency*1000) || !testClose(y, tr.Metrics.ErrP95*100) {
				t.Errorf("latency %s point %d = %s (%v, %v), want %s (%v ms, %v cm)", s.Name, k, d.Name, x, y,
					tr.Name, tr.Metrics.AddedLatency*1000, tr.Metrics.ErrP95*100)
			}
			points++
		}
	}
	if points != 5+2 {
		t.Errorf("latency chart has %d points, want 7 (5 techniques of wifi, 2 of 4g)", points)
	}
}

// Every chart loads ECharts from the lab's own server.
func TestComparisonAssets(t *testing.T) {
	e, m, l := Comparison(testRuns(t))
	for _, ch := range slices.Concat(e, m, l) {
		ch.Chart.Validate()
		if got := ch.Chart.GetAssets().JSAssets.Values; !slices.Equal(got, []string{"/static/vendor/echarts/echarts.min.js"}) {
			t.Errorf("%s assets = %v, want only /static/vendor/echarts/echarts.min.js", ch.ID, got)
		}
	}
}

// Every metric the charts name by hand is one of the engine's.
func TestChartMetricsKnown(t *testing.T) {
	for _, name := range append([]string{"errRMS", "addedLatency", "errP95", "errAligned"}, barMetrics...) {
		if _, _, ok := metric(name); !ok {
			t.Errorf("the charts name metric %q, which engine.MetricFields does not have", name)
		}
	}
}
