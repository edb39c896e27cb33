package study

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"interplab/engine"
	"interplab/engine/netsim"
	"interplab/engine/technique"
)

// Feasible bounds. The added latency a technique shows includes the
// network's own: on a 120 ms link no technique that waits for its snapshots
// shows less than about 120 ms, whatever its settings. Tune checks every
// bound on added latency against that floor before it searches (a bound
// below it is refused, with the floor named), and offers the bound that can
// be met: extraLatency, the delay beyond the network.

// ExtraLatencyMetric is the name of the tuner's delay beyond the network.
const ExtraLatencyMetric = "extraLatency"

// ExtraLatencyField describes the extraLatency metric, which only the tuner
// reads: it is not a field of Metrics (see TuneResult.ExtraLatency).
var ExtraLatencyField = engine.MetricField{Name: ExtraLatencyMetric, Unit: "s", Display: "ms", Scale: 1000,
	Doc: "Added latency beyond the network's: |addedLatency| less the link's mean one-way transit (latency + jitter, and a scenario's delays, over the run). The delay the technique's own settings add; negative when it draws ahead of the average packet."}

// TuneMetricFields lists the metrics a tuning on one link can bound, in the
// order the tuner's forms show them: MetricFields with ExtraLatencyField
// after addedLatency, then RecoveryField (with a scenario).
func TuneMetricFields() []engine.MetricField {
	i := metricIndex("addedLatency") + 1
	fields := slices.Concat(engine.MetricFields[:i], []engine.MetricField{ExtraLatencyField}, engine.MetricFields[i:])
	return append(fields, RecoveryField)
}

// TuneMetric returns the metric called name that a tuning can bound: one
// of MetricFields, PopulationMetricFields or the tuner's own extraLatency
// and recovery; or blank, the bound every tuning applies (see BlankMetric).
func TuneMetric(name string) (engine.MetricField, bool) {
	if name == BlankMetric {
		return BlankField, true // a bound Tune always applies, never one typed
	}
	return metricField(name)
}

// tuneField returns the tuner's own metric called name, extraLatency or
// recovery, which are not fields of Metrics.
func tuneField(name string) (engine.MetricField, bool) {
	switch name {
	case ExtraLatencyMetric:
		return ExtraLatencyField, true
	case RecoveryMetric:
		return RecoveryField, true
	}
	return engine.MetricField{}, false
}

// floorFit is how far below the lag of its render time a technique's
// added latency may be fitted: the metric is the delay that best aligns
// the path drawn with the truth, and a dead-reckoned or corner-cut path
// fits a little earlier than the time it was drawn at (a few ms at most in
// the engine's tests; TestTuneFloorHolds keeps every floor true).
const floorFit = 0.005 // s

// floorClockShare is the share of the jitter a technique.Transit technique's
// floor allows for its clock: the buffer's stream time follows the
// client's estimate of server time, refined from pings over the same
// jittery link, so the transit it measures can come out short by the
// estimate's error (up to 0.13 × jitter in the engine's tests).
const floorClockShare = 0.25

// TuneFloor is the least added latency a technique can show on a link,
// whatever its own settings, and what makes it.
type TuneFloor struct {
	// AddedLatency is the floor a designer is shown, in s, a whole ms
	// rounded down: the least |addedLatency| a search of the technique's
	// settings reaches on the link (Reached, when Searched), and never below
	// Proven. A full tuning may reach a little lower; it is never a value
	// the search cannot reach.
	AddedLatency float64

	// Proven is the bound the link alone sets, in s, a whole ms rounded
	// down: |addedLatency| cannot go below it whatever the settings; a bound
	// below it is refused.
	Proven float64

	Latency   float64 // s: the link's least one-way latency over the run
	Interval  float64 // s: the send interval, when it counts (technique.Received); 0 otherwise
	Allowance float64 // s: what the floor allows below the render time's lag, for the metric's fit and the technique's clock
	Transit   float64 // s: the link's mean one-way transit (see LinkTransit)
	Technique string

	// Searched is set when AddedLatency is the least a search of the
	// technique's settings reaches (see tune_floor_probe.go), Reached,
	// rather than Proven, which is then below it.
	Searched bool
	Reached  float64 // s: the least |addedLatency| the search found; 0 when not Searched
}

