package study

import (
	"context"
	"math"
	"slices"
	"strconv"
	"strings"

	"interplab/engine"
	"interplab/engine/motion"
	"interplab/engine/param"
)

// Tune's budget: the number of candidate settings it evaluates. Each
// candidate costs one run per motion script of the mix.
const (
	DefaultTuneBudget = 120
	MaxTuneBudget     = 5000
)

// The cost's reference scales: each term of the cost is a metric divided by
// its reference, so that with every weight 1, 10 cm of p95 error, 100 ms of
// added latency, one snap per entity per minute and 10% of frames underrun
// each cost one unit.
const (
	TuneErrRef      = 0.1 // m of errP95
	TuneLatencyRef  = 0.1 // s of addedLatency
	TuneSnapRef     = 1   // snaps per entity per minute displayed
	TuneUnderrunRef = 0.1 // fraction of frames underrun
)

// MaxTuneWeight is the largest weight of a cost term: large enough to make
// any term dominate, small enough that no cost overflows to infinity.
const MaxTuneWeight = 1e6

// TuneWeights weighs the terms of the tuner's cost (see Cost). Weights are
// in [0, MaxTuneWeight], and at least one is positive.
type TuneWeights struct {
	ErrP95       float64 `json:"errP95"`       // per TuneErrRef of p95 position error
	AddedLatency float64 `json:"addedLatency"` // per TuneLatencyRef of added latency
	Snaps        float64 `json:"snaps"`        // per TuneSnapRef snaps per entity-minute
	Underrun     float64 `json:"underrun"`     // per TuneUnderrunRef of frames underrun
}

// DefaultTuneWeights weighs every term of the cost equally: 1 each.
func DefaultTuneWeights() TuneWeights { return TuneWeights{1, 1, 1, 1} }

// Cost returns the weighted cost of m, for a run rendered at renderRate Hz:
//
//	ErrP95·errP95/TuneErrRef + AddedLatency·|addedLatency|/TuneLatencyRef
//	  + Snaps·(snaps per entity-minute)/TuneSnapRef + Underrun·underrun/TuneUnderrunRef
//
// Snaps per entity-minute are m.Snaps over the minutes of entity display,
// m.Frames/renderRate/60. The added latency counts by its magnitude, as
// everywhere in the tuner and in lab sim: a display that leads the truth by
// d (negative added latency, from extrapolating too far) is as far out of
// step as one that lags by d.
func (w TuneWeights) Cost(m engine.Metrics, renderRate float64) float64 {
	snapRate := 0.0
	if m.Frames > 0 {
		snapRate = float64(m.Snaps) * 60 * renderRate / float64(m.Frames)
	}
	// Each product is rounded on its own (no fused multiply-add), so the
	// cost is the same natively and in WebAssembly.
	c := float64(w.ErrP95 * m.ErrP95 / TuneErrRef)
	c += float64(w.AddedLatency * math.Abs(m.AddedLatency) / TuneLatencyRef)
	c += float64(w.Snaps * snapRate / TuneSnapRef)
	c += float64(w.Underrun * m.Underrun / TuneUnderrunRef)
	return c
}

func (w TuneWeights) validate() error {
	for _, f := range []struct {
		name string
		v    float64
	}{{"errP95", w.ErrP95}, {"addedLatency", w.AddedLatency}, {"snaps", w.Snaps}, {"underrun", w.Underrun}} {
		if !(f.v >= 0 && f.v <= MaxTuneWeight) {
			return &engine.FieldError{Field: "weights." + f.name, Value: param.FormatNumber(f.v), Allowed: "[0, 1000000]"}
		}
	}
	if w == (TuneWeights{}) {
		return &engine.FieldError{Field: "weights", Value: "0", Allowed: "at least one positive weight"}
	}
	return nil
}

// Constraint is an upper bound on one metric that a candidate must meet to
// be feasible, such as addedLatency ≤ 0.12. A bound on addedLatency bounds
// its magnitude (see TuneWeights.Cost).
type Constraint struct {
	Metric string  `json:"metric"` // a Name from MetricFields
	Max    float64 `json:"max"`    // largest allowed value, in the metric's SI unit (MetricField.Unit)
}

// TuneRange is one parameter the tuner searches and its range, in the
// parameter's stored unit (0 or 1 for a Bool).
type TuneRange struct {
	Name string  `json:"name"`
	Min  float64 `json:"min"`
	Max  float64 `json:"max"`
}

