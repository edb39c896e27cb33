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
	tuneLambda   = 16   // candidates per generation: enough to keep a team of 16 workers busy
	tuneElites   = 3    // parents: the best candidates so far
	tuneSigma0   = 0.15 // initial mutation step
	tuneSigmaMax = 0.5
	tuneSigmaMin = 0.01 // below it the step restarts at tuneSigmaRe
	tuneSigmaRe  = 0.3
	tuneSigmaWin = 1.2 // the step that found a new best grows by this
	tuneTries    = 20  // mutations tried per slot before giving it up as a duplicate
)

// tuneSteps are the steps a generation tries, in multiples of the search's
// step: the candidate at position k of a generation mutates by
// tuneSteps[k%3]. A generation of 16 is half the updates of two of 8, so
// it also learns which step to take next from its best candidate.
var tuneSteps = [3]float64{1, 0.5, 2}

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
	rng      countedRNG
	workers  int
	progress func(c Candidate, done, total int)

	transit float64 // the base link's mean one-way transit, s (LinkTransit), for extraLatency

	cands   []Candidate
	units   [][]float64         // each candidate's point in the unit cube
	changed []int               // how many of each candidate's technique settings differ from the base's
	seen    map[string]struct{} // keys of the candidates proposed, to skip duplicates
	done    int
	hasBase bool // cands[0] is the base

	// Where the search stands between batches (see next).
	phase   string
	sigma   float64       // the mutation step
	best    int           // evolve: the best candidate before the pending batch; polish: the candidate polished
	first   int           // polish: the first of the undos
	pending []tunePending // the batch next proposed, until advance

	// The confirmation on the seed set (see tune_seeds.go).
	seeds     []int       // the run seeds, TuneSeedSet
	finalists []int       // the confirmed candidates: the base (0), then the search's best
	confirmed []Candidate // each of finalists over the seed set, once confirmed
}

// The search's phases, in order (see next).
const (
	phaseStart   = "start"   // the base and a Latin hypercube sample
	phaseEvolve  = "evolve"  // generations of mutations around the best
	phasePolish  = "polish"  // the best with each of its changes undone
	phaseCombine = "combine" // the best with every undo that cost nothing
	phaseFill    = "fill"    // mutations of the best, for what is left of the budget
	phaseConfirm = "confirm" // the base and the finalists on the seed set
	phaseDone    = "done"
)

// countedRNG is the search's RNG and how many numbers it has drawn: a
// search resumed elsewhere (ResumeTuneSearch) draws that many again to
// stand where it stood.
type countedRNG struct {
	r     *geom.RNG
	draws uint64
}

func (c *countedRNG) Uint64() uint64 {
	c.draws++
	return c.r.Uint64()
}

// Float64 draws one number of the generator, as Uint64 does.
func (c *countedRNG) Float64() float64 {
	c.draws++
	return c.r.Float64()
}

func newTuneSearch(spec TuneSpec, workers int, progress func(Candidate, int, int)) *tuneSearch {
	t := &tuneSearch{spec: spec, rng: countedRNG{r: geom.NewRNG(spec.Seed, 0x74756e65)}, workers: workers, progress: progress,
		seen: make(map[string]struct{}), transit: LinkTransit(&spec.Base), phase: phaseStart, sigma: tuneSigma0,
		seeds: TuneSeedSet(&spec.Base, spec.Seeds)}
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
}

// propose adds s to batch unless it was seen before; it reports whether it did.
func (t *tuneSearch) propose(batch []tunePending, s engine.Settings) ([]tunePending, bool) {
	k := tuneKey(&s, engine.TechniqueGroup(t.spec.Technique))
	if _, dup := t.seen[k]; dup {
		return batch, false
	}
	t.seen[k] = struct{}{}
	return append(batch, tunePending{s}), true
}

func (t *tuneSearch) intn(n int) int { return int(t.rng.Uint64() % uint64(n)) }

