// Package studies serves the lab's studies: sweeps, tunings and population
// runs, each run as a job of package jobs. It owns their pages (a form, then
// the progress, then the results: charts, tables, CSV), the requests that
// start them, and the job API (status, cancel, the progress WebSocket).
// Pages is the handlers; the server puts them in its route table, and hands
// in the job runner, the base-ref resolver and its error writer.
package studies

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"interplab/cmd/lab/internal/compare"
	"interplab/cmd/lab/internal/export"
	"interplab/cmd/lab/internal/jobs"
	"interplab/cmd/lab/internal/jsonapi"
	"interplab/engine"
	"interplab/engine/study"
	"interplab/templates"
)

// Job limits of the server's sweeps and tunings.
const (
	// jobMaxWork bounds one job, in entity-frames, each run counting at
	// least compare.CostEntities entities: 4e8 is about 3 to 10 minutes of
	// one core (the measure of package compare's bound), a 1,000-point sweep of the
	// default 60 s scenario needs 1.2e8.
	jobMaxWork = 4e8
)

// Pages are the studies' handlers and what they are made of.
type Pages struct {
	// Jobs runs the studies; its archive decodes them with DecodeJob.
	Jobs *jobs.Runner
	// Settings resolves the base ref of a study to its label and settings
	// (compare.Resolver.Settings).
	Settings func(ref string) (label string, s engine.Settings, err error)
	// Now is the clock that marks a job as watched.
	Now func() time.Time
	// Fail answers an error in the API's one error shape.
	Fail func(w http.ResponseWriter, err error)
	// Client names who sent a request, for the jobs' per-client limit
	// (access.Gate.Caller: a browser, a sign-in, or an address).
	Client func(r *http.Request) string
}

// JobStatus is GET /api/jobs/{id}.
func (s *Pages) JobStatus(w http.ResponseWriter, r *http.Request) {
	j := s.Jobs.Get(r.PathValue("id"))
	if j == nil {
		jsonapi.WriteError(w, &jsonapi.Error{Status: http.StatusNotFound, Msg: "no such job", Field: "id"})
		return
	}
	j.Touch(s.Now()) // somebody is watching it
	jsonapi.WriteJSON(w, http.StatusOK, j.Status())
}

// jobCancelWait is how long POST /api/jobs/{id}/cancel waits for the job
// to stop before answering; the engine stops within milliseconds.
const jobCancelWait = 5 * time.Second

// CancelJob is POST /api/jobs/{id}/cancel: it cancels the job and
// answers its status once it has ended (an ended job is left as it is).
func (s *Pages) CancelJob(w http.ResponseWriter, r *http.Request) {
	j := s.Jobs.Get(r.PathValue("id"))
	if j == nil {
		jsonapi.WriteError(w, &jsonapi.Error{Status: http.StatusNotFound, Msg: "no such job", Field: "id"})
		return
	}
	j.Cancel()
	select {
	case <-j.Ended():
	case <-time.After(jobCancelWait):
	case <-r.Context().Done():
		return
	}
	jsonapi.WriteJSON(w, http.StatusOK, j.Status())
}

// JobWS is GET /ws/jobs/{id}: the job's progress (see package jobs).
func (s *Pages) JobWS(w http.ResponseWriter, r *http.Request) {
	j := s.Jobs.Get(r.PathValue("id"))
	if j == nil {
		jsonapi.WriteError(w, &jsonapi.Error{Status: http.StatusNotFound, Msg: "no such job", Field: "id"})
		return
	}
	s.Jobs.ServeWS(w, r, j)
}

// Accepted is the 202 answer of POST /api/sweeps and /api/tunes.
type Accepted struct {
	ID    string `json:"id"`
	Kind  string `json:"kind"`
	Total int    `json:"total"`
	WS    string `json:"ws"`   // the progress WebSocket's path
	Page  string `json:"page"` // the job's page: its results once done
}

// resolveBase resolves the base ref of a sweep or a tuning (compare.Resolver); an
// empty one means the engine's defaults.
func (s *Pages) resolveBase(ref string) (string, engine.Settings, error) {
	if strings.TrimSpace(ref) == "" {
		return "defaults", engine.Defaults(), nil
	}
	if len(ref) > compare.MaxRef {
		return "", engine.Settings{}, fmt.Errorf("ref of %d bytes: want at most %d", len(ref), compare.MaxRef)
	}
	return s.Settings(strings.TrimSpace(ref))
}

