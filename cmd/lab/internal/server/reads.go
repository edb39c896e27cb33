package server

import (
	"net/http"
	"time"

	"interplab/cmd/lab/internal/jsonapi"
	"interplab/templates"
)

// Heavy reads: the requests that read a trace's packets or run a
// comparison (GET /api/traces/{name}/flat, a lab page that replays a
// trace, /compare and /compare.csv). Each takes one of readSlots slots
// (Server.reads) before it loads anything, after checking what it asks
// for against its bounds, so the server holds at most readSlots of them
// whatever the number of clients: a trace's flat packets are streamed
// from the store a block at a time (about the compressed trace a read), a
// page or a comparison that must hold traces holds at most
// compare.MaxTracePackets packets of them. A request that finds no slot
// within readWait is answered 503 with a Retry-After. Reads that need no
// packets (a trace's description, the lists) take no slot.
const (
	readSlots = 4
	readWait  = 5 * time.Second

	// streamRate is the slowest a client may read a streamed answer, in
	// bytes a second of the uncompressed answer, after streamGrace: a
	// slower client loses its answer rather than hold a slot.
	streamRate  = 256 << 10
	streamGrace = 10 * time.Second
)

// takeRead takes a heavy read's slot for r, or answers the 503 and
// reports false: as an error page when page is set (the lab page), else in
// the API's JSON; nothing when the client left.
func (s *Server) takeRead(w http.ResponseWriter, r *http.Request, page bool) (release func(), ok bool) {
	release, err := s.reads.Take(r.Context())
	switch {
	case err == nil:
		return release, true
	case r.Context().Err() != nil:
		// The client left: nobody to answer.
	case page:
		e := answer(err)
		jsonapi.SetRetryAfter(w, e.RetryAfter)
		// No links back: the page to try again is the one asked for.
		writeErrorPage(w, r, templates.ErrorView{Status: e.Status, Title: "The lab is busy", Message: e.Msg + ".", Links: []templates.ErrorLink{}})
	default:
		jsonapi.WriteError(w, err)
	}
	return nil, false
}

// streamDeadline gives w's answer of size bytes the time a client reading
// at streamRate needs, and streamGrace more.
func streamDeadline(w http.ResponseWriter, size int64) {
	d := streamGrace + time.Duration(size/streamRate)*time.Second
	http.NewResponseController(w).SetWriteDeadline(time.Now().Add(d))
}
