package studies

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"

	"interplab/cmd/lab/internal/chart"
	"interplab/cmd/lab/internal/compare"
	"interplab/cmd/lab/internal/jobs"
	"interplab/cmd/lab/internal/jsonapi"
	"interplab/cmd/lab/internal/link"
	"interplab/cmd/lab/internal/report"
	"interplab/engine"
	"interplab/engine/motion"
	"interplab/engine/study"
	"interplab/presets"
	"interplab/templates"
)

// TuneRequest is the body of POST /api/tunes: a study.TuneSpec whose base
// is a variant ref. Weights left out are 1 each; a constraint's max is a
// number in the metric's SI unit, as in engine.Constraint, or text as a
// person types it, read by engine.ParseMetric: a plain number in the
// metric's display unit ("150" ms, "5" %) or with a unit ("150ms", "5%").
type TuneRequest struct {
	Technique   string             `json:"technique"`
	Base        string             `json:"base"`
	Motions     []string           `json:"motions,omitempty"`
	Weights     *study.TuneWeights `json:"weights,omitempty"`
	Constraints []tuneConstraint   `json:"constraints,omitempty"`
	Budget      int                `json:"budget,omitempty"`
	Seed        uint64             `json:"seed"`
	Seeds       int                `json:"seeds,omitempty"` // run seeds that confirm the search (study.TuneSpec.Seeds); 0 for the default
	// Population, when set, evaluates every candidate over a player base
	// (engine.TuneSpec.Population): Motions must be empty, and the
	// constraints bound population figures (underrunRounds, addedLatencyP90...).
	Population *TunePopulation `json:"population,omitempty"`
}

// TunePopulation is the population of a TuneRequest: a population preset,
// and sizes that replace its own when not zero.
type TunePopulation struct {
	Name     string  `json:"name"`
	Entities int     `json:"entities,omitempty"`
	Rounds   int     `json:"rounds,omitempty"`
	Round    float64 `json:"round,omitempty"`
}

// Defaults of the tuner form's population: every candidate runs the whole
// population, so a tuning takes budget × entities × rounds entity-rounds
// (24 × 100 × 5 of 3 minutes: about a minute on two cores).
const (
	tunePopEntities = 100
	tunePopRounds   = 5
)

// tuneConstraint is one constraint of a TuneRequest.
type tuneConstraint struct {
	Metric string  `json:"metric"`
	Max    jobText `json:"max"`
}

// constraints reads the request's constraints; errors name the row.
func (req *TuneRequest) constraints() ([]study.Constraint, error) {
	var cs []study.Constraint
	for i, c := range req.Constraints {
		field := "constraints[" + strconv.Itoa(i) + "]"
		if req.Population != nil {
			if report.PopulationMetricIndex(c.Metric) < 0 {
				return nil, &engine.FieldError{Field: field + ".metric", Value: c.Metric,
					Allowed: "a population figure: " + report.PopulationMetricNames()}
			}
		} else if report.MetricIndex(c.Metric) < 0 && c.Metric != study.RecoveryMetric && c.Metric != study.ExtraLatencyMetric {
			return nil, &engine.FieldError{Field: field + ".metric", Value: c.Metric,
				Allowed: "one of " + report.MetricNames() + ", " + study.ExtraLatencyMetric + ", or " + study.RecoveryMetric + " with a scenario"}
		}
		v, err := c.Max.metric(c.Metric)
		if err != nil {
			return nil, &engine.FieldError{Field: field + ".max", Value: c.Max.String(), Allowed: allowedBy(err)}
		}
		cs = append(cs, study.Constraint{Metric: c.Metric, Max: v})
	}
	return cs, nil
}

// tuneJob is what a tuning job was asked, kept for its page.
type tuneJob struct {
	Req    TuneRequest
	Label  string // the base's label
	Preset string // the base's preset, for the apply link: "" unless the ref is preset:NAME or a q: naming one
	Spec   study.TuneSpec
}

