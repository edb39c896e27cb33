package studies

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"strconv"

	"github.com/a-h/templ"

	"interplab/cmd/lab/internal/chart"
	"interplab/cmd/lab/internal/jobs"
	"interplab/cmd/lab/internal/jsonapi"
	"interplab/cmd/lab/internal/report"
	"interplab/engine"
	"interplab/engine/study"
	"interplab/templates"
)

// The sweep and tuner pages and their jobs (routes.go):
//
//	GET  /sweep?base=REF&technique=T    the sweep page: a form, then progress and the chart
//	GET  /sweep/{id}                    a sweep job's page: its form, progress or chart
//	GET  /sweep/{id}/chart?metric=M     the chart of metric M over the points finished so far: {"option": ECharts option}
//	GET  /sweep/{id}/data.csv           every finished point's metrics, SI units
//	POST /api/sweeps                    start a sweep: sweepRequest → 202 Accepted
//	GET  /tune?base=REF&technique=T     the tuner page
//	GET  /tune/{id}                     a tuning job's page: progress, or the front and the recommendation
//	GET  /tune/{id}/chart               the Pareto chart: {"option": ...}
//	GET  /tune/{id}/data.csv            every candidate's settings and metrics
//	POST /api/tunes                     start a tuning: TuneRequest → 202 Accepted
//	GET  /api/jobs/{id}                 a job's status
//	POST /api/jobs/{id}/cancel          cancel a job
//	GET  /ws/jobs/{id}                  a job's progress (package jobs)
//
// REF is a variant ref as /compare takes (preset:NAME, q:QUERY,
// session:ID[@REV]); empty means the engine's defaults.

// jobText is a value given as a JSON string, text as a person types it (a
// plain number in the display unit, a number with a unit, a name: "120",
// "0.12s", "pareto"), or as a JSON number, in the stored SI unit like every
// number of the JSON API (0.12 is 120 ms). A record keeps which it was.
type jobText struct {
	text  string
	num   float64
	isNum bool
}

// textOf is a jobText holding text.
func textOf(s string) jobText { return jobText{text: s} }

func (t *jobText) UnmarshalJSON(data []byte) error {
	var s string
	if json.Unmarshal(data, &s) == nil {
		*t = textOf(s)
		return nil
	}
	var f float64
	if err := json.Unmarshal(data, &f); err != nil {
		return &json.UnmarshalTypeError{Value: "value " + string(data), Type: reflect.TypeFor[string]()}
	}
	*t = jobText{text: strconv.FormatFloat(f, 'g', -1, 64), num: f, isNum: true}
	return nil
}

func (t jobText) MarshalJSON() ([]byte, error) {
	if t.isNum {
		return json.Marshal(t.num)
	}
	return json.Marshal(t.text)
}

// String is the value as given, for messages.
func (t jobText) String() string { return t.text }

// param reads t as a value of p.
func (t jobText) param(p *engine.Param) (float64, error) {
	if t.isNum {
		return p.Parse(p.Format(t.num))
	}
	return p.Parse(t.text)
}

// paramText is t as a form shows it for p: the text given, or a number
// in the display unit with its unit.
func (t jobText) paramText(name string) string {
	if p, ok := engine.Lookup(name); ok && t.isNum {
		return p.Format(t.num)
	}
	return t.text
}

// metric reads t as a value of the named metric.
func (t jobText) metric(name string) (float64, error) {
	if t.isNum {
		return study.ParseMetric(name, study.FormatMetric(name, t.num))
	}
	return study.ParseMetric(name, t.text)
}

// sweepRequest is the body of POST /api/sweeps.
type sweepRequest struct {
	Technique string            `json:"technique"`
	Base      string            `json:"base"` // a variant ref; empty for the defaults
	X         sweepAxisRequest  `json:"x"`
	Y         *sweepAxisRequest `json:"y,omitempty"`
	Metric    string            `json:"metric,omitempty"` // the metric the page shows first; errP95 when empty
}

// sweepAxisRequest is one axis: min and max as numbers in the parameter's
// stored unit or as its text (120, 0.12s, enum names, true/false).
type sweepAxisRequest struct {
	Name  string  `json:"name"`
	Min   jobText `json:"min"`
	Max   jobText `json:"max"`
	Steps int     `json:"steps"`
}

// sweepJob is what a sweep job was asked, kept for its page.
type sweepJob struct {
	Req   sweepRequest
	Label string // the base's label
	Spec  study.SweepSpec
}

// axis turns the request's axis into an engine.Axis; field is "x" or "y".
func (a *sweepAxisRequest) axis(field string) (study.Axis, error) {
	p, ok := engine.Lookup(a.Name)
	if !ok {
		return study.Axis{}, &engine.FieldError{Field: field + ".name", Value: a.Name, Allowed: "a parameter name (see /api/params)"}
	}
	ax := study.Axis{Name: a.Name, Steps: a.Steps}
	var err error
	if ax.Min, err = a.Min.param(p); err != nil {
		return ax, &engine.FieldError{Field: field + ".min", Value: a.Min.String(), Allowed: allowedBy(err)}
	}
	if ax.Max, err = a.Max.param(p); err != nil {
		return ax, &engine.FieldError{Field: field + ".max", Value: a.Max.String(), Allowed: allowedBy(err)}
	}
	return ax, nil
}

