package server

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"

	"interplab/cmd/lab/internal/compare"
	"interplab/cmd/lab/internal/link"
	"interplab/cmd/lab/internal/report"
	"interplab/cmd/lab/internal/traceio"
	"interplab/engine"
	"interplab/templates"
)

// tracesPage is GET /traces: the recorded traces (samples and stored), an
// upload form posting to /api/traces, and for each trace links that open
// the network derived from it in the lab, the tuner and the sweep page,
// and links that replay its packets in the lab and in the comparison
// charts.
func (s *Server) tracesPage(w http.ResponseWriter, r *http.Request) {
	list, err := s.store.ListTraces()
	if err != nil {
		fail(w, fmt.Errorf("list traces: %w", err))
		return
	}
	var v templates.TracesView
	for _, t := range list {
		row := templates.TraceRow{Name: t.Name, Title: t.Title, Doc: t.Doc, Format: t.Format, Sample: t.Sample,
			Packets: strconv.Itoa(t.Packets), Entities: strconv.Itoa(t.Entities), Span: report.Number(t.Span) + " s"}
		// From what the store keeps of each trace: no trace is decoded.
		st, _ := traceio.SettingsFrom(t.Network, t.MaxSpeed, engine.Defaults())
		q := link.Query("", st)
		row.Lab = "/?" + q
		row.Tune = "/tune?base=" + url.QueryEscape("q:"+q)
		row.Sweep = "/sweep?base=" + url.QueryEscape("q:"+q)
		row.Replay = "/?" + linkTraceKey + "=" + url.QueryEscape(t.Name)
		row.Compare = compare.TraceLink(t.Name, "preset:harbor-before", "preset:harbor-after")
		row.Fit = "/traces/" + url.PathEscape(t.Name) + "/fit"
		v.Traces = append(v.Traces, row)
	}
	templates.Render(w, r, http.StatusOK, templates.Traces(v))
}

// traceTemplate serves a CSV trace to start from (traceio.Template), as a
// download.
func (s *Server) traceTemplate(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="trace-template.csv"`)
	io.WriteString(w, traceio.Template)
}
