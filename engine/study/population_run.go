package study

import (
	"context"
	"math"
	"slices"
	"strings"

	"interplab/engine"
	"interplab/engine/netsim"
	"interplab/engine/param"
)

// PopulationSpec is a population run: the techniques of Base, with Base's
// settings for everything the population does not draw (rates, delays,
// caps, maxSpeed...), run for every entity of Population on its own link.
type PopulationSpec struct {
	Base       engine.Settings `json:"base"`
	Population Population      `json:"population"`
}

// Validate checks the population and the base settings with every
// entity's drawn link in place of Base's (entity 0's).
func (spec *PopulationSpec) Validate() error {
	if err := spec.Population.Validate(); err != nil {
		return err
	}
	s := spec.Population.EntitySettings(spec.Base, 0)
	err := s.Validate()
	if se, ok := err.(*netsim.ScenarioError); ok {
		// An entity's run is the population's rounds: say which to raise.
		e := *se
		e.Msg += " (an entity's run is rounds × round = " + param.FormatNumber(s.Duration) + " s: raise rounds or round)"
		return &e
	}
	return err
}

// Round flags: what happened to one entity in one round, as one hex digit
// of EntityMetrics.Rounds.
const (
	RoundUnderrun = 1 << iota // at least one frame rendered past the newest snapshot, idle holds apart (engine.Metrics.Idle)
	RoundSnap                 // at least one snap (a step faster than 1.5 × maxSpeed)
	RoundFrozen               // at least one frame holding a pose: dry beyond the extrapolation cap
)

// EntityMetrics is one technique's figures for one entity over its rounds.
type EntityMetrics struct {
	UnderrunRounds int     `json:"underrunRounds"` // rounds with at least one underrun
	SnapRounds     int     `json:"snapRounds"`     // rounds with at least one snap
	FrozenRounds   int     `json:"frozenRounds"`   // rounds with a frame frozen beyond the extrapolation cap
	Rounds         string  `json:"rounds"`         // one hex digit of Round flags per round
	ErrP95         float64 `json:"errP95"`         // m, over all its rounds
	ErrRMS         float64 `json:"errRMS"`         // m
	AddedLatency   float64 `json:"addedLatency"`   // s
	Underrun       float64 `json:"underrun"`       // share of its frames underrun
	Idle           float64 `json:"idle"`           // share of its frames idle holds (engine.Metrics.Idle)
}

// PopulationEntity is one entity of a run: what it drew and how every
// technique did, in PopulationResult.Techniques order.
type PopulationEntity struct {
	Entity     int             `json:"entity"`
	Link       EntityLink      `json:"link"`
	Motion     string          `json:"motion"`
	Seed       int             `json:"seed"`
	Techniques []EntityMetrics `json:"techniques"`
}

// PopulationMetrics aggregates one technique over a population. The round
// shares are of entity-rounds; the percentiles are across entities
// (nearest rank) of each entity's figure over its rounds.
type PopulationMetrics struct {
	UnderrunRounds   float64 `json:"underrunRounds"`   // share of entity-rounds with an underrun, in [0, 1] (the guide's figure)
	SnapRounds       float64 `json:"snapRounds"`       // share of entity-rounds with a snap
	FrozenRounds     float64 `json:"frozenRounds"`     // share of entity-rounds dry beyond the extrapolation cap
	Underrun         float64 `json:"underrun"`         // mean across entities of the share of frames underrun
	ErrP95P50        float64 `json:"errP95P50"`        // m: median entity's error p95
	ErrP95P90        float64 `json:"errP95P90"`        // m
	ErrP95P95        float64 `json:"errP95P95"`        // m
	ErrP95P99        float64 `json:"errP95P99"`        // m
	AddedLatencyP50  float64 `json:"addedLatencyP50"`  // s
	AddedLatencyP90  float64 `json:"addedLatencyP90"`  // s
	AddedLatencyP99  float64 `json:"addedLatencyP99"`  // s
	UnderrunEntities float64 `json:"underrunEntities"` // share of entities with an underrun in any round
	Idle             float64 `json:"idle"`             // mean across entities of the share of frames idle holds
}

