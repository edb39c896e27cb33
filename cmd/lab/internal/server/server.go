// Package server is the lab's HTTP server. New takes what the server is
// made of and returns it as an http.Handler; routes.go is its one route
// table, where every route, its method and its middleware are read top to
// bottom. The handlers live in files by feature: api.go (parameters,
// presets, exports, the API's errors), page.go and replay.go (the lab
// page), sessions.go and sessionpages.go, traces.go and tracepage.go,
// jobs.go, sweep.go and tune.go, compare.go and refs.go (the variant refs
// comparisons, sweeps and tunings take).
package server

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"runtime"
	"time"

	"interplab/cmd/lab/internal/compare"
	"interplab/cmd/lab/internal/jobs"
	"interplab/cmd/lab/internal/live"
	"interplab/cmd/lab/internal/static"
	"interplab/cmd/lab/internal/store"
	"interplab/presets"
	"interplab/web"
)

// Deps are what a Server is made of.
type Deps struct {
	// Presets are the presets the lab offers, in order.
	Presets []presets.Preset
	// Assets are laid out like package web's FS: the static files, and the
	// gzipped WebAssembly build at web.WASMFile (missing until make).
	Assets fs.FS
	// Store keeps the sessions and traces; the caller closes it after the
	// server.
	Store store.Store
	// Now is the clock of saves and of live packets' arrival; time.Now
	// when nil.
	Now func() time.Time
	// AllowOrigins are the origins, besides the server's own, whose pages
	// may change state ("https://tools.example.com").
	AllowOrigins []string
}

// Server is the lab's HTTP handler. Close stops its live sync and jobs.
type Server struct {
	presets []presets.Preset
	store   store.Store
	now     func() time.Time
	allow   []string

	static *static.Files // web's files under /static/
	vendor *static.Files // web's vendored files under web.VendorMount
	wasm   static.Wasm   // /lab.wasm

	uploads chan struct{} // a trace upload's parse slot (uploadSlots)

	hub     *live.Hub       // live sync of the sessions
	jobs    *jobs.Runner    // sweeps and tunings
	compare *compare.Runner // comparisons, and their run cache

	// resolveRef turns a comparison ref into a variant (refs.go).
	resolveRef func(ref string) (compare.Variant, error)

	mux     *http.ServeMux // the route table's
	handler http.Handler   // mux behind the middleware every request runs
}

// New returns the server made of d.
func New(d Deps) (*Server, error) {
	if d.Store == nil {
		return nil, errors.New("server: no store")
	}
	files, err := static.Load(d.Assets)
	if err != nil {
		return nil, err
	}
	wasm, err := static.LoadWasm(d.Assets, web.WASMFile)
	if err != nil {
		return nil, err
	}
	vendor, err := static.Load(web.Vendor)
	if err != nil {
		return nil, err
	}
	now := d.Now
	if now == nil {
		now = time.Now
	}
	s := &Server{presets: d.Presets, store: d.Store, now: now, allow: d.AllowOrigins,
		static: files, vendor: vendor, wasm: wasm, uploads: make(chan struct{}, uploadSlots),
		hub: live.New(d.Store, now), jobs: jobs.NewRunner(), compare: compare.NewRunner(runtime.GOMAXPROCS(0))}
	s.resolveRef = s.resolveCompareVariant
	s.mux = s.routes()
	s.handler = serveAll(s.mux)
	return s, nil
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.handler.ServeHTTP(w, r) }

// WasmBuilt reports whether the assets hold the WebAssembly build.
func (s *Server) WasmBuilt() bool { return s.wasm.Built() }

// Close cancels the running jobs and disconnects every live client (close
// code 1001), and returns once they have stopped.
func (s *Server) Close() {
	s.jobs.Close()
	s.hub.Close()
}

// Server timeouts: generous for a page on a LAN or localhost, bounded so a
// stuck client cannot hold a connection forever.
const (
	readHeaderTimeout = 10 * time.Second
	idleTimeout       = 2 * time.Minute
	shutdownTimeout   = 5 * time.Second
)

// Serve serves s on ln until ctx is done, then lets requests in flight
// finish (for at most shutdownTimeout).
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	hs := &http.Server{
		Handler:           s,
		ReadHeaderTimeout: readHeaderTimeout,
		IdleTimeout:       idleTimeout,
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
