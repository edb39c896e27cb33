package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"

	"interplab/engine"
)

// maxSessionBody is the largest request body the sessions API reads, bytes:
// room for notes of maxNotesRunes four-byte characters and the settings.
const maxSessionBody = 64 << 10

// registerSessions adds the sessions API and the live sync WebSocket to mux:
//
//	POST   /api/sessions                      create: {"name","notes","settings":{...}} → 201, the revision
//	GET    /api/sessions?q=&deleted=1         list, newest first; q searches names; deleted=1 includes deleted ones
//	GET    /api/sessions/{id}                 the latest revision, with the history and what each revision changed
//	GET    /api/sessions/{id}/revisions/{rev} one revision
//	PUT    /api/sessions/{id}                 save a new revision
//	DELETE /api/sessions/{id}                 delete (restorable for 30 days)
//	POST   /api/sessions/{id}/restore         restore a deleted session
//	GET    /ws/sessions/{id}                  live sync (see hub.go)
//
// Create starts the settings from engine.Defaults; a save starts every
// field it leaves out from the session's live settings (the latest revision
// when no client is connected), so {"name": "x"} renames. Settings keys are
// the vocabulary. Errors are JSON {"error": "...", "field": "..."}: 400 for
// bad input, 404 for an unknown or malformed session id or an unknown
// revision, 410 for a deleted
// session, 413 for a body over 64 KiB, 415 for a body that is not JSON, 403
// for a cross-origin change from a browser. now is the clock for the times
// saved.
func registerSessions(mux *http.ServeMux, st *Store, hub *Hub, now func() time.Time) {
	h := &sessionHandlers{st: st, hub: hub, now: now, cop: http.NewCrossOriginProtection()}
	mux.HandleFunc("POST /api/sessions", h.change(h.create))
	mux.HandleFunc("GET /api/sessions", h.list)
	mux.HandleFunc("GET /api/sessions/{id}", h.get)
	mux.HandleFunc("GET /api/sessions/{id}/revisions/{rev}", h.revision)
	mux.HandleFunc("PUT /api/sessions/{id}", h.change(h.save))
	mux.HandleFunc("DELETE /api/sessions/{id}", h.change(h.delete))
	mux.HandleFunc("POST /api/sessions/{id}/restore", h.change(h.restore))
	mux.HandleFunc("GET /ws/sessions/{id}", h.ws)
}

type sessionHandlers struct {
	st  *Store
	hub *Hub
	now func() time.Time
	cop *http.CrossOriginProtection
}

// sessionRequest is the body of a create or a save. Pointers and the raw
// settings tell a field left out from one set to its zero value.
type sessionRequest struct {
	Name     *string         `json:"name"`
	Notes    *string         `json:"notes"`
	Settings json.RawMessage `json:"settings"`
}

// sessionRevisionJSON is a revision in the API.
type sessionRevisionJSON struct {
	ID       string          `json:"id"`
	Rev      int             `json:"rev"`
	Name     string          `json:"name"`
	Notes    string          `json:"notes"`
	Time     time.Time       `json:"time"`
	Settings engine.Settings `json:"settings"`
}

// sessionJSON is a session in the API: its latest revision and history.
type sessionJSON struct {
	sessionRevisionJSON
	Created   time.Time             `json:"created"`
	Deleted   *time.Time            `json:"deleted,omitempty"`
	Revisions []sessionRevisionInfo `json:"revisions"` // oldest first
}

type sessionRevisionInfo struct {
	Rev     int       `json:"rev"`
	Name    string    `json:"name"`
	Time    time.Time `json:"time"`
	Changed []string  `json:"changed"` // vocabulary names changed since the previous revision
}

type sessionSummaryJSON struct {
	ID      string     `json:"id"`
	Name    string     `json:"name"`
	Rev     int        `json:"rev"`
	Created time.Time  `json:"created"`
	Updated time.Time  `json:"updated"`
	Deleted *time.Time `json:"deleted,omitempty"`
}

