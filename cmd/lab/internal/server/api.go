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
	"time"

	"interplab/cmd/lab/internal/compare"
	"interplab/cmd/lab/internal/export"
	"interplab/cmd/lab/internal/jobs"
	"interplab/cmd/lab/internal/jsonapi"
	"interplab/cmd/lab/internal/link"
	"interplab/cmd/lab/internal/report"
	"interplab/cmd/lab/internal/store"
	"interplab/cmd/lab/internal/traceio"
	"interplab/engine"
	"interplab/presets"
)

// The JSON API: the parameter table, the presets and the exports.

// apiPreset is one preset in GET /api/presets and /api/presets/{name}.
type apiPreset struct {
	Name     string          `json:"name"`
	Title    string          `json:"title"`
	Doc      string          `json:"doc"`
	Custom   bool            `json:"custom"`   // saved on this lab (POST /api/presets), not built in
	Query    string          `json:"query"`    // the settings as a link query against the defaults
	File     string          `json:"file"`     // where its preset file downloads
	Settings engine.Settings `json:"settings"` // every vocabulary key
}

func (s *Server) params(w http.ResponseWriter, r *http.Request) {
	jsonapi.WriteJSON(w, http.StatusOK, report.Params(engine.Params()))
}

// presetList serves GET /api/presets: the built-in presets in display
// order, then the custom ones by name.
func (s *Server) presetList(w http.ResponseWriter, r *http.Request) {
	out := make([]apiPreset, 0, len(s.presets))
	for _, p := range s.presets {
		out = append(out, toAPIPreset(p, false))
	}
	custom, err := s.store.ListPresets()
	if err != nil {
		fail(w, err)
		return
	}
	for _, c := range custom {
		out = append(out, toAPIPreset(fromCustom(c), true))
	}
	jsonapi.WriteJSON(w, http.StatusOK, out)
}