// TuneSpace returns the parameters Tune searches for technique by default,
// over their whole ranges in the parameter table: delay, adaptive, margin,
// delayCap, extrapolateCap and speedClamp for buffer and hermite;
// calcAhead, displayBehind and slopTime for epic and epicfix; a library
// technique's own knobs for it. It returns nil for snap, which has no
// settings, and for unknown names.
func TuneSpace(technique string) []TuneRange {
	names := engine.TechniqueTune(technique)
	if len(names) == 0 {
		return nil
	}
	space := make([]TuneRange, len(names))
	for i, n := range names {
		p, _ := engine.Lookup(n)
		space[i] = TuneRange{Name: n, Min: p.Min, Max: p.Max}
	}
	return space
}

// TunableTechniques lists the techniques with settings to tune (a
// TuneSpace), in display order: every one but snap.
func TunableTechniques() []string {
	var names []string
	for _, name := range engine.TechniqueNames {
		if len(engine.TechniqueTune(name)) > 0 {
			names = append(names, name)
		}
	}
	return names
}

// TuneSpec describes a tuning: which technique, on which network and motion
// mix, searching which of its settings, for which cost and constraints.
type TuneSpec struct {
	// Base gives the network and scenario (entities, duration, seed...)
	// and the starting values of the technique's settings: the base itself
	// is the first candidate, and parameters not searched keep its values.
	// Its Techniques and Motion are kept in every candidate's Settings but
	// each run uses Technique alone on one motion of Motions.
	Base      engine.Settings `json:"base"`
	Technique string          `json:"technique"` // a technique with a TuneSpace: every one but snap

	// Motions is the motion mix: each candidate runs once on each script
	// (a name from Motions) and its metrics are combined by
	// CombineMetrics. Empty means Base.Motion alone.
	Motions []string `json:"motions,omitempty"`

	Weights     TuneWeights  `json:"weights"`               // the cost (see TuneWeights.Cost)
	Constraints []Constraint `json:"constraints,omitempty"` // every one must hold for a candidate to be feasible

	// Space lists the parameters searched: parameters of the technique's
	// group in the table ("buffer" for buffer and hermite, "epic" for
	// epic and epicfix), of kind Float, Int or Bool. Empty means
	// TuneSpace(Technique).
	Space []TuneRange `json:"space,omitempty"`

	Budget int    `json:"budget,omitempty"` // candidates to evaluate, the base included, in [1, MaxTuneBudget]; 0 means DefaultTuneBudget
	Seed   uint64 `json:"seed"`             // seed of the search; the same seed gives the same result

	// Seeds is how many run seeds confirm the search's best before
	// anything is recommended (see tune_seeds.go), in [MinTuneSeeds,
	// MaxTuneSeeds]; 0 means DefaultTuneSeeds. The set is TuneSeedSet of
	// the base: the same base gives the same set, whatever Seed.
	Seeds int `json:"seeds,omitempty"`

	// Population, when not nil, evaluates every candidate over this
	// population instead of Base's one link (see tune_population.go):
	// Motions must then be empty (each entity has its own), the cost is
	// TuneWeights.PopulationCost and the constraints bound
	// PopulationMetricFields, such as underrunRounds ≤ 0.05 and
	// addedLatencyP90 ≤ 0.15.
	Population *Population `json:"population,omitempty"`
}

// normalized returns spec with its defaults filled in.
func (spec TuneSpec) normalized() TuneSpec {
	if len(spec.Motions) == 0 || spec.Population != nil {
		spec.Motions = []string{spec.Base.Motion}
	}
	if len(spec.Space) == 0 {
		spec.Space = TuneSpace(spec.Technique)
	}
	if spec.Budget == 0 {
		spec.Budget = DefaultTuneBudget
	}
	if spec.Seeds == 0 {
		spec.Seeds = DefaultTuneSeeds
	}
	return spec
}

