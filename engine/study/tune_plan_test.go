package study

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"
)

// tunePlan runs spec's search as a team's queue does, a batch at a time,
// and returns the sizes of its batches, the confirmation's included: a
// batch's candidates are independent of each other and may run at once;
// a batch waits for the one before it.
func tunePlan(t *testing.T, spec TuneSpec) []int {
	t.Helper()
	s, err := NewTuneSearch(spec)
	if err != nil {
		t.Fatal(err)
	}
	var plan []int
	for batch := s.Next(); batch != nil; batch = s.Next() {
		cands := make([]Candidate, len(batch))
		for i, set := range batch {
			if cands[i], err = EvaluateCandidate(context.Background(), spec, set, 1); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.Advance(cands); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, len(batch))
	}
	return plan
}

// makespan is how long plan takes on workers workers, in the time of one
// candidate: each batch takes as many rounds as its candidates fill.
func makespan(plan []int, workers int) int {
	n := 0
	for _, b := range plan {
		n += (b + workers - 1) / workers
	}
	return n
}

// A population tuning keeps 16 workers busy: the plan of a 60-candidate
// one takes at most a tenth of its one-worker time on 16 (generations of 8
// took an eighth), for search seeds 1 to 3, and so does the default budget
// of 120 (8.2× with generations of 8); its answer is the same on 1 and 16
// workers. The one-worker time counts the confirmation (the base and 3
// finalists on 5 run seeds) with the budget.
func TestTunePlanSixteenWorkers(t *testing.T) {
	tests := []struct {
		budget int
		seed   uint64
	}{{60, 1}, {60, 2}, {60, 3}, {DefaultTuneBudget, 1}}
	for _, tt := range tests {
		spec := testPopulationTune()
		spec.Budget, spec.Seed = tt.budget, tt.seed
		plan := tunePlan(t, spec)
		one, sixteen := makespan(plan, 1), makespan(plan, 16)
		t.Logf("budget %d, search seed %d: batches %v: makespan %d on 1 worker, %d on 2, %d on 4, %d on 8, %d on 16 (%.1f×)",
			tt.budget, tt.seed, plan, one, makespan(plan, 2), makespan(plan, 4), makespan(plan, 8), sixteen, float64(one)/float64(sixteen))
		if one < spec.Budget || sixteen*10 > one {
			t.Errorf("budget %d, search seed %d: batches %v take %d candidate-times on 16 workers against %d on 1, want at most a tenth and at least the budget on 1",
				tt.budget, tt.seed, plan, sixteen, one)
		}
		if tt.seed != 1 || tt.budget != 60 {
			continue
		}
		r1, err := Tune(context.Background(), spec, 1, nil)
		if err != nil {
			t.Fatal(err)
		}
		r16, err := Tune(context.Background(), spec, 16, nil)
		if err != nil {
			t.Fatal(err)
		}
		a, _ := json.Marshal(r1)
		b, _ := json.Marshal(r16)
		if !bytes.Equal(a, b) {
			t.Errorf("the tuning on 16 workers differs from 1: %s", firstDifference(b, a))
		}
	}
}
