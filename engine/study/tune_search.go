package study

import (
	"context"
	"math"
	"slices"
	"strconv"

	"interplab/engine"
	"interplab/engine/geom"
)

// The evolution's parameters, in unit-cube coordinates: each searched
// parameter's range maps to [0, 1].
const (
	tuneLambda   = 8    // candidates per generation
	tuneElites   = 3    // parents: the best candidates so far
	tuneSigma0   = 0.15 // initial mutation step
	tuneSigmaMax = 0.5
	tuneSigmaMin = 0.01 // below it the step restarts at tuneSigmaRe
	tuneSigmaRe  = 0.3
	tuneTries    = 20 // mutations tried per slot before giving it up as a duplicate
)

// tuneDim is one searched parameter.
type tuneDim struct {
	p        *engine.Param
	min, max float64
	values   int     // number of whole values, for Int and Bool; 0 for Float
	scale    float64 // 10^decimals of the parameter's Step, for rounding to it
	unit     float64 // the Step in units of 1/scale
}

type tuneSearch struct {
	spec     TuneSpec
	dims     []tuneDim
	rng      *geom.RNG
	workers  int
	progress func(c Candidate, done, total int)

	transit float64 // the base link's mean one-way transit, s (LinkTransit), for extraLatency

	cands   []Candidate
	units   [][]float64         // each candidate's point in the unit cube
	changed []int               // how many of each candidate's technique settings differ from the base's
	seen    map[string]struct{} // keys of the candidates proposed, to skip duplicates
	done    int
	hasBase bool // cands[0] is the base
}

func newTuneSearch(spec TuneSpec, workers int, progress func(Candidate, int, int)) *tuneSearch {
	t := &tuneSearch{spec: spec, rng: geom.NewRNG(spec.Seed, 0x74756e65), workers: workers, progress: progress,
		seen: make(map[string]struct{}), transit: LinkTransit(&spec.Base)}
	for _, r := range spec.Space {
		p, _ := engine.Lookup(r.Name)
		d := tuneDim{p: p, min: r.Min, max: r.Max}
		if p.Kind != engine.Float {
			d.values = int(r.Max-r.Min) + 1
		} else if p.Step > 0 {
			d.scale = 1
			for x := p.Step; d.scale < 1e9 && math.Abs(x-math.Round(x)) > 1e-9; x *= 10 {
				d.scale *= 10
			}
			d.unit = math.Round(p.Step * d.scale)
		}
		t.dims = append(t.dims, d)
	}
	return t
}

// value maps u in [0, 1] to the dimension's value.
func (d *tuneDim) value(u float64) float64 {
	if d.values > 0 {
		k := min(max(math.Floor(u*float64(d.values)), 0), float64(d.values-1))
		return d.min + k
	}
	v := d.min + float64(u*(d.max-d.min))
	if d.unit > 0 {
		// k/scale is the double nearest the decimal, as if parsed.
		v = math.Round(v*d.scale/d.unit) * d.unit / d.scale
	}
	return min(max(v, d.min), d.max)
}

// coord maps a value to its point in [0, 1]: the middle of its cell for
// whole values.
func (d *tuneDim) coord(v float64) float64 {
	if d.values > 0 {
		return min(max((v-d.min+0.5)/float64(d.values), 0), 1)
	}
	if d.max == d.min {
		return 0.5
	}
	return min(max((v-d.min)/(d.max-d.min), 0), 1)
}

// settings returns the base with the searched parameters at point u,
// adjusted as Tune documents.
func (t *tuneSearch) settings(u []float64) engine.Settings {
	s := t.spec.Base
	for i := range t.dims {
		t.dims[i].p.Write(&s, t.dims[i].value(u[i]))
	}
	t.adjust(&s)
	return s
}

// adjust makes a candidate valid and canonical, as its technique's
// Canonical does (the buffer's margin and delayCap do nothing without the
// adaptive delay, so they keep the base's values).
func (t *tuneSearch) adjust(s *engine.Settings) {
	engine.Canonicalize(t.spec.Technique, s, &t.spec.Base)
}

// tuneKey identifies a candidate by its technique settings (the
// parameters of group), to skip duplicates.
func tuneKey(s *engine.Settings, group string) string {
	var b []byte
	params := engine.Params()
	for i := range params {
		if p := &params[i]; p.Group == group {
			b = strconv.AppendFloat(b, p.Get(s), 'g', -1, 64)
			b = append(b, ',')
		}
	}
	return string(b)
}

// tuneChanged counts the parameters of group whose values differ in a and b.
func tuneChanged(a, b *engine.Settings, group string) int {
	n := 0
	params := engine.Params()
	for i := range params {
		if p := &params[i]; p.Group == group && p.Get(a) != p.Get(b) {
			n++
		}
	}
	return n
}