// Validate checks the spec, its defaults filled in: a technique with
// settings to tune, valid base settings, known motions, weights, constraints
// and searched parameters within their ranges, and the budget. The error is
// a *FieldError naming the spec's field ("technique", "motions[1]",
// "weights.snaps", "constraints[0].metric", "space[2].max", "budget"...) or
// the base's first invalid field.
func (spec *TuneSpec) Validate() error {
	s := spec.normalized()
	if len(engine.TechniqueTune(s.Technique)) == 0 {
		allowed := "one of " + strings.Join(TunableTechniques(), ", ")
		if slices.Contains(engine.TechniqueNames, s.Technique) {
			allowed += ": " + s.Technique + " has no settings to tune"
		}
		return &engine.FieldError{Field: "technique", Value: s.Technique, Allowed: allowed}
	}
	base := s.Base
	base.Techniques = []string{s.Technique}
	if err := base.Validate(); err != nil {
		return err
	}
	if spec.Population != nil {
		return spec.validatePopulation(s, base)
	}
	for i, m := range s.Motions {
		field := "motions[" + strconv.Itoa(i) + "]"
		if slices.Index(motion.Names, m) < 0 {
			return &engine.FieldError{Field: field, Value: m, Allowed: "one of " + strings.Join(motion.Names, ", ")}
		}
		if slices.Contains(s.Motions[:i], m) {
			return &engine.FieldError{Field: field, Value: m, Allowed: "a motion not already in the mix"}
		}
	}
	if err := s.Weights.validate(); err != nil {
		return err
	}
	for i, c := range s.Constraints {
		field := "constraints[" + strconv.Itoa(i) + "]"
		if c.Metric == RecoveryMetric {
			if err := validateRecovery(i, &base); err != nil {
				return err
			}
		} else if metricIndex(c.Metric) < 0 && c.Metric != ExtraLatencyMetric {
			return &engine.FieldError{Field: field + ".metric", Value: c.Metric, Allowed: "a metric name (see MetricFields), extraLatency, or recovery"}
		}
		if math.IsNaN(c.Max) || math.IsInf(c.Max, 0) {
			return &engine.FieldError{Field: field + ".max", Value: param.FormatNumber(c.Max), Allowed: "a finite number"}
		}
	}
	if err := s.validateSpaceAndBudget(); err != nil {
		return err
	}
	return s.checkFloors(&base)
}

// validateSpaceAndBudget checks the searched parameters and the budget of
// s, normalized.
func (s *TuneSpec) validateSpaceAndBudget() error {
	group := engine.TechniqueGroup(s.Technique)
	for i, r := range s.Space {
		field := "space[" + strconv.Itoa(i) + "]"
		p, ok := engine.Lookup(r.Name)
		if !ok || p.Group != group || p.Kind == engine.Enum || p.Kind == engine.Set {
			return &engine.FieldError{Field: field + ".name", Value: r.Name,
				Allowed: "a Float, Int or Bool parameter of group " + group}
		}
		if slices.ContainsFunc(s.Space[:i], func(q TuneRange) bool { return q.Name == r.Name }) {
			return &engine.FieldError{Field: field + ".name", Value: r.Name, Allowed: "a parameter not already searched"}
		}
		if p.Check(r.Min) != nil {
			return &engine.FieldError{Field: field + ".min", Value: p.ValueText(r.Min), Allowed: p.Allowed()}
		}
		if p.Check(r.Max) != nil {
			return &engine.FieldError{Field: field + ".max", Value: p.ValueText(r.Max), Allowed: p.Allowed()}
		}
		if r.Max < r.Min {
			return &engine.FieldError{Field: field + ".max", Value: p.ValueText(r.Max),
				Allowed: "at least " + field + ".min = " + p.ValueText(r.Min)}
		}
	}
	if s.Budget < 1 || s.Budget > MaxTuneBudget {
		return &engine.FieldError{Field: "budget", Value: strconv.Itoa(s.Budget),
			Allowed: "a whole number in [1, " + strconv.Itoa(MaxTuneBudget) + "], or 0 for " + strconv.Itoa(DefaultTuneBudget)}
	}
	return s.validateSeeds()
}

func metricIndex(name string) int {
	for i, f := range engine.MetricFields {
		if f.Name == name {
			return i
		}
	}
	return -1
}

