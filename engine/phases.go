package engine

import (
	"math"

	"interplab/engine/netsim"
)

// PhaseMetrics are one technique's metrics split by the phases of a
// scenario (see Scenario.Span): before its first event, during it, and
// after its last event ends; and how long the technique took to recover.
//
// A phase's errMax and snapMax are exact when the phase holds the run's
// largest so far, else bounds: errMax from the error histogram (within 3%),
// snapMax the largest snap of the run up to the phase's end.
type PhaseMetrics struct {
	Before Metrics `json:"before"`
	During Metrics `json:"during"`
	After  Metrics `json:"after"`

	// Recovery is the time from the scenario's end until the technique's
	// error and delay are back within 10% of their steady state, s, and
	// stay there (see RunPhases); Recovered is false when they were not
	// within the horizon or the run. Run leaves both zero.
	Recovery  float64 `json:"recovery"`
	Recovered bool    `json:"recovered"`
}

// ScenarioSpan tells which scenario a run went through and when it
// disturbed the link, s.
type ScenarioSpan struct {
	Name  string  `json:"name"`
	Title string  `json:"title"`
	Start float64 `json:"start"`
	End   float64 `json:"end"`
}

// Parameters of the recovery time.
const (
	// recoveryBucket is the resolution of the recovery time, s.
	RecoveryBucket = 0.1
	// recoveryWindow is the length of the windows whose error and delay
	// are compared, in buckets (1 s): long enough to average a few
	// packets, short enough to see a recovery.
	recoveryWindow = 10
	// recoveryHorizon is how long after a scenario's end recovery is
	// looked for, s; it bounds the memory the windows take.
	RecoveryHorizon = 30
	// recoveryBand is the relative band around the steady state.
	recoveryBand = 0.1
	// recoveryErrFloor and recoveryDelayFloor widen the band, in m and
	// s, so that a steady state near 0 has a band at all.
	recoveryErrFloor   = 0.005
	recoveryDelayFloor = 0.005
)

// phaseTracker records, during a run, the metrics at the scenario's phase
// boundaries and the running sums at every recoveryBucket after its end.
type phaseTracker struct {
	start, end float64
	phase      int      // phase of the frames taken: 0 before, 1 during, 2 after
	marks      [2][]acc // the accumulators at the end of phases 0 and 1

	buckets int         // buckets recorded
	cum     []phaseSums // [bucket*nt + k]: technique k's sums before the bucket's start
}

// phaseSums are the running sums a recovery window is taken from.
type phaseSums struct {
	errSq     float64
	frames    int
	lagSSE    []float64
	lagFrames int
}

func newPhaseTracker(start, end float64) *phaseTracker {
	return &phaseTracker{start: start, end: end}
}

func (p *phaseTracker) phaseOf(t float64) int {
	switch {
	case t < p.start:
		return 0
	case t < p.end:
		return 1
	}
	return 2
}

// frame takes in the frame m has just counted; next is the next frame's time.
func (p *phaseTracker) frame(m *Sim, next float64) {
	for p.phase < 2 && p.phaseOf(next) > p.phase {
		p.marks[p.phase] = cloneAccs(m.accs)
		p.phase++
	}
	for p.buckets <= RecoveryHorizon/RecoveryBucket && next >= p.end+float64(float64(p.buckets)*RecoveryBucket)-timeEps {
		for k := range m.accs {
			a := &m.accs[k]
			p.cum = append(p.cum, phaseSums{errSq: a.errSq, frames: a.frames,
				lagSSE: append([]float64(nil), a.lagSSE...), lagFrames: a.lagFrames})
		}
		p.buckets++
	}
}

func cloneAccs(accs []acc) []acc {
	c := make([]acc, len(accs))
	for k := range accs {
		c[k] = accs[k]
		c[k].lagSSE = append([]float64(nil), accs[k].lagSSE...)
	}
	return c
}

// accMinus returns what a accumulated since b, an earlier copy of it.
func accMinus(a, b *acc) acc {
	d := acc{
		frames: a.frames - b.frames, errSq: a.errSq - b.errSq, snaps: a.snaps - b.snaps,
		underrun: a.underrun - b.underrun, extrapolated: a.extrapolated - b.extrapolated, frozen: a.frozen - b.frozen,
		accelFrames: a.accelFrames - b.accelFrames, accelSq: a.accelSq - b.accelSq,
		rounds: a.rounds - b.rounds, roundsUnder: a.roundsUnder - b.roundsUnder, lagFrames: a.lagFrames - b.lagFrames,
	}
	top := -1
	for i := range d.hist {
		d.hist[i] = a.hist[i] - b.hist[i]
		if d.hist[i] > 0 {
			top = i
		}
	}
	switch {
	case a.errMaxSq > b.errMaxSq:
		d.errMaxSq = a.errMaxSq
	case top >= 0:
		v := histValue(top)
		d.errMaxSq = min(v*v, a.errMaxSq)
	}
	if d.snaps > 0 {
		d.snapMaxSq = a.snapMaxSq
	}
	switch {
	case b.lagSSE == nil: // b is the zero accumulator
		d.lagSSE = append([]float64(nil), a.lagSSE...)
	case len(a.lagSSE) == len(b.lagSSE):
		d.lagSSE = make([]float64, len(a.lagSSE))
		for i := range d.lagSSE {
			d.lagSSE[i] = a.lagSSE[i] - b.lagSSE[i]
		}
	default:
		d.lagFrames = 0 // the frame rate changed: no delay for the phase
	}
	return d
}