// pending is a candidate chosen but not yet evaluated.
type tunePending struct {
	s engine.Settings
	u []float64
}

// propose adds s to batch unless it was seen before; it reports whether it did.
func (t *tuneSearch) propose(batch []tunePending, s engine.Settings) ([]tunePending, bool) {
	k := tuneKey(&s, engine.TechniqueGroup(t.spec.Technique))
	if _, dup := t.seen[k]; dup {
		return batch, false
	}
	t.seen[k] = struct{}{}
	u := make([]float64, len(t.dims))
	for i := range t.dims {
		u[i] = t.dims[i].coord(t.dims[i].p.Read(&s))
	}
	return append(batch, tunePending{s, u}), true
}

func (t *tuneSearch) intn(n int) int { return int(t.rng.Uint64() % uint64(n)) }

// run is the search: the base and a Latin hypercube sample, generations
// of mutations around the best candidates while the budget allows, and a
// last polish of the best (see polish).
func (t *tuneSearch) run(ctx context.Context) error {
	budget := t.spec.Budget
	// The base, then a Latin hypercube: each parameter's range cut in n
	// strata, one point in each, the strata shuffled per parameter.
	batch, _ := t.propose(nil, t.spec.Base)
	if n := min(max(budget*2/5, 1), budget-1); n > 0 {
		cols := make([][]int, len(t.dims))
		for d := range cols {
			cols[d] = make([]int, n)
			for i := range cols[d] {
				cols[d][i] = i
			}
			for i := n - 1; i > 0; i-- {
				j := t.intn(i + 1)
				cols[d][i], cols[d][j] = cols[d][j], cols[d][i]
			}
		}
		u := make([]float64, len(t.dims))
		for i := range n {
			for d := range u {
				u[d] = (float64(cols[d][i]) + t.rng.Float64()) / float64(n)
			}
			batch, _ = t.propose(batch, t.settings(u))
		}
	}
	if err := t.evaluate(ctx, batch); err != nil {
		return err
	}

	sigma := tuneSigma0
	for {
		// Keep enough of the budget to polish the best so far.
		evolve := budget - len(t.undos(t.ranked()[0])) - 1
		if len(t.cands) >= evolve {
			break
		}
		elites := t.ranked()[:min(tuneElites, len(t.cands))]
		batch = batch[:0]
		for i := 0; i < tuneLambda && len(t.cands)+len(batch) < evolve; i++ {
			parent := elites[0] // half the offspring around the best
			if i%2 == 1 {
				parent = elites[(i/2)%len(elites)]
			}
			for range tuneTries {
				var ok bool
				if batch, ok = t.propose(batch, t.settings(t.mutate(t.units[parent], sigma))); ok {
					break
				}
			}
		}
		if len(batch) == 0 {
			if sigma >= tuneSigmaMax {
				break // every neighbour within reach has been evaluated
			}
			sigma = min(2*sigma, tuneSigmaMax)
			continue
		}
		best := elites[0]
		if err := t.evaluate(ctx, batch); err != nil {
			return err
		}
		if t.ranked()[0] != best {
			sigma = min(1.5*sigma, tuneSigmaMax)
		} else if sigma *= 0.7; sigma < tuneSigmaMin {
			sigma = tuneSigmaRe
		}
	}
	if err := t.polish(ctx); err != nil {
		return err
	}
	return t.fill(ctx, sigma)
}

// fill spends what the polish left of the budget (the slot kept for the
// combined undo when fewer than two undos cost nothing) on mutations of the
// best, so that a budget of N evaluates N candidates unless the space runs
// out.
func (t *tuneSearch) fill(ctx context.Context, sigma float64) error {
	for len(t.cands) < t.spec.Budget {
		best := t.ranked()[0]
		var batch []tunePending
		for range (t.spec.Budget - len(t.cands)) * tuneTries {
			if len(t.cands)+len(batch) >= t.spec.Budget {
				break
			}
			batch, _ = t.propose(batch, t.settings(t.mutate(t.units[best], sigma)))
		}
		if len(batch) == 0 {
			if sigma >= tuneSigmaMax {
				return nil // every neighbour within reach has been evaluated
			}
			sigma = min(2*sigma, tuneSigmaMax)
			continue
		}
		if err := t.evaluate(ctx, batch); err != nil {
			return err
		}
	}
	return nil
}

// undos returns candidate best's settings with each of its changes from
// the base undone on its own, leaving out those already proposed.
func (t *tuneSearch) undos(best int) []engine.Settings {
	bs, base := t.cands[best].Settings, &t.spec.Base
	var list []engine.Settings
	for _, d := range t.dims {
		if v := d.p.Read(base); d.p.Read(&bs) != v {
			s := bs
			d.p.Write(&s, v)
			t.adjust(&s)
			if _, dup := t.seen[tuneKey(&s, engine.TechniqueGroup(t.spec.Technique))]; !dup {
				list = append(list, s)
			}
		}
	}
	return list
}

