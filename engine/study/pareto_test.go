package study

import (
	"math"
	"reflect"
	"testing"

	"interplab/engine"
	"interplab/engine/geom"
)

func paretoCand(lat, err float64, feasible bool) Candidate {
	return Candidate{Metrics: engine.Metrics{AddedLatency: lat, ErrAligned: err}, Feasible: feasible}
}

func TestParetoFront(t *testing.T) {
	tests := []struct {
		name  string
		cands []Candidate
		want  []int // indices into cands, in front order
	}{
		{"empty", nil, nil},
		{"one", []Candidate{paretoCand(0.1, 0.5, true)}, []int{0}},
		{"trade-off, unsorted", []Candidate{
			paretoCand(0.2, 0.3, true), paretoCand(0.1, 0.5, true), paretoCand(0.3, 0.1, true),
		}, []int{1, 0, 2}},
		{"dominated dropped", []Candidate{
			paretoCand(0.1, 0.5, true), paretoCand(0.2, 0.6, true), paretoCand(0.15, 0.4, true),
		}, []int{0, 2}},
		{"infeasible ignored", []Candidate{
			paretoCand(0.05, 0.1, false), paretoCand(0.1, 0.5, true), paretoCand(0.2, 0.4, true),
		}, []int{1, 2}},
		{"none feasible", []Candidate{paretoCand(0.05, 0.1, false)}, nil},
		{"same latency: least error", []Candidate{
			paretoCand(0.1, 0.5, true), paretoCand(0.1, 0.4, true), paretoCand(0.2, 0.45, true),
		}, []int{1}},
		{"exact tie: first", []Candidate{
			{Metrics: engine.Metrics{AddedLatency: 0.1, ErrAligned: 0.4, Snaps: 1}, Feasible: true},
			{Metrics: engine.Metrics{AddedLatency: 0.1, ErrAligned: 0.4, Snaps: 2}, Feasible: true},
		}, []int{0}},
		{"same error later: dropped", []Candidate{
			paretoCand(0.1, 0.4, true), paretoCand(0.2, 0.4, true),
		}, []int{0}},
		{"leading display, by magnitude", []Candidate{
			paretoCand(0.1, 0.4, true), paretoCand(-0.02, 0.9, true), paretoCand(-0.2, 0.5, true), paretoCand(0.3, 0.3, true),
		}, []int{1, 0, 3}},
	}
	for _, tt := range tests {
		got := ParetoFront(tt.cands)
		var want []Candidate
		for _, i := range tt.want {
			want = append(want, tt.cands[i])
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: ParetoFront = %+v, want %+v", tt.name, got, want)
		}
	}
}

// On random clouds the front is monotone, undominated, and dominates every
// other feasible point.
func TestParetoFrontRandom(t *testing.T) {
	r := geom.NewRNG(3, 0)
	for trial := range 200 {
		cands := make([]Candidate, 1+r.Uint64()%40)
		for i := range cands {
			// Coarse values, so that ties happen.
			cands[i] = paretoCand(float64(r.Uint64()%20)/100-0.05, float64(r.Uint64()%20)/10, r.Uint64()%4 != 0)
		}
		front := ParetoFront(cands)
		for i := 1; i < len(front); i++ {
			a, b := front[i-1].Metrics, front[i].Metrics
			if !(math.Abs(b.AddedLatency) > math.Abs(a.AddedLatency) && b.ErrAligned < a.ErrAligned) {
				t.Fatalf("trial %d: front not monotone at %d: %+v then %+v", trial, i, a, b)
			}
		}
		for _, c := range cands {
			if !c.Feasible {
				continue
			}
			covered := false
			for _, f := range front {
				fl, cl := math.Abs(f.Metrics.AddedLatency), math.Abs(c.Metrics.AddedLatency)
				if fl <= cl && f.Metrics.ErrAligned <= c.Metrics.ErrAligned {
					covered = true
				}
				if cl <= fl && c.Metrics.ErrAligned <= f.Metrics.ErrAligned && (cl < fl || c.Metrics.ErrAligned < f.Metrics.ErrAligned) {
					t.Fatalf("trial %d: front point %+v is dominated by %+v", trial, f.Metrics, c.Metrics)
				}
			}
			if !covered {
				t.Fatalf("trial %d: feasible %+v not covered by the front", trial, c.Metrics)
			}
		}
	}
}
