package report

import (
	"testing"

	"interplab/engine"
)

func metric(t *testing.T, name string) engine.MetricField {
	t.Helper()
	i := MetricIndex(name)
	if i < 0 {
		t.Fatalf("MetricIndex(%q) = -1", name)
	}
	return engine.MetricFields[i]
}

func TestNumber(t *testing.T) {
	for _, tt := range []struct {
		v    float64
		want string
	}{{0, "0"}, {12, "12"}, {-3, "-3"}, {0.12345, "0.123"}, {1234.5, "1235"}, {2e9, "2000000000"}, {2761734960, "2761734960"},
		{0.0000186, "0.0000186"}, {300.00000000000006, "300"}, {-0.000123456, "-0.000123"}} {
		if got := Number(tt.v); got != tt.want {
			t.Errorf("Number(%v) = %q, want %q", tt.v, got, tt.want)
		}
	}
}

func TestRound(t *testing.T) {
	for _, tt := range []struct {
		v      float64
		digits int
		want   float64
	}{{0.123456, 4, 0.1235}, {123456, 2, 120000}, {0.1 + 0.2, 9, 0.3}, {-0.000123456, 3, -0.000123}} {
		if got := Round(tt.v, tt.digits); got != tt.want {
			t.Errorf("Round(%v, %d) = %v, want %v", tt.v, tt.digits, got, tt.want)
		}
	}
}

func TestValue(t *testing.T) {
	for _, tt := range []struct {
		v      float64
		metric string
		want   string
	}{
		{0.01234, "errP95", "1.23"}, // m shown in cm
		{0.1234, "errP95", "12.3"},  // two digits before the point
		{1.234, "errP95", "123"},    // three
		{-0.0456, "addedLatency", "-45.6"},
		{7, "snaps", "7"}, // a count
		{0.5, "underrun", "50.0"},
	} {
		if got := Value(tt.v, metric(t, tt.metric)); got != tt.want {
			t.Errorf("Value(%v, %s) = %q, want %q", tt.v, tt.metric, got, tt.want)
		}
	}
}

func TestAxisName(t *testing.T) {
	if got := AxisName(metric(t, "addedLatency")); got != "addedLatency (ms)" {
		t.Errorf("AxisName(addedLatency) = %q", got)
	}
	if got := AxisName(metric(t, "snaps")); got != "snaps" {
		t.Errorf("AxisName(snaps) = %q, want no unit", got)
	}
	if MetricIndex("nope") != -1 {
		t.Error("MetricIndex(nope) != -1")
	}
}
