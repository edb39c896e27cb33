package report

import (
	"bytes"
	"strings"
	"testing"

	"interplab/engine"
	"interplab/engine/study"
)

// row returns the table line of metric name.
func row(t *testing.T, table, name string) string {
	t.Helper()
	for _, l := range strings.Split(table, "\n") {
		if f := strings.Fields(l); len(f) > 0 && f[0] == name {
			return l
		}
	}
	t.Fatalf("no %s row in\n%s", name, table)
	return ""
}

// TestMetricsTableNeverRanksLies: a negative added latency is not marked
// best, and epic's underrun (100% by design) is marked † and not ranked.
func TestMetricsTableNeverRanksLies(t *testing.T) {
	res := engine.Result{Techniques: []engine.TechniqueResult{
		{Name: engine.TechEPIC, Metrics: engine.Metrics{AddedLatency: -0.004, Underrun: 1}},
		{Name: engine.TechBuffer, Metrics: engine.Metrics{AddedLatency: 0.03, Underrun: 0.02}},
		{Name: engine.TechHermite, Metrics: engine.Metrics{AddedLatency: 0.05, Underrun: 0.04}},
	}}
	var b bytes.Buffer
	if err := MetricsTable(&b, res); err != nil {
		t.Fatal(err)
	}
	text := b.String()
	if got := strings.Fields(row(t, text, "addedLatency")); got[2] != "-4" || got[3] != "30*" {
		t.Errorf("addedLatency row = %q, want -4 unmarked and 30 marked best", got)
	}
	if got := strings.Fields(row(t, text, "underrun")); got[2] != "100†" || got[3] != "2*" {
		t.Errorf("underrun row = %q, want 100† and 2 marked best", got)
	}
	if !strings.Contains(text, "† epic and epicfix draw ahead") {
		t.Errorf("no note on the † mark:\n%s", text)
	}
}

// TestTuneMarksTheRecommendation: the * marker appears even when the
// recommendation is not on the two-metric Pareto front.
func TestTuneMarksTheRecommendation(t *testing.T) {
	base := engine.Defaults()
	best := base
	best.Delay = 0.08
	front := base
	front.Delay = 0.05
	res := study.TuneResult{
		Base:     study.Candidate{Settings: base, Cost: 4, Feasible: true},
		Best:     study.Candidate{Settings: best, Cost: 2, Feasible: true},
		Feasible: true, Recommended: true,
		Pareto: []study.Candidate{{Settings: front, Cost: 3, Feasible: true}},
	}
	var b bytes.Buffer
	if err := Tune(&b, study.TuneSpec{Base: base, Technique: engine.TechBuffer}, res, engine.Diff(base, best)); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "2 * (off the front)") {
		t.Errorf("no * for the recommendation off the front:\n%s", b.String())
	}
	res.Pareto = append(res.Pareto, res.Best)
	b.Reset()
	Tune(&b, study.TuneSpec{Base: base, Technique: engine.TechBuffer}, res, engine.Diff(base, best))
	if strings.Count(b.String(), " *") != 1 || strings.Contains(b.String(), "off the front") { // the row
		t.Errorf("want the front's row marked:\n%s", b.String())
	}
}
