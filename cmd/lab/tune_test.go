package main

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"interplab/cmd/lab/internal/report"
	"interplab/engine"
	"interplab/engine/study"
	"interplab/presets"
)

// tuneTestArgs tunes the buffer on harbor-before, small enough for a test.
var tuneTestArgs = []string{"-technique", "buffer", "-preset", "harbor-before", "-set", "duration=30", "-set", "entities=2",
	"-motions", "strafe,turn", "-max", "addedLatency=150", "-w", "snaps=0.5", "-budget", "16", "-seed", "3"}

// tuneTestSpec is the spec tuneTestArgs describe.
func tuneTestSpec(t *testing.T) study.TuneSpec {
	t.Helper()
	p, err := presets.Get("harbor-before")
	if err != nil {
		t.Fatal(err)
	}
	s := p.Settings
	s.Duration, s.Entities = 30, 2
	w := study.DefaultTuneWeights()
	w.Snaps = 0.5
	return study.TuneSpec{Base: s, Technique: engine.TechBuffer, Motions: []string{"strafe", "turn"}, Weights: w,
		Constraints: []study.Constraint{{Metric: "addedLatency", Max: 0.15}}, Budget: 16, Seed: 3, Seeds: study.DefaultTuneSeeds}
}

func runTuneTest(t *testing.T, args ...string) string {
	t.Helper()
	var out, errb bytes.Buffer
	if code := runTune(args, &out, &errb); code != 0 {
		t.Fatalf("lab tune %v exit %d: %s", args, code, errb.String())
	}
	return out.String()
}

func TestTuneJSONMatchesEngine(t *testing.T) {
	out := runTuneTest(t, append(tuneTestArgs[:len(tuneTestArgs):len(tuneTestArgs)], "-json")...)
	var got report.TuneJSON
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("lab tune -json: %v\n%s", err, out)
	}
	spec := tuneTestSpec(t)
	want, err := study.Tune(context.Background(), spec, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Spec, spec) {
		t.Errorf("lab tune spec = %+v, want %+v", got.Spec, spec)
	}
	if !reflect.DeepEqual(got.Result, want) {
		t.Errorf("lab tune result: best %+v, want study.Tune's %+v", got.Result.Best, want.Best)
	}
	if !reflect.DeepEqual(got.Changes, engine.Diff(spec.Base, want.Best.Settings)) {
		t.Errorf("lab tune changes = %+v, want %+v", got.Changes, engine.Diff(spec.Base, want.Best.Settings))
	}
}