func toRevisionJSON(r Revision) sessionRevisionJSON {
	return sessionRevisionJSON{ID: r.ID, Rev: r.Rev, Name: r.Name, Notes: r.Notes, Time: r.Time, Settings: r.Settings}
}

func toSessionJSON(s Session) sessionJSON {
	out := sessionJSON{sessionRevisionJSON: toRevisionJSON(s.Revision), Created: s.Created,
		Revisions: make([]sessionRevisionInfo, len(s.History))}
	if !s.Deleted.IsZero() {
		out.Deleted = &s.Deleted
	}
	for i, h := range s.History {
		out.Revisions[i] = sessionRevisionInfo(h)
	}
	return out
}

// change guards a handler that changes state: browsers may only call it from
// the lab's own pages.
func (h *sessionHandlers) change(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if err := h.cop.Check(r); err != nil {
			writeSessionError(w, http.StatusForbidden, "cross-origin request refused", "")
			return
		}
		next(w, r)
	}
}

func (h *sessionHandlers) create(w http.ResponseWriter, r *http.Request) {
	req, err := readSessionRequest(w, r)
	if err != nil {
		sessionFail(w, err)
		return
	}
	d := Draft{Settings: engine.Defaults()}
	if req.Name != nil {
		d.Name = *req.Name
	}
	if req.Notes != nil {
		d.Notes = *req.Notes
	}
	if err := decodeSessionSettings(req.Settings, &d.Settings); err != nil {
		sessionFail(w, err)
		return
	}
	rev, err := h.st.Create(d, h.now())
	if err != nil {
		sessionFail(w, err)
		return
	}
	w.Header().Set("Location", "/api/sessions/"+rev.ID)
	sessionWriteJSON(w, http.StatusCreated, toRevisionJSON(rev))
}

func (h *sessionHandlers) save(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if err := checkSessionID(id); err != nil {
		sessionFail(w, err)
		return
	}
	req, err := readSessionRequest(w, r)
	if err != nil {
		sessionFail(w, err)
		return
	}
	live, isLive := h.hub.Live(id)
	rev, err := h.st.Update(id, h.now(), func(prev Revision) (Draft, error) {
		d := Draft{Name: prev.Name, Notes: prev.Notes, Settings: prev.Settings}
		if isLive {
			d.Settings = live
		}
		if req.Name != nil {
			d.Name = *req.Name
		}
		if req.Notes != nil {
			d.Notes = *req.Notes
		}
		return d, decodeSessionSettings(req.Settings, &d.Settings)
	})
	if err != nil {
		sessionFail(w, err)
		return
	}
	h.hub.Saved(rev)
	sessionWriteJSON(w, http.StatusOK, toRevisionJSON(rev))
}

func (h *sessionHandlers) list(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	search := q.Get("q")
	if utf8Len := len([]rune(search)); utf8Len > maxNameRunes {
		writeSessionError(w, http.StatusBadRequest, fmt.Sprintf("q is %d characters long: want at most %d", utf8Len, maxNameRunes), "q")
		return
	}
	withDeleted := false
	if v := q.Get("deleted"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			writeSessionError(w, http.StatusBadRequest, "deleted = "+strconv.Quote(clipText(v, 20))+": want 1 or 0", "deleted")
			return
		}
		withDeleted = b
	}
	list, err := h.st.List(search, withDeleted)
	if err != nil {
		sessionFail(w, err)
		return
	}
	out := make([]sessionSummaryJSON, len(list))
	for i, s := range list {
		out[i] = sessionSummaryJSON{ID: s.ID, Name: s.Name, Rev: s.Rev, Created: s.Created, Updated: s.Updated}
		if !s.Deleted.IsZero() {
			out[i].Deleted = &list[i].Deleted
		}
	}
	sessionWriteJSON(w, http.StatusOK, struct {
		Sessions []sessionSummaryJSON `json:"sessions"`
	}{out})
}

func (h *sessionHandlers) get(w http.ResponseWriter, r *http.Request) {
	s, err := h.st.Get(r.PathValue("id"))
	if err == nil && !s.Deleted.IsZero() {
		err = errSessionDeleted
	}
	if err != nil {
		sessionFail(w, err)
		return
	}
	sessionWriteJSON(w, http.StatusOK, toSessionJSON(s))
}

