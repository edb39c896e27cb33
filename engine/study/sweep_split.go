package study

import (
	"context"
	"slices"
	"strconv"

	"interplab/engine"
)

// A sweep cut into runs of grid points: each point is a whole run of its
// own settings, so runs of points [a, b) can run anywhere, in any order,
// and their points merged in grid order are what Sweep returns, byte for
// byte. A team's lab runs its sweeps this way, a run of points per unit of
// work on its queue.

// SweepPoints runs points [from, to) of spec's grid, numbered as Sweep
// orders them (point k has I = k mod X.Steps, J = k div X.Steps), on
// workers goroutines (GOMAXPROCS when ≤ 0), and returns them in grid
// order. progress and ctx are Sweep's, with total = to − from; when ctx
// is done it returns ctx.Err() with the points that finished.
//
// It validates spec and the run first: from in [0, points − 1] and to in
// [from + 1, points]; the error is a *FieldError naming the spec's field,
// or "from" or "to".
func SweepPoints(ctx context.Context, spec SweepSpec, from, to, workers int, progress func(p SweepPoint, done, total int)) ([]SweepPoint, error) {
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	if err := checkSpan(from, to, spec.Points(), "a point of the grid", "points"); err != nil {
		return nil, err
	}
	return sweepPoints(ctx, &spec, from, to, workers, progress)
}

// checkSpan checks the span [from, to) of a study cut into n items (a
// sweep's points, a population's entities): from in [0, n − 1] and to in
// [from + 1, n]. The error is a *FieldError on "from" or "to"; item names
// one of them ("a point of the grid"), count their number ("points").
func checkSpan(from, to, n int, item, count string) error {
	if from < 0 || from >= n {
		return &engine.FieldError{Field: "from", Value: strconv.Itoa(from), Allowed: item + ": a whole number in [0, " + strconv.Itoa(n-1) + "]"}
	}
	if to <= from || to > n {
		return &engine.FieldError{Field: "to", Value: strconv.Itoa(to), Allowed: "a whole number in [from + 1, " + count + "] = [" + strconv.Itoa(from+1) + ", " + strconv.Itoa(n) + "]"}
	}
	return nil
}

// MergeSweep returns the points of spec's grid in grid order, as Sweep
// returns them, from the points of runs (SweepPoints) that cover the grid:
// every point once, in any order. A point missing or twice, or one off the
// grid, is an error, a *FieldError on "points", and no points.
func MergeSweep(spec SweepSpec, points []SweepPoint) ([]SweepPoint, error) {
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	n, nx := spec.Points(), spec.X.Steps
	all := "every point of the grid once: " + strconv.Itoa(n)
	if len(points) != n {
		return nil, &engine.FieldError{Field: "points", Value: strconv.Itoa(len(points)) + " points", Allowed: all}
	}
	key := func(p *SweepPoint) int {
		if p.I < 0 || p.I >= nx || p.J < 0 || p.J*nx >= n {
			return -1
		}
		return p.J*nx + p.I
	}
	sorted := slices.Clone(points)
	slices.SortStableFunc(sorted, func(a, b SweepPoint) int { return key(&a) - key(&b) })
	for k := range sorted {
		if got := key(&sorted[k]); got != k {
			return nil, &engine.FieldError{Field: "points", Value: "point (" + strconv.Itoa(sorted[k].I) + ", " + strconv.Itoa(sorted[k].J) + ") where point " + strconv.Itoa(k) + " belongs", Allowed: all}
		}
	}
	return sorted, nil
}
