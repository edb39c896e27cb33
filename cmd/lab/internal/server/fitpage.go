package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"interplab/cmd/lab/internal/jsonapi"
	"interplab/cmd/lab/internal/link"
	"interplab/cmd/lab/internal/report"
	"interplab/engine"
	"interplab/engine/fit"
	"interplab/templates"
)

// fitExports are the network exports "Export for QA" offers: the
// formats of package export that write the network for a simulator.
var fitExports = []struct{ format, label string }{
	{"netem", "netem"},
	{"unity-network", "Unity"},
	{"mirror-network", "Mirror"},
	{"unreal-network", "Unreal"},
	{"source-network", "Source"},
}

// traceFitPage is GET /traces/{name}/fit[?entity=N]: the lab's network
// model fitted to the trace's packets (package fit), each part with its
// goodness of fit, the techniques replayed on the capture and on its model,
// and links to open it in the lab, save it as a preset and export it for
// QA. A trace that cannot be fitted shows which part and why.
func (s *Server) traceFitPage(w http.ResponseWriter, r *http.Request) {
	name, ok := traceName(w, r)
	if !ok {
		return
	}
	entity := 0
	if e := r.URL.Query().Get("entity"); e != "" {
		n, err := strconv.Atoi(e)
		if err != nil {
			fail(w, jsonapi.BadRequest("entity", "entity "+e+": want a whole number"))
			return
		}
		entity = n
	}
	release, ok := s.takeRead(w, r, true)
	if !ok {
		return
	}
	defer release()
	_, tr, err := s.store.LoadTrace(name)
	if err != nil {
		fail(w, err)
		return
	}
	v := templates.FitView{Name: name, Entity: strconv.Itoa(entity),
		Summary: report.Number(tr.Span()) + " s, " + strconv.Itoa(len(tr.Packets)) + " packets"}
	l, err := fit.Fit(tr, fit.Options{Entity: entity})
	if fe, ok := errors.AsType[*fit.Error](err); ok {
		v.Error = fe.Error()
		templates.Render(w, r, http.StatusOK, templates.Fit(v))
		return
	}
	if err != nil {
		fail(w, err)
		return
	}
	base := engine.Defaults()
	ag, err := fit.Compare(tr, l, base, 1)
	if err != nil {
		fail(w, fmt.Errorf("compare %s with its model: %w", name, err))
		return
	}
	fitView(&v, l, ag)
	templates.Render(w, r, http.StatusOK, templates.Fit(v))
}

// fitView fills v from a fitted link and its agreement.
func fitView(v *templates.FitView, l *fit.Link, ag []fit.Agreement) {
	show := func(name string, x float64) string { p, _ := engine.Lookup(name); return p.Show(x) }
	g := l.Goodness
	v.Summary = report.Number(l.Span) + " s, " + strconv.Itoa(l.Sends) + " sends, " + strconv.Itoa(l.Delivered) + " delivered"
	jit := "0"
	jitGood := ""
	if l.JitterDist != "" {
		jit = show("jitter", l.Jitter) + " " + l.JitterDist
		jitGood = fmt.Sprintf("KS %.4f (5%% critical %.4f); log-likelihood per delay:", g.JitterKS, g.JitterKSCritical)
		for _, d := range l.Dists {
			jitGood += fmt.Sprintf(" %s %.3f", d.Dist, d.LogLik)
		}
	}
	loss := show("loss", l.Loss) + " " + l.LossModel
	if l.LossModel == "burst" {
		loss += ", bursts of " + show("burstLength", l.BurstLength)
	}
	lossGood := fmt.Sprintf("likelihood ratio burst/random %.2f (burst above 10.83)", g.LossLR)
	if g.LossRunsDoF > 0 {
		lossGood += fmt.Sprintf("; runs χ² %.2f on %d dof", g.LossRunsChi2, g.LossRunsDoF)
	}
	rates := show("sendRate", l.SendRate)
	if len(l.Rates) > 1 {
		var rs []string
		for _, r := range l.Rates {
			rs = append(rs, fmt.Sprintf("%s for %.0f%%", show("sendRate", r.Rate), r.Share*100))
		}
		rates += " (" + strings.Join(rs, ", ") + ")"
	}
	v.Rows = []templates.FitRow{
		{Part: "latency", Value: show("latency", l.Latency), Goodness: "the delay floor at the first send, clock offset included"},
		{Part: "jitter", Value: jit, Goodness: jitGood},
		{Part: "loss", Value: loss, Goodness: lossGood},
		{Part: "duplicate", Value: show("duplicate", l.Duplicate)},
		{Part: "reorder", Value: show("reorder", l.Reorder) + " sent ahead", Goodness: show("reorder", l.Inversions) + " of sends arrived before an earlier one"},
		{Part: "clockDrift", Value: show("clockDrift", l.ClockDrift), Goodness: "floor's RMS about the line " + show("latency", g.DriftRMS)},
		{Part: "sendRate", Value: rates},
	}
	for _, wn := range l.Warnings {
		v.Warnings = append(v.Warnings, wn.Part+": "+wn.Msg)
	}
	v.Scenario = l.ScenarioText
	pct := func(x float64) string { return strconv.FormatFloat(x*100, 'f', 2, 64) + " %" }
	cm := func(x float64) string { return strconv.FormatFloat(x*100, 'f', 1, 64) + " cm" }
	for _, a := range ag {
		v.Agreement = append(v.Agreement, templates.FitAgreement{Technique: a.Technique,
			CaptureUnder: pct(a.CaptureUnder), ModelUnder: pct(a.ModelUnder), CaptureErr: cm(a.CaptureErrP95), ModelErr: cm(a.ModelErrP95)})
	}
	st := l.Settings(engine.Defaults())
	q := link.Query("", st)
	v.Lab = "/?" + q
	for _, e := range fitExports {
		v.Exports = append(v.Exports, templates.FitExport{Label: e.label, Href: "/api/export?format=" + e.format + "&" + q})
	}
	v.PresetName = presetNameFor(v.Name)
	v.PresetBody = presetBody(v.PresetName, v.Name, st)
}

// presetNameFor is the preset a trace's fit is saved as: fit-NAME, cut to
// a preset name's 64 characters.
func presetNameFor(trace string) string {
	n := "fit-" + trace
	if len(n) > 64 {
		n = n[:64]
	}
	return n
}

// presetBody is the preset file of the fitted link: its network
// parameters and, when it changed over time, its scenario.
func presetBody(name, trace string, st engine.Settings) string {
	set := map[string]any{}
	for _, n := range []string{"latency", "jitter", "jitterDist", "loss", "lossModel", "burstLength", "duplicate", "reorder", "reorderGap", "clockDrift", "sendRate", "tickRate", "scenario"} {
		p, _ := engine.Lookup(n)
		x := p.Get(&st)
		if p.Kind == engine.Enum {
			set[n] = p.Format(x)
		} else {
			set[n] = x
		}
	}
	if st.ScenarioText != "" {
		set["scenarioText"] = st.ScenarioText
	}
	b, _ := json.Marshal(map[string]any{
		"name": name, "title": "Fitted to " + trace,
		"doc":      "The lab's network model fitted to the trace " + trace + " (lab fit).",
		"settings": set,
	})
	return string(b)
}
