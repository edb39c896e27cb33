package server

import (
	"io"
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
// within readWait is answered 503 with a Retry-After, and a client that
// holds readsPerClient of them already 429. A streamed answer's client
// must keep reading (streamWriter). Reads that need no packets (a trace's
// description, the lists) take no slot.
const (
	readSlots = 4
	readWait  = 5 * time.Second

	// readsPerClient is how many of the slots one client (Gate.Caller)
	// holds at most: however many heavy reads it sends, the others keep
	// the rest.
	readsPerClient = 2

	// streamRate is the slowest a client may read a streamed answer, in
	// bytes a second of the uncompressed answer, after streamGrace: a
	// slower client loses its answer rather than hold a slot.
	streamRate  = 256 << 10
	streamGrace = 10 * time.Second
	// streamStall is the longest one write of a streamed answer may wait
	// for the client to read: a client that stops reading loses its
	// answer, and its slot, that long after the network's buffers fill.
	streamStall = 5 * time.Second
)

// takeRead takes a heavy read's slot for r, or answers the 503 and
// reports false: as an error page when page is set (the lab page), else in
// the API's JSON; nothing when the client left.
func (s *Server) takeRead(w http.ResponseWriter, r *http.Request, page bool) (release func(), ok bool) {
	release, err := s.reads.TakeFor(r.Context(), s.gate.Caller(r))
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

// streamWriter is w for a streamed answer of size bytes: each write must
// finish within streamStall (a client that stops reading is cut off that
// long after the network's buffers fill, and its slot freed), and the
// whole answer within the time a client reading at streamRate needs, and
// streamGrace more.
func streamWriter(w http.ResponseWriter, size int64, now time.Time) io.Writer {
	return &stallWriter{w: w, rc: http.NewResponseController(w), end: now.Add(streamGrace + time.Duration(size/streamRate)*time.Second)}
}

// stallWriter sets the connection's write deadline before each write.
type stallWriter struct {
	w   io.Writer
	rc  *http.ResponseController
	end time.Time // the whole answer's deadline
}

func (s *stallWriter) Write(p []byte) (int, error) {
	d := time.Now().Add(streamStall)
	if s.end.Before(d) {
		d = s.end
	}
	s.rc.SetWriteDeadline(d)
	return s.w.Write(p)
}