// allowedBy is what a parameter's Parse error says is allowed.
func allowedBy(err error) string {
	if fe, ok := errors.AsType[*engine.FieldError](err); ok {
		return fe.Allowed
	}
	return err.Error()
}

// sweepSpec checks a sweep request and builds the sweep it asks for.
func (s *Pages) sweepSpec(req sweepRequest) (*sweepJob, error) {
	label, base, err := s.resolveBase(req.Base)
	if err != nil {
		return nil, jobBaseError(req.Base, err)
	}
	if req.Metric == "" {
		req.Metric = "errP95"
	}
	if report.MetricIndex(req.Metric) < 0 {
		return nil, &engine.FieldError{Field: "metric", Value: req.Metric, Allowed: "one of " + report.MetricNames()}
	}
	spec := study.SweepSpec{Base: base, Technique: req.Technique}
	if spec.X, err = req.X.axis("x"); err != nil {
		return nil, err
	}
	if req.Y != nil && req.Y.Name != "" {
		y, err := req.Y.axis("y")
		if err != nil {
			return nil, err
		}
		spec.Y = &y
	} else {
		req.Y = nil
	}
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	if w := jobWork(base, spec.Points()); w > jobMaxWork {
		return nil, &engine.FieldError{Field: "points", Value: strconv.Itoa(spec.Points()),
			Allowed: fmt.Sprintf("fewer points, entities or seconds: the sweep needs %.3g entity-frames, at most %.3g", w, float64(jobMaxWork))}
	}
	return &sweepJob{Req: req, Label: label, Spec: spec}, nil
}

// StartSweep is POST /api/sweeps: it starts a sweep.
func (s *Pages) StartSweep(w http.ResponseWriter, r *http.Request) {
	startJob(s, w, r, "sweep", func(req sweepRequest) (any, int, jobs.Work, error) {
		sj, err := s.sweepSpec(req)
		if err != nil {
			return nil, 0, nil, err
		}
		return sj, sj.Spec.Points(), sj.work(), nil
	})
}

// work is the sweep's work.
func (sj *sweepJob) work() jobs.Work {
	return func(ctx context.Context, progress func(any, int)) (any, error) {
		return study.Sweep(ctx, sj.Spec, 0, func(pt study.SweepPoint, done, _ int) { progress(pt, done) })
	}
}

// sweepOf returns the sweep job of the request's {id}, or answers 404.
func (s *Pages) sweepOf(w http.ResponseWriter, r *http.Request) (*jobs.Job, *sweepJob) {
	j := s.Jobs.Get(r.PathValue("id"))
	if j == nil || j.Kind() != "sweep" {
		jsonapi.WriteError(w, &jsonapi.Error{Status: http.StatusNotFound, Msg: "no such sweep", Field: "id"})
		return nil, nil
	}
	return j, j.Spec().(*sweepJob)
}

// points returns the points finished so far, in grid order.
func sweepPointsOf(j *jobs.Job) []study.SweepPoint {
	if res, state := j.Result(); state != jobs.Running {
		pts, _ := res.([]study.SweepPoint)
		return pts
	}
	st := j.Since(0)
	pts := make([]study.SweepPoint, len(st.Items))
	for i, raw := range st.Items {
		json.Unmarshal(raw, &pts[i])
	}
	return pts
}

// SweepChart is GET /sweep/{id}/chart: the chart of the points finished so far.
func (s *Pages) SweepChart(w http.ResponseWriter, r *http.Request) {
	j, sj := s.sweepOf(w, r)
	if j == nil {
		return
	}
	metric := r.URL.Query().Get("metric")
	if metric == "" {
		metric = sj.Req.Metric
	}
	ch, err := chart.Sweep(sj.Spec, sj.Label, sweepPointsOf(j), metric)
	if err != nil {
		jsonapi.WriteError(w, jsonapi.BadRequest("metric", fmt.Sprintf("metric %q: want one of %s", metric, report.MetricNames())))
		return
	}
	ch.Validate()
	jsonapi.WriteJSON(w, http.StatusOK, map[string]any{"option": ch.JSON(), "state": j.Status().State})
}

