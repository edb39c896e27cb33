package netsim

import (
	"strings"
	"testing"
)

// An event that ends past the longest run a duration allows names that
// bound, never an infinite one to raise duration to.
func TestScenarioPastLongestRun(t *testing.T) {
	tests := []struct {
		text, field, msg string
	}{
		{"outage at=5 for=1e308", "for", "ends at 1e308 s, after the run's end (duration = 60 s), which is at most 3600 s: end the outage by 60 s"},
		{"spike at=1e300 for=1 delay=0.1", "for", "ends at 1e300 s"},
		{"hiccup at=1 until=4000 every=8 for=1 loss=1", "until", "which is at most 3600 s: end the hiccup by 60 s"},
		{"outage at=3000 for=599", "for", "raise duration to 3599 or more"},
	}
	for _, tt := range tests {
		sc, err := ParseScenario(tt.text)
		if err == nil {
			err = sc.Validate(60)
		}
		se, ok := err.(*ScenarioError)
		if !ok || se.Field != tt.field || !strings.Contains(se.Msg, tt.msg) || strings.Contains(se.Msg, "Inf") {
			t.Errorf("%q: %v, want field %s saying %q", tt.text, err, tt.field, tt.msg)
		}
	}
}