// polish tries the best candidate with each of its changes from the base
// undone on its own, then with every undo that cost nothing at once: a
// recommendation should change only what matters. Ranking breaks ties in
// cost by fewer changes, so an undo that costs nothing wins.
func (t *tuneSearch) polish(ctx context.Context) error {
	best := t.ranked()[0]
	var batch []tunePending
	for _, s := range t.undos(best) {
		if len(t.cands)+len(batch) >= t.spec.Budget {
			break
		}
		batch, _ = t.propose(batch, s)
	}
	if len(batch) == 0 {
		return nil
	}
	first := len(t.cands)
	if err := t.evaluate(ctx, batch); err != nil {
		return err
	}
	bs := t.cands[best].Settings
	all, n := bs, 0
	for i := first; i < len(t.cands); i++ {
		// The undo costs nothing unless the best ranks strictly before it.
		if !tuneBetter(&t.cands[best], &t.cands[i], 0, 0) {
			for _, d := range t.dims {
				if v := d.p.Read(&t.cands[i].Settings); v != d.p.Read(&bs) {
					d.p.Write(&all, v)
				}
			}
			n++
		}
	}
	if n < 2 || len(t.cands) >= t.spec.Budget {
		return nil
	}
	t.adjust(&all)
	batch, _ = t.propose(batch[:0], all)
	return t.evaluate(ctx, batch)
}

// mutate returns a copy of u moved by about sigma: each continuous
// coordinate with probability 1/2 by a triangular step in [−sigma, sigma],
// each Bool or small Int (at most 4 values) with probability 1/len(u) to
// another of its values; at least one coordinate moves.
func (t *tuneSearch) mutate(u []float64, sigma float64) []float64 {
	y := slices.Clone(u)
	moved := false
	move := func(d int) {
		dim := &t.dims[d]
		if dim.values > 1 && dim.values <= 4 {
			k := int(math.Floor(u[d] * float64(dim.values)))
			k = (k + 1 + t.intn(dim.values-1)) % dim.values
			y[d] = (float64(k) + 0.5) / float64(dim.values)
		} else {
			step := float64(sigma * (t.rng.Float64() + t.rng.Float64() - 1))
			y[d] = min(max(u[d]+step, 0), 1)
		}
		moved = true
	}
	for d := range t.dims {
		dim := &t.dims[d]
		categorical := dim.values > 1 && dim.values <= 4
		if categorical && t.intn(len(t.dims)) == 0 || !categorical && t.rng.Float64() < 0.5 {
			move(d)
		}
	}
	if !moved && len(t.dims) > 0 {
		move(t.intn(len(t.dims)))
	}
	return y
}

// evaluate runs every candidate of batch on every motion, on the workers,
// and appends the evaluated ones in batch order.
func (t *tuneSearch) evaluate(ctx context.Context, batch []tunePending) error {
	nm := len(t.spec.Motions)
	runs := make([]engine.Metrics, len(batch)*nm)
	var pops []PopulationMetrics // one per candidate, for a population tuning
	if t.spec.Population != nil {
		pops = make([]PopulationMetrics, len(batch))
	}
	left := make([]int, len(batch))
	for i := range left {
		left[i] = nm
	}
	var recs []TuneRecovery // one per run, when a constraint bounds the recovery
	if t.spec.hasRecoveryConstraint() {
		recs = make([]TuneRecovery, len(runs))
	}
	evaluated := make([]*Candidate, len(batch))
	job := func(ctx context.Context, j int) error {
		s := batch[j/nm].s
		s.Techniques = []string{t.spec.Technique}
		s.Motion = t.spec.Motions[j%nm]
		if pops != nil {
			var err error
			pops[j], err = t.runPopulationCandidate(ctx, s)
			return err
		}
		if recs != nil {
			res, err := engine.RunPhasesUntil(ctx, s)
			if err != nil {
				return err
			}
			runs[j], recs[j] = res.Techniques[0].Metrics, recoveryOf(&res, &s)
			return nil
		}
		ms, err := sweepRun(ctx, s)
		if err != nil {
			return err
		}
		runs[j] = ms[0]
		return nil
	}
	err := sweepPool(ctx, len(runs), t.workers, job, func(j int) {
		i := j / nm
		if left[i]--; left[i] > 0 {
			return
		}
		var c Candidate
		if pops != nil {
			c = t.populationCandidate(batch[i].s, pops[i])
		} else {
			c = t.candidate(batch[i].s, runs[i*nm:(i+1)*nm])
		}
		if recs != nil {
			r := worstRecovery(recs[i*nm : (i+1)*nm])
			c.Recovery = &r
			t.bound(&c)
		}
		evaluated[i] = &c
		t.done++
		if t.progress != nil {
			t.progress(c, t.done, t.spec.Budget)
		}
	})
	t.hasBase = t.hasBase || len(t.cands) == 0 && evaluated[0] != nil
	group := engine.TechniqueGroup(t.spec.Technique)
	for i, c := range evaluated {
		if c != nil {
			t.cands = append(t.cands, *c)
			t.units = append(t.units, batch[i].u)
			t.changed = append(t.changed, tuneChanged(&c.Settings, &t.spec.Base, group))
		}
	}
	return err
}

