package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/url"
	"slices"
	"strings"
	"testing"

	"interplab/engine"
	"interplab/templates"
)

// compareTestPresets stand in for package presets in these tests: short
// runs that differ in tuning and in scenario.
func compareTestPresets() map[string]engine.Settings {
	lan := engine.Defaults()
	lan.Latency, lan.Jitter, lan.Duration, lan.Entities = 0.01, 0.002, 8, 3

	wifi := engine.Defaults()
	wifi.Latency, wifi.Jitter, wifi.Loss = 0.03, 0.02, 0.02
	wifi.Motion, wifi.Duration, wifi.Entities, wifi.Seed = "strafe", 10, 4, 3

	mobile := engine.Defaults()
	mobile.Latency, mobile.Jitter, mobile.Loss, mobile.LossModel = 0.06, 0.04, 0.05, "burst"
	mobile.Adaptive, mobile.Seed, mobile.Duration, mobile.MaxSpeed = true, 7, 30, 9
	mobile.Techniques = []string{engine.TechSnap, engine.TechBuffer}
	return map[string]engine.Settings{"lan": lan, "wifi": wifi, "4g": mobile}
}

// compareTestResolve resolves the refs of these tests: preset:NAME,
// q:QUERY (settings over the defaults, as a share link carries them) and
// label:TEXT (the defaults, labelled TEXT, for escaping tests).
func compareTestResolve(ref string) (string, engine.Settings, error) {
	kind, arg, _ := strings.Cut(ref, ":")
	switch kind {
	case "preset":
		s, ok := compareTestPresets()[arg]
		if !ok {
			return "", engine.Settings{}, fmt.Errorf("no preset %q", arg)
		}
		return arg, s, nil
	case "q":
		q, err := url.ParseQuery(arg)
		if err != nil {
			return "", engine.Settings{}, fmt.Errorf("share query: %w", err)
		}
		s := engine.Defaults()
		s.Duration = 5
		for name, vals := range q {
			if err := s.SetText(name, vals[len(vals)-1]); err != nil {
				return "", engine.Settings{}, err
			}
		}
		return "current", s, nil
	case "label":
		s := engine.Defaults()
		s.Duration = 5
		return arg, s, nil
	}
	return "", engine.Settings{}, fmt.Errorf("ref %q: want preset:, q: or label:", ref)
}

// compareTestRun resolves refs and runs them, failing the test on error.
func compareTestRun(t *testing.T, refs ...string) *comparison {
	t.Helper()
	c, err := compareResolveRun(context.Background(), refs, compareTestResolve)
	if err != nil {
		t.Fatalf("compare %v: %v", refs, err)
	}
	return c
}

// compareTestForce gives s the scenario of first, written out field by
// field rather than through compareScenario, to check it.
func compareTestForce(s, first engine.Settings) engine.Settings {
	s.Motion, s.Entities, s.MaxSpeed = first.Motion, first.Entities, first.MaxSpeed
	s.Seed, s.Duration, s.Round = first.Seed, first.Duration, first.Round
	return s
}