// preset serves GET /api/presets/{name} (JSON, as in the list) and
// GET /api/presets/{name}.json (the preset file, as presets/*.json hold
// them, for download and import).
func (s *Server) preset(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	base, asFile := strings.CutSuffix(name, ".json")
	p, custom, err := s.findPreset(base)
	if err != nil {
		fail(w, err)
		return
	}
	if !asFile {
		jsonapi.WriteJSON(w, http.StatusOK, toAPIPreset(p, custom))
		return
	}
	// The file leaves out order: where a lab lists a preset is its own.
	data, err := presets.Encode(p, 0)
	if err != nil {
		fail(w, err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": p.Name + ".json"}))
	w.Write(data)
}

// findPreset returns the built-in or custom preset called name.
func (s *Server) findPreset(name string) (p presets.Preset, custom bool, err error) {
	for _, p := range s.presets {
		if p.Name == name {
			return p, false, nil
		}
	}
	c, err := s.store.LoadPreset(name)
	if errors.Is(err, store.ErrPresetNotFound) {
		return presets.Preset{}, false, &jsonapi.Error{Status: http.StatusNotFound, Msg: "unknown preset " + strconv.Quote(jsonapi.Clip(name, 40)), Field: "preset"}
	}
	if err != nil {
		return presets.Preset{}, false, err
	}
	return fromCustom(c), true, nil
}

// savePreset serves POST /api/presets: the body is a preset file (name,
// title, doc, settings over the defaults), as "Save as preset" on the lab
// page sends it and as GET /api/presets/{name}.json exports it, so a file
// exported from any lab imports here. A built-in name is refused (409), so
// is a custom one in use (409: delete it first), and a bad file names its
// field (400). 201 answers the preset as GET /api/presets/{name} does.
func (s *Server) savePreset(w http.ResponseWriter, r *http.Request) {
	body, err := jsonapi.ReadBody(r)
	if err != nil {
		fail(w, err)
		return
	}
	// Strict JSON first (no key twice, UTF-8), as every body the API reads;
	// presets.Parse then reads the file's fields.
	if err := jsonapi.Valid(body, ""); err != nil {
		fail(w, err)
		return
	}
	p, err := presets.Parse(body)
	if err != nil {
		field := ""
		if fe, ok := errors.AsType[*engine.FieldError](err); ok {
			field = fe.Field
		}
		fail(w, jsonapi.BadRequest(field, "preset file: "+err.Error()))
		return
	}
	if presets.Builtin(p.Name) {
		fail(w, &jsonapi.Error{Status: http.StatusConflict, Field: "name",
			Msg: fmt.Sprintf("%q is a built-in preset, and built-in presets cannot be overwritten: save under another name", p.Name)})
		return
	}
	err = s.store.SavePreset(store.CustomPreset{Name: p.Name, Title: p.Title, Doc: p.Doc, Settings: p.Settings}, s.now())
	if errors.Is(err, store.ErrPresetExists) {
		fail(w, &jsonapi.Error{Status: http.StatusConflict, Field: "name",
			Msg: fmt.Sprintf("a custom preset named %q exists: delete it first, or save under another name", p.Name)})
		return
	}
	if err != nil {
		fail(w, err)
		return
	}
	w.Header().Set("Location", "/api/presets/"+p.Name)
	jsonapi.WriteJSON(w, http.StatusCreated, toAPIPreset(p, true))
}

// deletePreset serves DELETE /api/presets/{name}: a custom preset goes for
// good (its file, exported, brings it back); a built-in one cannot (409).
func (s *Server) deletePreset(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	if presets.Builtin(name) {
		fail(w, &jsonapi.Error{Status: http.StatusConflict, Field: "name",
			Msg: fmt.Sprintf("%q is a built-in preset: built-in presets cannot be deleted", name)})
		return
	}
	if err := s.store.DeletePreset(name); err != nil {
		fail(w, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func fromCustom(c store.CustomPreset) presets.Preset {
	return presets.Preset{Name: c.Name, Title: c.Title, Doc: c.Doc, Settings: c.Settings}
}

func toAPIPreset(p presets.Preset, custom bool) apiPreset {
	return apiPreset{Name: p.Name, Title: p.Title, Doc: p.Doc, Custom: custom, Query: link.Query("", p.Settings),
		File: "/api/presets/" + p.Name + ".json", Settings: p.Settings}
}

// exportFile serves GET /api/export?format=F&preset=NAME&<overrides> as a
// download, its heading saying where the values come from (from=, see
// exportOrigin). Any problem with the query is a 400 naming the field.
func (s *Server) exportFile(w http.ResponseWriter, r *http.Request) {
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		jsonapi.WriteError(w, jsonapi.BadRequest("", "malformed query: "+err.Error()))
		return
	}
	format, from := q.Get("format"), q["from"]
	q.Del("format")
	q.Del("from")
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
	origin, err := s.exportOrigin(preset, settings, from)
	if err != nil {
		fail(w, err)
		return
	}
	file, err := export.Render(format, origin, settings)
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
	jsonapi.WriteError(w, answer(err))
}

// jobRetry is how long a client refused a job (every slot taken, or its
// own job still running) is told to wait before it asks again.
const jobRetry = 5 * time.Second

// answer is the API's answer to err: the errors of the store, the trace
// formats, the comparisons and the job runner with their statuses (a
// malformed session id is an unknown session), an unreachable database as
// a 503 with Retry-After saying so (store.Outage), a client's mistake as a
// 400 naming its field, anything else as a 500; the cause of a 503 or a 500
// is logged, never sent.
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
	if e := store.Outage(err); e != nil {
		log.Printf("lab: %v", err)
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
	if se, ok := errors.AsType[*engine.ScenarioError](err); ok {
		// A scenario's own line and field are in the message; the
		// request's field is the setting that holds it.
		field := "scenarioText"
		if se.Field == "scenario" || se.Line == 0 && se.Field != "scenarioText" {
			field = "scenario"
		}
		return &jsonapi.Error{Status: http.StatusBadRequest, Field: field, Line: se.Line, Msg: se.Error()}
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
	case errors.Is(err, store.ErrPresetNotFound):
		return notFound("name", "no such custom preset")
	case errors.Is(err, store.ErrPresetExists):
		return &jsonapi.Error{Status: http.StatusConflict, Field: "name", Msg: "a custom preset with this name exists: delete it first or choose another name"}
	case errors.Is(err, store.ErrFull):
		return &jsonapi.Error{Status: http.StatusInsufficientStorage, Msg: store.ErrFull.Error()}
	case errors.Is(err, store.ErrDamaged):
		log.Printf("lab: %v", err)
		return &jsonapi.Error{Status: http.StatusInternalServerError, Msg: err.Error()}
	case errors.Is(err, jobs.ErrBusy), errors.Is(err, jobs.ErrClientBusy):
		return &jsonapi.Error{Status: http.StatusTooManyRequests, Msg: err.Error(), RetryAfter: jobRetry}
	}
	log.Printf("lab: %v", err)
	return &jsonapi.Error{Status: http.StatusInternalServerError, Msg: "internal error"}
}

// favicon answers the icon browsers ask for on every page: no content,
// rather than a 404 in every console.
func favicon(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Cache-Control", "max-age=86400")
	w.WriteHeader(http.StatusNoContent)
}