// SweepCSV is GET /sweep/{id}/data.csv: every finished point's metrics.
func (s *Pages) SweepCSV(w http.ResponseWriter, r *http.Request) {
	j, sj := s.sweepOf(w, r)
	if j == nil {
		return
	}
	var b bytes.Buffer
	cw := csv.NewWriter(&b)
	head := []string{sj.Spec.X.Name}
	if sj.Spec.Y != nil {
		head = append(head, sj.Spec.Y.Name)
	}
	for _, f := range engine.MetricFields {
		head = append(head, f.Name+" ("+f.Unit+")")
	}
	cw.Write(append(head, "error"))
	num := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	var vals []float64
	for _, pt := range sweepPointsOf(j) {
		row := []string{num(pt.X)}
		if sj.Spec.Y != nil {
			row = append(row, num(pt.Y))
		}
		vals = pt.Metrics.Values(vals[:0])
		for _, v := range vals {
			if pt.Err != "" {
				row = append(row, "")
				continue
			}
			row = append(row, num(v))
		}
		cw.Write(append(row, pt.Err))
	}
	cw.Flush()
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="sweep-`+j.ID()+`.csv"`)
	w.Write(b.Bytes())
}

// SweepPage is GET /sweep and GET /sweep/{id}. Opened from the lab, the
// form starts on the base's technique (engine.Settings.PrimaryTechnique),
// listed first, unless the query names one.
func (s *Pages) SweepPage(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	_, base, baseErr := s.resolveBase(q.Get("base"))
	if baseErr != nil {
		base = engine.Defaults()
	}
	if q.Get("technique") == "" {
		q.Set("technique", base.PrimaryTechnique())
	}
	v := templates.SweepView{Form: sweepFormFromQuery(q, &base), Scripts: chart.Scripts}
	if id := r.PathValue("id"); id != "" {
		j, sj := s.sweepOf(w, r)
		if j == nil {
			return
		}
		v.Form = sweepFormOf(sj.Req)
		v.Job = jobViewOf(j, "/sweep/"+id)
		v.Label = sj.Label
		if pts := sweepPointsOf(j); len(pts) > 0 {
			ch, err := chart.Sweep(sj.Spec, sj.Label, pts, sj.Req.Metric)
			var comp templ.Component
			if err == nil {
				comp, err = chart.Component(chart.Figure{ID: "sweep-chart", Chart: ch})
			}
			if err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
			v.Chart = comp
		}
	}
	v.Techniques = primaryFirst(base.PrimaryTechnique(), engine.TechniqueNames)
	for _, pr := range engine.Params() {
		if pr.Kind == engine.Set {
			continue
		}
		unit, _ := pr.DisplayUnit()
		v.Params = append(v.Params, templates.SweepParam{Name: pr.Name, Group: pr.Group, Unit: unit, Doc: pr.Doc,
			Min: pr.Format(pr.Min), Max: pr.Format(pr.Max), Steps: sweepDefaultSteps(&pr), Inert: base.Inert(pr.Name)})
	}
	for _, f := range engine.MetricFields {
		v.Metrics = append(v.Metrics, templates.JobOption{Value: f.Name, Label: report.AxisName(f), Doc: f.Doc})
	}
	templates.Render(w, r, http.StatusOK, templates.Sweep(v))
}

// sweepDefaultSteps is the steps the form starts with for a parameter:
// every value of a whole-number one up to 11, else 11.
func sweepDefaultSteps(p *engine.Param) int {
	if p.Kind != engine.Float {
		return int(min(p.Max-p.Min+1, 11))
	}
	return 11
}

// sweepFormFromQuery fills the form from the page's query: base (a ref),
// technique, and the default axis for it: the technique's first tuned knob
// that acts in base (its settings) and is a number, else the first that
// acts, so the form never starts on a flat line (Mirror's
// bufferTimeMultiplier while dynamicAdjustment is on).
func sweepFormFromQuery(q url.Values, base *engine.Settings) templates.SweepForm {
	f := templates.SweepForm{Base: q.Get("base"), Technique: q.Get("technique"), Metric: "errP95"}
	if study.TuneSpace(f.Technique) == nil && f.Technique != engine.TechSnap {
		f.Technique = engine.TechBuffer
	}
	name := "latency"
	if sp := study.TuneSpace(f.Technique); len(sp) > 0 {
		name = sp[0].Name
		number, acting := "", ""
		for _, r := range sp {
			if base.Inert(r.Name) != "" {
				continue
			}
			if p, _ := engine.Lookup(r.Name); number == "" && (p.Kind == engine.Float || p.Kind == engine.Int) {
				number = r.Name
			}
			if acting == "" {
				acting = r.Name
			}
		}
		if number != "" {
			name = number
		} else if acting != "" {
			name = acting
		}
	}
	pr, _ := engine.Lookup(name)
	f.X = templates.SweepAxis{Name: name, Min: pr.Format(pr.Min), Max: pr.Format(pr.Max), Steps: sweepDefaultSteps(pr)}
	return f
}

// sweepFormOf fills the form with what a job was asked.
func sweepFormOf(req sweepRequest) templates.SweepForm {
	f := templates.SweepForm{Base: req.Base, Technique: req.Technique, Metric: req.Metric,
		X: templates.SweepAxis{Name: req.X.Name, Min: req.X.Min.paramText(req.X.Name), Max: req.X.Max.paramText(req.X.Name), Steps: req.X.Steps}}
	if req.Y != nil {
		f.Y = templates.SweepAxis{Name: req.Y.Name, Min: req.Y.Min.paramText(req.Y.Name), Max: req.Y.Max.paramText(req.Y.Name), Steps: req.Y.Steps}
	}
	return f
}
