package study

import (
	"context"
	"strconv"

	"interplab/engine"
)

// A tuning in batches: the search (see Tune) proposes its candidates a
// batch at a time, each batch from the candidates evaluated before it, and
// the candidates of a batch are independent of each other. So a batch's
// candidates can be evaluated anywhere, in any order (EvaluateCandidate),
// and the search advanced with their results; the search's state between
// batches (TuneState) and the candidates so far are all another process
// needs to take it up (ResumeTuneSearch). The candidates and their order
// are fixed by the spec's seed: the result is Tune's, byte for byte, for
// any number of machines. A team's lab runs its tunings this way, a
// candidate per unit of work on its queue. Tune itself runs this search
// in one process, a batch's candidates spread over the cores.

// TuneSearch is Tune's search, one batch of candidates at a time:
//
//	s, err := study.NewTuneSearch(spec)
//	for batch := s.Next(); batch != nil; batch = s.Next() {
//		// evaluate each of batch with EvaluateCandidate, anywhere
//		err = s.Advance(cands)
//	}
//	res := s.Result()
type TuneSearch struct{ t *tuneSearch }

// NewTuneSearch returns the search of spec, before its first batch. It
// validates spec first and returns Validate's error.
func NewTuneSearch(spec TuneSpec) (*TuneSearch, error) {
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	return &TuneSearch{newTuneSearch(spec.normalized(), 0, nil)}, nil
}

// Next returns the settings of the next batch's candidates, in the order
// Advance takes them; nil when the search is over. Until Advance it
// returns the same batch.
func (s *TuneSearch) Next() []engine.Settings {
	batch := s.t.next()
	if batch == nil {
		return nil
	}
	out := make([]engine.Settings, len(batch))
	for i := range batch {
		out[i] = batch[i].s
	}
	return out
}

// Advance moves the search on with the batch Next returned, its candidates
// evaluated by EvaluateCandidate, in Next's order. Candidates of other
// settings, fewer or more of them, or no batch pending are an error, a
// *FieldError on "candidates", and the search stays where it was.
func (s *TuneSearch) Advance(cands []Candidate) error {
	t := s.t
	if t.pending == nil {
		return &engine.FieldError{Field: "candidates", Value: strconv.Itoa(len(cands)) + " candidates", Allowed: "none: no batch is pending (call Next)"}
	}
	if len(cands) != len(t.pending) {
		return &engine.FieldError{Field: "candidates", Value: strconv.Itoa(len(cands)) + " candidates",
			Allowed: "the " + strconv.Itoa(len(t.pending)) + " of the batch Next returned"}
	}
	group := engine.TechniqueGroup(t.spec.Technique)
	for i := range cands {
		if tuneKey(&cands[i].Settings, group) != tuneKey(&t.pending[i].s, group) || cands[i].Settings.Seed != t.pending[i].s.Seed {
			return &engine.FieldError{Field: "candidates[" + strconv.Itoa(i) + "].settings", Value: tuneKey(&cands[i].Settings, group),
				Allowed: "the settings of the batch's candidate " + strconv.Itoa(i) + ", in Next's order"}
		}
	}
	t.advance(cands)
	return nil
}

// Result returns the outcome of the candidates evaluated so far, as Tune
// does; once Next returns nil it is Tune's result for the spec.
func (s *TuneSearch) Result() TuneResult { return s.t.result() }

// TuneState is where a search stands between two batches, besides the
// candidates it has evaluated: with them, all that ResumeTuneSearch needs
// to take the search up in another process. It encodes as a small JSON
// object.
type TuneState struct {
	Phase     string  `json:"phase"`     // start, evolve, polish, combine, fill, confirm or done
	Sigma     float64 `json:"sigma"`     // the mutation step, in unit-cube coordinates, in (0, 0.5]
	Draws     uint64  `json:"draws"`     // numbers the search has drawn from its generator
	Best      int     `json:"best"`      // evolve: the best candidate before the pending batch; polish: the candidate polished
	First     int     `json:"first"`     // polish: the first of the undos
	Evaluated int     `json:"evaluated"` // candidates evaluated before the pending batch
	Pending   int     `json:"pending"`   // candidates of the pending batch (Next's), 0 if none
}