// PopulationMetricFields describes PopulationMetrics in the order of Values.
var PopulationMetricFields = []engine.MetricField{
	{Name: "underrunRounds", Unit: "fraction", Display: "%", Scale: 100, Doc: "Share of entity-rounds with at least one underrun frame (the guide's figure)."},
	{Name: "snapRounds", Unit: "fraction", Display: "%", Scale: 100, Doc: "Share of entity-rounds with at least one snap."},
	{Name: "frozenRounds", Unit: "fraction", Display: "%", Scale: 100, Doc: "Share of entity-rounds that ran dry beyond the extrapolation cap (held a pose)."},
	{Name: "underrun", Unit: "fraction", Display: "%", Scale: 100, Doc: "Mean share of frames underrun."},
	{Name: "errP95P50", Unit: "m", Display: "cm", Scale: 100, Doc: "Median across entities of each entity's error p95."},
	{Name: "errP95P90", Unit: "m", Display: "cm", Scale: 100, Doc: "90th percentile across entities of error p95."},
	{Name: "errP95P95", Unit: "m", Display: "cm", Scale: 100, Doc: "95th percentile across entities of error p95."},
	{Name: "errP95P99", Unit: "m", Display: "cm", Scale: 100, Doc: "99th percentile across entities of error p95."},
	{Name: "addedLatencyP50", Unit: "s", Display: "ms", Scale: 1000, Doc: "Median across entities of the added latency."},
	{Name: "addedLatencyP90", Unit: "s", Display: "ms", Scale: 1000, Doc: "90th percentile across entities of the added latency."},
	{Name: "addedLatencyP99", Unit: "s", Display: "ms", Scale: 1000, Doc: "99th percentile across entities of the added latency."},
	{Name: "underrunEntities", Unit: "fraction", Display: "%", Scale: 100, Doc: "Share of entities with an underrun in any round."},
	{Name: "idle", Unit: "fraction", Display: "%", Scale: 100, Doc: "Mean share of frames holding while the sender deliberately sent nothing new (a send-on-change library's still entity): no fault, counted apart from underrun."},
}

// Values appends m's fields in PopulationMetricFields order.
func (m PopulationMetrics) Values(dst []float64) []float64 {
	return append(dst, m.UnderrunRounds, m.SnapRounds, m.FrozenRounds, m.Underrun,
		m.ErrP95P50, m.ErrP95P90, m.ErrP95P95, m.ErrP95P99,
		m.AddedLatencyP50, m.AddedLatencyP90, m.AddedLatencyP99, m.UnderrunEntities, m.Idle)
}

// PopulationTechnique is one technique's aggregate and its worst entities.
type PopulationTechnique struct {
	Name    string            `json:"name"`
	Metrics PopulationMetrics `json:"metrics"`
	Worst   []int             `json:"worst"` // entity indices, worst first: most underrun rounds, then largest error p95
}

// PopulationResult is the outcome of a population run.
type PopulationResult struct {
	Spec       PopulationSpec        `json:"spec"`
	Techniques []PopulationTechnique `json:"techniques"`
	Entities   []PopulationEntity    `json:"entities"`
}

// popLagStride: a population run takes every popLagStride-th frame into
// the added latency, which still averages thousands of frames per entity
// and round.
const popLagStride = 8

// PopulationWorst is how many worst entities a result lists per technique.
const PopulationWorst = 10

// RunPopulation runs every entity of spec on workers goroutines
// (GOMAXPROCS when ≤ 0): each entity alone in its own Sim, on its own link,
// with every technique of spec.Base fed the same packets, stepped round by
// round. The numbers depend only on spec, never on the worker count or the
// platform.
//
// progress, if not nil, is called from the calling goroutine after each
// entity with that entity's figures, the entities done and the total, in
// the order entities finish (which depends on scheduling). When ctx is done RunPopulation
// stops within about a millisecond of simulation per worker and returns
// ctx.Err() and no result.
//
// It is RunPopulationEntities over every entity, then MergePopulation: a
// run cut into entity chunks, run anywhere, merges to the same result.
func RunPopulation(ctx context.Context, spec PopulationSpec, workers int, progress func(e PopulationEntity, done, total int)) (*PopulationResult, error) {
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	ents, err := runEntities(ctx, &spec, 0, spec.Population.Entities, workers, progress)
	if err != nil {
		return nil, err
	}
	return mergePopulation(spec, ents), nil
}

// runEntities runs entities [from, to) of spec, valid, on workers
// goroutines and returns their figures in entity order.
func runEntities(ctx context.Context, spec *PopulationSpec, from, to, workers int, progress func(e PopulationEntity, done, total int)) ([]PopulationEntity, error) {
	n := to - from
	ents := make([]PopulationEntity, n)
	done := 0
	err := sweepPool(ctx, n, workers, func(ctx context.Context, i int) error {
		var err error
		ents[i], err = runEntity(ctx, spec, from+i)
		return err
	}, func(i int) {
		done++
		if progress != nil {
			progress(ents[i], done, n)
		}
	})
	if err != nil {
		return nil, err
	}
	return ents, nil
}

