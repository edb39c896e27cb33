package compare

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"interplab/engine"
)

// testSettings are short runs that differ in tuning and in scenario: lan,
// wifi, and 4g with two techniques.
func testSettings(t testing.TB) map[string]engine.Settings {
	t.Helper()
	out := map[string]engine.Settings{}
	for name, set := range map[string]string{
		"lan":  "latency=10 jitter=2 duration=8 entities=3",
		"wifi": "latency=30 jitter=20 loss=2 motion=strafe duration=10 entities=4 seed=3",
		"4g": "latency=60 jitter=40 loss=5 lossModel=burst adaptive=true seed=7 duration=30 maxSpeed=9 " +
			"techniques=snap,buffer",
	} {
		s := engine.Defaults()
		for _, kv := range strings.Fields(set) {
			k, v, _ := strings.Cut(kv, "=")
			if err := s.SetText(k, v); err != nil {
				t.Fatalf("test settings %s: %v", name, err)
			}
		}
		out[name] = s
	}
	return out
}

// testRun runs the named test settings, failing the test on error.
func testRun(t *testing.T, names ...string) *Comparison {
	t.Helper()
	var vs []Variant
	for _, n := range names {
		vs = append(vs, Variant{Label: n, Settings: testSettings(t)[n]})
	}
	c, err := NewRunner(2).Run(context.Background(), vs)
	if err != nil {
		t.Fatalf("compare %v: %v", names, err)
	}
	return c
}

// forceScenario gives s the scenario of first, written out field by
// field rather than through Scenario, to check it.
func forceScenario(s, first engine.Settings) engine.Settings {
	s.Motion, s.Entities, s.MaxSpeed = first.Motion, first.Entities, first.MaxSpeed
	s.Seed, s.Duration, s.Round = first.Seed, first.Duration, first.Round
	return s
}

