package main

import (
	"encoding/json"
	"mime"
	"net/http"
	"net/url"
	"strings"

	"interplab/engine"
	"interplab/presets"
)

// The JSON API: the parameter table, the presets and the exports.

// apiParam is one row of GET /api/params.
type apiParam struct {
	Name    string   `json:"name"`
	Group   string   `json:"group"`
	Kind    string   `json:"kind"` // float, int, bool, enum or set
	Unit    string   `json:"unit"`
	Min     float64  `json:"min"`
	Max     float64  `json:"max"`
	Step    float64  `json:"step"`
	Default float64  `json:"default"` // an index for an enum, 0 or 1 for a bool, a bit mask for a set
	Choices []string `json:"choices"`
	Doc     string   `json:"doc"`
	Display string   `json:"display"`
	Scale   float64  `json:"scale"`
	Restart bool     `json:"restart"`
}

var apiKinds = map[engine.Kind]string{
	engine.Float: "float", engine.Int: "int", engine.Bool: "bool", engine.Enum: "enum", engine.Set: "set",
}

// apiPreset is one preset in GET /api/presets and /api/presets/{name}.
type apiPreset struct {
	Name     string          `json:"name"`
	Title    string          `json:"title"`
	Doc      string          `json:"doc"`
	Query    string          `json:"query"`    // the settings as a link query against the defaults
	Settings engine.Settings `json:"settings"` // every vocabulary key
}

// apiError is the body of every API error.
type apiError struct {
	Error string `json:"error"`
	Field string `json:"field,omitempty"` // the vocabulary name, "preset" or "format" at fault
}

func (s *server) handleParams(w http.ResponseWriter, r *http.Request) {
	params := engine.Params()
	out := make([]apiParam, len(params))
	for i, p := range params {
		choices := p.Choices
		if choices == nil {
			choices = []string{}
		}
		out[i] = apiParam{
			Name: p.Name, Group: p.Group, Kind: apiKinds[p.Kind], Unit: p.Unit,
			Min: p.Min, Max: p.Max, Step: p.Step, Default: p.Default, Choices: choices,
			Doc: p.Doc, Display: p.Display, Scale: p.Scale, Restart: p.Restart,
		}
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *server) handlePresets(w http.ResponseWriter, r *http.Request) {
	out := make([]apiPreset, len(s.presets))
	for i, p := range s.presets {
		out[i] = toAPIPreset(p)
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *server) handlePreset(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	for _, p := range s.presets {
		if p.Name == name {
			writeJSON(w, http.StatusOK, toAPIPreset(p))
			return
		}
	}
	writeAPIError(w, http.StatusNotFound, "unknown preset "+jsonQuote(name), "preset")
}

func toAPIPreset(p presets.Preset) apiPreset {
	return apiPreset{Name: p.Name, Title: p.Title, Doc: p.Doc, Query: linkQuery("", p.Settings), Settings: p.Settings}
}

// handleExport serves GET /api/export?format=F&preset=NAME&<overrides> as a
// download. Any problem with the query is a 400 naming the field.
func (s *server) handleExport(w http.ResponseWriter, r *http.Request) {
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		writeAPIError(w, http.StatusBadRequest, "malformed query: "+err.Error(), "")
		return
	}
	format := q.Get("format")
	q.Del("format")
	if format == "" {
		writeAPIError(w, http.StatusBadRequest, "missing format: want one of "+exportFormatNames(), "format")
		return
	}
	preset, settings, errs := settingsFromQuery(q)
	if len(errs) > 0 {
		msgs := make([]string, len(errs))
		for i, e := range errs {
			msgs[i] = e.Error()
		}
		writeAPIError(w, http.StatusBadRequest, strings.Join(msgs, "; "), errs[0].Field)
		return
	}
	body, contentType, filename, err := export(format, preset, settings)
	if err != nil {
		writeAPIError(w, http.StatusBadRequest, err.Error(), "format")
		return
	}
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": filename}))
	w.Header().Set("Cache-Control", "no-store")
	w.Write(body)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		http.Error(w, "encode JSON: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(append(data, '\n'))
}

func writeAPIError(w http.ResponseWriter, status int, msg, field string) {
	writeJSON(w, status, apiError{Error: msg, Field: field})
}

func jsonQuote(s string) string {
	data, _ := json.Marshal(s)
	return string(data)
}
