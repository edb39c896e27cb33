package server

import (
	"log"
	"net/http"
	"net/url"

	"interplab/cmd/lab/internal/export"
	"interplab/cmd/lab/internal/link"
	"interplab/engine"
	"interplab/templates"
)

// labPage renders the lab page for the state in the URL's query.
func (s *Server) labPage(w http.ResponseWriter, r *http.Request) {
	if r.URL.Query().Has(linkTraceKey) {
		// A replay loads its trace's packets: a heavy read (reads.go).
		release, ok := s.takeRead(w, r, true)
		if !ok {
			return
		}
		defer release()
	}
	templates.Render(w, r, http.StatusOK, templates.Page(s.pageView(r)))
}

// pageView builds the page's view model from a share link: the restored
// settings, every problem with the link (never dropped silently), and the
// link of the state actually shown.
func (s *Server) pageView(r *http.Request) templates.PageView {
	var errs []string
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		// ParseQuery keeps the pairs it could read; report the rest.
		errs = append(errs, "malformed link: "+err.Error())
	}
	trace, replaying, terr := replayTraceKey(q)
	if terr != nil {
		errs = append(errs, terr.Error())
	}
	preset, settings, ferrs := link.Parse(q)
	for _, e := range ferrs {
		errs = append(errs, e.Error())
	}
	v := templates.PageView{
		Params:   engine.Params(),
		Settings: settings,
		Preset:   preset,
		Errors:   errs,
	}
	for _, e := range export.List() {
		v.Exports = append(v.Exports, templates.ExportView{Format: e.Format, Label: e.Label, Technique: e.Technique,
			NetSim: export.NetSim(e.Format), Versions: export.NetSimVersions(export.NetSim(e.Format)), QA: export.QA(e.Format)})
	}
	if notes, older := link.OldUnits(q); notes != nil {
		v.UnitNotes, v.OlderLink = notes, r.URL.Path+"?"+older.Encode()
	}
	setQuery(&v, link.Query(preset, settings))
	if replaying {
		s.replayPage(&v, trace, q)
		setQuery(&v, link.Query(preset, v.Settings))
	}
	for _, p := range s.presets {
		v.Presets = append(v.Presets, templates.PresetView{
			Name: p.Name, Title: p.Title, Doc: p.Doc, Query: link.Query("", p.Settings),
			Library: p.Settings.Library(),
		})
	}
	// Custom presets (saved from this page or imported) come after the
	// built-in ones; a store that cannot list them leaves them out.
	custom, err := s.store.ListPresets()
	if err != nil {
		log.Printf("lab: list custom presets: %v", err)
	}
	for _, c := range custom {
		v.Presets = append(v.Presets, templates.PresetView{
			Name: c.Name, Title: c.Title, Doc: c.Doc, Query: link.Query("", c.Settings), Custom: true,
		})
	}
	return v
}

// setQuery makes q the share query of the page's settings, and points the
// network exports' "vs" previews at it: whoever changes the settings after
// pageView (a replay, a session's page) sets the query through it.
func setQuery(v *templates.PageView, q string) {
	v.Query = q
	for i := range v.Exports {
		if e := &v.Exports[i]; e.NetSim != "" {
			e.Preview = export.PreviewURL(e.NetSim, q)
		}
	}
}
