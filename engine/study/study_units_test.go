package study

import (
	"slices"
	"strings"
	"testing"
)

func TestParseConstraintUnits(t *testing.T) {
	cs, err := ParseConstraints("addedLatency=150ms,underrun=5%,errP95=20cm,snaps=3")
	if err != nil {
		t.Fatal(err)
	}
	want := []Constraint{{"addedLatency", 0.15}, {"underrun", 0.05}, {"errP95", 0.2}, {"snaps", 3}}
	if !slices.Equal(cs, want) {
		t.Errorf("ParseConstraints = %v, want %v", cs, want)
	}
	// A plain number is in the metric's display unit, as the tune form shows it.
	cs, err = ParseConstraints("addedLatency=150,underrun=5,errP95=20,recovery=500,underrunRounds=5")
	want = []Constraint{{"addedLatency", 0.15}, {"underrun", 0.05}, {"errP95", 0.2}, {"recovery", 0.5}, {"underrunRounds", 0.05}}
	if err != nil || !slices.Equal(cs, want) {
		t.Errorf("ParseConstraints(plain) = %v, %v; want %v", cs, err, want)
	}
	if _, err := ParseConstraints("addedLatency=150 parsecs"); err == nil || !strings.Contains(err.Error(), "constraints.addedLatency") ||
		!strings.Contains(err.Error(), "a plain number in ms") {
		t.Errorf("ParseConstraints(parsecs) = %v", err)
	}
	for name, v := range map[string]float64{"addedLatency": 0.15, "underrun": 0.05, "errP95": 0.2, "snaps": 3} {
		text := FormatMetric(name, v)
		if got, err := ParseMetric(name, text); err != nil || got != v {
			t.Errorf("ParseMetric(%s, FormatMetric(%v) = %q) = %v, %v", name, v, text, got, err)
		}
	}
}