// State returns where the search stands, with the batch Next returned
// pending.
func (s *TuneSearch) State() TuneState {
	t := s.t
	return TuneState{Phase: t.phase, Sigma: t.sigma, Draws: t.rng.draws, Best: t.best, First: t.first,
		Evaluated: len(t.cands), Pending: len(t.pending)}
}

// ResumeTuneSearch takes up the search of spec from state (State's) and
// cands: every candidate evaluated so far, in order, the state's Evaluated
// candidates then its pending batch's, evaluated. It returns the search
// advanced past that batch, as the search State was taken from would be
// after Advance. It validates spec (Validate's error) and the state (a
// *FieldError naming the state's field, or "candidates" when they are not
// as many as the state says).
func ResumeTuneSearch(spec TuneSpec, state TuneState, cands []Candidate) (*TuneSearch, error) {
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	t := newTuneSearch(spec.normalized(), 0, nil)
	if err := state.check(len(cands)); err != nil {
		return nil, err
	}
	for range state.Draws {
		t.rng.Uint64()
	}
	t.phase, t.sigma, t.best, t.first = state.Phase, state.Sigma, state.Best, state.First
	t.hasBase = state.Evaluated > 0
	for _, c := range cands[:state.Evaluated] {
		t.add(c)
	}
	if rest := cands[state.Evaluated:]; len(rest) > 0 {
		t.advance(rest)
	}
	return &TuneSearch{t}, nil
}

// check validates a state against the n candidates it is resumed with.
func (st *TuneState) check(n int) error {
	switch st.Phase {
	case phaseStart, phaseEvolve, phasePolish, phaseCombine, phaseFill, phaseConfirm, phaseDone:
	default:
		return &engine.FieldError{Field: "state.phase", Value: st.Phase, Allowed: "one of start, evolve, polish, combine, fill, confirm, done"}
	}
	if !(st.Sigma > 0 && st.Sigma <= tuneSigmaMax) {
		return &engine.FieldError{Field: "state.sigma", Value: strconv.FormatFloat(st.Sigma, 'g', -1, 64), Allowed: "(0, 0.5]"}
	}
	if st.Evaluated < 0 || st.Pending < 0 || st.Evaluated+st.Pending != n {
		return &engine.FieldError{Field: "candidates", Value: strconv.Itoa(n) + " candidates",
			Allowed: "state.evaluated + state.pending = " + strconv.Itoa(st.Evaluated) + " + " + strconv.Itoa(st.Pending)}
	}
	if st.Pending > 0 && st.Phase == phaseDone {
		return &engine.FieldError{Field: "state.pending", Value: strconv.Itoa(st.Pending), Allowed: "0 once the search is done"}
	}
	if st.Best < 0 || st.Best >= max(n, 1) {
		return &engine.FieldError{Field: "state.best", Value: strconv.Itoa(st.Best), Allowed: "a candidate: [0, " + strconv.Itoa(max(n, 1)-1) + "]"}
	}
	if st.First < 0 || st.First > n {
		return &engine.FieldError{Field: "state.first", Value: strconv.Itoa(st.First), Allowed: "[0, " + strconv.Itoa(n) + "]"}
	}
	return nil
}

// EvaluateCandidate evaluates candidate settings s of spec's search (one of
// a batch Next returned) as Tune does: a run on each motion of the mix, the
// whole population, or the runs with and without the scenario that bound
// the recovery, on workers goroutines (GOMAXPROCS when ≤ 0), and its cost
// and constraints. The candidate is Tune's for s, whatever the worker
// count. It validates spec first (Validate's error); when ctx is done it
// returns ctx.Err().
func EvaluateCandidate(ctx context.Context, spec TuneSpec, s engine.Settings, workers int) (Candidate, error) {
	if err := spec.Validate(); err != nil {
		return Candidate{}, err
	}
	t := newTuneSearch(spec.normalized(), workers, nil)
	evaluated, err := t.evaluate(ctx, []tunePending{{s: s}})
	if err != nil {
		return Candidate{}, err
	}
	return *evaluated[0], nil
}
