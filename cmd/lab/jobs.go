package main

import (
	"net/http"
	"time"

	"interplab/cmd/lab/internal/jobs"
	"interplab/cmd/lab/internal/jsonapi"
)

// Job limits of the server's sweeps and tunings.
const (
	jobMaxBody = 64 << 10 // largest request body of POST /api/sweeps and /api/tunes, bytes

	// jobMaxWork bounds one job, in entity-frames, each run counting at
	// least compare.CostEntities entities: 4e8 is about 3 to 10 minutes of
	// one core (compareMaxWork's measure), a 1,000-point sweep of the
	// default 60 s scenario needs 1.2e8.
	jobMaxWork = 4e8
)

// jobHandlers serve the job API beside the sweep and tuner pages.
type jobHandlers struct {
	jobs *jobs.Runner
}

// status is GET /api/jobs/{id}.
func (h *jobHandlers) status(w http.ResponseWriter, r *http.Request) {
	j := h.jobs.Get(r.PathValue("id"))
	if j == nil {
		jsonapi.WriteError(w, &jsonapi.Error{Status: http.StatusNotFound, Msg: "no such job", Field: "id"})
		return
	}
	jsonapi.WriteJSON(w, http.StatusOK, j.Status())
}

// jobCancelWait is how long POST /api/jobs/{id}/cancel waits for the job
// to stop before answering; the engine stops within milliseconds.
const jobCancelWait = 5 * time.Second

// cancel is POST /api/jobs/{id}/cancel: it cancels the job and
// answers its status once it has ended (an ended job is left as it is).
func (h *jobHandlers) cancel(w http.ResponseWriter, r *http.Request) {
	j := h.jobs.Get(r.PathValue("id"))
	if j == nil {
		jsonapi.WriteError(w, &jsonapi.Error{Status: http.StatusNotFound, Msg: "no such job", Field: "id"})
		return
	}
	j.Cancel()
	select {
	case <-j.Ended():
	case <-time.After(jobCancelWait):
	case <-r.Context().Done():
		return
	}
	jsonapi.WriteJSON(w, http.StatusOK, j.Status())
}

// ws is GET /ws/jobs/{id}: the job's progress (see package jobs).
func (h *jobHandlers) ws(w http.ResponseWriter, r *http.Request) {
	j := h.jobs.Get(r.PathValue("id"))
	if j == nil {
		jsonapi.WriteError(w, &jsonapi.Error{Status: http.StatusNotFound, Msg: "no such job", Field: "id"})
		return
	}
	h.jobs.ServeWS(w, r, j)
}

// jobAccepted is the 202 answer of POST /api/sweeps and /api/tunes.
type jobAccepted struct {
	ID    string `json:"id"`
	Kind  string `json:"kind"`
	Total int    `json:"total"`
	WS    string `json:"ws"`   // the progress WebSocket's path
	Page  string `json:"page"` // the job's page: its results once done
}
