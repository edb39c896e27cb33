package study

import (
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"interplab/engine"
)

// sweepTestBase is a short, small run on a jittery link, so that the
// buffer's settings matter.
func sweepTestBase() engine.Settings {
	s := engine.Defaults()
	s.Entities, s.Duration = 3, 4
	s.Latency, s.Jitter, s.JitterDist, s.Loss = 0.04, 0.02, "lognormal", 0.02
	s.TickRate, s.SendRate = 20, 20
	return s
}

func TestAxisValues(t *testing.T) {
	tests := []struct {
		axis Axis
		want []float64
	}{
		{Axis{Name: "delay", Min: 0, Max: 0.2, Steps: 5}, []float64{0, 0.05, 0.1, 0.15, 0.2}},
		{Axis{Name: "delay", Min: 0.1, Max: 0.3, Steps: 1}, []float64{0.1}},
		{Axis{Name: "adaptive", Min: 0, Max: 1, Steps: 2}, []float64{0, 1}},
		{Axis{Name: "motion", Min: 0, Max: 6, Steps: 4}, []float64{0, 2, 4, 6}},
		{Axis{Name: "adaptWindow", Min: 4, Max: 10, Steps: 3}, []float64{4, 7, 10}},
		{Axis{Name: "sendRate", Min: 10, Max: 13, Steps: 4}, []float64{10, 11, 12, 13}},
		{Axis{Name: "delay", Steps: 0}, nil},
	}
	for _, tt := range tests {
		got := tt.axis.Values()
		if len(got) != len(tt.want) {
			t.Errorf("%+v.Values() = %v, want %v", tt.axis, got, tt.want)
			continue
		}
		for i := range got {
			if math.Abs(got[i]-tt.want[i]) > 1e-12 {
				t.Errorf("%+v.Values() = %v, want %v", tt.axis, got, tt.want)
				break
			}
		}
		if n := len(got); n > 1 && got[n-1] != tt.axis.Max {
			t.Errorf("%+v.Values() ends at %v, want Max %v exactly", tt.axis, got[n-1], tt.axis.Max)
		}
	}
}

func TestSweepSpecValidate(t *testing.T) {
	delay := Axis{Name: "delay", Min: 0, Max: 0.2, Steps: 5}
	tests := []struct {
		name    string
		edit    func(*SweepSpec)
		field   string // the FieldError's Field; "" for no error
		allowed string // a substring of its Allowed
	}{
		{"valid", func(*SweepSpec) {}, "", ""},
		{"valid 2-D", func(s *SweepSpec) { s.Y = &Axis{Name: "adaptive", Max: 1, Steps: 2} }, "", ""},
		{"unknown technique", func(s *SweepSpec) { s.Technique = "lerp" }, "technique", "buffer"},
		{"unknown parameter", func(s *SweepSpec) { s.X.Name = "delai" }, "x.name", "parameter name"},
		{"set parameter", func(s *SweepSpec) { s.X = Axis{Name: "techniques", Min: 1, Max: 3, Steps: 3} }, "x.name", "Bool or Enum"},
		{"min out of range", func(s *SweepSpec) { s.X.Min = -0.1 }, "x.min", "[0, 500] ms"},
		{"max out of range", func(s *SweepSpec) { s.X.Max = 0.6 }, "x.max", "[0, 500] ms"},
		{"max below min", func(s *SweepSpec) { s.X.Min, s.X.Max = 0.2, 0.1 }, "x.max", "x.min = 200ms"},
		{"no steps", func(s *SweepSpec) { s.X.Steps = 0 }, "x.steps", "[1, 10000]"},
		{"too many steps", func(s *SweepSpec) { s.X.Steps = 10001 }, "x.steps", "[1, 10000]"},
		{"bool steps", func(s *SweepSpec) { s.X = Axis{Name: "speedClamp", Max: 1, Steps: 3} }, "x.steps", "[1, 2]"},
		{"fractional int", func(s *SweepSpec) { s.X = Axis{Name: "entities", Min: 1.5, Max: 4, Steps: 2} }, "x.min", "whole number"},
		{"same parameter twice", func(s *SweepSpec) { s.Y = &Axis{Name: "delay", Max: 0.1, Steps: 2} }, "y.name", "other than x.name"},
		{"bad y", func(s *SweepSpec) { s.Y = &Axis{Name: "margin", Max: 0.1, Steps: -1} }, "y.steps", "[1, 10000]"},
		{"too many points", func(s *SweepSpec) {
			s.X.Steps = 101
			s.Y = &Axis{Name: "margin", Max: 0.1, Steps: 100}
		}, "points", "at most 10000"},
		{"bad base", func(s *SweepSpec) { s.Base.Loss = 2 }, "loss", "[0, 90] %"},
	}
	for _, tt := range tests {
		spec := SweepSpec{Base: sweepTestBase(), Technique: engine.TechBuffer, X: delay}
		tt.edit(&spec)
		err := spec.Validate()
		if tt.field == "" {
			if err != nil {
				t.Errorf("%s: Validate() = %v, want nil", tt.name, err)
			}
			continue
		}
		var fe *engine.FieldError
		if !errors.As(err, &fe) || fe.Field != tt.field || !strings.Contains(fe.Allowed, tt.allowed) {
			t.Errorf("%s: Validate() = %v, want a FieldError for %s allowing %q", tt.name, err, tt.field, tt.allowed)
		}
		if _, serr := Sweep(context.Background(), spec, 1, nil); serr == nil || serr.Error() != err.Error() {
			t.Errorf("%s: Sweep error = %v, want Validate's %v", tt.name, serr, err)
		}
	}
}

