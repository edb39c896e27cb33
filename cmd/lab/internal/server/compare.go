package server

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"interplab/cmd/lab/internal/chart"
	"interplab/cmd/lab/internal/compare"
	"interplab/cmd/lab/internal/jsonapi"
	"interplab/cmd/lab/internal/report"
	"interplab/engine"
	"interplab/templates"
)

// The comparison page and its CSV data (routes.go):
//
//	GET /compare?v=REF&v=REF...              the page (HTML)
//	GET /compare.csv?v=REF&v=REF...&chart=C  one chart's data, C = error, metrics or latency
//
// A REF names a variant (compare.Resolver): preset:wifi, session:ID, session:ID@REV,
// q:QUERY (a URL-encoded share query) or trace:NAME[@REF]. Empty refs are
// skipped, so a form may send blank rows. Two to eight refs are needed. A
// bad request gets 400: the page shows the error above the form when the
// client asked for HTML, otherwise it is the API's JSON error. A page with
// no refs at all (the navigation's link) is the empty form. A comparison is
// a heavy read (reads.go), checked before it loads a trace: a 503 with
// Retry-After when the slots stay taken.

// comparePage is GET /compare.
func (s *Server) comparePage(w http.ResponseWriter, r *http.Request) {
	refs := compare.Refs(r.URL.Query())
	if len(refs) == 0 && acceptsHTML(r) {
		// The page opened from the navigation: an empty form to fill in,
		// not an error.
		view := templates.CompareView{Refs: compare.FormRows(refs), Choices: s.compareChoices()}
		templates.Render(w, r, http.StatusOK, templates.Compare(view))
		return
	}
	c, release, err := s.runComparison(r, refs)
	var view templates.CompareView
	if err == nil {
		defer release()
		view, err = compareView(refs, c)
	}
	if err != nil {
		if r.Context().Err() != nil {
			return // the client left
		}
		e := answer(err)
		if !acceptsHTML(r) {
			jsonapi.WriteError(w, e)
			return
		}
		jsonapi.SetRetryAfter(w, e.RetryAfter)
		view = templates.CompareView{Refs: compare.FormRows(refs), Error: e.Msg, Field: e.Field}
		view.Choices = s.compareChoices()
		templates.Render(w, r, e.Status, templates.Compare(view))
		return
	}
	view.Choices = s.compareChoices()
	templates.Render(w, r, http.StatusOK, templates.Compare(view)) // no-cache: a session ref may move to a new revision
}

// Limits of the compare form's chooser.
const (
	compareChoiceSessions  = 30 // the most recently saved sessions
	compareChoiceRevisions = 5  // each one's latest revisions
)

// compareChoices lists what the compare form offers to pick from, in
// groups: every preset, the latest saved sessions with their recent
// revisions, and the recorded traces. A store that cannot list them leaves
// them out: the form still takes refs typed by hand.
func (s *Server) compareChoices() []templates.CompareChoiceGroup {
	presets := templates.CompareChoiceGroup{Label: "Presets"}
	for _, p := range s.presets {
		presets.Choices = append(presets.Choices, templates.CompareChoice{Ref: "preset:" + p.Name, Label: p.Title})
	}
	out := []templates.CompareChoiceGroup{presets}
	if list, err := s.store.List("", false); err == nil && len(list) > 0 {
		g := templates.CompareChoiceGroup{Label: "Saved sessions and revisions"}
		for _, sum := range list[:min(len(list), compareChoiceSessions)] {
			g.Choices = append(g.Choices, templates.CompareChoice{Ref: "session:" + sum.ID, Label: sum.Name + " (latest, rev " + strconv.Itoa(sum.Rev) + ")"})
			for rev := sum.Rev - 1; rev >= max(1, sum.Rev-compareChoiceRevisions+1); rev-- {
				g.Choices = append(g.Choices, templates.CompareChoice{Ref: "session:" + sum.ID + "@" + strconv.Itoa(rev), Label: sum.Name + " · rev " + strconv.Itoa(rev)})
			}
		}
		out = append(out, g)
	}
	if traces, err := s.store.ListTraces(); err == nil && len(traces) > 0 {
		g := templates.CompareChoiceGroup{Label: "Recorded traces (replayed with their own settings)"}
		for _, t := range traces {
			g.Choices = append(g.Choices, templates.CompareChoice{Ref: "trace:" + t.Name, Label: t.Name})
		}
		out = append(out, g)
	}
	return out
}