// The comparison's numbers are engine.Run's and engine.RunSeries's for
// each variant on the first one's scenario.
func TestCompareRunMatchesEngine(t *testing.T) {
	c := compareTestRun(t, "preset:wifi", "preset:lan", "preset:4g")
	ps := compareTestPresets()
	first := ps["wifi"]
	for i, name := range []string{"wifi", "lan", "4g"} {
		s := compareTestForce(ps[name], first)
		plain, err := engine.Run(s)
		if err != nil {
			t.Fatal(err)
		}
		series, err := engine.RunSeries(s, c.Step)
		if err != nil {
			t.Fatal(err)
		}
		got := c.Results[i]
		if len(got.Techniques) != len(plain.Techniques) {
			t.Fatalf("%s: %d techniques, want %d", name, len(got.Techniques), len(plain.Techniques))
		}
		for k, tr := range got.Techniques {
			if tr.Name != plain.Techniques[k].Name || tr.Metrics != plain.Techniques[k].Metrics {
				t.Errorf("%s %s: metrics = %+v, want engine.Run's %+v", name, tr.Name, tr.Metrics, plain.Techniques[k].Metrics)
			}
			if !slices.Equal(tr.Series, series.Techniques[k].Series) {
				t.Errorf("%s %s: series differs from engine.RunSeries(step = %v)", name, tr.Name, c.Step)
			}
		}
	}
	if c.Step != 0.1 || c.Duration != 10 {
		t.Errorf("step, duration = %v, %v, want 0.1, 10 (wifi's)", c.Step, c.Duration)
	}
	if want := []string{"epic", "epicfix", "snap", "buffer", "hermite"}; !slices.Equal(c.Techniques, want) {
		t.Errorf("techniques = %v, want %v", c.Techniques, want)
	}
	joined := strings.Join(c.Forced, "\n")
	for _, want := range []string{"lan: motion mix → strafe", "lan: seed 1 → 3", "4g: maxSpeed 9 → 7", "4g: duration 30 → 10"} {
		if !strings.Contains(joined, want) {
			t.Errorf("forced notes %q lack %q", c.Forced, want)
		}
	}
}

// compareTestOption is the part of a chart's ECharts option the tests read.
type compareTestOption struct {
	Series []struct {
		Name string
		Data []struct {
			Name  string
			Value any
		}
	}
	XAxis []struct{ Data []string }
}

func compareTestChart(t *testing.T, ch compareChart) compareTestOption {
	t.Helper()
	ch.Chart.Validate()
	b, err := json.Marshal(ch.Chart.JSON())
	if err != nil {
		t.Fatal(err)
	}
	var o compareTestOption
	if err := json.Unmarshal(b, &o); err != nil {
		t.Fatalf("chart %s: %v", ch.ID, err)
	}
	return o
}

// compareTestClose reports whether a charted value (4 significant digits)
// matches the engine's value in display units.
func compareTestClose(got, want float64) bool {
	return math.Abs(got-want) <= 5e-4*math.Abs(want)+1e-12
}

func compareTestPair(t *testing.T, v any) (x, y float64) {
	t.Helper()
	p, ok := v.([]any)
	if !ok || len(p) != 2 {
		t.Fatalf("value %v: want [x, y]", v)
	}
	return p[0].(float64), p[1].(float64)
}