// Phases returns every running technique's metrics by phase of the
// scenario, in Techniques order, and the scenario's span; nil and false
// without a scenario that disturbs the link. Recovery is left zero (see
// RunPhases).
func (m *Sim) Phases() ([]PhaseMetrics, ScenarioSpan, bool) {
	p := m.phases
	if p == nil {
		return nil, ScenarioSpan{}, false
	}
	span := ScenarioSpan{Name: m.set.Scenario, Start: p.start, End: p.end}
	if sc, _ := ScenarioOf(&m.set); sc != nil {
		span.Title = sc.Title
	}
	out := make([]PhaseMetrics, len(m.accs))
	var zero acc
	for k := range m.accs {
		cur := &m.accs[k]
		// before, during and after as accumulators, from the marks taken.
		var parts [3]acc
		lo := &zero
		for ph := range 3 {
			if ph > p.phase {
				break
			}
			hi := cur
			if ph < 2 && ph < p.phase {
				hi = &p.marks[ph][k]
			}
			parts[ph] = accMinus(hi, lo)
			lo = hi
		}
		out[k] = PhaseMetrics{
			Before: parts[0].metrics(0, 0, m.lag),
			During: parts[1].metrics(0, 0, m.lag),
			After:  parts[2].metrics(0, 0, m.lag),
		}
	}
	return out, span, true
}

// window returns technique k's RMS error and added latency over buckets
// [i, i+recoveryWindow) after the scenario's end.
func (p *phaseTracker) window(nt, k, i int, lag lagGrid) (errRMS, delay float64) {
	a, b := &p.cum[(i+recoveryWindow)*nt+k], &p.cum[i*nt+k]
	if n := a.frames - b.frames; n > 0 {
		errRMS = math.Sqrt(max(a.errSq-b.errSq, 0) / float64(n))
	}
	if len(a.lagSSE) == len(b.lagSSE) && a.lagFrames > b.lagFrames {
		sse := make([]float64, len(a.lagSSE))
		for j := range sse {
			sse[j] = a.lagSSE[j] - b.lagSSE[j]
		}
		delay, _ = lag.best(sse, a.lagFrames-b.lagFrames)
	}
	return errRMS, delay
}

// RunPhases is Run for a run through a scenario: it also returns every
// technique's metrics by phase and its recovery time, and the scenario's
// span. Without a scenario that disturbs the link it is Run.
//
// The steady state a technique recovers to is the same run without the
// scenario: the same seed gives the same motion and, since the link draws a
// fixed count of numbers per packet, the same packets wherever the scenario
// did not change them. From the scenario's end, error (RMS) and delay
// (added latency) are compared over 1 s windows every 0.1 s with those of
// the run without it; the recovery time is the start of the first window
// from which every window up to 30 s after the end (or the run's end) is
// within 10% of the steady state's (plus 5 mm and 5 ms). The delay of a
// window trails it by latencyAhead (0.25 s), as the added-latency metric
// does. So it costs two runs.
func RunPhases(s Settings) (Result, error) { return RunPhasesUntil(nothing{}, s) }

// nothing is a Canceller that never stops a run.
type nothing struct{}

func (nothing) Err() error { return nil }

// RunPhasesUntil is RunPhases that gives up with c.Err() when c says so.
func RunPhasesUntil(c Canceller, s Settings) (Result, error) {
	m, err := newQuietSim(s)
	if err != nil {
		return Result{}, err
	}
	if err := m.StepAll(c); err != nil {
		return Result{}, err
	}
	res := m.result(0)
	ph, span, ok := m.Phases()
	if !ok {
		return res, nil
	}
	base := s
	base.Scenario = netsim.ScenarioNone
	b, err := newQuietSim(base)
	if err != nil {
		return Result{}, err
	}
	b.phases = newPhaseTracker(span.Start, span.End)
	if err := b.StepAll(c); err != nil {
		return Result{}, err
	}

	p, q, nt := m.phases, b.phases, len(m.techs)
	nw := min(p.buckets, q.buckets) - recoveryWindow // windows with both runs' data
	for k := range ph {
		last := -1 // the last window out of the band
		for i := range max(nw, 0) {
			e, d := p.window(nt, k, i, m.lag)
			eb, db := q.window(nt, k, i, b.lag)
			// float64() keeps the products from fusing into the sums, so
			// a borderline window decides the same on every platform.
			if math.Abs(e-eb) > float64(recoveryBand*eb)+recoveryErrFloor || math.Abs(d-db) > float64(recoveryBand*math.Abs(db))+recoveryDelayFloor {
				last = i
			}
		}
		if nw > 0 && last < nw-1 {
			ph[k].Recovered, ph[k].Recovery = true, float64(float64(last+1)*RecoveryBucket)
		}
	}
	for k := range res.Techniques {
		res.Techniques[k].Phases = &ph[k]
	}
	return res, nil
}
