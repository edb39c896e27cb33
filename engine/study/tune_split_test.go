package study

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"interplab/engine"
)

// tuneSplitSpecs are tunings of every kind: on one link over a motion mix,
// over a population, bounding the recovery, a space so small the search
// ends early, and a budget long enough to reach every phase (evolution,
// polish, fill).
func tuneSplitSpecs() map[string]TuneSpec {
	small := harborTuneSpec()
	small.Base.Duration, small.Budget = 3, 30
	space := small
	space.Space = []TuneRange{{Name: "speedClamp", Max: 1}}
	long := harborTuneSpec()
	long.Base.Duration, long.Budget = 2, 90
	long.Constraints = []Constraint{{Metric: "underrun", Max: 0.2}} // no latency bound: no start from the floor's probe
	return map[string]TuneSpec{"harbor": harborTuneSpec(), "small": small, "space": space, "long": long,
		"population": testPopulationTune(), "recovery": outageTuneSpec()}
}

// A tuning run as a queue runs it, a batch of candidates at a time, each
// candidate evaluated alone (EvaluateCandidate) and through JSON, the
// search's state through JSON and the search resumed from it and every
// candidate so far at each batch, ends on Tune's result byte for byte.
func TestTuneSearchInBatches(t *testing.T) {
	for name, spec := range tuneSplitSpecs() {
		t.Run(name, func(t *testing.T) {
			whole, err := Tune(context.Background(), spec, 2, nil)
			if err != nil {
				t.Fatal(err)
			}
			want, _ := json.Marshal(whole)

			s, err := NewTuneSearch(spec)
			if err != nil {
				t.Fatal(err)
			}
			var all []Candidate
			batches := 0
			phases := map[string]bool{}
			for batch := s.Next(); batch != nil; batch = s.Next() {
				batches++
				var state TuneState
				roundTrip(t, s.State(), &state)
				phases[state.Phase] = true
				// The candidates of a batch finish in any order.
				cands := make([]Candidate, len(batch))
				for i := len(batch) - 1; i >= 0; i-- {
					c, err := EvaluateCandidate(context.Background(), spec, batch[i], i%2+1)
					if err != nil {
						t.Fatal(err)
					}
					roundTrip(t, c, &cands[i])
				}
				all = append(all, cands...)
				if s, err = ResumeTuneSearch(spec, state, all); err != nil {
					t.Fatal(err)
				}
			}
			if got, _ := json.Marshal(s.Result()); !bytes.Equal(got, want) {
				t.Errorf("the search in %d batches differs from Tune: %s", batches, firstDifference(got, want))
			}
			// The search's candidates, then the base and the finalists on
			// every seed of the set.
			if want := len(whole.Candidates) + (1+len(whole.Finalists))*len(whole.Seeds); len(all) != want || len(whole.Seeds) != DefaultTuneSeeds {
				t.Errorf("%d candidates in %d batches, want Tune's %d and its confirmation, %d in all, on %d seeds",
					len(all), batches, len(whole.Candidates), want, len(whole.Seeds))
			}
			if name == "long" && !(phases[phaseEvolve] && phases[phasePolish] && phases[phaseFill] && phases[phaseConfirm]) {
				t.Errorf("the long search's batches were of phases %v, want evolve, polish, fill and confirm among them", phases)
			}

			// The same search held in memory, advanced batch by batch.
			s, _ = NewTuneSearch(spec)
			for batch := s.Next(); batch != nil; batch = s.Next() {
				cands := make([]Candidate, len(batch))
				for i, set := range batch {
					if cands[i], err = EvaluateCandidate(context.Background(), spec, set, 0); err != nil {
						t.Fatal(err)
					}
				}
				if err := s.Advance(cands); err != nil {
					t.Fatal(err)
				}
			}
			if got, _ := json.Marshal(s.Result()); !bytes.Equal(got, want) {
				t.Errorf("the search advanced in memory differs from Tune: %s", firstDifference(got, want))
			}
		})
	}
}

// Next returns the same batch until Advance; Advance takes exactly the
// batch's candidates; a state that does not fit its candidates is refused.
func TestTuneSearchMisuse(t *testing.T) {
	spec := tuneSplitSpecs()["small"]
	s, err := NewTuneSearch(spec)
	if err != nil {
		t.Fatal(err)
	}
	first := s.Next()
	if again := s.Next(); len(again) != len(first) || tuneKey(&again[3], engine.TechniqueGroup(spec.Technique)) != tuneKey(&first[3], engine.TechniqueGroup(spec.Technique)) {
		t.Fatalf("Next before Advance gave another batch")
	}
	cands := make([]Candidate, len(first))
	for i, set := range first {
		if cands[i], err = EvaluateCandidate(context.Background(), spec, set, 0); err != nil {
			t.Fatal(err)
		}
	}
	state := s.State()
	if err := s.Advance(cands[1:]); err == nil {
		t.Errorf("Advance with a candidate short: no error")
	}
	swapped := append([]Candidate{cands[1], cands[0]}, cands[2:]...)
	if err := s.Advance(swapped); err == nil {
		t.Errorf("Advance with two candidates swapped: no error")
	}
	if _, err := ResumeTuneSearch(spec, state, cands[:len(cands)-1]); err == nil {
		t.Errorf("ResumeTuneSearch with a candidate short: no error")
	}
	bad := state
	bad.Phase = "dance"
	if _, err := ResumeTuneSearch(spec, bad, cands); err == nil {
		t.Errorf("ResumeTuneSearch in phase %q: no error", bad.Phase)
	}
	if err := s.Advance(cands); err != nil {
		t.Errorf("Advance with the batch's candidates: %v", err)
	}
	spec.Budget = -1
	if _, err := NewTuneSearch(spec); err == nil {
		t.Errorf("NewTuneSearch of an invalid spec: no error")
	}
	if _, err := EvaluateCandidate(context.Background(), spec, first[0], 1); err == nil {
		t.Errorf("EvaluateCandidate of an invalid spec: no error")
	}
}

// roundTrip encodes v as JSON and decodes it into out, as a queue keeps
// a unit's result.
func roundTrip(t *testing.T, v, out any) {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatal(err)
	}
}
