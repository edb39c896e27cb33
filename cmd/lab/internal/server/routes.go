package server

import (
	"net/http"

	"interplab/cmd/lab/internal/jsonapi"
	"interplab/cmd/lab/internal/traceio"
	"interplab/web"
)

// routes returns the lab's one route table. Every request runs Recover (a
// fault is a logged 500, and the server serves on) and nosniff; then each
// route runs the middleware named beside it, outermost first, and its
// handler.
//
// Reads are open. Every route that changes state (POST, PUT, DELETE) runs
// change: its answer is never cached, a browser may call it only from the
// lab's own pages (or an origin of Deps.AllowOrigins), and its body must
// be of the types it names (a request with no body and no type passes)
// and at most its cap (413 over it). A WebSocket upgrade checks the Origin
// before anything else.
func (s *Server) routes() *http.ServeMux {
	const typeJSON = "application/json"
	var (
		plain   []jsonapi.Middleware                          // the handler alone: files that carry their own validators, and streams
		gz      = []jsonapi.Middleware{jsonapi.Gzip}          // a page or an API answer, compressed for clients that accept gzip
		fresh   = []jsonapi.Middleware{noStore}               // an answer that changes under the same URL: never cached
		gzFresh = []jsonapi.Middleware{jsonapi.Gzip, noStore} // both
		upgrade = []jsonapi.Middleware{jsonapi.SameOrigin(s.allow)}
	)
	change := func(maxBody int64, types ...string) []jsonapi.Middleware {
		return []jsonapi.Middleware{noStore, jsonapi.SameOrigin(s.allow), jsonapi.RequireType(types...), jsonapi.MaxBody(maxBody)}
	}
	routes := []struct {
		pattern string
		chain   []jsonapi.Middleware
		handler http.HandlerFunc
	}{
		// The lab page and its files.
		{"GET /{$}", gz, s.labPage},
		{"GET /static/", plain, http.StripPrefix("/static/", s.static).ServeHTTP},
		{"GET " + web.VendorMount, plain, http.StripPrefix(web.VendorMount, s.vendor).ServeHTTP},
		{"GET /lab.wasm", plain, s.wasm.ServeHTTP},
		{"GET /favicon.ico", plain, favicon},

		// The parameter table, the presets and the exports (api.go).
		{"GET /api/params", gz, s.params},
		{"GET /api/presets", gz, s.presetList},
		{"GET /api/presets/{name}", gz, s.preset},
		{"GET /api/export", gz, s.exportFile},
		{"/api/", plain, s.apiNotFound}, // any other API path or method: a JSON 404 or 405

		// Saved sessions and their live sync (sessions.go, package live).
		{"POST /api/sessions", change(maxSessionBody, typeJSON), s.createSession},
		{"GET /api/sessions", fresh, s.listSessions},
		{"GET /api/sessions/{id}", fresh, s.getSession},
		{"GET /api/sessions/{id}/revisions/{rev}", fresh, s.sessionRevision},
		{"PUT /api/sessions/{id}", change(maxSessionBody, typeJSON), s.saveSession},
		{"DELETE /api/sessions/{id}", change(maxSessionBody, typeJSON), s.deleteSession},
		{"POST /api/sessions/{id}/restore", change(maxSessionBody, typeJSON), s.restoreSession},
		{"POST /api/sessions/{id}/trace", change(maxSmallBody, typeJSON), s.saveLiveTrace},
		{"GET /ws/sessions/{id}", upgrade, s.sessionWS},

		// The session pages (sessionpages.go).
		{"GET /sessions", gz, s.sessionsPage},
		{"GET /s/{id}", gz, s.sessionPage},
		{"GET /s/{id}/r/{rev}", gz, s.sessionPage},
		{"GET /s/{id}/history", gz, s.historyPage},
		{"GET /s/", gz, s.noSessionPage},

		// Recorded traces (traces.go, tracepage.go).
		{"POST /api/traces", change(maxTraceUpload, traceUploadTypes...), s.uploadTrace},
		{"GET /api/traces", gzFresh, s.listTraces},
		{"GET /api/traces/{name}", gzFresh, s.getTrace},
		{"GET /api/traces/{name}/flat", gz, s.traceFlat},
		{"DELETE /api/traces/{name}", change(maxSmallBody, typeJSON), s.deleteTrace},
		{"GET /traces", gz, s.tracesPage},

		// Comparisons (compare.go).
		{"GET /compare", plain, s.comparePage},
		{"GET /compare.csv", plain, s.compareCSV},

		// Sweeps and tunings, and the jobs that run them (sweep.go, tune.go,
		// jobs.go, package jobs).
		{"GET /sweep", gz, s.sweepPage},
		{"GET /sweep/{id}", gz, s.sweepPage},
		{"GET /sweep/{id}/chart", gzFresh, s.sweepChart},
		{"GET /sweep/{id}/data.csv", gz, s.sweepCSV},
		{"POST /api/sweeps", change(maxJobBody, typeJSON), s.startSweep},
		{"GET /tune", gz, s.tunePage},
		{"GET /tune/{id}", gz, s.tunePage},
		{"GET /tune/{id}/chart", gzFresh, s.tuneChart},
		{"GET /tune/{id}/data.csv", gz, s.tuneCSV},
		{"POST /api/tunes", change(maxJobBody, typeJSON), s.startTune},
		{"GET /api/jobs/{id}", plain, s.jobStatus},
		{"POST /api/jobs/{id}/cancel", change(maxSmallBody, typeJSON), s.cancelJob},
		{"GET /ws/jobs/{id}", upgrade, s.jobWS},
	}
	mux := http.NewServeMux()
	for _, rt := range routes {
		mux.Handle(rt.pattern, jsonapi.Chain(rt.handler, rt.chain...))
	}
	return mux
}

// serveAll is the middleware every request runs, around the route table.
func serveAll(mux http.Handler) http.Handler {
	return jsonapi.Chain(mux, jsonapi.Recover, nosniff)
}

// nosniff tells browsers to trust the Content-Type of every answer.
func nosniff(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Content-Type-Options", "nosniff")
		next.ServeHTTP(w, r)
	})
}

// noStore marks an answer as never to be cached: sessions, traces and job
// results change under the same URL, and so does what a change answers.
func noStore(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		next.ServeHTTP(w, r)
	})
}

// Body caps of the routes that change state, bytes.
const (
	maxSessionBody = 64 << 10                  // a session's notes of store.MaxNotesRunes four-byte characters, and its settings
	maxJobBody     = 64 << 10                  // a sweep's or a tuning's request
	maxSmallBody   = 4 << 10                   // a name, or nothing
	maxTraceUpload = traceio.MaxBytes + 64<<10 // a trace file and a multipart envelope
)
