package study

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"testing"

	"interplab/engine"
)

// mirrorNoiseSpec is the review's case: Mirror at its 30 Hz defaults on an
// 80 ms link with 20 ms of jitter and 1% loss, extraLatency ≤ 110 ms. Its
// search used to recommend "16.3 against 16.4", worse on the underrun
// rounds, and a different setting for each search seed.
func mirrorNoiseSpec(t *testing.T, seed uint64) TuneSpec {
	t.Helper()
	// The preset, read as the presets package reads it (which imports this
	// package, so a test here cannot).
	data, err := os.ReadFile("../../presets/mirror-30hz.json")
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Settings json.RawMessage `json:"settings"`
	}
	s := engine.Defaults()
	if err := json.Unmarshal(data, &file); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(file.Settings, &s); err != nil {
		t.Fatal(err)
	}
	s.Latency, s.Jitter, s.Loss = 0.08, 0.02, 0.01
	return TuneSpec{Base: s, Technique: "mirror", Weights: DefaultTuneWeights(),
		Constraints: []Constraint{{Metric: ExtraLatencyMetric, Max: 0.11}}, Seed: seed}
}

// On the review's Mirror case the search seeds 1 to 5 agree: all say there
// is no meaningful improvement, or all recommend a setting that costs less
// on every seed of the set; and every verdict keeps to the rule.
func TestTuneMirrorNoise(t *testing.T) {
	seeds := []uint64{1, 2, 3, 4, 5}
	if testing.Short() {
		seeds = seeds[:2]
	}
	var recommended []bool
	for _, seed := range seeds {
		spec := mirrorNoiseSpec(t, seed)
		r, err := Tune(context.Background(), spec, 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		checkVerdict(t, fmt.Sprintf("mirror, search seed %d", seed), &r)
		if r.Recommended && r.Base.Feasible && r.Best.Confirm.Wins != len(r.Seeds) {
			t.Errorf("search seed %d recommends a setting cheaper on %d of %d seeds", seed, r.Best.Confirm.Wins, len(r.Seeds))
		}
		recommended = append(recommended, r.Recommended)
		t.Logf("search seed %d: recommended %v; base cost %.3f over seeds %v", seed, r.Recommended, r.Base.Cost, r.Seeds)
		for _, f := range r.Finalists {
			t.Logf("  finalist cost %.3f, gain %.3f ± %.3f, %d wins: %s", f.Cost, f.Confirm.Gain, f.Confirm.GainSE, f.Confirm.Wins, f.Confirm.Verdict)
		}
	}
	for i := range recommended {
		if recommended[i] != recommended[0] {
			t.Errorf("search seeds %v: recommended %v; want every one to say the same", seeds, recommended)
			break
		}
	}
}

// Different seed sets agree on whether to change: on the Harbor link the
// recommendation to raise the delay stands on the sets after run seeds 1,
// 40 and 900; and the finalists' costs on the set are their runs on those
// seeds (common random numbers: each seed runs every candidate alike).
func TestTuneSeedSetsAgree(t *testing.T) {
	for _, runSeed := range []int{1, 40, 900} {
		spec := harborTuneSpec()
		spec.Base.Seed = runSeed
		r, err := Tune(context.Background(), spec, 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		checkVerdict(t, fmt.Sprintf("harbor, run seed %d", runSeed), &r)
		if !r.Recommended || !(r.Best.Settings.Delay > spec.Base.Delay) {
			t.Errorf("run seed %d: recommended %v, delay %v; want a longer delay than %v recommended on every set",
				runSeed, r.Recommended, r.Best.Settings.Delay, spec.Base.Delay)
		}
		if want := TuneSeedSet(&spec.Base, DefaultTuneSeeds); fmt.Sprint(r.Seeds) != fmt.Sprint(want) || r.Seeds[0] != runSeed+1 {
			t.Errorf("run seed %d: confirmed on seeds %v, want %v", runSeed, r.Seeds, want)
		}
		if runSeed != 1 {
			continue
		}
		for _, c := range append([]Candidate{r.Base}, r.Finalists...) {
			for k, seed := range r.Seeds {
				s := c.Settings
				s.Seed = seed
				got, err := EvaluateCandidate(context.Background(), spec, s, 0)
				if err != nil {
					t.Fatal(err)
				}
				if got.Cost != c.Confirm.Costs[k] {
					t.Errorf("cost on seed %d = %v, want its run's %v", seed, c.Confirm.Costs[k], got.Cost)
				}
			}
			if mean, _ := seedStats(c.Confirm.Costs); math.Abs(c.Cost-mean) > 1e-12 {
				t.Errorf("cost over the set = %v, want the mean of %v", c.Cost, c.Confirm.Costs)
			}
		}
	}
}

// Over a population, seed k of the set draws another sample of players:
// the base's costs differ from seed to seed.
func TestTunePopulationSeedSet(t *testing.T) {
	spec := testPopulationTune()
	r, err := Tune(context.Background(), spec, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.Base.Confirm == nil || len(r.Base.Confirm.Costs) != DefaultTuneSeeds {
		t.Fatalf("population tuning: base confirmed %+v, want on %d seeds", r.Base.Confirm, DefaultTuneSeeds)
	}
	costs := r.Base.Confirm.Costs
	same := true
	for _, c := range costs[1:] {
		same = same && c == costs[0]
	}
	if same {
		t.Errorf("population tuning: the base costs %v on every seed of the set, want other samples of players", costs)
	}
	checkVerdict(t, "population", &r)
}

// The seed count is validated: a FieldError on "seeds" naming the range.
func TestTuneSeedsField(t *testing.T) {
	for _, tc := range []struct {
		seeds int
		ok    bool
	}{{0, true}, {3, true}, {20, true}, {2, false}, {21, false}, {-1, false}} {
		spec := harborTuneSpec()
		spec.Seeds = tc.seeds
		err := spec.Validate()
		var fe *engine.FieldError
		switch {
		case tc.ok && err != nil:
			t.Errorf("seeds %d: Validate() = %v, want nil", tc.seeds, err)
		case !tc.ok && (!errors.As(err, &fe) || fe.Field != "seeds" || fe.Allowed != "a whole number in [3, 20], or 0 for 5"):
			t.Errorf("seeds %d: Validate() = %v, want a FieldError on seeds naming [3, 20]", tc.seeds, err)
		}
	}
}
