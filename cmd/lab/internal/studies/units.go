package studies

import (
	"context"
	"encoding/json"
	"fmt"
	"math"

	"interplab/cmd/lab/internal/jobs"
	"interplab/engine"
	"interplab/engine/study"
)

// The studies in units of work, as lab worker runs them on a team's queue
// (package jobs, units.go): a population run in chunks of entities, a
// sweep in runs of grid points, both merged once every chunk is done; a
// tuning a batch of candidates at a time, each candidate a unit, the
// search advanced with the batch's candidates. engine/study makes each
// merge give what the same study gives in one process, byte for byte.

// unitWork is the work of one chunk, in entity-frames × techniques:
// about half a second of one core (0.46 s a chunk of lab population
// -preset harbor-before in BenchmarkTeamScaling), so that the queue's cost
// per unit, about 2 ms, is lost in it, and 16 workers share the Harbor
// study (2.2e8) in 112 units. Tests make it smaller.
var unitWork = 2e6

// maxUnits bounds the chunks of one study: above it they grow.
const maxUnits = 1000

// UnitsOf returns the units of a queued study of kind whose spec is as
// DecodeJob decodes it: what a worker (lab worker) runs of a study it takes
// from the queue, with the results the lab's own process gives.
func UnitsOf(kind string, spec any) (jobs.Units, error) {
	switch sp := spec.(type) {
	case *sweepJob:
		return sweepUnits{sp}, nil
	case *tuneJob:
		return tuneUnits{sp}, nil
	case *populationJob:
		return populationUnits{sp}, nil
	}
	return nil, fmt.Errorf("%s job: spec of type %T is not a study's", kind, spec)
}

// span is a chunk of a study's entities or grid points: [From, To).
type span struct {
	From int `json:"from"`
	To   int `json:"to"`
}

// spans cuts n things of work each (entity-frames × techniques) into
// chunks of about unitWork, at most maxUnits of them, their sizes differing
// by one at most.
func spans(n int, each float64) []any {
	per := max(1, int(unitWork/max(each, 1)))
	count := min((n+per-1)/per, maxUnits)
	out := make([]any, count)
	for i := range count {
		out[i] = span{From: n * i / count, To: n * (i + 1) / count}
	}
	return out
}

// chunked is the plan's state of a study run as one batch of chunks: how
// many.
type chunked struct {
	Chunks int `json:"chunks"`
}

// chunkResults decodes the results of a study's chunks, each a list of T,
// into one list, checking they are the chunks its plan made.
func chunkResults[T any](state []byte, results []json.RawMessage) ([]T, error) {
	var st chunked
	if err := json.Unmarshal(state, &st); err != nil {
		return nil, fmt.Errorf("the plan's state: %w", err)
	}
	if st.Chunks != len(results) {
		return nil, fmt.Errorf("the plan made %d chunks, and %d have results", st.Chunks, len(results))
	}
	var all []T
	for i, r := range results {
		var part []T
		if err := json.Unmarshal(r, &part); err != nil {
			return nil, fmt.Errorf("the result of chunk %d: %w", i, err)
		}
		all = append(all, part...)
	}
	return all, nil
}

// chunkStep is the first step of a study run in chunks.
func chunkStep(units []any) jobs.Step {
	st, _ := json.Marshal(chunked{Chunks: len(units)})
	return jobs.Step{State: st, Units: units}
}

// populationUnits is a population run in chunks of entities.
type populationUnits struct{ pj *populationJob }

func (u populationUnits) Plan(state []byte, results []json.RawMessage) (jobs.Step, error) {
	spec := u.pj.Spec
	if state == nil {
		p := &spec.Population
		each := float64(p.Rounds) * p.Round * spec.Base.RenderRate * float64(len(engine.InOrder(spec.Base.Techniques)))
		return chunkStep(spans(p.Entities, each)), nil
	}
	ents, err := chunkResults[study.PopulationEntity](state, results)
	if err != nil {
		return jobs.Step{}, err
	}
	res, err := study.MergePopulation(spec, ents)
	if err != nil {
		return jobs.Step{}, err
	}
	return jobs.Step{State: state, Result: res}, nil
}

