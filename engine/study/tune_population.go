package study

import (
	"context"
	"math"
	"strconv"
	"strings"
	"sync"

	"interplab/engine"
	"interplab/engine/param"
)

// Tuning over a population: each candidate runs the whole population
// (RunPopulation), so the tuner answers "which settings are good for most
// of our players" rather than for one connection. The guide's kind of
// objective reads: weights errP95=1 and the others 0, constraints
// underrunRounds ≤ 0.05 and addedLatencyP90 ≤ 0.15 — minimise the p95
// across entities of error p95, with at most 5% of entity-rounds underrun
// and 90% of entities within 150 ms of added latency.

// PopulationCost is the cost of a candidate's population figures, with
// the weights of Cost over their population counterparts:
//
//	ErrP95·errP95P95/TuneErrRef + AddedLatency·|addedLatencyP90|/TuneLatencyRef
//	  + Snaps·snapRounds/TuneUnderrunRef + Underrun·underrunRounds/TuneUnderrunRef
//
// that is the p95 across entities of error p95, the p90 of added latency,
// and the shares of entity-rounds with a snap and with an underrun (10% of
// entity-rounds costing as 10% of frames underrun does in Cost).
func (w TuneWeights) PopulationCost(m PopulationMetrics) float64 {
	c := float64(w.ErrP95 * m.ErrP95P95 / TuneErrRef)
	c += float64(w.AddedLatency * math.Abs(m.AddedLatencyP90) / TuneLatencyRef)
	c += float64(w.Snaps * m.SnapRounds / TuneUnderrunRef)
	c += float64(w.Underrun * m.UnderrunRounds / TuneUnderrunRef)
	return c
}

// validatePopulation checks a population tuning: the population with the
// base, no motion mix, weights, constraints over PopulationMetricFields,
// space and budget. s is spec normalized, base its base with the technique.
func (spec *TuneSpec) validatePopulation(s TuneSpec, base engine.Settings) error {
	if len(spec.Motions) > 0 {
		return &engine.FieldError{Field: "motions", Value: strings.Join(spec.Motions, ","),
			Allowed: "none with a population: each entity has its own motion"}
	}
	ps := PopulationSpec{Base: base, Population: *spec.Population}
	if err := ps.Validate(); err != nil {
		return err
	}
	if err := s.Weights.validate(); err != nil {
		return err
	}
	for i, c := range s.Constraints {
		field := "constraints[" + strconv.Itoa(i) + "]"
		if populationMetricIndex(c.Metric) < 0 {
			return &engine.FieldError{Field: field + ".metric", Value: c.Metric, Allowed: "a population figure: " + populationMetricNames()}
		}
		if math.IsNaN(c.Max) || math.IsInf(c.Max, 0) {
			return &engine.FieldError{Field: field + ".max", Value: param.FormatNumber(c.Max), Allowed: "a finite number"}
		}
	}
	if err := s.validateSpaceAndBudget(); err != nil {
		return err
	}
	return s.checkPopulationFloors(&base)
}

func populationMetricIndex(name string) int {
	for i, f := range PopulationMetricFields {
		if f.Name == name {
			return i
		}
	}
	return -1
}

func populationMetricNames() string {
	names := make([]string, len(PopulationMetricFields))
	for i, f := range PopulationMetricFields {
		names[i] = f.Name
	}
	return strings.Join(names, ", ")
}

// populationSpec is the population run of candidate settings s (the
// technique alone).
func (t *tuneSearch) populationSpec(s engine.Settings) PopulationSpec {
	pop := *t.spec.Population
	if k := uint64(s.Seed) - uint64(t.spec.Base.Seed); k != 0 {
		// Seed k of the seed set draws another sample of the population
		// (see TuneSeedSet): its entities' draws depend on its seed alone.
		pop.Seed = int((uint64(pop.Seed) + k) % (1 << 32))
	}
	return PopulationSpec{Base: s, Population: pop}
}

// evaluatePopulation runs every candidate of batch over the population
// and returns them scored, in batch order; cancelled, the candidates that
// finished and nil for the others, with ctx.Err(). The work is cut by
// entity, not by candidate: every worker keeps busy to the end of the
// batch whatever its size (a batch of 3 on 2 workers is 1.5 candidates'
// time, not 2), and each candidate's figures are merged in entity order
// when its last entity is in, so they are RunPopulation's, byte for byte.
func (t *tuneSearch) evaluatePopulation(ctx context.Context, batch []tunePending) ([]*Candidate, error) {
	specs := make([]PopulationSpec, len(batch))
	for i := range batch {
		s := batch[i].s
		s.Techniques = []string{t.spec.Technique}
		s.Motion = t.spec.Motions[0]
		specs[i] = t.populationSpec(s)
		if err := specs[i].Validate(); err != nil {
			return make([]*Candidate, len(batch)), err
		}
	}
	n := t.spec.Population.Entities
	// The workers take the entities in order, so only the few candidates
	// they are on hold their entities' figures: a candidate's are made
	// when a worker first reaches it and dropped once merged.
	var mu sync.Mutex
	ents := make([][]PopulationEntity, len(batch))
	figures := func(i int) []PopulationEntity {
		mu.Lock()
		defer mu.Unlock()
		if ents[i] == nil {
			ents[i] = make([]PopulationEntity, n)
		}
		return ents[i]
	}
	left := make([]int, len(batch))
	for i := range left {
		left[i] = n
	}
	evaluated := make([]*Candidate, len(batch))
	job := func(ctx context.Context, j int) error {
		e, err := runEntity(ctx, &specs[j/n], j%n)
		figures(j / n)[j%n] = e
		return err
	}
	err := sweepPool(ctx, len(batch)*n, t.workers, job, func(j int) {
		i := j / n
		if left[i]--; left[i] > 0 {
			return
		}
		res := mergePopulation(specs[i], figures(i))
		mu.Lock()
		ents[i] = nil
		mu.Unlock()
		c := t.populationCandidate(batch[i].s, res.Techniques[0].Metrics)
		evaluated[i] = &c
		t.done++
		if t.progress != nil {
			t.progress(c, t.done, t.spec.Evaluations())
		}
	})
	return evaluated, err
}

// populationCandidate scores a candidate by its population figures.
func (t *tuneSearch) populationCandidate(s engine.Settings, pm PopulationMetrics) Candidate {
	c := Candidate{Settings: s, Metrics: populationSummary(pm), Feasible: true, Population: &pm}
	c.Cost = t.spec.Weights.PopulationCost(pm)
	values := pm.Values(nil)
	for _, k := range t.spec.Constraints {
		i := populationMetricIndex(k.Metric)
		v := values[i]
		if strings.HasPrefix(k.Metric, "addedLatency") {
			v = math.Abs(v)
		}
		c.breach(TuneBreach{Metric: k.Metric, Value: v, Max: k.Max, Over: v - k.Max}, PopulationMetricFields[i].Scale)
	}
	return c
}

// populationSummary puts a population's figures where the tuner's tables,
// charts and Pareto front read a candidate's Metrics: ErrP95 and
// ErrAligned are the p95 across entities of error p95, AddedLatency the
// p90 across entities, UnderrunRounds and Underrun the population's; the
// front is then added latency at p90 against error p95 at p95.
func populationSummary(pm PopulationMetrics) engine.Metrics {
	return engine.Metrics{ErrP95: pm.ErrP95P95, ErrAligned: pm.ErrP95P95, AddedLatency: pm.AddedLatencyP90,
		UnderrunRounds: pm.UnderrunRounds, Underrun: pm.Underrun}
}