// compareCSV is GET /compare.csv.
func (s *Server) compareCSV(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	name := q.Get("chart")
	if !slices.Contains([]string{compare.CSVError, compare.CSVMetrics, compare.CSVLatency}, name) {
		fail(w, jsonapi.BadRequest("chart", fmt.Sprintf("chart = %q: want %s, %s or %s",
			name, compare.CSVError, compare.CSVMetrics, compare.CSVLatency)))
		return
	}
	c, release, err := s.runComparison(r, compare.Refs(q))
	if err != nil {
		if r.Context().Err() == nil {
			fail(w, err)
		}
		return
	}
	defer release()
	var b strings.Builder
	if err := compare.WriteCSV(&b, c, name); err != nil {
		fail(w, err)
		return
	}
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="compare-`+name+`.csv"`)
	w.Header().Set("Cache-Control", "no-cache")
	io.WriteString(w, b.String())
}

// runComparison resolves refs and checks the comparison they ask for
// (package compare's bounds on its work and on the traces it holds),
// before it loads any trace; then, as a heavy read (reads.go), loads the
// traces and runs it. The caller calls release once it has answered.
func (s *Server) runComparison(r *http.Request, refs []string) (_ *compare.Comparison, release func(), _ error) {
	vs, err := compare.Variants(refs, s.resolveRef)
	if err != nil {
		return nil, nil, err
	}
	c, err := s.compare.Plan(vs)
	if err != nil {
		return nil, nil, err
	}
	release, err = s.reads.TakeFor(r.Context(), s.gate.Caller(r))
	if err != nil {
		return nil, nil, err
	}
	if err := s.compare.Exec(r.Context(), c, s.refs.Trace); err != nil {
		release()
		return nil, nil, err
	}
	return c, release, nil
}

// compareCSVURL is the URL of one chart's data for the variants refs.
func compareCSVURL(refs []string, chart string) string {
	return "/compare.csv?" + url.Values{"v": refs, "chart": {chart}}.Encode()
}

// compareView builds the page of comparison c, run from refs.
func compareView(refs []string, c *compare.Comparison) (templates.CompareView, error) {
	v := templates.CompareView{Refs: compare.FormRows(refs), Forced: c.Forced}
	for i, x := range c.Variants {
		v.Variants = append(v.Variants, templates.CompareVariant{Ref: refs[i], Label: x.Label, Color: chart.Color(i)})
	}
	first := c.Variants[0].Settings
	for _, p := range compare.Scenario() {
		v.Scenario = append(v.Scenario, templates.CompareSetting{Name: p.Name, Value: compareShow(p, &first)})
	}

	errCharts, metricCharts, latencyCharts := chart.Comparison(&c.Runs)
	sections := []struct {
		title, doc, csv string
		charts          []chart.Figure
	}{
		{"Position error over time", "RMS position error against the truth over windows of " +
			strconv.FormatFloat(c.Step, 'g', -1, 64) + " s: one chart per technique, one line per variant. " +
			"Drag the slider under a chart to zoom; click a legend entry to hide a variant.", compare.CSVError, errCharts},
		{"Metrics side by side", "One chart per metric, a group of bars per technique, one bar per variant; lower is better.",
			compare.CSVMetrics, metricCharts},
		{"Added latency against error", "Each technique of each variant as one point: how much delay it adds for how much error.",
			compare.CSVLatency, latencyCharts},
	}
	v.Scripts = chart.Scripts
	for _, s := range sections {
		sec := templates.CompareSection{Title: s.title, Doc: s.doc, CSV: compareCSVURL(refs, s.csv)}
		for _, ch := range s.charts {
			comp, err := chart.Component(ch)
			if err != nil {
				return templates.CompareView{}, err
			}
			sec.Charts = append(sec.Charts, templates.CompareChart{ID: ch.ID, Doc: ch.Doc, Chart: comp})
		}
		v.Sections = append(v.Sections, sec)
	}

	v.Table = templates.CompareTable{Head: []string{"variant", "technique", "frames"}, CSV: compareCSVURL(refs, compare.CSVMetrics)}
	for _, f := range engine.MetricFields {
		v.Table.Head = append(v.Table.Head, report.AxisName(f))
	}
	var vals []float64
	for i, x := range c.Variants {
		for _, tr := range c.Results[i].Techniques {
			row := templates.CompareRow{Variant: x.Label, Technique: tr.Name, Color: chart.Color(i),
				Cells: []string{strconv.Itoa(tr.Metrics.Frames)}}
			vals = tr.Metrics.Values(vals[:0])
			for k, f := range engine.MetricFields {
				row.Cells = append(row.Cells, report.Value(vals[k], f))
			}
			v.Table.Rows = append(v.Table.Rows, row)
		}
	}
	return v, nil
}

// compareShow is a setting's value as a designer reads it, with its unit
// (engine.Param.Show: 120 ms, not 120.00000000000001 ms).
func compareShow(p *engine.Param, s *engine.Settings) string { return p.Show(p.Get(s)) }