// TuneItem is one candidate in the progress messages.
type TuneItem struct {
	N            int     `json:"n"` // how many were evaluated before it finished, plus one
	Cost         float64 `json:"cost"`
	Feasible     bool    `json:"feasible"`
	AddedLatency float64 `json:"addedLatency"` // s
	ErrAligned   float64 `json:"errAligned"`   // m
}

// tuneItemOf is candidate c's progress item, the nth to finish.
func tuneItemOf(c study.Candidate, n int) TuneItem {
	return TuneItem{N: n, Cost: c.Cost, Feasible: c.Feasible, AddedLatency: c.Metrics.AddedLatency, ErrAligned: c.Metrics.ErrAligned}
}

// tuneSpec checks a tuning request and builds the tuning it asks for.
func (s *Pages) tuneSpec(req TuneRequest) (*tuneJob, error) {
	label, base, err := s.resolveBase(req.Base)
	if err != nil {
		return nil, jobBaseError(req.Base, err)
	}
	constraints, err := req.constraints()
	if err != nil {
		return nil, err
	}
	spec := study.TuneSpec{Base: base, Technique: req.Technique, Motions: req.Motions, Weights: study.DefaultTuneWeights(),
		Constraints: constraints, Budget: req.Budget, Seed: req.Seed, Seeds: req.Seeds}
	if req.Weights != nil {
		spec.Weights = *req.Weights
	}
	if p := req.Population; p != nil {
		pp, err := presets.GetPopulation(p.Name)
		if err != nil {
			return nil, jsonapi.BadRequest("population.name", err.Error())
		}
		pop := pp.Population.With(p.Entities, p.Rounds, p.Round)
		spec.Population = &pop
	}
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	budget := spec.Budget
	if budget == 0 {
		budget = study.DefaultTuneBudget
	}
	evals := spec.Evaluations() // the budget and the confirmation on the seed set
	if pop := spec.Population; pop != nil {
		work := float64(evals) * float64(pop.Entities) * float64(pop.Rounds) * pop.Round * base.RenderRate
		if work > jobMaxWork {
			return nil, &engine.FieldError{Field: "population.entities", Value: strconv.Itoa(pop.Entities),
				Allowed: fmt.Sprintf("fewer entities, rounds or candidates: the tuning needs %.3g entity-frames, at most %.3g", work, float64(jobMaxWork))}
		}
		return &tuneJob{Req: req, Label: label, Preset: basePreset(req.Base), Spec: spec}, nil
	}
	runs := evals * max(1, len(spec.Motions))
	for _, c := range spec.Constraints {
		if c.Metric == study.RecoveryMetric {
			runs *= 2 // each candidate also runs without the scenario
			break
		}
	}
	if w := jobWork(base, runs); w > jobMaxWork {
		return nil, &engine.FieldError{Field: "budget", Value: strconv.Itoa(budget),
			Allowed: fmt.Sprintf("a smaller budget, mix, entities or duration: the tuning needs %.3g entity-frames, at most %.3g", w, float64(jobMaxWork))}
	}
	return &tuneJob{Req: req, Label: label, Preset: basePreset(req.Base), Spec: spec}, nil
}

// StartTune is POST /api/tunes: it starts a tuning.
func (s *Pages) StartTune(w http.ResponseWriter, r *http.Request) {
	startJob(s, w, r, "tune", func(req TuneRequest) (any, int, jobs.Work, error) {
		tj, err := s.tuneSpec(req)
		if err != nil {
			return nil, 0, nil, err
		}
		return tj, tj.Spec.Evaluations(), tj.work(), nil
	})
}

// work is the tuning's work.
func (tj *tuneJob) work() jobs.Work {
	return func(ctx context.Context, progress func(any, int)) (any, error) {
		return study.Tune(ctx, tj.Spec, 0, func(c study.Candidate, done, _ int) {
			progress(tuneItemOf(c, done), done)
		})
	}
}

