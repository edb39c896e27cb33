package study

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"interplab/engine"
)

// A sweep cut into runs of grid points, each run's points through JSON as a
// queue stores them, merges to Sweep's points byte for byte, whatever the
// cut; a point whose settings are invalid keeps its error.
func TestSweepPointsMerge(t *testing.T) {
	base := sweepTestBase()
	base.Duration = 2
	spec := SweepSpec{Base: base, Technique: engine.TechBuffer,
		X: Axis{Name: "sendRate", Min: 10, Max: 30, Steps: 3}, Y: &Axis{Name: "delay", Min: 0.02, Max: 0.12, Steps: 2}}
	whole, err := Sweep(context.Background(), spec, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := json.Marshal(whole)
	if !bytes.Contains(want, []byte(`"err"`)) {
		t.Fatalf("no point of the test sweep has an error: %s", want)
	}
	n := spec.Points()
	for _, cut := range [][]int{{0, n}, {0, 1, 2, 3, 4, 5, n}, {0, 4, n}} {
		var pts []SweepPoint
		for c := len(cut) - 2; c >= 0; c-- {
			got, err := SweepPoints(context.Background(), spec, cut[c], cut[c+1], c%2+1, nil)
			if err != nil {
				t.Fatal(err)
			}
			raw, _ := json.Marshal(got)
			var back []SweepPoint
			if err := json.Unmarshal(raw, &back); err != nil {
				t.Fatal(err)
			}
			pts = append(pts, back...)
		}
		merged, err := MergeSweep(spec, pts)
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := json.Marshal(merged); !bytes.Equal(got, want) {
			t.Errorf("cut %v: the merged points differ from Sweep's: %s", cut, firstDifference(got, want))
		}
	}
}

// Points outside the grid, or a merge missing a point or holding one
// twice, are an error; nothing is merged.
func TestSweepPointsErrors(t *testing.T) {
	spec := SweepSpec{Base: sweepTestBase(), Technique: engine.TechSnap, X: Axis{Name: "sendRate", Min: 10, Max: 20, Steps: 3}}
	spec.Base.Duration = 1
	for _, r := range [][2]int{{-1, 2}, {2, 2}, {0, 4}} {
		_, err := SweepPoints(context.Background(), spec, r[0], r[1], 1, nil)
		if fe, ok := err.(*engine.FieldError); !ok || fe.Field != "from" && fe.Field != "to" {
			t.Errorf("SweepPoints(%d, %d) = %v, want a FieldError on from or to", r[0], r[1], err)
		}
	}
	pts, err := SweepPoints(context.Background(), spec, 0, 3, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	for name, bad := range map[string][]SweepPoint{
		"one missing":  pts[1:],
		"one twice":    {pts[0], pts[1], pts[1]},
		"off the grid": {pts[0], pts[1], {I: 3}},
	} {
		if got, err := MergeSweep(spec, bad); err == nil || got != nil {
			t.Errorf("MergeSweep(%s) = %v, %v; want an error", name, got, err)
		}
	}
}
