package engine

import (
	"cmp"
	"math"
	"slices"
)

// ParetoFront returns the feasible candidates that no other feasible
// candidate beats on both added latency and p95 error, ordered by added
// latency: along the front |AddedLatency| strictly increases and ErrP95
// strictly decreases. The added latency counts by its magnitude, as in
// TuneWeights.Cost: a display leading the truth is out of step too. Of candidates with the same added latency only the
// one of least error can be on it, and of exact ties only the first in
// cands. The result is empty when no candidate is feasible.
func ParetoFront(cands []Candidate) []Candidate {
	var feasible []Candidate
	for _, c := range cands {
		if c.Feasible {
			feasible = append(feasible, c)
		}
	}
	slices.SortStableFunc(feasible, func(a, b Candidate) int {
		return cmp.Or(cmp.Compare(math.Abs(a.Metrics.AddedLatency), math.Abs(b.Metrics.AddedLatency)),
			cmp.Compare(a.Metrics.ErrP95, b.Metrics.ErrP95))
	})
	var front []Candidate
	for _, c := range feasible {
		if len(front) == 0 || c.Metrics.ErrP95 < front[len(front)-1].Metrics.ErrP95 {
			front = append(front, c)
		}
	}
	return front
}
