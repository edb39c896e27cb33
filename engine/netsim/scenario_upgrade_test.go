package netsim

import (
	"reflect"
	"testing"
)

func TestUpgradeScenarioText(t *testing.T) {
	tests := []struct{ old, want string }{
		{"set latency=0.04", "set latency=0.04s"},
		{"step at=20 for=5 jitter=0.03 loss=0.02  # a bad patch", "step at=20 for=5 jitter=0.03s loss=2%  # a bad patch"},
		{"ramp at=30 for=10 latency=0.12 bandwidth=256000", "ramp at=30 for=10 latency=0.12s bandwidth=256000bit/s"},
		{"spike at=45 for=0.5 delay=0.3", "spike at=45 for=0.5 delay=0.3s"},
		{"hiccup at=5 until=55 every=8 for=0.25 delay=0.15 loss=0.3", "hiccup at=5 until=55 every=8 for=0.25 delay=0.15s loss=30%"},
		{"  outage at=50 for=2 backlog=burst", "  outage at=50 for=2 backlog=burst"},
		{"set latency=40ms loss=2% bandwidth=256kbit", "set latency=40ms loss=2% bandwidth=256kbit"},
		{"title my match\n# set latency=0.05\n\nset loss=0.001", "title my match\n# set latency=0.05\n\nset loss=0.1%"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := UpgradeScenarioText(tt.old); got != tt.want {
			t.Errorf("UpgradeScenarioText(%q) = %q, want %q", tt.old, got, tt.want)
		}
	}
}

// The upgraded text gives the scenario the old text gave under the old
// rule: the same conditions as the same text with every value's old unit
// written by hand.
func TestUpgradeScenarioTextKeepsTheScenario(t *testing.T) {
	old := "set latency=0.04 jitter=0.005\nstep at=10 for=5 loss=0.05 bandwidth=512000\nspike at=20 for=1 delay=0.2\nhiccup at=30 until=50 every=5 for=0.5 delay=0.1 loss=0.2"
	byHand := "set latency=40ms jitter=5ms\nstep at=10 for=5 loss=5% bandwidth=512kbit/s\nspike at=20 for=1 delay=200ms\nhiccup at=30 until=50 every=5 for=0.5 delay=100ms loss=20%"
	got, err := ParseScenario(UpgradeScenarioText(old))
	if err != nil {
		t.Fatal(err)
	}
	want, err := ParseScenario(byHand)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("upgraded %q parses to %+v, want %+v", UpgradeScenarioText(old), got, want)
	}
}
