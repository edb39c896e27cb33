package main

import (
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"interplab/cmd/lab/internal/export"
	"interplab/cmd/lab/internal/jobs"
	"interplab/cmd/lab/internal/jsonapi"
	"interplab/cmd/lab/internal/link"
	"interplab/cmd/lab/internal/store"
	"interplab/cmd/lab/internal/traceio"
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
	jsonapi.WriteJSON(w, http.StatusOK, out)
}

func (s *server) handlePresets(w http.ResponseWriter, r *http.Request) {
	out := make([]apiPreset, len(s.presets))
	for i, p := range s.presets {
		out[i] = toAPIPreset(p)
	}
	jsonapi.WriteJSON(w, http.StatusOK, out)
}

func (s *server) handlePreset(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	for _, p := range s.presets {
		if p.Name == name {
			jsonapi.WriteJSON(w, http.StatusOK, toAPIPreset(p))
			return
		}
	}
	jsonapi.WriteError(w, &jsonapi.Error{Status: http.StatusNotFound, Msg: "unknown preset " + strconv.Quote(jsonapi.Clip(name, 40)), Field: "preset"})
}

func toAPIPreset(p presets.Preset) apiPreset {
	return apiPreset{Name: p.Name, Title: p.Title, Doc: p.Doc, Query: link.Query("", p.Settings), Settings: p.Settings}
}

// handleExport serves GET /api/export?format=F&preset=NAME&<overrides> as a
// download. Any problem with the query is a 400 naming the field.
func (s *server) handleExport(w http.ResponseWriter, r *http.Request) {
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		jsonapi.WriteError(w, jsonapi.BadRequest("", "malformed query: "+err.Error()))
		return
	}
	format := q.Get("format")
	q.Del("format")
	if format == "" {
		jsonapi.WriteError(w, jsonapi.BadRequest("format", "missing format: want one of "+export.Names()))
		return
	}
	preset, settings, errs := link.Parse(q)
	if len(errs) > 0 {
		msgs := make([]string, len(errs))
		for i, e := range errs {
			msgs[i] = e.Error()
		}
		jsonapi.WriteError(w, jsonapi.BadRequest(errs[0].Field, strings.Join(msgs, "; ")))
		return
	}
	file, err := export.Render(format, preset, settings)
	if err != nil {
		jsonapi.WriteError(w, jsonapi.BadRequest("format", err.Error()))
		return
	}
	w.Header().Set("Content-Type", file.ContentType)
	w.Header().Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": file.Name}))
	w.Header().Set("Cache-Control", "no-store")
	w.Write(file.Body)
}

// fail answers err in the API's one error shape: the store's and the job
// runner's errors with their statuses (a malformed session id is an
// unknown session), a client's mistake as a 400 naming its field, anything
// else as a 500.
func fail(w http.ResponseWriter, err error) {
	if errors.Is(err, jobs.ErrBusy) {
		w.Header().Set("Retry-After", "5")
	}
	jsonapi.WriteError(w, apiError(err))
}

// apiError maps the errors of the store, the trace formats and the job
// runner to their answers; any other error is returned as it is.
func apiError(err error) error {
	notFound := func(field, msg string) error {
		return &jsonapi.Error{Status: http.StatusNotFound, Field: field, Msg: msg}
	}
	if fe, ok := errors.AsType[*engine.FieldError](err); ok && fe.Field == "id" {
		return notFound("id", "no such session: "+fe.Error())
	}
	if ie, ok := errors.AsType[*traceio.InputError](err); ok {
		return &jsonapi.Error{Status: http.StatusBadRequest, Msg: ie.Error(), Field: ie.Field, Line: ie.Line}
	}
	if te, ok := errors.AsType[*engine.TraceError](err); ok {
		return jsonapi.BadRequest(te.Field, te.Error())
	}
	switch {
	case errors.Is(err, store.ErrSessionNotFound):
		return notFound("id", "no such session")
	case errors.Is(err, store.ErrRevNotFound):
		return notFound("rev", "no such revision")
	case errors.Is(err, store.ErrSessionDeleted):
		return &jsonapi.Error{Status: http.StatusGone, Field: "id",
			Msg: fmt.Sprintf("session deleted: POST its /restore within %d days to bring it back", int(store.RestoreWindow.Hours()/24))}
	case errors.Is(err, store.ErrTraceNotFound):
		return notFound("name", "no such trace")
	case errors.Is(err, store.ErrTraceExists):
		return &jsonapi.Error{Status: http.StatusConflict, Field: "name", Msg: "a trace with this name exists: choose another name or delete it first"}
	case errors.Is(err, store.ErrTraceSample):
		return &jsonapi.Error{Status: http.StatusForbidden, Field: "name", Msg: "a built-in sample cannot be deleted"}
	case errors.Is(err, jobs.ErrBusy):
		return &jsonapi.Error{Status: http.StatusTooManyRequests, Msg: err.Error()}
	}
	return err
}

// noStore marks next's answers as never to be cached: sessions, traces and
// job results change under the same URL.
func noStore(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		next.ServeHTTP(w, r)
	})
}