// next returns the batch to evaluate next: the one pending, or a new one
// proposed from where the search stands; nil when the search is over. The
// search, phase by phase: the base and a Latin hypercube sample;
// generations of mutations around the best candidates while the budget
// allows; a polish of the best (its changes undone one at a time, then
// every undo that cost nothing at once); mutations of the best for what
// is left of the budget (fill). Each phase ends when it has nothing new to
// propose.
func (t *tuneSearch) next() []tunePending {
	if t.pending != nil {
		return t.pending
	}
	budget := t.spec.Budget
	for {
		var batch []tunePending
		switch t.phase {
		case phaseStart:
			batch = t.sample()
		case phaseEvolve:
			// Keep enough of the budget to polish the best so far.
			// A generation of fewer than tuneLambda/2 is not worth a
			// round of a team's workers of its own: its share goes to the
			// fill, which shares the combined undo's batch.
			evolve := budget - len(t.undos(t.ranked()[0])) - 1
			if evolve-len(t.cands) < tuneLambda/2 {
				t.phase = phasePolish
				continue
			}
			elites := t.ranked()[:min(tuneElites, len(t.cands))]
			for i := 0; i < tuneLambda && len(t.cands)+len(batch) < evolve; i++ {
				parent := elites[0] // half the offspring around the best
				if i%2 == 1 {
					parent = elites[(i/2)%len(elites)]
				}
				for range tuneTries {
					var ok bool
					step := min(t.sigma*tuneSteps[len(batch)%len(tuneSteps)], tuneSigmaMax)
					if batch, ok = t.propose(batch, t.settings(t.mutate(t.units[parent], step))); ok {
						break
					}
				}
			}
			if len(batch) == 0 {
				if t.sigma >= tuneSigmaMax {
					t.phase = phasePolish // every neighbour within reach has been evaluated
				}
				t.sigma = min(2*t.sigma, tuneSigmaMax)
				continue
			}
			t.best = elites[0]
		case phasePolish:
			best := t.ranked()[0]
			for _, s := range t.undos(best) {
				if len(t.cands)+len(batch) >= budget {
					break
				}
				batch, _ = t.propose(batch, s)
			}
			if len(batch) == 0 {
				t.phase = phaseFill
				continue
			}
			t.best, t.first = best, len(t.cands)
		case phaseCombine:
			// The combined undo and the fill's mutations of the best go in
			// one batch: neither needs the other's result, and a batch
			// less is a round less for a team's workers.
			t.phase = phaseFill
			if all, ok := t.combined(); ok && len(t.cands) < budget {
				batch, _ = t.propose(batch, all)
			}
			if batch = t.fill(batch); len(batch) == 0 {
				continue
			}
		case phaseFill:
			// What the polish left of the budget (the slot kept for the
			// combined undo when fewer than two undos cost nothing) goes
			// to mutations of the best, so that a budget of N evaluates N
			// candidates unless the space runs out.
			if len(t.cands) >= budget {
				t.phase = phaseConfirm
				continue
			}
			if batch = t.fill(batch); len(batch) == 0 {
				t.phase = phaseConfirm // every neighbour within reach has been evaluated
				continue
			}
		case phaseConfirm:
			if batch = t.confirmBatch(); batch == nil {
				t.phase = phaseDone
				continue
			}
		default:
			return nil
		}
		t.pending = batch
		return batch
	}
}

// fill adds to batch mutations of the best candidate so far until the
// budget is spent, doubling the step while tuneTries mutations a slot find
// nothing new, up to tuneSigmaMax: what is left of the budget is one batch.
func (t *tuneSearch) fill(batch []tunePending) []tunePending {
	budget := t.spec.Budget
	best := t.ranked()[0]
	for {
		for range max(budget-len(t.cands)-len(batch), 0) * tuneTries {
			if len(t.cands)+len(batch) >= budget {
				break
			}
			batch, _ = t.propose(batch, t.settings(t.mutate(t.units[best], t.sigma)))
		}
		if len(t.cands)+len(batch) >= budget || t.sigma >= tuneSigmaMax {
			return batch
		}
		t.sigma = min(2*t.sigma, tuneSigmaMax)
	}
}

// boundsLatency reports whether a constraint of a tuning on one link bounds
// the added latency (or extraLatency), the bound LatencyFloor checks.
func (t *tuneSearch) boundsLatency() bool {
	if t.spec.Population != nil {
		return false
	}
	return slices.ContainsFunc(t.spec.Constraints, func(c Constraint) bool {
		return c.Metric == "addedLatency" || c.Metric == ExtraLatencyMetric
	})
}

