package server

import (
	"errors"
	"fmt"
	"log"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"interplab/cmd/lab/internal/compare"
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
	Units   []string `json:"units"` // units a typed value may carry (20ms, 2%); a plain number is in unit
}

// apiPreset is one preset in GET /api/presets and /api/presets/{name}.
type apiPreset struct {
	Name     string          `json:"name"`
	Title    string          `json:"title"`
	Doc      string          `json:"doc"`
	Query    string          `json:"query"`    // the settings as a link query against the defaults
	Settings engine.Settings `json:"settings"` // every vocabulary key
}

func (s *Server) params(w http.ResponseWriter, r *http.Request) {
	params := engine.Params()
	out := make([]apiParam, len(params))
	for i, p := range params {
		choices := p.Choices
		if choices == nil {
			choices = []string{}
		}
		out[i] = apiParam{
			Name: p.Name, Group: p.Group, Kind: p.Kind.String(), Unit: p.Unit,
			Min: p.Min, Max: p.Max, Step: p.Step, Default: p.Default, Choices: choices,
			Doc: p.Doc, Display: p.Display, Scale: p.Scale, Restart: p.Restart, Units: p.Units(),
		}
		if out[i].Units == nil {
			out[i].Units = []string{}
		}
	}
	jsonapi.WriteJSON(w, http.StatusOK, out)
}

func (s *Server) presetList(w http.ResponseWriter, r *http.Request) {
	out := make([]apiPreset, len(s.presets))
	for i, p := range s.presets {
		out[i] = toAPIPreset(p)
	}
	jsonapi.WriteJSON(w, http.StatusOK, out)
}

func (s *Server) preset(w http.ResponseWriter, r *http.Request) {
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

// exportFile serves GET /api/export?format=F&preset=NAME&<overrides> as a
// download. Any problem with the query is a 400 naming the field.
func (s *Server) exportFile(w http.ResponseWriter, r *http.Request) {
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

// fail answers err in the API's one error shape (see answer).
func fail(w http.ResponseWriter, err error) {
	if errors.Is(err, jobs.ErrBusy) || errors.Is(err, jobs.ErrClientBusy) {
		w.Header().Set("Retry-After", "5")
	}
	jsonapi.WriteError(w, answer(err))
}

// answer is the API's answer to err: the errors of the store, the trace
// formats, the comparisons and the job runner with their statuses (a
// malformed session id is an unknown session), a client's mistake as a 400
// naming its field, anything else as a 500 whose cause is logged, never
// sent.
func answer(err error) *jsonapi.Error {
	notFound := func(field, msg string) *jsonapi.Error {
		return &jsonapi.Error{Status: http.StatusNotFound, Field: field, Msg: msg}
	}
	if e, ok := errors.AsType[*jsonapi.Error](err); ok {
		if e.Status == 0 {
			return &jsonapi.Error{Status: http.StatusBadRequest, Msg: e.Msg, Field: e.Field, Line: e.Line}
		}
		return e
	}
	if ce, ok := errors.AsType[*compare.Error](err); ok { // before the errors it wraps
		return jsonapi.BadRequest(ce.Field, err.Error())
	}
	if fe, ok := errors.AsType[*engine.FieldError](err); ok {
		if fe.Field == "id" {
			return notFound("id", "no such session: "+fe.Error())
		}
		return jsonapi.BadRequest(fe.Field, fe.Error())
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
	case errors.Is(err, store.ErrFull):
		return &jsonapi.Error{Status: http.StatusInsufficientStorage, Msg: store.ErrFull.Error()}
	case errors.Is(err, store.ErrDamaged):
		log.Printf("lab: %v", err)
		return &jsonapi.Error{Status: http.StatusInternalServerError, Msg: err.Error()}
	case errors.Is(err, jobs.ErrBusy), errors.Is(err, jobs.ErrClientBusy):
		return &jsonapi.Error{Status: http.StatusTooManyRequests, Msg: err.Error()}
	}
	log.Printf("lab: %v", err)
	return &jsonapi.Error{Status: http.StatusInternalServerError, Msg: "internal error"}
}

// apiNotFound answers API requests no route takes, in JSON: 405 when
// the path exists for GET, 404 otherwise.
func (s *Server) apiNotFound(w http.ResponseWriter, r *http.Request) {
	get := r.Clone(r.Context())
	get.Method = http.MethodGet
	if _, pattern := s.mux.Handler(get); pattern != "/api/" {
		w.Header().Set("Allow", "GET, HEAD")
		jsonapi.WriteError(w, &jsonapi.Error{Status: http.StatusMethodNotAllowed, Msg: r.Method + " not allowed: use GET"})
		return
	}
	jsonapi.WriteError(w, &jsonapi.Error{Status: http.StatusNotFound, Msg: "no such API: " + r.URL.Path})
}

// favicon answers the icon browsers ask for on every page: no content,
// rather than a 404 in every console.
func favicon(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Cache-Control", "max-age=86400")
	w.WriteHeader(http.StatusNoContent)
}
