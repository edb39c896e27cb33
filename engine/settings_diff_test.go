package engine

import (
	"slices"
	"testing"
)

func TestDiff(t *testing.T) {
	base := Defaults()
	tests := []struct {
		name   string
		mutate func(*Settings)
		want   []Change
	}{
		{name: "same", mutate: func(*Settings) {}, want: []Change{}},
		{name: "one float", mutate: func(s *Settings) { s.Jitter = 0.02 }, want: []Change{{"jitter", "20ms"}}},
		{name: "enum and bool", mutate: func(s *Settings) { s.Motion, s.Adaptive = "turn", true },
			want: []Change{{"adaptive", "true"}, {"motion", "turn"}}},
		{name: "techniques", mutate: func(s *Settings) { s.Techniques = []string{"epic"} }, want: []Change{{"techniques", "epic"}}},
		{name: "int", mutate: func(s *Settings) { s.Seed = 9 }, want: []Change{{"seed", "9"}}},
	}
	for _, tt := range tests {
		b := base
		b.Techniques = slices.Clone(base.Techniques)
		tt.mutate(&b)
		if got := Diff(base, b); !slices.Equal(got, tt.want) {
			t.Errorf("%s: Diff = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestCanonical(t *testing.T) {
	s := Defaults()
	s.Techniques = []string{"hermite", "epic", "hermite"}
	got := Canonical(s)
	if want := []string{"epic", "hermite"}; !slices.Equal(got.Techniques, want) {
		t.Errorf("Canonical techniques = %q, want %q", got.Techniques, want)
	}
	if s.Techniques[0] != "hermite" {
		t.Errorf("Canonical changed its argument's techniques: %q", s.Techniques)
	}
	bad := Defaults()
	bad.Latency = -1
	if got := Canonical(bad); got.Latency != -1 {
		t.Errorf("Canonical of latency -1 = %v, want it left for Validate", got.Latency)
	}
}