func (h *sessionHandlers) revision(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if err := checkSessionID(id); err != nil {
		sessionFail(w, err)
		return
	}
	text := r.PathValue("rev")
	rev, err := strconv.Atoi(text)
	if err != nil || rev < 1 || strconv.Itoa(rev) != text {
		writeSessionError(w, http.StatusBadRequest, "rev = "+strconv.Quote(clipText(text, 20))+": want a revision number from 1", "rev")
		return
	}
	got, err := h.st.Revision(id, rev)
	if err != nil {
		sessionFail(w, err)
		return
	}
	sessionWriteJSON(w, http.StatusOK, toRevisionJSON(got))
}

func (h *sessionHandlers) delete(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	now := h.now()
	if err := h.st.Delete(id, now); err != nil {
		sessionFail(w, err)
		return
	}
	h.hub.Gone(id)
	s, err := h.st.Get(id)
	if err != nil {
		sessionFail(w, err)
		return
	}
	sessionWriteJSON(w, http.StatusOK, struct {
		ID           string    `json:"id"`
		Deleted      time.Time `json:"deleted"`
		RestoreUntil time.Time `json:"restoreUntil"`
	}{id, s.Deleted, s.Deleted.Add(restoreWindow)})
}

func (h *sessionHandlers) restore(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if err := h.st.Restore(id, h.now()); err != nil {
		sessionFail(w, err)
		return
	}
	s, err := h.st.Get(id)
	if err != nil {
		sessionFail(w, err)
		return
	}
	sessionWriteJSON(w, http.StatusOK, toSessionJSON(s))
}

func (h *sessionHandlers) ws(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if _, err := h.st.Latest(id); err != nil {
		sessionFail(w, err)
		return
	}
	h.hub.serveWS(w, r, id)
}

// readSessionRequest reads a create or save body: JSON, at most
// maxSessionBody bytes, no unknown keys.
func readSessionRequest(w http.ResponseWriter, r *http.Request) (sessionRequest, error) {
	var req sessionRequest
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		return req, &sessionStatusError{status: http.StatusUnsupportedMediaType,
			msg: "Content-Type must be application/json"}
	}
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxSessionBody))
	if err != nil {
		if errors.As(err, new(*http.MaxBytesError)) {
			return req, &sessionStatusError{status: http.StatusRequestEntityTooLarge,
				msg: fmt.Sprintf("request body over %d bytes", maxSessionBody)}
		}
		return req, &sessionBadRequest{Msg: "read request body: " + err.Error()}
	}
	if err := sessionDecodeJSON(data, &req, ""); err != nil {
		return req, err
	}
	return req, nil
}

// decodeSessionSettings decodes vocabulary keys onto s; absent (or null)
// raw leaves s as it is. The caller validates.
func decodeSessionSettings(raw json.RawMessage, s *engine.Settings) error {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	return sessionDecodeJSON(raw, s, "settings")
}

// sessionDecodeJSON decodes exactly one JSON value into v, rejecting unknown
// keys and trailing data. Errors are *sessionBadRequest naming the offending
// key where there is one (root names the value itself).
func sessionDecodeJSON(data []byte, v any, root string) error {
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var typeErr *json.UnmarshalTypeError
		var syntaxErr *json.SyntaxError
		switch {
		case errors.As(err, &typeErr):
			field := typeErr.Field
			if field == "" {
				field = root
			}
			what := "the JSON value"
			if field != "" {
				what = field
			}
			return &sessionBadRequest{Field: field,
				Msg: fmt.Sprintf("%s: cannot use a JSON %s as %s", what, clipText(typeErr.Value, 40), jsonKindName(typeErr.Type.String()))}
		case errors.As(err, &syntaxErr):
			return &sessionBadRequest{Field: root, Msg: fmt.Sprintf("invalid JSON at byte %d: %v", syntaxErr.Offset, err)}
		case errors.Is(err, io.EOF):
			return &sessionBadRequest{Field: root, Msg: "empty body: want a JSON object"}
		case errors.Is(err, io.ErrUnexpectedEOF):
			return &sessionBadRequest{Field: root, Msg: "invalid JSON: unexpected end"}
		case strings.HasPrefix(err.Error(), "json: unknown field "):
			// encoding/json has no error type for this case.
			name, uerr := strconv.Unquote(strings.TrimPrefix(err.Error(), "json: unknown field "))
			if uerr != nil {
				name = ""
			}
			return &sessionBadRequest{Field: clipText(name, 40), Msg: "unknown key " + strconv.Quote(clipText(name, 40))}
		}
		return &sessionBadRequest{Field: root, Msg: "invalid JSON: " + err.Error()}
	}
	if _, err := dec.Token(); err != io.EOF {
		return &sessionBadRequest{Field: root, Msg: "trailing data after the JSON value"}
	}
	return nil
}

