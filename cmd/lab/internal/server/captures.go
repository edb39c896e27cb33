package server

import (
	"errors"
	"net/http"

	"interplab/cmd/lab/internal/capture"
	"interplab/cmd/lab/internal/jsonapi"
	"interplab/cmd/lab/internal/live"
	"interplab/cmd/lab/internal/report"
	"interplab/cmd/lab/internal/store"
)

// Captures: games stream what they receive into a session
// (docs/capture-protocol.md, package capture); the session's page lists
// who is connected and stops a capture into a trace.

// captureWS is GET /ws/sessions/{id}/capture: a game's capture.
func (s *Server) captureWS(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if _, err := s.store.Latest(id); err != nil {
		fail(w, err)
		return
	}
	s.captures.ServeWS(w, r, id)
}

// identity reads what a follower says of itself on the session's socket:
// ?engine=&version=&client=, each optional.
func identity(r *http.Request) (live.Identity, error) {
	q := r.URL.Query()
	id := live.Identity{Engine: q.Get("engine"), Version: q.Get("version"), Client: q.Get("client")}
	if err := capture.CheckIdentity(id.Engine, id.Version, id.Client); err != nil {
		return live.Identity{}, jsonapi.BadRequest("", err.Error())
	}
	return id, nil
}

// sessionClients is GET /api/sessions/{id}/clients: the session's clients
// on this lab (its tabs and games following it) and its open captures,
// with their progress.
func (s *Server) sessionClients(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if _, err := s.store.Latest(id); err != nil {
		fail(w, err)
		return
	}
	caps, err := s.captures.Clients(id)
	if err != nil {
		fail(w, err)
		return
	}
	out := struct {
		Followers []live.ClientInfo `json:"followers"`
		Captures  []capture.Client  `json:"captures"`
	}{s.hub.Clients(id), caps}
	if out.Followers == nil {
		out.Followers = []live.ClientInfo{}
	}
	jsonapi.WriteJSON(w, http.StatusOK, out)
}

// stopCapture is POST /api/sessions/{id}/captures/{capture}/stop: the
// capture becomes a trace (201, the trace's description).
func (s *Server) stopCapture(w http.ResponseWriter, r *http.Request) {
	id, capID := r.PathValue("id"), r.PathValue("capture")
	if err := store.CheckSessionID(capID); err != nil {
		fail(w, &jsonapi.Error{Status: http.StatusNotFound, Field: "capture", Msg: "no such capture"})
		return
	}
	if _, err := s.store.Latest(id); err != nil {
		fail(w, err)
		return
	}
	info, err := s.captures.Stop(id, capID)
	var perr *capture.ProtocolError
	switch {
	case errors.Is(err, store.ErrCaptureNotFound):
		fail(w, &jsonapi.Error{Status: http.StatusNotFound, Field: "capture", Msg: "no open capture " + capID + " in this session: it was saved, or never was"})
		return
	case errors.As(err, &perr):
		fail(w, &jsonapi.Error{Status: http.StatusConflict, Field: "capture", Msg: perr.Msg})
		return
	case err != nil:
		fail(w, err)
		return
	}
	w.Header().Set("Location", "/api/traces/"+info.Name)
	jsonapi.WriteJSON(w, http.StatusCreated, report.DescribeTraceInfo(info))
}