// The comparison's numbers are engine.Run's and engine.RunSeries's for
// each variant on the first one's scenario.
func TestRunMatchesEngine(t *testing.T) {
	c := testRun(t, "wifi", "lan", "4g")
	ps := testSettings(t)
	first := ps["wifi"]
	for i, name := range []string{"wifi", "lan", "4g"} {
		s := forceScenario(ps[name], first)
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
	for _, want := range []string{"lan: motion mix → strafe", "lan: seed 1 → 3", "4g: maxSpeed 9 m/s → 7 m/s", "4g: duration 30 s → 10 s"} {
		if !strings.Contains(joined, want) {
			t.Errorf("forced notes %q lack %q", c.Forced, want)
		}
	}
}

func TestRunErrors(t *testing.T) {
	ps := testSettings(t)
	bad := ps["lan"]
	bad.Loss = 2
	huge := ps["lan"]
	huge.Entities, huge.Duration = 10000, 3600
	long := ps["lan"] // one entity for an hour costs like 16: 2 variants × 216,000 frames × 5 × 16 = 3.5e7
	long.Entities, long.Duration = 1, 3600
	cases := []struct {
		name      string
		vs        []Variant
		wantField string
		wantMsg   string
	}{
		{"none", nil, "v", "compare 0 variants"},
		{"one", []Variant{{Label: "lan", Settings: ps["lan"]}}, "v", "compare 1 variants: want 2 to 8"},
		{"nine", slices.Repeat([]Variant{{Label: "lan", Settings: ps["lan"]}}, 9), "v", "compare 9 variants: want 2 to 8"},
		{"bad second", []Variant{{Label: "lan", Settings: ps["lan"]}, {Label: "lossy", Settings: bad}}, "loss", "variant 2 (lossy): loss"},
		{"bad first", []Variant{{Label: "lossy", Settings: bad}, {Label: "lan", Settings: ps["lan"]}}, "loss", "variant 1 (lossy): loss"},
		{"too much work", []Variant{{Label: "huge", Settings: huge}, {Label: "lan", Settings: ps["lan"]}}, "entities", "entity-technique-frames"},
		{"few entities cost as 16", []Variant{{Label: "long", Settings: long}, {Label: "lan", Settings: ps["lan"]}}, "entities", "need 3.46e+07 entity-technique-frames"},
	}
	for _, tc := range cases {
		_, err := NewRunner(2).Run(context.Background(), tc.vs)
		ce, ok := errors.AsType[*Error](err)
		if !ok {
			t.Errorf("%s: Run error = %v, want a *Error", tc.name, err)
			continue
		}
		if ce.Field != tc.wantField || !strings.Contains(ce.Error(), tc.wantMsg) {
			t.Errorf("%s: Run error = %q (field %q), want %q (field %q)", tc.name, ce, ce.Field, tc.wantMsg, tc.wantField)
		}
	}

	// 2 and 8 variants run; identical settings run once and share a result.
	for _, n := range []int{2, 8} {
		c, err := NewRunner(2).Run(context.Background(), slices.Repeat([]Variant{{Label: "lan", Settings: ps["lan"]}}, n))
		if err != nil {
			t.Errorf("Run(%d variants) = %v, want nil error", n, err)
			continue
		}
		if len(c.Results) != n || c.Variants[n-1].Label != fmt.Sprintf("lan (%d)", n) {
			t.Errorf("Run(%d variants): %d results, last label %q", n, len(c.Results), c.Variants[n-1].Label)
		}
	}

	// A cancelled request starts no run.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	fresh := ps["lan"]
	fresh.Seed = 12345 // not cached by another test
	if _, err := NewRunner(2).Run(ctx, []Variant{{Label: "a", Settings: fresh}, {Label: "b", Settings: ps["wifi"]}}); !errors.Is(err, context.Canceled) {
		t.Errorf("Run(cancelled) = %v, want context.Canceled", err)
	}
}

func TestUniqueLabels(t *testing.T) {
	vs := []Variant{{Label: "wifi"}, {Label: ""}, {Label: "wifi"}, {Label: "wifi (2)"}, {Label: "wifi"}}
	got := uniqueLabels(vs)
	want := []string{"wifi", "variant 2", "wifi (2)", "wifi (2) (2)", "wifi (3)"}
	if !slices.Equal(got, want) {
		t.Errorf("uniqueLabels = %q, want %q", got, want)
	}
}

func TestStep(t *testing.T) {
	cases := []struct{ duration, want float64 }{
		{1, 0.1}, {60, 0.1}, {61, 0.2}, {150, 0.25}, {300, 0.5}, {600, 1}, {3600, 10},
	}
	for _, tc := range cases {
		if got := Step(tc.duration); got != tc.want {
			t.Errorf("Step(%v) = %v, want %v", tc.duration, got, tc.want)
		}
	}
}

func TestLRU(t *testing.T) {
	l := newLRU(2)
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

// A comparison of library settings lists the library the first variant is
// on first, then the other libraries', then the lab's own techniques; one
// of the lab's own settings keeps the table's order.
func TestTechniqueOrder(t *testing.T) {
	ran := func(names ...string) map[string]bool {
		m := map[string]bool{}
		for _, n := range names {
			m[n] = true
		}
		return m
	}
	tests := []struct {
		primary string
		ran     map[string]bool
		want    []string
	}{
		{engine.TechMirror, ran("epic", "buffer", "mirror"), []string{"mirror", "epic", "buffer"}},
		{engine.TechSource, ran("epic", "buffer", "mirror", "source"), []string{"source", "mirror", "epic", "buffer"}},
		{engine.TechBuffer, ran("epic", "buffer", "hermite"), []string{"epic", "buffer", "hermite"}},
		{engine.TechBuffer, ran("buffer", "ngo"), []string{"ngo", "buffer"}},
		{engine.TechMirror, ran("epic", "buffer"), []string{"epic", "buffer"}},
	}
	for _, tt := range tests {
		if got := techniqueOrder(tt.primary, tt.ran); !slices.Equal(got, tt.want) {
			t.Errorf("techniqueOrder(%s, %v) = %v, want %v", tt.primary, tt.ran, got, tt.want)
		}
	}
}