// LatencyFloor returns the least |addedLatency| technique can show on the
// link of s, whatever its own settings; ok is false when the network sets
// it none (epic, epicfix, unreal-cmc and geckos extrapolate ahead of what
// they received; a link with netem reordering sends packets at once, skipping
// the latency).
//
// The floor is derived from the link alone. Let L be its least one-way
// latency over the run (the latency, or the least a scenario gives it; 0
// with reordering), I = 1/sendRate the send interval and P = 1/renderRate
// the frame period. Jitter, loss, queueing, spikes and outages only delay
// or remove packets, so they never lower it.
//
//   - A technique that draws at its snapshots and dead-reckons past the
//     newest only from when it arrived (buffer, hermite, source) shows at
//     frame t the truth of no later than t − (its transit): at least L
//     behind, floor L, less floorClockShare × the link's largest mean
//     jitter J for the clock it reads that time by.
//   - One that draws only between snapshots it has received and holds when
//     dry (mirror, ngo, snap) shows at t nothing newer than its
//     newest snapshot, sent at or before t − L on the send grid: it is
//     L + ((t − L) mod I) behind. Averaged over the frames this is at least
//     L + (I − P)/2 (the frames fall on every phase of the grid when their
//     periods are incommensurate, and on a lattice of step gcd(P, I) ≤ P
//     otherwise), so the floor is L + max(I − P, 0)/2.
//
// Both less floorFit, for the metric is fitted rather than measured, and
// rounded down to a whole millisecond, the floor that messages show: on the
// review's link (120 ms + 30 ms of jitter, 30 Hz sends, 60 Hz frames) mirror
// cannot go below 120 + 8.3 − 5 → 123 ms, the buffer below
// 120 − 5 − 7.5 → 107 ms.
//
// That bound is proven but can be far below what the technique's settings
// reach (mirror follows the mean delivery time, not the least), so the
// floor is then raised to what a search of them finds (Searched; see
// tune_floor_probe.go): on an 80 ms link with 20 ms of jitter and 30 Hz
// sends mirror's proven bound is 83 ms, and its knobs reach no lower than
// about 126 ms.
func LatencyFloor(name string, s *engine.Settings) (TuneFloor, bool) {
	sc, err := engine.ScenarioOf(s)
	if err != nil {
		return TuneFloor{}, false
	}
	f, ok := latencyFloor(name, s, sc)
	if !ok {
		return f, false
	}
	f.Transit = linkTransit(s, sc)
	if p := probeFloor(name, s); p.ok {
		if m := math.Floor(p.least*1000+1e-9) / 1000; m > f.AddedLatency {
			f.AddedLatency, f.Searched, f.Reached = m, true, p.least
		}
	}
	return f, true
}

// latencyFloor is LatencyFloor with the scenario of s parsed, less the
// Transit: that samples the scenario over the whole run, and a population's
// check asks for a floor per entity and reads only AddedLatency.
func latencyFloor(name string, s *engine.Settings, sc *netsim.Scenario) (TuneFloor, bool) {
	reach := engine.TechniqueReach(name)
	least, jitter := linkExtremes(s, sc)
	if reach == technique.Ahead || least <= 0 {
		return TuneFloor{}, false
	}
	f := TuneFloor{Latency: least, Technique: name, Allowance: floorFit}
	floor := least
	if reach == technique.Received {
		f.Interval = 1 / s.SendRate
		floor += max(f.Interval-1/s.RenderRate, 0) / 2
	} else {
		f.Allowance += floorClockShare * jitter
	}
	f.AddedLatency = math.Floor((floor-f.Allowance)*1000+1e-9) / 1000
	if f.AddedLatency <= 0 {
		return TuneFloor{}, false
	}
	f.Proven = f.AddedLatency
	return f, true
}

// linkExtremes returns the least one-way latency a packet can have on the
// link of s over the run and the largest mean jitter: the values the
// scenario sc gives at their least and most (they are piecewise linear
// between its events, so at an event's start or end), the settings' own
// with an ideal link (whose jitter is then 0); the least latency is 0 with
// reordering.
func linkExtremes(s *engine.Settings, sc *netsim.Scenario) (least, jitter float64) {
	if s.Ideal {
		return s.Latency, 0
	}
	c := sc.Conditions(&s.NetworkSettings, 0)
	least, jitter = c.Latency, c.Jitter
	if sc != nil {
		for i := range sc.Events {
			e := &sc.Events[i]
			for _, t := range []float64{e.At, e.At + e.For} {
				if t <= s.Duration {
					c := sc.Conditions(&s.NetworkSettings, t)
					least, jitter = min(least, c.Latency), max(jitter, c.Jitter)
				}
			}
		}
	}
	if s.Reorder > 0 {
		least = 0
	}
	return least, jitter
}

// transitSamples bounds the sends linkTransit averages over.
const transitSamples = 20000

// LinkTransit returns the link's mean one-way transit over the run of s,
// in seconds: latency + jitter (the jitter's mean), plus a scenario's
// spikes and hiccups, averaged over the sends (at most 20,000 of them,
// evenly spread); the latency alone with an ideal link. Queueing behind a
// bandwidth limit, outages and reordering are not counted. extraLatency is
// the added latency less it.
func LinkTransit(s *engine.Settings) float64 {
	sc, err := engine.ScenarioOf(s)
	if err != nil {
		return s.Latency + s.Jitter
	}
	return linkTransit(s, sc)
}