// tuneOf returns the tuning job of the request's {id} and its result (nil
// while it runs), or answers 404.
func (s *Pages) tuneOf(w http.ResponseWriter, r *http.Request) (*jobs.Job, *tuneJob, *study.TuneResult) {
	j := s.Jobs.Get(r.PathValue("id"))
	if j == nil || j.Kind() != "tune" {
		jsonapi.WriteError(w, &jsonapi.Error{Status: http.StatusNotFound, Msg: "no such tuning", Field: "id"})
		return nil, nil, nil
	}
	res, state := j.Result()
	if state == jobs.Running {
		return j, j.Spec().(*tuneJob), nil
	}
	tr, _ := res.(study.TuneResult)
	return j, j.Spec().(*tuneJob), &tr
}

// TuneChart is GET /tune/{id}/chart: the Pareto chart of a finished tuning.
func (s *Pages) TuneChart(w http.ResponseWriter, r *http.Request) {
	j, tj, res := s.tuneOf(w, r)
	if j == nil {
		return
	}
	if res == nil || len(res.Candidates) == 0 {
		jsonapi.WriteError(w, &jsonapi.Error{Status: http.StatusConflict, Msg: "the tuning has no result yet", Field: "id"})
		return
	}
	ch := chart.Pareto(tj.Spec.Technique, tj.Label, tj.Spec.Seed, res)
	ch.Validate()
	jsonapi.WriteJSON(w, http.StatusOK, map[string]any{"option": ch.JSON(), "state": j.Status().State})
}