func (u populationUnits) Run(ctx context.Context, unit json.RawMessage) (any, error) {
	var c span
	if err := json.Unmarshal(unit, &c); err != nil {
		return nil, fmt.Errorf("a population chunk: %w", err)
	}
	return study.RunPopulationEntities(ctx, u.pj.Spec, c.From, c.To, 0, nil)
}

// Items are the chunk's entities, as the lab's own process reports them.
func (u populationUnits) Items(result json.RawMessage, done int) ([]any, error) {
	var ents []study.PopulationEntity
	if err := json.Unmarshal(result, &ents); err != nil {
		return nil, err
	}
	items := make([]any, len(ents))
	for i, e := range ents {
		items[i] = populationItemOf(e)
	}
	return items, nil
}

// sweepUnits is a sweep in runs of grid points.
type sweepUnits struct{ sj *sweepJob }

func (u sweepUnits) Plan(state []byte, results []json.RawMessage) (jobs.Step, error) {
	spec := u.sj.Spec
	if state == nil {
		s := spec.Base
		return chunkStep(spans(spec.Points(), float64(s.Entities)*math.Round(s.Duration*s.RenderRate))), nil
	}
	pts, err := chunkResults[study.SweepPoint](state, results)
	if err != nil {
		return jobs.Step{}, err
	}
	merged, err := study.MergeSweep(spec, pts)
	if err != nil {
		return jobs.Step{}, err
	}
	return jobs.Step{State: state, Result: merged}, nil
}

func (u sweepUnits) Run(ctx context.Context, unit json.RawMessage) (any, error) {
	var c span
	if err := json.Unmarshal(unit, &c); err != nil {
		return nil, fmt.Errorf("a run of sweep points: %w", err)
	}
	pts, err := study.SweepPoints(ctx, u.sj.Spec, c.From, c.To, 0, nil)
	if err != nil {
		return nil, err // nothing partial: the unit runs again whole
	}
	return pts, nil
}

// Items are the run's points, as the lab's own process reports them.
func (u sweepUnits) Items(result json.RawMessage, done int) ([]any, error) {
	var pts []study.SweepPoint
	if err := json.Unmarshal(result, &pts); err != nil {
		return nil, err
	}
	items := make([]any, len(pts))
	for i, p := range pts {
		items[i] = p
	}
	return items, nil
}

// tuneUnits is a tuning a batch of candidates at a time, a candidate a
// unit (its settings).
type tuneUnits struct{ tj *tuneJob }

func (u tuneUnits) Plan(state []byte, results []json.RawMessage) (jobs.Step, error) {
	spec := u.tj.Spec
	var s *study.TuneSearch
	var err error
	if state == nil {
		s, err = study.NewTuneSearch(spec)
	} else {
		var st study.TuneState
		if err := json.Unmarshal(state, &st); err != nil {
			return jobs.Step{}, fmt.Errorf("the search's state: %w", err)
		}
		cands := make([]study.Candidate, len(results))
		for i, r := range results {
			if err := json.Unmarshal(r, &cands[i]); err != nil {
				return jobs.Step{}, fmt.Errorf("candidate %d: %w", i, err)
			}
		}
		s, err = study.ResumeTuneSearch(spec, st, cands)
	}
	if err != nil {
		return jobs.Step{}, err
	}
	batch := s.Next()
	next, err := json.Marshal(s.State())
	if err != nil {
		return jobs.Step{}, err
	}
	if batch == nil {
		return jobs.Step{State: next, Result: s.Result()}, nil
	}
	units := make([]any, len(batch))
	for i := range batch {
		units[i] = batch[i]
	}
	return jobs.Step{State: next, Units: units}, nil
}

func (u tuneUnits) Run(ctx context.Context, unit json.RawMessage) (any, error) {
	var s engine.Settings
	if err := json.Unmarshal(unit, &s); err != nil {
		return nil, fmt.Errorf("a candidate's settings: %w", err)
	}
	return study.EvaluateCandidate(ctx, u.tj.Spec, s, 0)
}

// Items is the candidate, as the lab's own process reports it.
func (u tuneUnits) Items(result json.RawMessage, done int) ([]any, error) {
	var c study.Candidate
	if err := json.Unmarshal(result, &c); err != nil {
		return nil, err
	}
	return []any{tuneItemOf(c, done+1)}, nil
}