// Candidate is one evaluated setting of the tuner.
type Candidate struct {
	Settings  engine.Settings `json:"settings"`  // the base with the searched parameters set
	Metrics   engine.Metrics  `json:"metrics"`   // combined over the motion mix (CombineMetrics)
	Cost      float64         `json:"cost"`      // TuneSpec.Weights.Cost of Metrics
	Feasible  bool            `json:"feasible"`  // every constraint holds
	Violation float64         `json:"violation"` // how far the constraints are broken, summed in display units to rank: 0 when feasible (see Tune)

	// Breaks lists the constraints the candidate breaks, in the order of
	// TuneSpec.Constraints; empty when it is feasible.
	Breaks []TuneBreach `json:"breaks,omitempty"`

	// Recovery is the recovery time, when a constraint bounds it; nil
	// otherwise.
	Recovery *TuneRecovery `json:"recovery,omitempty"`

	// Population holds a population tuning's figures; nil otherwise. Its
	// Metrics then summarise them (see populationSummary).
	Population *PopulationMetrics `json:"population,omitempty"`

	// Confirm is how the candidate fared on the seed set, for the base and
	// the finalists of TuneResult (their Metrics, Cost and constraints are
	// then the set's: the metrics combined over its runs, the mean cost);
	// nil for the search's candidates, evaluated on the base's seed alone.
	Confirm *TuneConfirm `json:"confirm,omitempty"`
}

// TuneBreach is one constraint a candidate breaks: its value of the metric
// is above the bound. Values are in the metric's SI unit (MetricField.Unit),
// the added latency's by its magnitude.
type TuneBreach struct {
	Metric string  `json:"metric"`
	Value  float64 `json:"value"` // the candidate's
	Max    float64 `json:"max"`   // the bound
	Over   float64 `json:"over"`  // how far Value is above Max

	// Beyond is set when Value is only a lower bound: a recovery that did
	// not come within the Value seconds watched. Over then counts one
	// recovery step more (see Tune).
	Beyond bool `json:"beyond,omitempty"`
}

// TuneResult is the outcome of Tune.
type TuneResult struct {
	// Base is the base settings over the seed set (Confirm set), or on the
	// search's seed alone (Candidates[0]) when nothing was confirmed.
	Base Candidate `json:"base"`

	// Best is the recommendation when Recommended, the zero Candidate
	// otherwise: a finalist over the seed set, never one that breaks a
	// constraint; when the base meets them, one better beyond noise (see
	// tune_seeds.go), and when it does not, the cheapest that does.
	Best        Candidate `json:"best,omitzero"`
	Recommended bool      `json:"recommended"` // Best is a recommendation
	Feasible    bool      `json:"feasible"`    // the base or a finalist meets every constraint over the seed set (some candidate of the search when nothing was confirmed)

	// Seeds is the run seeds the finalists were confirmed on (TuneSeedSet),
	// and Finalists the search's best candidates over them, best first by
	// the search's ranking; both empty when nothing was confirmed (a
	// budget of 1, or a tuning stopped before the confirmation ended). When
	// nothing is recommended the cheapest feasible finalist's Confirm says
	// why: the base against it is the "no meaningful improvement" figure.
	Seeds     []int       `json:"seeds,omitempty"`
	Finalists []Candidate `json:"finalists,omitempty"`

	// Closest holds, when no candidate is feasible, the three (or fewer)
	// that break the constraints least, least first: what to loosen.
	Closest []Candidate `json:"closest,omitempty"`

	Pareto     []Candidate `json:"pareto"`     // ParetoFront of Candidates
	Candidates []Candidate `json:"candidates"` // every candidate, in the order evaluated

	// Transit is the base link's mean one-way transit, s (LinkTransit):
	// what extraLatency takes off the added latency.
	Transit float64 `json:"transit"`
}

// ExtraLatency returns the extraLatency of metrics m of one of r's
// candidates: |m.AddedLatency| less r.Transit, in seconds.
func (r *TuneResult) ExtraLatency(m engine.Metrics) float64 { return extraLatency(m, r.Transit) }

// extraLatency is the added latency beyond a mean transit, by its
// magnitude as every bound on added latency is.
func extraLatency(m engine.Metrics, transit float64) float64 {
	return math.Abs(m.AddedLatency) - transit
}