// TuneCSV is GET /tune/{id}/data.csv: every candidate's settings and metrics.
func (s *Pages) TuneCSV(w http.ResponseWriter, r *http.Request) {
	j, tj, res := s.tuneOf(w, r)
	if j == nil {
		return
	}
	if res == nil {
		jsonapi.WriteError(w, &jsonapi.Error{Status: http.StatusConflict, Msg: "the tuning has no result yet", Field: "id"})
		return
	}
	var b bytes.Buffer
	cw := csv.NewWriter(&b)
	head := []string{"candidate", "cost", "feasible", "pareto", "recommended"}
	space := tj.Spec.Space
	if len(space) == 0 {
		space = study.TuneSpace(tj.Spec.Technique)
	}
	// The searched settings in SI units, like the metrics: numbers a
	// spreadsheet reads, not the text form (120ms). nums holds each
	// numeric one's parameter, looked up once for every row; nil for the
	// others, written as text.
	nums := make([]*engine.Param, len(space))
	for i, s := range space {
		if p, ok := engine.Lookup(s.Name); ok && (p.Kind == engine.Float || p.Kind == engine.Int) {
			nums[i] = p
		}
		if p := nums[i]; p != nil && p.Unit != "" {
			head = append(head, s.Name+" ("+p.Unit+")")
		} else {
			head = append(head, s.Name)
		}
	}
	fields := engine.MetricFields
	if tj.Spec.Population != nil {
		fields = study.PopulationMetricFields
	}
	for _, f := range fields {
		head = append(head, f.Name+" ("+f.Unit+")")
	}
	cw.Write(head)
	num := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	onFront := map[string]bool{}
	for _, c := range res.Pareto {
		onFront[compare.Key(c.Settings, 0)] = true
	}
	best := compare.Key(res.Best.Settings, 0)
	var vals []float64
	for i, c := range res.Candidates {
		key := compare.Key(c.Settings, 0)
		row := []string{strconv.Itoa(i), num(c.Cost), strconv.FormatBool(c.Feasible), strconv.FormatBool(onFront[key]), strconv.FormatBool(key == best)}
		for i, s := range space {
			if p := nums[i]; p != nil {
				row = append(row, num(p.Get(&c.Settings)))
			} else {
				row = append(row, c.Settings.Text(s.Name))
			}
		}
		if c.Population != nil {
			vals = c.Population.Values(vals[:0])
		} else {
			vals = c.Metrics.Values(vals[:0])
		}
		for _, v := range vals {
			row = append(row, num(v))
		}
		cw.Write(row)
	}
	cw.Flush()
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="tune-`+j.ID()+`.csv"`)
	w.Write(b.Bytes())
}

// tuneDefaultBound is the tuner form's bound when it opens: at most 60 ms
// of delay beyond the network's mean one-way transit. On the lab's default
// link (50 ms + 10 ms of jitter) that is the 120 ms of added latency the
// form used to start with; on any other link it can be met, as a bound on
// added latency, which includes the network's own, may not be.
var tuneDefaultBound = tuneConstraint{Metric: study.ExtraLatencyMetric, Max: textOf("60ms")}

// TunePage is GET /tune and GET /tune/{id}. Opened from the lab, the form
// starts on the base's technique (engine.Settings.PrimaryTechnique: the
// designer's library's, else the buffer) unless the query names one.
func (s *Pages) TunePage(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	req := TuneRequest{Base: q.Get("base"), Technique: q.Get("technique"), Seed: 1, Budget: study.DefaultTuneBudget,
		Constraints: []tuneConstraint{tuneDefaultBound}}
	if name := q.Get("population"); name != "" {
		// The guide's question: the least p95 across entities of error
		// p95, with at most 5% of entity-rounds underrun and 90% of the
		// players within 150 ms.
		req.Population = &TunePopulation{Name: name, Entities: tunePopEntities, Rounds: tunePopRounds}
		req.Weights = &study.TuneWeights{ErrP95: 1}
		req.Constraints = []tuneConstraint{{Metric: "underrunRounds", Max: textOf("5%")}, {Metric: "addedLatencyP90", Max: textOf("150ms")}}
	}
	_, base, baseErr := s.resolveBase(req.Base)
	if req.Technique == "" && baseErr == nil {
		req.Technique = base.PrimaryTechnique()
	}
	form := tuneFormOf(req)
	v := templates.TuneView{Scripts: chart.Scripts}
	if id := r.PathValue("id"); id != "" {
		j, tj, res := s.tuneOf(w, r)
		if j == nil {
			return
		}
		form = tuneFormOf(tj.Req)
		base, baseErr = tj.Spec.Base, nil
		v.Job = jobViewOf(j, "/tune/"+id)
		if res != nil && len(res.Candidates) > 0 {
			rv, err := tuneResultView(tj, res)
			if err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
			for i := range rv.Exports { // their headings say the values are this tuning's
				rv.Exports[i].Value += "&from=" + url.QueryEscape("tune:"+id)
			}
			v.Result = rv
		}
	}
	v.Form = form.TuneForm
	for _, t := range primaryFirst(base.PrimaryTechnique(), study.TunableTechniques()) {
		opt := templates.TuneTechnique{Name: t}
		if baseErr == nil {
			opt.Floor = tuneFloorText(t, &base)
		}
		v.Techniques = append(v.Techniques, opt)
	}
	for _, f := range study.TuneMetricFields() {
		v.Metrics = append(v.Metrics, templates.TuneMetric{Name: f.Name, Display: f.Display, Scale: strconv.FormatFloat(f.Scale, 'g', -1, 64)})
	}
	for _, f := range study.PopulationMetricFields {
		v.PopulationMetrics = append(v.PopulationMetrics, templates.TuneMetric{Name: f.Name, Display: f.Display, Scale: strconv.FormatFloat(f.Scale, 'g', -1, 64)})
	}
	pops, _ := presets.Populations()
	for _, p := range pops {
		v.Populations = append(v.Populations, templates.JobOption{Value: p.Name, Label: p.Title, Doc: p.Doc, Checked: p.Name == form.Population})
	}
	for _, m := range motion.Names {
		v.Motions = append(v.Motions, templates.JobOption{Value: m, Label: m, Checked: slices.Contains(form.Motions, m)})
	}
	templates.Render(w, r, http.StatusOK, templates.Tune(v))
}

// tuneFormOf fills the tuner form with a request: constraints in display
// units, three rows at least.
func tuneFormOf(req TuneRequest) tuneForm {
	f := tuneForm{TuneForm: templates.TuneForm{Base: req.Base, Technique: req.Technique, Budget: req.Budget,
		Seed: strconv.FormatUint(req.Seed, 10), Seeds: req.Seeds}, Motions: req.Motions}
	if f.Seeds == 0 {
		f.Seeds = study.DefaultTuneSeeds
	}
	if study.TuneSpace(f.Technique) == nil {
		f.Technique = engine.TechBuffer
	}
	if f.Budget == 0 {
		f.Budget = study.DefaultTuneBudget
	}
	w := study.DefaultTuneWeights()
	if req.Weights != nil {
		w = *req.Weights
	}
	num := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	f.Weights = [4]string{num(w.ErrP95), num(w.AddedLatency), num(w.Snaps), num(w.Underrun)}
	f.Entities, f.Rounds = strconv.Itoa(tunePopEntities), strconv.Itoa(tunePopRounds)
	if p := req.Population; p != nil {
		f.Population = p.Name
		if p.Entities > 0 {
			f.Entities = strconv.Itoa(p.Entities)
		}
		if p.Rounds > 0 {
			f.Rounds = strconv.Itoa(p.Rounds)
		}
		if p.Round > 0 {
			f.Round = num(p.Round)
		}
	}
	for _, c := range req.Constraints {
		scale := 1.0
		if f, ok := study.TuneMetric(c.Metric); ok {
			scale = f.Scale
		}
		max := c.Max.String()
		if v, err := c.Max.metric(c.Metric); err == nil {
			max = num(report.Round(v*scale, 9))
		}
		f.Constraints = append(f.Constraints, templates.TuneConstraint{Metric: c.Metric, Max: max})
	}
	for len(f.Constraints) < 3 {
		f.Constraints = append(f.Constraints, templates.TuneConstraint{})
	}
	return f
}

// tuneForm is the form and the motions checked in it.
type tuneForm struct {
	templates.TuneForm
	Motions []string
}

// primaryFirst is techniques with primary moved to the front, the others
// in their order: a library designer's page lists their library first.
func primaryFirst(primary string, techniques []string) []string {
	out := make([]string, 0, len(techniques))
	if slices.Contains(techniques, primary) {
		out = append(out, primary)
	}
	for _, t := range techniques {
		if t != primary {
			out = append(out, t)
		}
	}
	return out
}

// tuneFloorText says what the network of base allows technique's added
// latency (engine.LatencyFloor), for the form's hint; "" when it sets no
// floor.
func tuneFloorText(technique string, base *engine.Settings) string {
	f, ok := study.LatencyFloor(technique, base)
	if !ok {
		return ""
	}
	why := fmt.Sprintf("the network's latency is %s ms", report.Number(f.Latency*1000))
	if f.Searched {
		why = fmt.Sprintf("the least a search of its settings reaches; whatever they are it cannot go below %s ms, for %s",
			report.Number(f.Proven*1000), why)
	}
	return fmt.Sprintf("On this link %s's addedLatency goes no lower than %s ms (%s): "+
		"bound extraLatency, the delay beyond the network's mean one-way transit of %s ms, instead.",
		technique, report.Number(f.AddedLatency*1000), why, report.Number(f.Transit*1000))
}

// tuneResultView builds the result part of the tuner page. Apply and the
// exports are offered only for a recommendation; without one the page says
// why: nothing tried beats the base, or nothing meets the constraints (then
// with the closest candidates and what each breaks, in units).
func tuneResultView(tj *tuneJob, res *study.TuneResult) (*templates.TuneResultView, error) {
	comp, err := chart.Component(chart.Figure{ID: "tune-chart", Chart: chart.Pareto(tj.Spec.Technique, tj.Label, tj.Spec.Seed, res)})
	if err != nil {
		return nil, err
	}
	rv := &templates.TuneResultView{Label: tj.Label, Seed: strconv.FormatUint(tj.Spec.Seed, 10), Candidates: len(res.Candidates),
		Recommended: res.Recommended, Feasible: res.Feasible, Chart: comp,
		BaseCost: report.Number(res.Base.Cost), BaseBreaks: report.Breaches(res.Base.Breaks), Seeds: report.SeedSet(res.Seeds)}
	base := res.Base.Settings
	switch {
	case res.Recommended:
		// Applied, the recommendation shows the tuned technique beside
		// the base's, and the tuned technique's export is offered.
		best := res.Best.Settings
		if !slices.Contains(best.Techniques, tj.Spec.Technique) {
			best.Techniques = append(slices.Clone(best.Techniques), tj.Spec.Technique)
		}
		query := link.Query(tj.Preset, best)
		rv.ApplyURL, rv.Exports = "/?"+query, exportLinks(query, tj.Spec.Technique)
		rv.BestCost, rv.Gain = report.Number(res.Best.Cost), report.SeedGain(res, res.Best)
		for _, c := range engine.Diff(base, res.Best.Settings) {
			rv.Changes = append(rv.Changes, templates.TuneRow{Name: c.Name, Base: base.Text(c.Name), Best: c.Value})
		}
	case res.Feasible:
		rv.NoGain = report.NoGain(res)
	default:
		for _, c := range res.Closest {
			rv.Closest = append(rv.Closest, templates.TuneClosest{Breaks: report.Breaches(c.Breaks), Cost: report.Number(c.Cost),
				Settings: report.SettingsChanged(base, c.Settings)})
		}
	}
	rv.Metrics = tuneMetricRows(res)
	if res.Base.Population != nil {
		rv.Population = tj.Spec.Population.Entities
	}
	return rv, nil
}

// tuneMetricRows are the metrics of the base and of the recommendation (""
// without one) in display units: every metric, extraLatency after
// addedLatency on one link, the recovery when bounded, and the cost.
func tuneMetricRows(res *study.TuneResult) []templates.TuneRow {
	var rows []templates.TuneRow
	bv, rv := res.Base.Metrics.Values(nil), res.Best.Metrics.Values(nil)
	fields := engine.MetricFields
	if res.Base.Population != nil {
		bv, fields = res.Base.Population.Values(nil), study.PopulationMetricFields
		if res.Best.Population != nil {
			rv = res.Best.Population.Values(nil)
		}
	}
	best := func(s string) string {
		if !res.Recommended {
			return ""
		}
		return s
	}
	for i, f := range fields {
		rows = append(rows, templates.TuneRow{Name: report.AxisName(f), Base: report.Value(bv[i], f), Best: best(report.Value(rv[i], f))})
		if f.Name == "addedLatency" && res.Base.Population == nil {
			x := study.ExtraLatencyField
			rows = append(rows, templates.TuneRow{Name: report.AxisName(x), Base: report.Value(res.ExtraLatency(res.Base.Metrics), x),
				Best: best(report.Value(res.ExtraLatency(res.Best.Metrics), x))})
		}
	}
	if res.Base.Recovery != nil {
		row := templates.TuneRow{Name: report.AxisName(study.RecoveryField), Base: report.RecoveryText(*res.Base.Recovery)}
		if res.Best.Recovery != nil {
			row.Best = best(report.RecoveryText(*res.Best.Recovery))
		}
		rows = append(rows, row)
	}
	return append(rows, templates.TuneRow{Name: "cost", Base: report.Number(res.Base.Cost), Best: best(report.Number(res.Best.Cost))})
}
