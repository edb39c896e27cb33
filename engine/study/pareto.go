package study

import (
	"cmp"
	"math"
	"slices"
)

// ParetoFront returns the feasible candidates that no other feasible
// candidate beats on both added latency and aligned error, ordered by added
// latency: along the front |AddedLatency| strictly increases and ErrAligned
// strictly decreases. The error is the aligned one (against the truth
// shifted by the added latency) because the error at the same instant grows
// with the delay itself and would leave a front of one point: the trade a
// designer makes is latency for a truer path. The added latency counts by
// its magnitude, as in TuneWeights.Cost: a display leading the truth is out
// of step too. Of candidates with the same added latency only the one of
// least error can be on it, and of exact ties only the first in cands. The
// result is empty when no candidate is feasible.
func ParetoFront(cands []Candidate) []Candidate {
	var feasible []Candidate
	for _, c := range cands {
		if c.Feasible {
			feasible = append(feasible, c)
		}
	}
	slices.SortStableFunc(feasible, func(a, b Candidate) int {
		return cmp.Or(cmp.Compare(math.Abs(a.Metrics.AddedLatency), math.Abs(b.Metrics.AddedLatency)),
			cmp.Compare(a.Metrics.ErrAligned, b.Metrics.ErrAligned))
	})
	var front []Candidate
	for _, c := range feasible {
		if len(front) == 0 || c.Metrics.ErrAligned < front[len(front)-1].Metrics.ErrAligned {
			front = append(front, c)
		}
	}
	return front
}