// mergePopulation aggregates the figures of every entity of spec, in
// entity order.
func mergePopulation(spec PopulationSpec, ents []PopulationEntity) *PopulationResult {
	p := &spec.Population
	r := &PopulationResult{Spec: spec, Entities: ents}
	s := p.EntitySettings(spec.Base, 0)
	for k, name := range engine.InOrder(s.Techniques) {
		r.Techniques = append(r.Techniques, aggregate(name, k, p, ents))
	}
	return r
}

// runEntity simulates entity e alone for every round.
func runEntity(ctx context.Context, spec *PopulationSpec, e int) (PopulationEntity, error) {
	p := &spec.Population
	s := p.EntitySettings(spec.Base, e)
	l, motion, seed := p.Entity(e)
	m, err := engine.NewLeanSim(s)
	if err != nil {
		return PopulationEntity{}, err
	}
	m.SetLatencyStride(popLagStride)
	nt := len(m.Techniques())
	flags := make([][]byte, nt)
	for k := range flags {
		flags[k] = make([]byte, p.Rounds)
	}
	perRound := int(math.Round(p.Round * s.RenderRate))
	last := make([]engine.FrameCounts, nt)
	var now []engine.FrameCounts
	for r := range p.Rounds {
		if err := m.StepFramesUntil(ctx, perRound); err != nil {
			return PopulationEntity{}, err
		}
		now = m.Counts(now[:0])
		for k := range now {
			a, was := &now[k], &last[k]
			var f byte
			if a.Underrun > was.Underrun {
				f |= RoundUnderrun
			}
			if a.Snaps > was.Snaps {
				f |= RoundSnap
			}
			if a.Frozen > was.Frozen {
				f |= RoundFrozen
			}
			flags[k][r] = "0123456789abcdef"[f]
			*was = *a
		}
	}
	ent := PopulationEntity{Entity: e, Link: l, Motion: motion, Seed: seed, Techniques: make([]EntityMetrics, nt)}
	for k, mt := range m.Metrics(nil) {
		em := EntityMetrics{Rounds: string(flags[k]), ErrP95: mt.ErrP95, ErrRMS: mt.ErrRMS,
			AddedLatency: mt.AddedLatency, Underrun: mt.Underrun, Idle: mt.Idle}
		for _, c := range flags[k] {
			f := strings.IndexByte("0123456789abcdef", c)
			em.UnderrunRounds += f & RoundUnderrun
			em.SnapRounds += f & RoundSnap >> 1
			em.FrozenRounds += f & RoundFrozen >> 2
		}
		ent.Techniques[k] = em
	}
	return ent, nil
}

// aggregate sums technique k over the entities.
func aggregate(name string, k int, p *Population, ents []PopulationEntity) PopulationTechnique {
	n := len(ents)
	var under, snap, frozen, entUnder int
	var frames, idle float64
	errs, lats := make([]float64, n), make([]float64, n)
	for i := range ents {
		em := &ents[i].Techniques[k]
		under += em.UnderrunRounds
		snap += em.SnapRounds
		frozen += em.FrozenRounds
		if em.UnderrunRounds > 0 {
			entUnder++
		}
		frames += em.Underrun
		idle += em.Idle
		errs[i], lats[i] = em.ErrP95, em.AddedLatency
	}
	er := float64(n * p.Rounds)
	m := PopulationMetrics{
		UnderrunRounds: float64(under) / er, SnapRounds: float64(snap) / er, FrozenRounds: float64(frozen) / er,
		Underrun: frames / float64(n), UnderrunEntities: float64(entUnder) / float64(n), Idle: idle / float64(n),
	}
	slices.Sort(errs)
	slices.Sort(lats)
	m.ErrP95P50, m.ErrP95P90, m.ErrP95P95, m.ErrP95P99 = nearestRank(errs, 0.5), nearestRank(errs, 0.9), nearestRank(errs, 0.95), nearestRank(errs, 0.99)
	m.AddedLatencyP50, m.AddedLatencyP90, m.AddedLatencyP99 = nearestRank(lats, 0.5), nearestRank(lats, 0.9), nearestRank(lats, 0.99)

	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		ea, eb := &ents[a].Techniques[k], &ents[b].Techniques[k]
		if ea.UnderrunRounds != eb.UnderrunRounds {
			return eb.UnderrunRounds - ea.UnderrunRounds
		}
		switch {
		case ea.ErrP95 > eb.ErrP95:
			return -1
		case ea.ErrP95 < eb.ErrP95:
			return 1
		}
		return 0
	})
	return PopulationTechnique{Name: name, Metrics: m, Worst: order[:min(n, PopulationWorst)]}
}

// nearestRank returns the q-quantile of sorted values by nearest rank: the
// smallest value with at least q of the values at or below it.
func nearestRank(sorted []float64, q float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(q*float64(len(sorted)))) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}
