package engine

import (
	"slices"
	"testing"

	"interplab/engine/netsim"
)

// The editor's engine side: a text is checked against the running
// settings, sampled, and applied only when good.
func TestSetScenarioText(t *testing.T) {
	s := Defaults()
	s.Duration = 20
	if _, err := CheckScenarioText(s, "spike at=5 for=x delay=100"); err == nil {
		t.Error("a bad text passes the check")
	}
	sc, err := CheckScenarioText(s, "ramp at=0 for=10 latency=150ms\nspike at=15 for=1 delay=200ms")
	if err != nil {
		t.Fatal(err)
	}
	v := SampleScenario(nil, sc, &s, 20)
	if len(v) != 20*ScenarioSampleStride {
		t.Fatalf("%d numbers, want %d", len(v), 20*ScenarioSampleStride)
	}
	if lat := v[19*ScenarioSampleStride]; lat != 0.15 {
		t.Errorf("latency after the ramp %v, want 0.15", lat)
	}
	if extra := v[15*ScenarioSampleStride+4]; extra != 0.2 {
		t.Errorf("extra delay at 15.5 s %v, want 0.2", extra)
	}

	m, err := NewSim(s)
	if err != nil {
		t.Fatal(err)
	}
	if restarted, err := m.SetScenarioText("outage at=2 for=1"); err != nil || restarted {
		t.Errorf("a text while another scenario runs: restarted %v, %v", restarted, err)
	}
	if _, err := m.Set("scenario", float64(slices.Index(netsim.Scenarios, netsim.ScenarioCustom))); err != nil {
		t.Fatal(err)
	}
	if restarted, err := m.SetScenarioText("outage at=4 for=1"); err != nil || !restarted {
		t.Errorf("a text while custom runs: restarted %v, %v", restarted, err)
	}
	if _, err := m.SetScenarioText("outage at=40 for=1"); err == nil {
		t.Error("a text past the run's end was taken")
	}
	if got := m.Settings().ScenarioText; got != "outage at=4 for=1" {
		t.Errorf("after a refused text the run has %q", got)
	}
}
