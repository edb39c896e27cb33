package study

import (
	"context"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"interplab/engine"
)

// MaxSweepPoints is the largest number of points a sweep may have: the
// product of its axes' steps.
const MaxSweepPoints = 10000

// Axis is one swept parameter: Steps values evenly spaced from Min to Max
// inclusive, in the parameter's stored unit (an index for an Enum, 0 or 1
// for a Bool). With one step the only value is Min.
type Axis struct {
	Name  string  `json:"name"`  // vocabulary name of a Float, Int, Bool or Enum parameter
	Min   float64 `json:"min"`   // first value, in the parameter's range
	Max   float64 `json:"max"`   // last value, in [Min, the parameter's maximum]
	Steps int     `json:"steps"` // number of values, in [1, MaxSweepPoints]
}

// Values returns the axis's values in order. Whole-number kinds (Int, Bool,
// Enum) are rounded to whole numbers; Validate makes sure no two are equal.
func (a Axis) Values() []float64 {
	if a.Steps < 1 {
		return nil
	}
	p, ok := engine.Lookup(a.Name)
	whole := ok && p.Kind != engine.Float
	vs := make([]float64, a.Steps)
	for i := range vs {
		v := a.Min
		if a.Steps > 1 {
			v = a.Min + float64(i)*(a.Max-a.Min)/float64(a.Steps-1)
		}
		if i > 0 && i == a.Steps-1 {
			v = a.Max // exactly, whatever the rounding above
		}
		if whole {
			v = math.Round(v)
		}
		vs[i] = v
	}
	return vs
}

// validate checks the axis; field is its name in the spec ("x" or "y").
func (a *Axis) validate(field string) error {
	p, ok := engine.Lookup(a.Name)
	if !ok {
		return &engine.FieldError{Field: field + ".name", Value: a.Name, Allowed: "a parameter name (see Params)"}
	}
	if p.Kind == engine.Set {
		return &engine.FieldError{Field: field + ".name", Value: a.Name, Allowed: "a number, Bool or Enum parameter"}
	}
	if err := p.Check(a.Min); err != nil {
		return &engine.FieldError{Field: field + ".min", Value: p.ValueText(a.Min), Allowed: p.Allowed()}
	}
	if err := p.Check(a.Max); err != nil {
		return &engine.FieldError{Field: field + ".max", Value: p.ValueText(a.Max), Allowed: p.Allowed()}
	}
	if a.Max < a.Min {
		return &engine.FieldError{Field: field + ".max", Value: p.ValueText(a.Max),
			Allowed: "at least " + field + ".min = " + p.ValueText(a.Min)}
	}
	most := MaxSweepPoints
	if p.Kind != engine.Float && a.Max-a.Min+1 < MaxSweepPoints {
		most = int(a.Max-a.Min) + 1 // one step per whole value at most
	}
	if a.Steps < 1 || a.Steps > most {
		return &engine.FieldError{Field: field + ".steps", Value: strconv.Itoa(a.Steps),
			Allowed: "a whole number in [1, " + strconv.Itoa(most) + "]"}
	}
	return nil
}

// SweepSpec describes a sweep: one technique run on Base with one or two of
// its parameters varied over a grid.
type SweepSpec struct {
	// Base holds every setting that is not swept: scenario, network and
	// the technique's own. Its Techniques are ignored; each point runs
	// Technique alone.
	Base      engine.Settings `json:"base"`
	Technique string          `json:"technique"` // one of TechniqueNames
	X         Axis            `json:"x"`
	Y         *Axis           `json:"y,omitempty"` // nil for a one-parameter sweep
}

// Points returns the number of points of the grid: X.Steps × Y.Steps.
func (spec *SweepSpec) Points() int {
	n := max(spec.X.Steps, 0)
	if spec.Y != nil {
		n *= max(spec.Y.Steps, 0)
	}
	return n
}

// Validate checks the spec: a known technique, valid base settings, axes
// over known parameters within their ranges, two different parameters, and
// at most MaxSweepPoints points. The error is a *FieldError naming the
// spec's field ("technique", "x.name", "y.steps", "points"...) or the base's
// first invalid field.
func (spec *SweepSpec) Validate() error {
	if !slices.Contains(engine.TechniqueNames, spec.Technique) {
		return &engine.FieldError{Field: "technique", Value: spec.Technique, Allowed: "one of " + strings.Join(engine.TechniqueNames, ", ")}
	}
	base := spec.Base
	base.Techniques = []string{spec.Technique}
	if err := base.Validate(); err != nil {
		return err
	}
	if err := spec.X.validate("x"); err != nil {
		return err
	}
	if spec.Y != nil {
		if err := spec.Y.validate("y"); err != nil {
			return err
		}
		if spec.Y.Name == spec.X.Name {
			return &engine.FieldError{Field: "y.name", Value: spec.Y.Name, Allowed: "a parameter other than x.name"}
		}
		// Each axis is at most MaxSweepPoints, so the product fits an int.
		if n := spec.Points(); n > MaxSweepPoints {
			return &engine.FieldError{Field: "points", Value: strconv.Itoa(n),
				Allowed: "at most " + strconv.Itoa(MaxSweepPoints) + " (x.steps × y.steps)"}
		}
	}
	return nil
}