// sample is the first batch: the base, under a bound on latency the
// setting of least latency LatencyFloor's probe found, then a Latin
// hypercube: each parameter's range cut in n strata, one point in each,
// the strata shuffled per parameter.
func (t *tuneSearch) sample() []tunePending {
	budget := t.spec.Budget
	batch, _ := t.propose(nil, t.spec.Base)
	if budget > 2 && t.boundsLatency() {
		// A bound on latency: start from the setting of least latency
		// the floor's probe found, so the floor named is one reached.
		if s, ok := t.fastest(); ok {
			batch, _ = t.propose(batch, s)
		}
	}
	if n := min(max(budget*2/5, 1), budget-len(batch)); n > 0 {
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
	return batch
}

// advance takes the pending batch's candidates, evaluated, in batch order,
// and moves the search on: after a generation that finds a new best the
// step is the one that found it, grown by tuneSigmaWin; otherwise it
// shrinks.
func (t *tuneSearch) advance(cands []Candidate) {
	if t.phase == phaseConfirm {
		t.confirm(cands)
		t.pending, t.phase = nil, phaseDone
		return
	}
	t.hasBase = t.hasBase || len(t.cands) == 0 && len(cands) > 0
	for i := range cands {
		t.add(cands[i])
	}
	t.pending = nil
	switch t.phase {
	case phaseStart:
		t.phase = phaseEvolve
	case phaseEvolve:
		if best, first := t.ranked()[0], len(t.cands)-len(cands); best != t.best && best >= first {
			k := (best - first) % len(tuneSteps)
			t.sigma = min(t.sigma*tuneSteps[k]*tuneSigmaWin, tuneSigmaMax)
		} else if t.sigma *= 0.7; t.sigma < tuneSigmaMin {
			t.sigma = tuneSigmaRe
		}
	case phasePolish:
		t.phase = phaseCombine
	}
}

// keep takes what a cancelled evaluation of the pending batch finished
// (nil for a candidate that did not), and ends the search.
func (t *tuneSearch) keep(evaluated []*Candidate) {
	if t.phase == phaseConfirm {
		t.pending, t.phase = nil, phaseDone // an unfinished confirmation confirms nothing
		return
	}
	t.hasBase = t.hasBase || len(t.cands) == 0 && len(evaluated) > 0 && evaluated[0] != nil
	for _, c := range evaluated {
		if c != nil {
			t.add(*c)
		}
	}
	t.pending, t.phase = nil, phaseDone
}

// add appends an evaluated candidate: its point in the unit cube, how many
// settings it changes, and its key among those seen.
func (t *tuneSearch) add(c Candidate) {
	u := make([]float64, len(t.dims))
	for i := range t.dims {
		u[i] = t.dims[i].coord(t.dims[i].p.Read(&c.Settings))
	}
	group := engine.TechniqueGroup(t.spec.Technique)
	t.seen[tuneKey(&c.Settings, group)] = struct{}{}
	t.cands = append(t.cands, c)
	t.units = append(t.units, u)
	t.changed = append(t.changed, tuneChanged(&c.Settings, &t.spec.Base, group))
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

// combined returns the polished candidate (t.best) with every one of its
// undos (the candidates from t.first on) that cost nothing applied at
// once, when at least two did: a recommendation should change only what
// matters. Ranking breaks ties in cost by fewer changes, so an undo that
// costs nothing wins.
func (t *tuneSearch) combined() (engine.Settings, bool) {
	bs := t.cands[t.best].Settings
	all, n := bs, 0
	for i := t.first; i < len(t.cands); i++ {
		// The undo costs nothing unless the best ranks strictly before it.
		if !tuneBetter(&t.cands[t.best], &t.cands[i], 0, 0) {
			for _, d := range t.dims {
				if v := d.p.Read(&t.cands[i].Settings); v != d.p.Read(&bs) {
					d.p.Write(&all, v)
				}
			}
			n++
		}
	}
	if n < 2 {
		return all, false
	}
	t.adjust(&all)
	return all, true
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
// and returns them evaluated in batch order. When ctx is done it returns
// ctx.Err() with the candidates that finished, nil for the others. Over a
// population it is evaluatePopulation.
func (t *tuneSearch) evaluate(ctx context.Context, batch []tunePending) ([]*Candidate, error) {
	if t.spec.Population != nil {
		return t.evaluatePopulation(ctx, batch)
	}
	nm := len(t.spec.Motions)
	runs := make([]engine.Metrics, len(batch)*nm)
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
		c := t.candidate(batch[i].s, runs[i*nm:(i+1)*nm])
		if recs != nil {
			r := worstRecovery(recs[i*nm : (i+1)*nm])
			c.Recovery = &r
			t.bound(&c)
		}
		evaluated[i] = &c
		t.done++
		if t.progress != nil {
			t.progress(c, t.done, t.spec.Evaluations())
		}
	})
	return evaluated, err
}

// candidate combines a candidate's runs and scores it.
func (t *tuneSearch) candidate(s engine.Settings, runs []engine.Metrics) Candidate {
	return t.score(s, CombineMetrics(runs), len(runs))
}

// score scores a candidate of settings s by its metrics m, combined over
// runs runs.
func (t *tuneSearch) score(s engine.Settings, m engine.Metrics, runs int) Candidate {
	c := Candidate{Settings: s, Metrics: m, Feasible: true}
	c.Cost = t.spec.Weights.Cost(c.Metrics, s.RenderRate)
	if b := blankShare(c.Metrics, &s, runs); b > maxBlank {
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
	if !r.Feasible {
		for _, i := range ranked[:min(tuneClosest, len(ranked))] {
			r.Closest = append(r.Closest, t.cands[i])
		}
	}
	if t.confirmed != nil {
		t.verdict(&r) // only a confirmed candidate is ever recommended
	}
	r.Pareto = ParetoFront(t.cands)
	return r
}

// tuneConfirmRuns is the most candidate evaluations the confirmation on
// the seed set adds to spec's budget: the base and the finalists, on each
// seed.
func tuneConfirmRuns(spec *TuneSpec) int {
	return (1 + min(tuneFinalists, spec.Budget-1)) * spec.Seeds
}

// tuneClosest is how many candidates a result lists when none is feasible.
const tuneClosest = 3