// candidate combines a candidate's runs and scores it.
func (t *tuneSearch) candidate(s engine.Settings, runs []engine.Metrics) Candidate {
	c := Candidate{Settings: s, Metrics: CombineMetrics(runs), Feasible: true}
	c.Cost = t.spec.Weights.Cost(c.Metrics, s.RenderRate)
	if b := blankShare(c.Metrics, &s, len(runs)); b > maxBlank {
		c.breach(TuneBreach{Metric: BlankMetric, Value: b, Max: maxBlank, Over: b - maxBlank}, BlankField.Scale)
	}
	values := c.Metrics.Values(nil)
	for _, k := range t.spec.Constraints {
		var v, scale float64
		switch k.Metric {
		case RecoveryMetric:
			continue // see bound
		case ExtraLatencyMetric:
			v, scale = extraLatency(c.Metrics, t.transit), ExtraLatencyField.Scale
		default:
			i := metricIndex(k.Metric)
			v, scale = values[i], engine.MetricFields[i].Scale
			if k.Metric == "addedLatency" {
				v = math.Abs(v)
			}
		}
		c.breach(TuneBreach{Metric: k.Metric, Value: v, Max: k.Max, Over: v - k.Max}, scale)
	}
	return c
}

// breach records b if its value is above its bound: the candidate is not
// feasible, and its violation grows by b.Over in the metric's display unit
// (scale).
func (c *Candidate) breach(b TuneBreach, scale float64) {
	if b.Over <= 0 {
		return
	}
	c.Feasible = false
	c.Violation += float64(b.Over * scale)
	c.Breaks = append(c.Breaks, b)
}

// bound applies the recovery constraints to c, its Recovery set: a run
// that did not recover breaks them by at least one recovery step.
func (t *tuneSearch) bound(c *Candidate) {
	for _, k := range t.spec.Constraints {
		if k.Metric != RecoveryMetric {
			continue
		}
		over := c.Recovery.Time - k.Max
		if !c.Recovery.Recovered {
			over = max(over, 0) + engine.RecoveryBucket
		}
		c.breach(TuneBreach{Metric: RecoveryMetric, Value: c.Recovery.Time, Max: k.Max, Over: over, Beyond: !c.Recovery.Recovered},
			RecoveryField.Scale)
	}
}

// tuneBetter reports whether candidate a ranks before b, given how many
// settings each changes from the base: feasible first, then by least
// violation, least cost, fewest changes.
func tuneBetter(a, b *Candidate, changedA, changedB int) bool {
	switch {
	case a.Feasible != b.Feasible:
		return a.Feasible
	case a.Violation != b.Violation:
		return a.Violation < b.Violation
	case a.Cost != b.Cost:
		return a.Cost < b.Cost
	}
	return changedA < changedB
}

// ranked returns the candidates' indices, best first; full ties go to the
// earlier candidate.
func (t *tuneSearch) ranked() []int {
	idx := make([]int, len(t.cands))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(i, j int) int {
		switch {
		case tuneBetter(&t.cands[i], &t.cands[j], t.changed[i], t.changed[j]):
			return -1
		case tuneBetter(&t.cands[j], &t.cands[i], t.changed[j], t.changed[i]):
			return 1
		}
		return 0
	})
	return idx
}

func (t *tuneSearch) result() TuneResult {
	r := TuneResult{Candidates: t.cands, Transit: t.transit}
	if len(t.cands) == 0 {
		return r
	}
	if t.hasBase {
		r.Base = t.cands[0]
	}
	ranked := t.ranked()
	best := &t.cands[ranked[0]]
	r.Feasible = best.Feasible
	switch {
	case !r.Feasible:
		for _, i := range ranked[:min(tuneClosest, len(ranked))] {
			r.Closest = append(r.Closest, t.cands[i])
		}
	case t.hasBase && best.Cost < r.Base.Cost:
		r.Best, r.Recommended = *best, true
	}
	r.Pareto = ParetoFront(t.cands)
	return r
}

// tuneClosest is how many candidates a result lists when none is feasible.
const tuneClosest = 3
