package studies

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"interplab/cmd/lab/internal/chart"
	"interplab/cmd/lab/internal/jobs"
	"interplab/cmd/lab/internal/jsonapi"
	"interplab/cmd/lab/internal/link"
	"interplab/cmd/lab/internal/report"
	"interplab/engine"
	"interplab/engine/study"
	"interplab/presets"
	"interplab/templates"
)

// The population page and its job (routes.go):
//
//	GET  /population?base=REF&population=NAME  the page: a form, then progress
//	GET  /population/{id}                      a run's page: progress, or its histograms, percentiles and worst entities
//	GET  /population/{id}/data.csv             every entity's figures, SI units
//	POST /api/populations                      start a run: populationRequest → 202 Accepted
//
// The job's progress, status and cancel are the sweep's (jobs.go). A run
// that finishes is kept in the store with its result, so its page is a
// link that survives a restart; one cancelled or failed keeps no result.

// populationRequest is the body of POST /api/populations. Zero entities,
// rounds, round and a nil seed keep the population preset's.
type populationRequest struct {
	Base       string   `json:"base"`       // a variant ref (preset:NAME, q:QUERY, session:ID); empty for the defaults
	Techniques []string `json:"techniques"` // empty for the base's (populationTechniques): the buffer alone for the lab's own
	Population string   `json:"population"` // a population preset; empty for presets.DefaultPopulation
	Entities   int      `json:"entities,omitempty"`
	Rounds     int      `json:"rounds,omitempty"`
	Round      float64  `json:"round,omitempty"`
	Seed       *int     `json:"seed,omitempty"`
}

// populationJob is what a population job was asked, kept for its page.
type populationJob struct {
	Req        populationRequest
	Label      string // the base's label
	Population string // the population preset's title
	Spec       study.PopulationSpec
}

// popMaxWork bounds one population job in entity-frames × techniques:
// the guide's study (1,000 entities × 20 rounds of 3 minutes at 60 Hz) with
// four techniques.
const popMaxWork = 9e8

// populationSpec checks a request and builds the run it asks for.
func (s *Pages) populationSpec(req populationRequest) (*populationJob, error) {
	label, base, err := s.resolveBase(req.Base)
	if err != nil {
		return nil, jobBaseError(req.Base, err)
	}
	if req.Population == "" {
		req.Population = presets.DefaultPopulation
	}
	pp, err := presets.GetPopulation(req.Population)
	if err != nil {
		return nil, jsonapi.BadRequest("population", err.Error())
	}
	if len(req.Techniques) == 0 {
		req.Techniques = populationTechniques(&base)
	}
	pop := pp.Population.With(req.Entities, req.Rounds, req.Round)
	if req.Seed != nil {
		pop.Seed = *req.Seed
	}
	base.Techniques = req.Techniques
	spec := study.PopulationSpec{Base: base, Population: pop}
	if err := spec.Validate(); err != nil {
		if fe, ok := err.(*engine.FieldError); ok && strings.HasPrefix(fe.Field, "population.") {
			fe.Field = strings.TrimPrefix(fe.Field, "population.") // the form's field names
		}
		return nil, err
	}
	work := float64(pop.Entities) * float64(pop.Rounds) * pop.Round * base.RenderRate * float64(len(req.Techniques))
	if work > popMaxWork {
		return nil, &engine.FieldError{Field: "entities", Value: strconv.Itoa(pop.Entities),
			Allowed: fmt.Sprintf("fewer entities, rounds or techniques: the run needs %.3g entity-frames, at most %.3g", work, float64(popMaxWork))}
	}
	return &populationJob{Req: req, Label: label, Population: pp.Title, Spec: spec}, nil
}

// StartPopulation is POST /api/populations: it starts a population run.
func (s *Pages) StartPopulation(w http.ResponseWriter, r *http.Request) {
	startJob(s, w, r, "population", func(req populationRequest) (any, int, jobs.Work, error) {
		pj, err := s.populationSpec(req)
		if err != nil {
			return nil, 0, nil, err
		}
		return pj, pj.Spec.Population.Entities, pj.work(), nil
	})
}

// work is the population run's work.
func (pj *populationJob) work() jobs.Work {
	return func(ctx context.Context, progress func(any, int)) (any, error) {
		res, err := study.RunPopulation(ctx, pj.Spec, 0, func(e study.PopulationEntity, done, _ int) {
			progress(populationItemOf(e), done)
		})
		if err != nil {
			return nil, err // nothing partial: a cancelled run keeps no result
		}
		return res, nil
	}
}