// SweepPoint is the outcome of one point of a sweep.
type SweepPoint struct {
	I       int            `json:"i"`             // index of X in the x axis's Values
	J       int            `json:"j"`             // index of Y in the y axis's Values; 0 without a y axis
	X       float64        `json:"x"`             // the x parameter's value
	Y       float64        `json:"y"`             // the y parameter's value; 0 without a y axis
	Metrics engine.Metrics `json:"metrics"`       // the technique's metrics; zero when Err is set
	Err     string         `json:"err,omitempty"` // why the point's settings are not valid, e.g. a sendRate above the tickRate
}

// Sweep runs spec's technique at every point of its grid and returns the
// points in grid order: point k has I = k mod X.Steps and J = k div X.Steps,
// so x varies fastest (rows of a heatmap are y values). Each point is a whole
// Run of spec.Base with the swept values set and Technique alone: its metrics
// are Run's, whatever the worker count.
//
// Sweep validates spec first and returns its error (a *FieldError) without
// running anything. A point whose settings fail validation (a constraint
// between fields, such as sendRate above tickRate) is not fatal: it carries
// the error in Err.
//
// The points run on workers goroutines (GOMAXPROCS when workers ≤ 0).
// progress, if not nil, is called once per finished point with the number
// finished so far and the total; the calls come one at a time from the
// goroutine that called Sweep, in the order points finish, which depends on
// scheduling. A slow progress slows the sweep but never races it.
//
// When ctx is done, Sweep stops within about a millisecond of simulation
// per worker, and returns ctx.Err() with the points that finished, still in
// grid order (a subset: use I and J to place them).
func Sweep(ctx context.Context, spec SweepSpec, workers int, progress func(p SweepPoint, done, total int)) ([]SweepPoint, error) {
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	return sweepPoints(ctx, &spec, 0, spec.Points(), workers, progress)
}

// sweepPoints runs points [from, to) of spec, valid, as Sweep documents;
// on ctx done it returns the points that finished, in grid order.
func sweepPoints(ctx context.Context, spec *SweepSpec, from, to, workers int, progress func(p SweepPoint, done, total int)) ([]SweepPoint, error) {
	px, _ := engine.Lookup(spec.X.Name)
	xs := spec.X.Values()
	var py *engine.Param
	ys := []float64{0}
	if spec.Y != nil {
		py, _ = engine.Lookup(spec.Y.Name)
		ys = spec.Y.Values()
	}
	total := to - from
	points := make([]SweepPoint, total)
	finished := make([]bool, total)
	job := func(ctx context.Context, i int) error {
		k := from + i
		pt := SweepPoint{I: k % len(xs), J: k / len(xs)}
		pt.X, pt.Y = xs[pt.I], ys[pt.J]
		s := spec.Base
		s.Techniques = []string{spec.Technique}
		// The values are in range (Validate), so Set cannot fail.
		px.Write(&s, pt.X)
		if py != nil {
			py.Write(&s, pt.Y)
		}
		if err := s.Validate(); err != nil {
			pt.Err = err.Error()
		} else {
			ms, err := sweepRun(ctx, s)
			if err != nil {
				return err
			}
			pt.Metrics = ms[0]
		}
		points[i] = pt
		return nil
	}
	done := 0
	err := sweepPool(ctx, total, workers, job, func(i int) {
		finished[i] = true
		done++
		if progress != nil {
			progress(points[i], done, total)
		}
	})
	if err != nil {
		out := make([]SweepPoint, 0, done)
		for i, f := range finished {
			if f {
				out = append(out, points[i])
			}
		}
		return out, err
	}
	return points, nil
}

// sweepRun is Run for valid settings s, returning the Metrics of every
// technique in Techniques order; it gives up with ctx.Err() when ctx is
// done. Stepping in chunks gives the same numbers as one StepFrames.
func sweepRun(ctx context.Context, s engine.Settings) ([]engine.Metrics, error) {
	m, err := engine.NewQuietSim(s)
	if err != nil {
		return nil, err
	}
	if err := m.StepAll(ctx); err != nil {
		return nil, err
	}
	return m.Metrics(nil), nil
}

// sweepPool runs job(ctx, i) for every i in [0, n) on workers goroutines
// (GOMAXPROCS when workers ≤ 0) and calls finished(i) from the calling
// goroutine, one call at a time, as each job returns nil. A job returns an
// error only when ctx is done; then no new jobs start, and sweepPool returns
// ctx.Err() once the running ones have stopped. It returns nil when every
// job finished.
func sweepPool(ctx context.Context, n, workers int, job func(ctx context.Context, i int) error, finished func(i int)) error {
	if n == 0 {
		return ctx.Err()
	}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, n)
	var next atomic.Int64
	results := make(chan int, workers)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for ctx.Err() == nil {
				i := int(next.Add(1) - 1)
				if i >= n || job(ctx, i) != nil {
					return
				}
				results <- i
			}
		})
	}
	go func() {
		wg.Wait()
		close(results)
	}()
	count := 0
	for i := range results {
		count++
		finished(i)
	}
	if count < n {
		return ctx.Err()
	}
	return nil
}