// Every number drawn comes from the run: the error lines from the series,
// the bars and the scatter from the metrics, in display units.
func TestCompareChartData(t *testing.T) {
	c := compareTestRun(t, "preset:wifi", "preset:4g")
	errCharts, metricCharts, latencyCharts := compareCharts(c)
	if len(errCharts) != len(c.Techniques) || len(metricCharts) != len(compareBarMetrics) || len(latencyCharts) != 1 {
		t.Fatalf("charts = %d, %d, %d, want %d, %d, 1", len(errCharts), len(metricCharts), len(latencyCharts),
			len(c.Techniques), len(compareBarMetrics))
	}

	for k, ch := range errCharts {
		o := compareTestChart(t, ch)
		if len(o.Series) != len(c.Variants) {
			t.Fatalf("%s: %d lines, want one per variant (%d)", ch.ID, len(o.Series), len(c.Variants))
		}
		for i, s := range o.Series {
			tr := c.technique(i, c.Techniques[k])
			var want []float64
			if tr != nil {
				want = tr.Series
			}
			if s.Name != c.Variants[i].Label || len(s.Data) != len(want) {
				t.Fatalf("%s line %d: %q with %d points, want %q with %d", ch.ID, i, s.Name, len(s.Data), c.Variants[i].Label, len(want))
			}
			for w, d := range s.Data {
				x, y := compareTestPair(t, d.Value)
				start, end := c.window(w)
				if !compareTestClose(x, (start+end)/2) || !compareTestClose(y, want[w]*100) {
					t.Errorf("%s %s point %d = (%v, %v), want (%v, %v cm)", ch.ID, s.Name, w, x, y, (start+end)/2, want[w]*100)
				}
			}
		}
	}

	for _, ch := range metricCharts {
		o := compareTestChart(t, ch)
		f, idx := compareMetric(strings.TrimPrefix(ch.ID, "compare-metric-"))
		if !slices.Equal(o.XAxis[0].Data, c.Techniques) {
			t.Errorf("%s categories = %v, want %v", ch.ID, o.XAxis[0].Data, c.Techniques)
		}
		for i, s := range o.Series {
			for k, d := range s.Data {
				tr := c.technique(i, c.Techniques[k])
				if tr == nil {
					if d.Value != "-" {
						t.Errorf("%s %s %s = %v, want - (not run)", ch.ID, s.Name, c.Techniques[k], d.Value)
					}
					continue
				}
				want := tr.Metrics.Values(nil)[idx] * f.Scale
				if got, ok := d.Value.(float64); !ok || !compareTestClose(got, want) {
					t.Errorf("%s %s %s = %v, want %v", ch.ID, s.Name, c.Techniques[k], d.Value, want)
				}
			}
		}
	}

	o := compareTestChart(t, latencyCharts[0])
	points := 0
	for i, s := range o.Series {
		for k, d := range s.Data {
			tr := c.Results[i].Techniques[k]
			x, y := compareTestPair(t, d.Value)
			if d.Name != tr.Name || !compareTestClose(x, tr.Metrics.AddedLatency*1000) || !compareTestClose(y, tr.Metrics.ErrP95*100) {
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
func TestCompareChartsAssets(t *testing.T) {
	c := compareTestRun(t, "preset:lan", "preset:wifi")
	e, m, l := compareCharts(c)
	for _, ch := range slices.Concat(e, m, l) {
		ch.Chart.Validate()
		if got := ch.Chart.GetAssets().JSAssets.Values; !slices.Equal(got, []string{"/static/vendor/echarts/echarts.min.js"}) {
			t.Errorf("%s assets = %v, want only /static/vendor/echarts/echarts.min.js", ch.ID, got)
		}
	}
}

func TestCompareRunErrors(t *testing.T) {
	ps := compareTestPresets()
	bad := ps["lan"]
	bad.Loss = 2
	huge := ps["lan"]
	huge.Entities, huge.Duration = 10000, 3600
	long := ps["lan"] // one entity for an hour costs like 16: 2 variants × 216,000 frames × 5 × 16 = 3.5e7
	long.Entities, long.Duration = 1, 3600
	cases := []struct {
		name      string
		vs        []variant
		wantField string
		wantMsg   string
	}{
		{"none", nil, "v", "compare 0 variants"},
		{"one", []variant{{Label: "lan", Settings: ps["lan"]}}, "v", "compare 1 variants: want 2 to 8"},
		{"nine", slices.Repeat([]variant{{Label: "lan", Settings: ps["lan"]}}, 9), "v", "compare 9 variants: want 2 to 8"},
		{"bad second", []variant{{Label: "lan", Settings: ps["lan"]}, {Label: "lossy", Settings: bad}}, "loss", "variant 2 (lossy): loss"},
		{"bad first", []variant{{Label: "lossy", Settings: bad}, {Label: "lan", Settings: ps["lan"]}}, "loss", "variant 1 (lossy): loss"},
		{"too much work", []variant{{Label: "huge", Settings: huge}, {Label: "lan", Settings: ps["lan"]}}, "entities", "entity-technique-frames"},
		{"few entities cost as 16", []variant{{Label: "long", Settings: long}, {Label: "lan", Settings: ps["lan"]}}, "entities", "need 3.46e+07 entity-technique-frames"},
	}
	for _, tc := range cases {
		_, err := compareRun(context.Background(), tc.vs)
		ce, ok := errors.AsType[*compareError](err)
		if !ok {
			t.Errorf("%s: compareRun error = %v, want a *compareError", tc.name, err)
			continue
		}
		if ce.Field != tc.wantField || !strings.Contains(ce.Error(), tc.wantMsg) {
			t.Errorf("%s: compareRun error = %q (field %q), want %q (field %q)", tc.name, ce, ce.Field, tc.wantMsg, tc.wantField)
		}
	}

	// 2 and 8 variants run; identical settings run once and share a result.
	for _, n := range []int{2, 8} {
		c, err := compareRun(context.Background(), slices.Repeat([]variant{{Label: "lan", Settings: ps["lan"]}}, n))
		if err != nil {
			t.Errorf("compareRun(%d variants) = %v, want nil error", n, err)
			continue
		}
		if len(c.Results) != n || c.Variants[n-1].Label != fmt.Sprintf("lan (%d)", n) {
			t.Errorf("compareRun(%d variants): %d results, last label %q", n, len(c.Results), c.Variants[n-1].Label)
		}
	}

	// A cancelled request starts no run.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	fresh := ps["lan"]
	fresh.Seed = 12345 // not cached by another test
	if _, err := compareRun(ctx, []variant{{Label: "a", Settings: fresh}, {Label: "b", Settings: ps["wifi"]}}); !errors.Is(err, context.Canceled) {
		t.Errorf("compareRun(cancelled) = %v, want context.Canceled", err)
	}
}

func TestCompareLabels(t *testing.T) {
	vs := []variant{{Label: "wifi"}, {Label: ""}, {Label: "wifi"}, {Label: "wifi (2)"}, {Label: "wifi"}}
	got := compareLabels(vs)
	want := []string{"wifi", "variant 2", "wifi (2)", "wifi (2) (2)", "wifi (3)"}
	if !slices.Equal(got, want) {
		t.Errorf("compareLabels = %q, want %q", got, want)
	}
}

func TestCompareStep(t *testing.T) {
	cases := []struct{ duration, want float64 }{
		{1, 0.1}, {60, 0.1}, {61, 0.2}, {150, 0.25}, {300, 0.5}, {600, 1}, {3600, 10},
	}
	for _, tc := range cases {
		if got := compareStep(tc.duration); got != tc.want {
			t.Errorf("compareStep(%v) = %v, want %v", tc.duration, got, tc.want)
		}
	}
}

func TestCompareLRU(t *testing.T) {
	l := newCompareLRU(2)
	l.put("a", engine.Result{SeriesStep: 1})
	l.put("b", engine.Result{SeriesStep: 2})
	l.get("a") // a is now the most recent
	l.put("c", engine.Result{SeriesStep: 3})
	if _, ok := l.get("b"); ok {
		t.Error("b survived, want it evicted as the least recently used")
	}
	for key, step := range map[string]float64{"a": 1, "c": 3} {
		if r, ok := l.get(key); !ok || r.SeriesStep != step {
			t.Errorf("get(%q) = %v, %v, want step %v", key, r.SeriesStep, ok, step)
		}
	}
}

// BenchmarkCompare is one whole comparison page of 8 variants of the
// default settings (6 entities, 60 s, every technique), run afresh: each
// iteration has its own seed, so the cache never answers.
func BenchmarkCompare(b *testing.B) {
	seed := 1000
	for b.Loop() {
		seed++
		vs := make([]variant, 8)
		refs := make([]string, 8)
		for i := range vs {
			s := engine.Defaults()
			s.Seed, s.Latency = seed, 0.01*float64(i+1)
			vs[i], refs[i] = variant{Label: fmt.Sprint("v", i), Settings: s}, fmt.Sprint("q:latency=", s.Latency)
		}
		c, err := compareRun(context.Background(), vs)
		if err != nil {
			b.Fatal(err)
		}
		view, err := compareView(refs, c)
		if err != nil {
			b.Fatal(err)
		}
		if err := templates.Compare(view).Render(context.Background(), io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}