// startJob answers a request to start a study of kind (sweep, tune,
// population): it decodes the body into a request R, build checks it and
// returns what the job keeps for its page, its total of items and its work;
// then the job starts for the request's client and the answer is 202
// Accepted with the job's page, /KIND/ID. Every error is answered in the
// API's shape.
func startJob[R any](s *Pages, w http.ResponseWriter, r *http.Request, kind string, build func(req R) (spec any, total int, work jobs.Work, err error)) {
	var req R
	if err := jsonapi.Decode(r, &req); err != nil {
		s.Fail(w, err)
		return
	}
	spec, total, work, err := build(req)
	if err != nil {
		s.Fail(w, err)
		return
	}
	j, err := s.Jobs.Start(kind, s.Client(r), total, spec, work)
	if err != nil {
		s.Fail(w, err)
		return
	}
	jsonapi.WriteJSON(w, http.StatusAccepted, Accepted{ID: j.ID(), Kind: kind, Total: j.Total(), WS: "/ws/jobs/" + j.ID(), Page: "/" + kind + "/" + j.ID()})
}

// exportLinks are the export links of the settings whose share query is
// query, which run technique: every format that writes any technique's
// settings (json, netem, a library's network), and technique's own, if it
// has one. Only the technique the study was about: a Mirror designer's
// tuning offers the Mirror export, not the C++ header of the epic that
// runs beside it for comparison.
func exportLinks(query, technique string) []templates.JobOption {
	var links []templates.JobOption
	for _, f := range export.List() {
		if f.Technique == "" || f.Technique == technique {
			links = append(links, templates.JobOption{Value: "/api/export?format=" + f.Format + "&" + query, Label: f.Format})
		}
	}
	return links
}

// jobViewOf is a job's state for its page.
func jobViewOf(j *jobs.Job, page string) *templates.JobView {
	st := j.Status()
	return &templates.JobView{ID: j.ID(), Kind: j.Kind(), State: st.State, Done: st.Done, Total: st.Total, Error: st.Error,
		WS: "/ws/jobs/" + j.ID(), Page: page, CSV: page + "/data.csv", ChartURL: page + "/chart"}
}

// jobWork is the work of runs runs of s, in entity-frames (see jobMaxWork).
func jobWork(s engine.Settings, runs int) float64 {
	return float64(runs) * math.Round(s.Duration*s.RenderRate) * float64(max(s.Entities, compare.CostEntities))
}

// jobBaseError is a base ref that cannot be used, as a 400 on field base.
func jobBaseError(ref string, err error) error {
	return jsonapi.BadRequest("base", "base "+strconv.Quote(jsonapi.Clip(ref, 60))+": "+err.Error())
}

// DecodeJob turns an archived job's spec and result back into the types the
// sweep, tuner and population pages use.
func DecodeJob(kind string, spec, result []byte) (any, any, error) {
	switch kind {
	case "sweep":
		return decodeJob[sweepJob, []study.SweepPoint](kind, spec, result)
	case "tune":
		sp, res, err := decodeJob[tuneJob, study.TuneResult](kind, spec, result)
		if tr, ok := res.(study.TuneResult); ok && err == nil {
			res = upgradeTuneResult(tr, result)
		}
		return sp, res, err
	case "population":
		return decodeJob[populationJob, *study.PopulationResult](kind, spec, result)
	}
	return nil, nil, fmt.Errorf("unknown job kind %q", kind)
}

// upgradeTuneResult reads a tuning archived before results said whether
// they recommend (raw has no "recommended"): then Best was always set, the
// least violating candidate when none was feasible. It is a recommendation
// only if it is feasible and cheaper than the base, as Tune decides now;
// otherwise it is dropped, and with nothing feasible the three closest are
// listed (without their breaches, which were not recorded).
func upgradeTuneResult(r study.TuneResult, raw []byte) study.TuneResult {
	var has struct {
		Recommended *bool `json:"recommended"`
	}
	if json.Unmarshal(raw, &has) != nil || has.Recommended != nil {
		return r
	}
	r.Recommended = r.Best.Feasible && r.Best.Cost < r.Base.Cost
	if !r.Recommended {
		r.Best = study.Candidate{}
	}
	if !r.Feasible && len(r.Closest) == 0 {
		closest := slices.Clone(r.Candidates)
		slices.SortStableFunc(closest, func(a, b study.Candidate) int { return cmp.Compare(a.Violation, b.Violation) })
		r.Closest = closest[:min(3, len(closest))]
	}
	return r
}

// decodeJob decodes a job's spec as a *S and its result, if any, as an R.
func decodeJob[S, R any](kind string, spec, result []byte) (any, any, error) {
	sp := new(S)
	if err := json.Unmarshal(spec, sp); err != nil {
		return nil, nil, fmt.Errorf("%s spec: %w", kind, err)
	}
	if result == nil {
		return sp, nil, nil
	}
	var res R
	if err := json.Unmarshal(result, &res); err != nil {
		return nil, nil, fmt.Errorf("%s result: %w", kind, err)
	}
	return sp, res, nil
}