// The text output's -set lines turn the base into the recommendation, and
// its tables hold study.Tune's numbers.
func TestTuneText(t *testing.T) {
	out := runTuneTest(t, tuneTestArgs...)
	spec := tuneTestSpec(t)
	want, err := study.Tune(context.Background(), spec, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := spec.Base
	sets := 0
	for _, line := range strings.Split(out, "\n") {
		if kv, ok := strings.CutPrefix(line, "  -set "); ok {
			name, value, _ := strings.Cut(kv, "=")
			if err := s.SetText(name, value); err != nil {
				t.Errorf("pasted %q: %v", line, err)
			}
			sets++
		}
	}
	if !want.Recommended {
		t.Fatalf("the test's tuning recommends nothing: pick a case that does")
	}
	if sets == 0 || !reflect.DeepEqual(s, want.Best.Settings) {
		t.Errorf("the %d -set lines give %+v, want the recommendation %+v:\n%s", sets, s, want.Best.Settings, out)
	}
	bv, rv := want.Base.Metrics.Values(nil), want.Best.Metrics.Values(nil)
	for i, f := range engine.MetricFields {
		row := []string{f.Name, f.Display, report.Number(bv[i] * f.Scale), report.Number(rv[i] * f.Scale)}
		if f.Display == "" {
			row = append(row[:1], row[2:]...)
		}
		if !strings.Contains(out, "\n"+strings.Join(row, " ")) && !tuneHasRow(out, row) {
			t.Errorf("lab tune lacks the row %v:\n%s", row, out)
		}
	}
	if !tuneHasRow(out, []string{"cost", report.Number(want.Base.Cost), report.Number(want.Best.Cost)}) {
		t.Errorf("lab tune lacks the cost row %v → %v:\n%s", want.Base.Cost, want.Best.Cost, out)
	}
	_, front, _ := strings.Cut(out, "Pareto front")
	// The recommendation is marked *, on the front or in a row of its own.
	rows := len(want.Pareto)
	if strings.Contains(front, "* (off the front)") {
		rows++
	}
	if got := strings.Count(front, "\n") - 2; got != rows {
		t.Errorf("lab tune front has %d rows, want %d:\n%s", got, rows, out)
	}
	if strings.Count(front, " *") != 1 {
		t.Errorf("lab tune marks the recommendation %d times, want once:\n%s", strings.Count(front, " *"), front)
	}
	for _, c := range want.Pareto {
		if !strings.Contains(front, report.Number(c.Metrics.AddedLatency*1000)+" ") {
			t.Errorf("lab tune front lacks latency %v ms:\n%s", c.Metrics.AddedLatency*1000, front)
		}
	}
}

// tuneHasRow reports whether a line of out has exactly the fields of row.
func tuneHasRow(out string, row []string) bool {
	for _, line := range strings.Split(out, "\n") {
		if reflect.DeepEqual(strings.Fields(line), row) {
			return true
		}
	}
	return false
}

// With constraints nothing meets, lab tune recommends nothing: no -set
// lines, the closest candidates with what they break in units, and exit
// status 3.
func TestTuneInfeasibleText(t *testing.T) {
	args := append(tuneTestArgs[:len(tuneTestArgs):len(tuneTestArgs)], "-max", "errP95=1mm", "-budget", "4")
	var out, errb bytes.Buffer
	code := runTune(args, &out, &errb)
	text := out.String()
	if code != 3 || strings.Contains(text, "-set") || !strings.Contains(text, "NOTHING MEETS THE CONSTRAINTS") ||
		!strings.Contains(text, "cm > 0.1 cm bound, by ") || !strings.Contains(text, "none: no candidate is feasible") {
		t.Errorf("lab tune with impossible constraints = exit %d (%s), want 3, no -set line, the closest in cm:\n%s", code, errb.String(), text)
	}
}

// The review's case, the command of issue 22: mirror-30hz on a 120 ms link.
// Whatever lab tune says, it recommends nothing worse than the base, and
// says why in units; the bound the review's form had, addedLatency ≤ 120 ms,
// is refused with the floor the network sets; one above the floor that
// mirror's knobs cannot reach recommends nothing and exits 3.
func TestTuneReviewCase(t *testing.T) {
	review := []string{"-technique", "mirror", "-preset", "mirror-30hz", "-set", "latency=120ms", "-set", "jitter=30ms", "-set", "loss=2%"}
	run := func(extra ...string) (int, string, string) {
		var out, errb bytes.Buffer
		code := runTune(append(review[:len(review):len(review)], extra...), &out, &errb)
		return code, out.String(), errb.String()
	}

	code, js, stderr := run("-json")
	if code != 0 {
		t.Fatalf("lab tune (review case) -json: exit %d, %s", code, stderr)
	}
	var got report.TuneJSON
	if err := json.Unmarshal([]byte(js), &got); err != nil {
		t.Fatal(err)
	}
	r := got.Result
	if r.Recommended && !(r.Best.Feasible && r.Best.Cost < r.Base.Cost && r.Best.Confirm.Gain > 3*r.Best.Confirm.GainSE) || !r.Recommended && len(got.Changes) > 0 {
		t.Errorf("review case -json: recommended %v at cost %v against the base's %v, %d changes", r.Recommended, r.Best.Cost, r.Base.Cost, len(got.Changes))
	}
	code, text, _ := run()
	if code != 0 {
		t.Fatalf("lab tune (review case): exit %d", code)
	}
	if !strings.Contains(text, "mean one-way transit 150 ms") {
		t.Errorf("review case: the text does not give the link's transit:\n%s", text)
	}
	if r.Recommended {
		want := "recommended: cost " + report.Number(r.Best.Cost) + " against your settings' " + report.Number(r.Base.Cost)
		if !strings.Contains(text, want) || !strings.Contains(text, "-set ") {
			t.Errorf("review case: the text lacks %q and -set lines:\n%s", want, text)
		}
	} else if !strings.Contains(text, "keep your settings, no meaningful improvement: the best of the search, cost ") ||
		!strings.Contains(text, "over run seeds 2–6, less on ") || strings.Contains(text, "-set ") {
		t.Errorf("review case: nothing recommended, but the text does not say to keep the settings:\n%s", text)
	}

	code, _, stderr = run("-max", "addedLatency=120ms")
	for _, want := range []string{"addedLatency cannot go below 123 ms on this link", "the network's latency is 120 ms", "extraLatency"} {
		if code != 2 || !strings.Contains(stderr, want) {
			t.Errorf("review case, addedLatency ≤ 120 ms: exit %d, stderr %q; want 2 and %q", code, stderr, want)
		}
	}

	code, text, _ = run("-max", "addedLatency=130ms", "-budget", "12")
	if code != 3 || strings.Contains(text, "-set ") || strings.Count(text, "ms > 130 ms bound, by ") != 4 { // 3 closest and the base
		t.Errorf("review case, addedLatency ≤ 130 ms: exit %d; want 3, no -set line, the 3 closest and the base with what they break:\n%s", code, text)
	}
}

func TestTuneUsage(t *testing.T) {
	tests := []struct {
		name string
		args []string
		code int
		want string // in stderr
	}{
		{"help", []string{"-h"}, 0, "Pareto front"},
		{"snap", []string{"-technique", "snap"}, 2, "-technique: technique"},
		{"unknown motion", []string{"-technique", "buffer", "-motions", "strafe,moon"}, 2, "-motions: motions[1]"},
		{"unknown weight", []string{"-technique", "buffer", "-w", "lag=1"}, 2, `-w: weights = "lag" is not allowed`},
		{"bad weight", []string{"-technique", "buffer", "-w", "snaps=x"}, 2, "-w"},
		{"negative weight", []string{"-technique", "buffer", "-w", "snaps=-1"}, 2, "-w: weights.snaps"},
		{"unknown metric", []string{"-technique", "buffer", "-max", "lag=1"}, 2, `-max: constraints = "lag" is not allowed`},
		{"bad bound", []string{"-technique", "buffer", "-max", "underrun"}, 2, "-max"},
		{"budget", []string{"-technique", "buffer", "-budget", "-3"}, 2, "-budget: budget"},
		{"bad set", []string{"-technique", "buffer", "-set", "loss=95"}, 2, "loss"},
		{"stray argument", []string{"-technique", "buffer", "extra"}, 2, `"extra"`},
	}
	for _, tt := range tests {
		var out, errb bytes.Buffer
		code := runTune(tt.args, &out, &errb)
		if code != tt.code || !strings.Contains(errb.String(), tt.want) {
			t.Errorf("%s: lab tune %v = exit %d, stderr %q; want exit %d naming %q", tt.name, tt.args, code, errb.String(), tt.code, tt.want)
		}
	}
	var out, errb bytes.Buffer
	if code := run([]string{"tune", "-h"}, strings.NewReader(""), &out, &errb); code != 0 || !strings.Contains(errb.String(), "lab tune") {
		t.Errorf("lab tune -h through run = exit %d, stderr %q; want the usage", code, errb.String())
	}
}

// The seed count is checked by the engine and named by its flag.
func TestTuneSeedsFlag(t *testing.T) {
	var out, errb bytes.Buffer
	code := runTune([]string{"-preset", "harbor-before", "-seeds", "2"}, &out, &errb)
	if want := `-seeds: seeds = "2" is not allowed: want a whole number in [3, 20], or 0 for 5`; code != 2 || !strings.Contains(errb.String(), want) {
		t.Errorf("lab tune -seeds 2: exit %d, %q; want 2 and %q", code, errb.String(), want)
	}
}