// Every point is Run of the base with the swept values and the technique
// alone, in grid order, whatever the worker count.
func TestSweepMatchesRun(t *testing.T) {
	spec := SweepSpec{
		Base:      sweepTestBase(),
		Technique: engine.TechBuffer,
		X:         Axis{Name: "delay", Min: 0.02, Max: 0.12, Steps: 3},
		Y:         &Axis{Name: "adaptive", Min: 0, Max: 1, Steps: 2},
	}
	one, err := Sweep(context.Background(), spec, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(one) != 6 {
		t.Fatalf("Sweep gave %d points, want 6", len(one))
	}
	xs, ys := spec.X.Values(), spec.Y.Values()
	for k, p := range one {
		if p.I != k%3 || p.J != k/3 || p.X != xs[p.I] || p.Y != ys[p.J] {
			t.Errorf("point %d = (I %d, J %d, X %v, Y %v), want (%d, %d, %v, %v)", k, p.I, p.J, p.X, p.Y, k%3, k/3, xs[k%3], ys[k/3])
		}
		s := spec.Base
		s.Techniques = []string{engine.TechBuffer}
		s.Delay, s.Adaptive = p.X, p.Y == 1
		want, err := engine.Run(s)
		if err != nil {
			t.Fatal(err)
		}
		if p.Err != "" || p.Metrics != want.Techniques[0].Metrics {
			t.Errorf("point %d (delay %v, adaptive %v) = %+v (err %q), want Run's %+v", k, p.X, p.Y, p.Metrics, p.Err, want.Techniques[0].Metrics)
		}
	}
	if one[0].Metrics == one[2].Metrics {
		t.Errorf("delay 0.02 and 0.12 gave the same metrics %+v: the swept value was not applied", one[0].Metrics)
	}
	many, err := Sweep(context.Background(), spec, 4, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(one, many) {
		t.Errorf("Sweep with 4 workers = %+v, with 1 = %+v", many, one)
	}
}

// A point whose settings break a constraint between fields is reported,
// not fatal.
func TestSweepPointError(t *testing.T) {
	base := sweepTestBase()
	base.Duration = 2
	spec := SweepSpec{Base: base, Technique: engine.TechSnap, X: Axis{Name: "sendRate", Min: 10, Max: 30, Steps: 3}}
	pts, err := Sweep(context.Background(), spec, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pts {
		bad := p.X > base.TickRate
		if got := p.Err != ""; got != bad || bad && !strings.Contains(p.Err, "sendRate") {
			t.Errorf("sendRate %v: Err = %q, want an error naming sendRate: %v", p.X, p.Err, bad)
		}
		if got := p.Metrics.Frames > 0; got == bad {
			t.Errorf("sendRate %v: Frames = %d, want frames: %v", p.X, p.Metrics.Frames, !bad)
		}
	}
}

// progress is called once per point, one call at a time, with done
// counting up to the total.
func TestSweepProgress(t *testing.T) {
	spec := SweepSpec{Base: sweepTestBase(), Technique: engine.TechHermite, X: Axis{Name: "delay", Min: 0, Max: 0.2, Steps: 7}}
	spec.Base.Duration = 1
	var inside atomic.Int32
	var calls []int
	seen := make(map[int]bool)
	pts, err := Sweep(context.Background(), spec, 3, func(p SweepPoint, done, total int) {
		if inside.Add(1) != 1 {
			t.Error("progress called concurrently")
		}
		defer inside.Add(-1)
		if total != 7 {
			t.Errorf("progress total = %d, want 7", total)
		}
		calls = append(calls, done)
		seen[p.I] = true
	})
	if err != nil {
		t.Fatal(err)
	}
	for i, d := range calls {
		if d != i+1 {
			t.Errorf("progress calls = %v, want done = 1, 2, ..., 7", calls)
			break
		}
	}
	if len(calls) != 7 || len(seen) != 7 || len(pts) != 7 {
		t.Errorf("progress calls = %d for %d distinct points, Sweep returned %d; want 7 each", len(calls), len(seen), len(pts))
	}
}

// Cancelling from progress stops the sweep: it returns ctx's error and the
// points that finished, in grid order, equal to the uncancelled ones.
func TestSweepCancel(t *testing.T) {
	spec := SweepSpec{Base: sweepTestBase(), Technique: engine.TechEPIC, X: Axis{Name: "calcAhead", Min: 0, Max: 0.3, Steps: 12}}
	spec.Base.Duration = 2
	all, err := Sweep(context.Background(), spec, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pts, err := Sweep(ctx, spec, 2, func(p SweepPoint, done, total int) {
		if done == 3 {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled Sweep error = %v, want context.Canceled", err)
	}
	if len(pts) < 3 || len(pts) >= len(all) {
		t.Errorf("cancelled Sweep returned %d points, want at least the 3 finished and fewer than %d", len(pts), len(all))
	}
	for k, p := range pts {
		if k > 0 && p.I <= pts[k-1].I {
			t.Errorf("cancelled Sweep points out of grid order: I = %d after %d", p.I, pts[k-1].I)
		}
		if p != all[p.I] {
			t.Errorf("cancelled Sweep point %d = %+v, want %+v", p.I, p, all[p.I])
		}
	}

	pts, err = Sweep(ctx, spec, 2, nil)
	if !errors.Is(err, context.Canceled) || len(pts) != 0 {
		t.Errorf("Sweep on a done context = %d points, %v; want none, context.Canceled", len(pts), err)
	}
}

// countdownCtx reports itself cancelled once Err has been asked n times.
type countdownCtx struct {
	context.Context
	n atomic.Int32
}

func (c *countdownCtx) Err() error {
	if c.n.Add(-1) < 0 {
		return context.Canceled
	}
	return nil
}

// A run in progress notices cancellation between chunks of frames: a single
// point of an hour of 100 entities (about a minute of work) is abandoned
// after a few chunks instead of finishing.
func TestSweepCancelMidRun(t *testing.T) {
	base := sweepTestBase()
	base.Entities, base.Duration = 100, 3600
	spec := SweepSpec{Base: base, Technique: engine.TechBuffer, X: Axis{Name: "delay", Min: 0.1, Max: 0.1, Steps: 1}}
	ctx := &countdownCtx{Context: context.Background()}
	ctx.n.Store(5)
	pts, err := Sweep(ctx, spec, 1, nil)
	if !errors.Is(err, context.Canceled) || len(pts) != 0 {
		t.Errorf("Sweep cancelled mid-run = %d points, %v; want none, context.Canceled", len(pts), err)
	}
}

func ExampleSweep() {
	s := engine.Defaults()
	s.Duration, s.Jitter = 5, 0.03
	spec := SweepSpec{Base: s, Technique: engine.TechBuffer, X: Axis{Name: "delay", Min: 0.05, Max: 0.15, Steps: 3}}
	pts, err := Sweep(context.Background(), spec, 0, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, p := range pts {
		// A longer delay rides out more of the jitter.
		fmt.Printf("delay %.2f s: underrun below 50%%: %v\n", p.X, p.Metrics.Underrun < 0.5)
	}
	// Output:
	// delay 0.05 s: underrun below 50%: false
	// delay 0.10 s: underrun below 50%: true
	// delay 0.15 s: underrun below 50%: true
}