// jsonKindName names a Go type in JSON terms for error messages.
func jsonKindName(goType string) string {
	switch {
	case strings.HasPrefix(goType, "float"):
		return "a finite number"
	case strings.HasPrefix(goType, "int"), strings.HasPrefix(goType, "uint"):
		return "a whole number"
	case goType == "string", goType == "*string":
		return "a string"
	case goType == "bool":
		return "true or false"
	case strings.HasPrefix(goType, "[]"):
		return "a list"
	}
	return "an object"
}

// sessionBadRequest is a 400: input that is not allowed, and the key at fault.
type sessionBadRequest struct {
	Field string
	Msg   string
}

func (e *sessionBadRequest) Error() string { return e.Msg }

// sessionStatusError is any other 4xx the handlers answer.
type sessionStatusError struct {
	status int
	msg    string
}

func (e *sessionStatusError) Error() string { return e.msg }

// sessionErrorText returns an error's message and field for a client.
func sessionErrorText(err error) (msg, field string) {
	var fe *engine.FieldError
	var bad *sessionBadRequest
	switch {
	case errors.As(err, &fe):
		return fe.Error(), fe.Field
	case errors.As(err, &bad):
		return bad.Msg, bad.Field
	}
	return err.Error(), ""
}

// sessionFail answers err: 4xx for the client's mistakes, 500 (logged) for
// the server's own.
func sessionFail(w http.ResponseWriter, err error) {
	var fe *engine.FieldError
	var bad *sessionBadRequest
	var st *sessionStatusError
	switch {
	case errors.As(err, &st):
		writeSessionError(w, st.status, st.msg, "")
	case errors.As(err, &fe), errors.As(err, &bad):
		msg, field := sessionErrorText(err)
		if field == "id" {
			writeSessionError(w, http.StatusNotFound, "no such session: "+msg, "id")
			return
		}
		writeSessionError(w, http.StatusBadRequest, msg, field)
	case errors.Is(err, errSessionNotFound):
		writeSessionError(w, http.StatusNotFound, "no such session", "id")
	case errors.Is(err, errRevNotFound):
		writeSessionError(w, http.StatusNotFound, "no such revision", "rev")
	case errors.Is(err, errSessionDeleted):
		writeSessionError(w, http.StatusGone, fmt.Sprintf("session deleted: POST its /restore within %d days to bring it back", int(restoreWindow.Hours()/24)), "id")
	default:
		log.Printf("lab: sessions: %v", err)
		writeSessionError(w, http.StatusInternalServerError, "internal error", "")
	}
}

// writeSessionError writes {"error": msg, "field": field}.
func writeSessionError(w http.ResponseWriter, status int, msg, field string) {
	sessionWriteJSON(w, status, struct {
		Error string `json:"error"`
		Field string `json:"field,omitempty"`
	}{msg, field})
}

// sessionWriteJSON writes v as JSON. encoding/json escapes <, > and &, so a
// name like "<script>" cannot become markup even if served as HTML.
func sessionWriteJSON(w http.ResponseWriter, status int, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		log.Printf("lab: sessions: encode response: %v", err)
		http.Error(w, `{"error":"internal error"}`, http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	w.Write(append(data, '\n'))
}