func linkTransit(s *engine.Settings, sc *netsim.Scenario) float64 {
	if s.Ideal {
		return s.Latency
	}
	if sc == nil {
		return s.Latency + s.Jitter
	}
	n := max(1, min(int(s.Duration*s.SendRate), transitSamples))
	sum := 0.0
	for k := range n {
		c := sc.Conditions(&s.NetworkSettings, float64(k)*s.Duration/float64(n))
		sum += c.Latency + c.Jitter + c.Extra
	}
	return sum / float64(n)
}

// checkFloors refuses a bound on added latency (or extraLatency) below what
// the network alone allows technique, base its settings: the error names
// constraint i's max, the floor, what makes it, and the bound that can be met.
func (s *TuneSpec) checkFloors(base *engine.Settings) error {
	if !slices.ContainsFunc(s.Constraints, func(c Constraint) bool {
		return c.Metric == "addedLatency" || c.Metric == ExtraLatencyMetric
	}) {
		return nil // nothing to check: spare sampling the link's transit
	}
	if _, err := engine.ScenarioOf(base); err != nil {
		return err
	}
	f, ok := LatencyFloor(s.Technique, base)
	if !ok {
		return nil
	}
	for i, c := range s.Constraints {
		floor := f.Proven // what cannot be met; above it the search says how near it comes
		switch c.Metric {
		case "addedLatency":
		case ExtraLatencyMetric:
			floor = math.Floor((f.Proven-f.Transit)*1000+1e-9) / 1000
		default:
			continue
		}
		if c.Max >= floor {
			continue
		}
		why := c.Metric + " cannot go below " + msText(floor) + " on this link: the network's latency is " + msText(f.Latency)
		if f.Interval > 0 {
			why += ", and " + f.Technique + " draws only between the snapshots it has received (one every " + msText(f.Interval) + ")"
		} else {
			why += ", and " + f.Technique + " draws no earlier than the snapshots it has received (the floor allows " +
				msText(f.Allowance) + " for its clock's error and how the added latency is measured)"
		}
		if c.Metric == "addedLatency" {
			if f.Searched {
				why += "; a search of " + f.Technique + "'s settings reaches no lower than " + msText(f.Reached)
			}
			why += "; or bound " + ExtraLatencyMetric + ", the delay beyond the network's mean one-way transit of " + msText(f.Transit) +
				" (" + ExtraLatencyMetric + "=60ms is addedLatency ≤ " + msText(f.Transit+0.06) + " here)"
		}
		return &engine.FieldError{Field: "constraints[" + strconv.Itoa(i) + "].max", Value: msText(c.Max),
			Allowed: "at least " + msText(floor) + ": " + why}
	}
	return nil
}

// checkPopulationFloors is checkFloors over a population: entity e's added
// latency is at least its own link's floor, so a percentile of the added
// latency across entities (addedLatencyP50, P90, P99) is at least the same
// percentile of their floors.
func (s *TuneSpec) checkPopulationFloors(base *engine.Settings) error {
	sc, err := engine.ScenarioOf(base)
	if err != nil {
		return err
	}
	if engine.TechniqueReach(s.Technique) == technique.Ahead {
		return nil
	}
	p := s.Population
	var floors []float64
	for i, c := range s.Constraints {
		q, ok := map[string]float64{"addedLatencyP50": 0.5, "addedLatencyP90": 0.9, "addedLatencyP99": 0.99}[c.Metric]
		if !ok {
			continue
		}
		if floors == nil {
			floors = make([]float64, p.Entities)
			for e := range floors {
				es := *base
				l, _, _ := p.Entity(e)
				es.Latency, es.Jitter = l.Latency, l.Jitter
				if f, ok := latencyFloor(s.Technique, &es, sc); ok {
					floors[e] = f.AddedLatency
				}
			}
			slices.Sort(floors)
		}
		floor := nearestRank(floors, q)
		if c.Max >= floor {
			continue
		}
		return &engine.FieldError{Field: "constraints[" + strconv.Itoa(i) + "].max", Value: msText(c.Max),
			Allowed: "at least " + msText(floor) + ": " + c.Metric + " cannot go below " + msText(floor) +
				" over this population: each entity's added latency is at least its own link's floor (its latency, for " + s.Technique +
				"), and the p" + strconv.Itoa(int(math.Round(q*100))) + " of those floors across the entities is " + msText(floor)}
	}
	return nil
}

// msText shows a time in seconds as ms, to 0.1 ms and without trailing
// zeros: "123 ms", "33.3 ms", "-27 ms".
func msText(v float64) string {
	ms := strconv.FormatFloat(v*1000, 'f', 1, 64)
	return strings.TrimSuffix(ms, ".0") + " ms"
}