// CombineMetrics combines one candidate's metrics over the motions of a mix:
// Frames and Snaps are summed, ErrMax and SnapMax are the maximum, and every
// other field (RMS and p95 error, added latency, the shares, smoothness) is
// the plain mean, each motion weighing the same.
func CombineMetrics(ms []engine.Metrics) engine.Metrics {
	var c engine.Metrics
	if len(ms) == 0 {
		return c
	}
	for _, m := range ms {
		c.Frames += m.Frames
		c.Snaps += m.Snaps
		c.ErrMax = max(c.ErrMax, m.ErrMax)
		c.SnapMax = max(c.SnapMax, m.SnapMax)
		c.ErrRMS += m.ErrRMS
		c.ErrP95 += m.ErrP95
		c.ErrAligned += m.ErrAligned
		c.AddedLatency += m.AddedLatency
		c.Underrun += m.Underrun
		c.UnderrunRounds += m.UnderrunRounds
		c.Extrapolating += m.Extrapolating
		c.Frozen += m.Frozen
		c.Idle += m.Idle
		c.Smoothness += m.Smoothness
	}
	n := float64(len(ms))
	c.ErrRMS /= n
	c.ErrP95 /= n
	c.ErrAligned /= n
	c.AddedLatency /= n
	c.Underrun /= n
	c.UnderrunRounds /= n
	c.Extrapolating /= n
	c.Frozen /= n
	c.Idle /= n
	c.Smoothness /= n
	return c
}

// Tune searches the technique's settings for the least cost under the
// constraints, evaluating at most spec.Budget candidates, each on every
// motion of the mix.
//
// The search is deterministic for spec.Seed: the base first, then a Latin
// hypercube sample of the space (two fifths of the budget), then
// generations of 16 mutations around the best three candidates so far (a
// (μ+λ) evolution; a generation mutates by the step, half of it and twice
// it, a third of its candidates each, and after one that finds a new best
// the step is the one that found it, a fifth longer, otherwise it shrinks),
// and last a polish that tries undoing each of the
// best's changes from the base, so that the recommendation changes only
// what matters; what the polish leaves of the budget goes to mutations of
// the best, so a budget of N evaluates N candidates. Values are rounded to the parameter's slider Step; when
// adaptive is off, margin and delayCap keep the base's values (they do
// nothing then), and when it is on, delayCap is raised to at least delay.
// Settings already evaluated are not evaluated again, so the search may end
// before the budget when the space is small. The result does not depend on
// workers or on scheduling.
//
// A candidate is feasible when every constraint holds (on addedLatency and
// extraLatency, by the added latency's magnitude). Its Breaks say which
// constraints it breaks and by how much; its Violation sums how far, each
// in the metric's display unit (MetricField.Scale: cm, ms, %, count), to
// rank the infeasible ones. Candidates rank feasible first, then by least
// violation, least cost, fewest settings changed from the base, and
// evaluation order.
//
// The base is always a candidate, and nothing is recommended on the
// search's seed alone: the base and the search's three best then run on a
// seed set (Seeds run seeds; see tune_seeds.go), and Tune recommends
// (Recommended, Best) over a base that meets the constraints only a
// finalist better beyond the seeds' noise that worsens no headline metric,
// over a base that breaks them the cheapest finalist that meets them.
// Otherwise it recommends nothing: the base is as good as anything tried,
// beyond noise. When neither the base nor a finalist is feasible over the
// set, Feasible is false and Closest lists the finalists that break the
// constraints least. A tuning bounded on latency starts from the setting
// of least latency LatencyFloor's probe found.
//
// Runs go to workers goroutines (GOMAXPROCS when workers ≤ 0), one run per
// candidate and motion; over a population, one entity of a candidate. progress, if not nil, is called once per evaluated
// candidate from the goroutine that called Tune, one call at a time, with
// the number evaluated so far and spec.Budget (which the search may end
// short of). When ctx is done, Tune stops within about a millisecond of
// simulation per worker and returns ctx.Err() with the result of the
// candidates evaluated so far (Base and Best are zero Candidates if none
// was).
func Tune(ctx context.Context, spec TuneSpec, workers int, progress func(c Candidate, done, total int)) (TuneResult, error) {
	if err := spec.Validate(); err != nil {
		return TuneResult{}, err
	}
	t := newTuneSearch(spec.normalized(), workers, progress)
	for batch := t.next(); batch != nil; batch = t.next() {
		evaluated, err := t.evaluate(ctx, batch)
		if err != nil {
			t.keep(evaluated)
			return t.result(), err
		}
		cands := make([]Candidate, len(evaluated))
		for i, c := range evaluated {
			cands[i] = *c
		}
		t.advance(cands)
	}
	return t.result(), nil
}
