package server

import (
	"interplab/cmd/lab/internal/access"
	"net/http"
	"slices"

	"interplab/cmd/lab/internal/jsonapi"
	"interplab/cmd/lab/internal/obs"
	"interplab/cmd/lab/internal/traceio"
	"interplab/web"
)

// routes returns the lab's one route table. Every request runs Recover (a
// fault is a logged 500, and the server serves on), the security headers
// and the Host check (a 421 for a name that is not the lab's); then, when the lab has an access token, every route not marked
// open asks for it; then each route runs the middleware named beside it,
// outermost first, and its handler.
//
// Reads are open. Every route that changes state (POST, PUT, DELETE) runs
// change: its answer is never cached, a browser may call it only from the
// lab's own pages (the exact scheme, host and port the lab is reached on,
// or a proxy's name of Deps.AllowHosts: access.Origins) or an origin of
// Deps.AllowOrigins, and its body must
// be of the types it names (a request with no body and no type passes)
// and at most its cap (413 over it). A WebSocket upgrade checks the Origin
// before anything else, then its client's count of WebSockets (a 429 at
// Limits.SocketsPerClient). A page route answers its errors as an HTML page
// (pageErrors), the API as JSON.
func (s *Server) routes() *http.ServeMux {
	const typeJSON = "application/json"
	var (
		plain   []jsonapi.Middleware                          // the handler alone: files that carry their own validators, and streams
		gz      = []jsonapi.Middleware{jsonapi.Gzip}          // a page or an API answer, compressed for clients that accept gzip
		fresh   = []jsonapi.Middleware{noStore}               // an answer that changes under the same URL: never cached
		gzFresh = []jsonapi.Middleware{jsonapi.Gzip, noStore} // both
		upgrade = []jsonapi.Middleware{s.origins.SameOrigin, s.sockets.Limit}
	)
	change := func(maxBody int64, types ...string) []jsonapi.Middleware {
		return []jsonapi.Middleware{noStore, s.origins.SameOrigin, jsonapi.RequireType(types...), jsonapi.MaxBody(maxBody)}
	}
	// The second column says who may use a route when the lab has an
	// access token: anyone (open: the login page and the static files),
	// or only those who carry the token (token: s.gate.Require runs
	// first, see package access).
	const open, token = true, false
	routes := []struct {
		pattern string
		open    bool
		chain   []jsonapi.Middleware
		handler http.HandlerFunc
	}{
		// Operating it (ops.go): health and readiness for a proxy or an
		// orchestrator, open; the metrics, a read like the others.
		{"GET /healthz", open, fresh, s.healthz},
		{"GET /readyz", open, fresh, s.readyz},
		{"GET /metrics", token, fresh, obs.Handler().ServeHTTP},

		// Signing in, when the lab has an access token (package access).
		{"GET /login", open, gz, s.gate.LoginPage},
		{"POST /login", open, change(maxSmallBody, "application/x-www-form-urlencoded"), s.gate.Login},
		{"POST /logout", open, change(maxSmallBody, "application/x-www-form-urlencoded"), s.gate.Logout},

		// The lab page and its files.
		{"GET /{$}", token, gz, s.labPage},
		{"GET /static/", open, plain, http.StripPrefix("/static/", s.static).ServeHTTP},
		{"GET " + web.VendorMount, open, plain, http.StripPrefix(web.VendorMount, s.vendor).ServeHTTP},
		{"GET /lab.wasm", open, plain, s.wasm.ServeHTTP},
		{"GET /favicon.ico", open, plain, favicon},

		// The parameter table, the presets (custom ones saved and deleted) and
		// the exports (api.go).
		{"GET /api/params", token, gz, s.params},
		{"GET /api/presets", token, gz, s.presetList},
		{"GET /api/presets/{name}", token, gz, s.preset}, // {name}.json: the preset file
		{"POST /api/presets", token, change(maxSessionBody, typeJSON), s.savePreset},
		{"DELETE /api/presets/{name}", token, change(maxSmallBody, typeJSON), s.deletePreset},
		{"GET /api/export", token, gz, s.exportFile},
		{"/api/", token, plain, s.notFound}, // any other API path or method: a JSON 404 or 405 (errorpage.go)

		// Saved sessions and their live sync (sessions.go, package live).
		{"POST /api/sessions", token, change(maxSessionBody, typeJSON), s.createSession},
		{"GET /api/sessions", token, fresh, s.listSessions},
		{"GET /api/sessions/{id}", token, fresh, s.getSession},
		{"GET /api/sessions/{id}/revisions/{rev}", token, fresh, s.sessionRevision},
		{"PUT /api/sessions/{id}", token, change(maxSessionBody, typeJSON), s.saveSession},
		{"DELETE /api/sessions/{id}", token, change(maxSmallBody, typeJSON), s.deleteSession},
		{"POST /api/sessions/{id}/restore", token, change(maxSmallBody, typeJSON), s.restoreSession},
		{"POST /api/sessions/{id}/trace", token, change(maxSmallBody, typeJSON), s.saveLiveTrace},
		{"GET /ws/sessions/{id}", token, upgrade, s.sessionWS},
		// Captures games stream (captures.go, docs/capture-protocol.md).
		{"GET /ws/sessions/{id}/capture", token, upgrade, s.captureWS},
		{"GET /api/sessions/{id}/clients", token, fresh, s.sessionClients},
		{"POST /api/sessions/{id}/captures/{capture}/stop", token, change(maxSmallBody, typeJSON), s.stopCapture},

		// The session pages (sessionpages.go).
		{"GET /sessions", token, gz, s.sessionsPage},
		{"GET /s/{id}", token, gz, s.sessionPage},
		{"GET /s/{id}/r/{rev}", token, gz, s.sessionPage},
		{"GET /s/{id}/history", token, gz, s.historyPage},
		{"GET /s/", token, gz, s.noSessionPage},

		// Recorded traces (traces.go, tracepage.go).
		{"POST /api/traces", token, change(maxTraceUpload, traceUploadTypes...), s.uploadTrace},
		{"GET /api/traces", token, gzFresh, s.listTraces},
		{"GET /api/traces/{name}", token, gzFresh, s.getTrace},
		{"GET /api/traces/{name}/flat", token, gz, s.traceFlat},
		{"DELETE /api/traces/{name}", token, change(maxSmallBody, typeJSON), s.deleteTrace},
		{"GET /traces", token, gz, s.tracesPage},
		{"GET /traces/template.csv", token, gz, s.traceTemplate},
		{"GET /traces/{name}/fit", token, gz, s.traceFitPage}, // fitpage.go

		// Comparisons (compare.go).
		{"GET /compare", token, plain, s.comparePage},
		{"GET /compare.csv", token, plain, s.compareCSV},

		// Sweeps, tunings and population runs, and the jobs that run them
		// (package studies, package jobs).
		{"GET /sweep", token, gz, s.studies.SweepPage},
		{"GET /sweep/{id}", token, gz, s.studies.SweepPage},
		{"GET /sweep/{id}/chart", token, gzFresh, s.studies.SweepChart},
		{"GET /sweep/{id}/data.csv", token, gz, s.studies.SweepCSV},
		{"POST /api/sweeps", token, change(maxJobBody, typeJSON), s.studies.StartSweep},
		{"GET /tune", token, gz, s.studies.TunePage},
		{"GET /tune/{id}", token, gz, s.studies.TunePage},
		{"GET /tune/{id}/chart", token, gzFresh, s.studies.TuneChart},
		{"GET /tune/{id}/data.csv", token, gz, s.studies.TuneCSV},
		{"POST /api/tunes", token, change(maxJobBody, typeJSON), s.studies.StartTune},
		{"GET /population", token, gz, s.studies.PopulationPage},
		{"GET /population/{id}", token, gz, s.studies.PopulationPage},
		{"GET /population/{id}/data.csv", token, gz, s.studies.PopulationCSV},
		{"POST /api/populations", token, change(maxJobBody, typeJSON), s.studies.StartPopulation},
		{"GET /api/jobs/{id}", token, plain, s.studies.JobStatus},
		{"POST /api/jobs/{id}/cancel", token, change(maxSmallBody, typeJSON), s.studies.CancelJob},
		{"GET /ws/jobs/{id}", token, upgrade, s.studies.JobWS},

		// Any other path or method: an HTML 404 or 405 page (errorpage.go).
		{"/", token, plain, s.notFound},
	}
	s.patterns = s.patterns[:0]
	mux := http.NewServeMux()
	for _, rt := range routes {
		s.patterns = append(s.patterns, rt.pattern)
		chain := rt.chain
		if pageRoute(rt.pattern) {
			chain = append(slices.Clip(chain), pageErrors) // innermost: it reads the handler's own answer
		}
		if !rt.open {
			chain = append([]jsonapi.Middleware{s.gate.Require}, chain...)
		}
		mux.Handle(rt.pattern, obs.Route(rt.pattern, jsonapi.Chain(rt.handler, chain...)))
	}
	return mux
}

// serveAll is the middleware every request runs, around the route table:
// the client's address from a trusted proxy's X-Forwarded-For (ops.go),
// Recover, the security headers, the Host check, which refuses a name that
// is not the lab's before any route sees the request, and, without a
// token, a cookie for each browser that the jobs count callers by
// (package access).
func (s *Server) serveAll(mux http.Handler) http.Handler {
	return jsonapi.Chain(mux, s.forwarded, jsonapi.Recover, access.Headers, s.hosts.Check, s.gate.Browsers)
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
	maxSessionBody = 256 << 10                 // a session's notes of store.MaxNotesRunes characters (40 KiB of four-byte ones), its settings, and room to tell notes over the cap from a body too big
	maxJobBody     = 64 << 10                  // a sweep's, a tuning's or a population run's request
	maxSmallBody   = 4 << 10                   // a name, or nothing
	maxTraceUpload = traceio.MaxBytes + 64<<10 // a trace file and a multipart envelope
)

// routePatterns returns the route table's patterns, in order.
func (s *Server) routePatterns() []string { return s.patterns }