// populationItem is one finished entity, as the progress stream carries it.
type populationItem struct {
	Entity         int `json:"entity"`
	UnderrunRounds int `json:"underrunRounds"` // of the first technique
}

// populationItemOf is entity e's progress item.
func populationItemOf(e study.PopulationEntity) populationItem {
	return populationItem{Entity: e.Entity, UnderrunRounds: e.Techniques[0].UnderrunRounds}
}

// populationOf returns the population job of the request's {id} and its
// result (nil until it has finished), or answers 404.
func (s *Pages) populationOf(w http.ResponseWriter, r *http.Request) (*jobs.Job, *populationJob, *study.PopulationResult) {
	j := s.Jobs.Get(r.PathValue("id"))
	if j == nil || j.Kind() != "population" {
		jsonapi.WriteError(w, &jsonapi.Error{Status: http.StatusNotFound, Msg: "no such population run", Field: "id"})
		return nil, nil, nil
	}
	res, _ := j.Result()
	pr, _ := res.(*study.PopulationResult)
	return j, j.Spec().(*populationJob), pr
}

// PopulationCSV is GET /population/{id}/data.csv: every entity's figures.
func (s *Pages) PopulationCSV(w http.ResponseWriter, r *http.Request) {
	j, _, res := s.populationOf(w, r)
	if j == nil {
		return
	}
	if res == nil {
		jsonapi.WriteError(w, &jsonapi.Error{Status: http.StatusConflict, Msg: "the run has no result: it is " + j.Status().State, Field: "id"})
		return
	}
	var b bytes.Buffer
	if err := report.PopulationCSV(&b, res); err != nil {
		s.Fail(w, err)
		return
	}
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="population-`+j.ID()+`.csv"`)
	w.Write(b.Bytes())
}

// PopulationPage is GET /population and GET /population/{id}. Opened from
// the lab without technique= in the query, the form checks the base's
// primary technique and its other library techniques (populationTechniques).
func (s *Pages) PopulationPage(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	req := populationRequest{Base: q.Get("base"), Population: q.Get("population"), Techniques: q["technique"]}
	_, base, baseErr := s.resolveBase(req.Base)
	if baseErr != nil {
		base = engine.Defaults()
	}
	if len(req.Techniques) == 0 {
		req.Techniques = populationTechniques(&base)
	}
	v := templates.PopulationView{Scripts: chart.Scripts}
	if id := r.PathValue("id"); id != "" {
		j, pj, res := s.populationOf(w, r)
		if j == nil {
			return
		}
		req, base = pj.Req, pj.Spec.Base
		v.Job = jobViewOf(j, "/population/"+id)
		if res != nil {
			rv, err := populationResultView(pj, res)
			if err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
			v.Result = rv
		}
	}
	v.Form = populationFormOf(req)
	// The techniques run first, the base's others next, then on a library
	// the lab's comparison (labComparison), then the rest: all but the first
	// unchecked, comparisons to opt into.
	var comparison []string
	if base.Library() != "" {
		comparison = labComparison
	}
	order := slices.Concat(v.Form.Techniques, base.Techniques, comparison, engine.TechniqueNames)
	for _, t := range order {
		if !slices.ContainsFunc(v.Techniques, func(o templates.JobOption) bool { return o.Value == t }) && slices.Contains(engine.TechniqueNames, t) {
			v.Techniques = append(v.Techniques, templates.JobOption{Value: t, Label: t, Checked: slices.Contains(v.Form.Techniques, t)})
		}
	}
	list, _ := presets.Populations()
	for _, p := range list {
		v.Populations = append(v.Populations, templates.JobOption{Value: p.Name, Label: p.Title, Doc: p.Doc, Checked: p.Name == v.Form.Population})
	}
	templates.Render(w, r, http.StatusOK, templates.Population(v))
}

// labComparison is what the lab page's "Compare with the lab's techniques"
// adds beside a library (web/lab.js compareLab): the population form of a
// library's settings lists them right after the techniques it checks,
// unchecked, since a library's preset runs the library alone.
var labComparison = []string{engine.TechEPIC, engine.TechBuffer}

// populationTechniques are the techniques the population form checks for
// base settings: the primary technique first, then the base's other
// library techniques. The lab's own that run beside a library (buffer,
// epic) are listed after, unchecked: a comparison the designer opts into.
// For settings on the lab's own techniques that is the buffer alone, as
// before.
func populationTechniques(base *engine.Settings) []string {
	primary := base.PrimaryTechnique()
	out := []string{primary}
	for _, t := range base.Techniques {
		if t != primary && engine.LibraryTechnique(t) {
			out = append(out, t)
		}
	}
	return out
}

// populationFormOf fills the form with a request; empty numbers show the
// population preset's.
func populationFormOf(req populationRequest) templates.PopulationForm {
	f := templates.PopulationForm{Base: req.Base, Population: req.Population, Techniques: req.Techniques}
	if f.Population == "" {
		f.Population = presets.DefaultPopulation
	}
	if len(f.Techniques) == 0 {
		f.Techniques = []string{engine.TechBuffer}
	}
	if req.Entities != 0 {
		f.Entities = strconv.Itoa(req.Entities)
	}
	if req.Rounds != 0 {
		f.Rounds = strconv.Itoa(req.Rounds)
	}
	if req.Round != 0 {
		f.Round = strconv.FormatFloat(req.Round, 'g', -1, 64)
	}
	if req.Seed != nil {
		f.Seed = strconv.Itoa(*req.Seed)
	}
	return f
}

// populationResultView is a finished run as its page shows it.
func populationResultView(pj *populationJob, res *study.PopulationResult) (*templates.PopulationResultView, error) {
	p := &res.Spec.Population
	rv := &templates.PopulationResultView{Label: pj.Label, Population: pj.Population,
		Summary: fmt.Sprintf("%d entities × %d rounds of %s s, seed %d, motion %s", p.Entities, p.Rounds, report.Short(p.Round), p.Seed, p.Motion)}
	for _, t := range res.Techniques {
		rv.Techniques = append(rv.Techniques, t.Name)
	}
	for i, f := range study.PopulationMetricFields {
		row := templates.PopulationRow{Name: f.Name, Unit: f.Display, Doc: f.Doc}
		for _, t := range res.Techniques {
			row.Values = append(row.Values, report.Value(t.Metrics.Values(nil)[i], f))
		}
		rv.Rows = append(rv.Rows, row)
	}
	for _, name := range chart.PopulationHistograms {
		ch, _ := chart.Population(res, name)
		comp, err := chart.Component(chart.Figure{ID: "population-" + name, Chart: ch})
		if err != nil {
			return nil, err
		}
		rv.Charts = append(rv.Charts, comp)
	}
	preset := basePreset(pj.Req.Base)
	// The settings run over the population, in every export format (the
	// network of an export is the base's own link, not the population's).
	query := link.Query(preset, res.Spec.Base)
	rv.Exports = exportLinks(query, res.Spec.Base.PrimaryTechnique())
	for k, t := range res.Techniques {
		wv := templates.PopulationWorst{Technique: t.Name}
		for _, e := range t.Worst {
			ent := &res.Entities[e]
			em, l := ent.Techniques[k], ent.Link
			wv.Rows = append(wv.Rows, templates.PopulationEntityRow{
				Entity: strconv.Itoa(e), HighVariance: l.HighVariance,
				UnderrunRounds: strconv.Itoa(em.UnderrunRounds) + "/" + strconv.Itoa(p.Rounds),
				ErrP95:         report.Number(em.ErrP95 * 100), Latency: report.Number(l.Latency * 1000),
				Jitter: report.Number(l.Jitter*1000) + " " + l.JitterDist, Loss: report.Number(l.Loss*100) + " " + l.LossModel,
				Motion: ent.Motion, URL: "/?" + link.Query(preset, p.EntitySettings(res.Spec.Base, e)),
			})
		}
		rv.Worst = append(rv.Worst, wv)
	}
	return rv, nil
}

// basePreset is the preset a base ref starts from, for the links of a
// run's page: NAME of preset:NAME or of q:preset=NAME&...; "" otherwise
// (the links then carry every setting that differs from the defaults).
func basePreset(ref string) string {
	if name, ok := strings.CutPrefix(ref, "preset:"); ok {
		return name
	}
	if q, ok := strings.CutPrefix(ref, "q:"); ok {
		if v, err := link.ParseRef(q); err == nil {
			return v.Get(link.PresetKey)
		}
	}
	return ""
}
