// Package server is the lab's HTTP server. New takes what the server is
// made of and returns it as an http.Handler; routes.go is its one route
// table, where every route, its method and its middleware are read top to
// bottom. The handlers live in files by feature: api.go (parameters,
// presets, exports, the API's errors), page.go and replay.go (the lab
// page), sessions.go and sessionpages.go, traces.go and tracepage.go,
// compare.go. The studies (sweeps, tunings, population runs) are package
// studies'; who may use the lab, and the headers every answer carries,
// package access's.
package server

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log"
	"net"
	"net/http"
	"net/netip"
	"runtime"
	"time"

	"interplab/cmd/lab/internal/access"
	"interplab/cmd/lab/internal/capture"
	"interplab/cmd/lab/internal/compare"
	"interplab/cmd/lab/internal/jobs"
	"interplab/cmd/lab/internal/jsonapi"
	"interplab/cmd/lab/internal/live"
	"interplab/cmd/lab/internal/static"
	"interplab/cmd/lab/internal/store"
	"interplab/cmd/lab/internal/studies"
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
	// Addr is the address the lab listens on (lab serve -addr), which
	// decides the host names it answers to (access.Hosts): on loopback,
	// or "", loopback's only.
	Addr string
	// AllowHosts are more host names the lab answers to, as
	// access.ParseHosts returns them (lab serve -allow-host).
	AllowHosts []string
	// Token, if not "", is the access token every request but the login
	// page's must carry (package access); at least access.MinTokenLen
	// characters.
	Token string
	// Limits are the HTTP server's timeouts and connection limit; the
	// zero value means DefaultLimits.
	Limits Limits
	// JobSlots is how many sweeps, tunings and population runs run at
	// once (lab serve -jobs), in [jobs.MinSlots, jobs.MaxSlots]; 0 means
	// jobs.DefaultSlots.
	JobSlots int

	// Capture are the limits of the captures games stream
	// (capture.Options; the zero value: the defaults).
	Capture capture.Options

	// Spool holds trace uploads while they arrive; DirSpool("") (the
	// system's temporary directory) when nil.
	Spool Spool

	// Bus shares the sessions' live state with the other labs on the
	// same database (live.PGBus); nil: the live state is this lab's, in
	// memory.
	Bus live.Bus
	// Queue runs the studies on workers (jobs.Queue); nil: in this
	// process, in JobSlots slots.
	Queue *jobs.Queue
	// TrustProxy are the addresses of the reverse proxies whose
	// X-Forwarded-For names the client (lab serve -trust-proxy): the
	// per-client limits then count the clients behind them.
	TrustProxy []netip.Prefix
}

// Limits bound what one client can hold of the server: time to send a
// request's header and body, to take its answer, to sit idle, header bytes,
// open HTTP connections (everyone's), and open WebSockets (each client's:
// an upgraded connection leaves MaxConns for SocketsPerClient).
type Limits struct {
	ReadHeader, Read, Write, Idle time.Duration
	MaxHeaderBytes                int
	MaxConns                      int
	SocketsPerClient              int
}

// DefaultLimits are generous for people on a LAN and games on a WAN, and
// bounded so that slow or stuck clients cannot hold the server's
// connections or memory: a 32 MiB trace upload at 1 MB/s takes 33 s, a
// comparison of 8 long variants about a minute, and WebSockets (hijacked)
// keep their own deadlines. 1,024 connections is 500 viewers and their
// games with room to spare, well under the process's file limit; a
// client's WebSockets are its tabs and games (access.MaxSocketsPerClient).
var DefaultLimits = Limits{
	ReadHeader:       10 * time.Second,
	Read:             2 * time.Minute,
	Write:            5 * time.Minute,
	Idle:             2 * time.Minute,
	MaxHeaderBytes:   64 << 10,
	MaxConns:         1024,
	SocketsPerClient: access.MaxSocketsPerClient,
}

// Server is the lab's HTTP handler. Close stops its live sync and jobs.
type Server struct {
	presets []presets.Preset
	store   store.Store
	now     func() time.Time
	hosts   *access.Hosts   // the names it answers to
	origins *access.Origins // the pages that may change state
	sockets *access.Sockets // each client's open WebSockets
	gate    *access.Gate
	limits  Limits

	static *static.Files // web's files under /static/
	vendor *static.Files // web's vendored files under web.VendorMount
	wasm   static.Wasm   // /lab.wasm

	spool   Spool          // where uploads wait to be parsed
	uploads chan struct{}  // a trace upload's parse slot (uploadSlots)
	reads   *jsonapi.Slots // a heavy read's slot (reads.go)

	hub      *live.Hub        // live sync of the sessions
	captures *capture.Manager // the captures games stream
	jobs     *jobs.Runner     // sweeps, tunings and population runs
	studies  *studies.Pages   // their pages and the job API
	compare  *compare.Runner  // comparisons, and their run cache

	// refs resolves variant refs (package compare); resolveRef is
	// refs.Variant, or another resolver in tests.
	refs       *compare.Resolver
	resolveRef func(ref string) (compare.Variant, error)

	trustProxy []netip.Prefix // reverse proxies whose X-Forwarded-For names the client

	mux      *http.ServeMux // the route table's
	patterns []string       // and its patterns, in order
	handler  http.Handler   // mux behind the middleware every request runs
}

// New returns the server made of d.
func New(d Deps) (*Server, error) {
	if d.Store == nil {
		return nil, errors.New("server: no store")
	}
	if d.Token != "" && len(d.Token) < access.MinTokenLen {
		return nil, fmt.Errorf("server: the access token is %d characters: use at least %d", len(d.Token), access.MinTokenLen)
	}
	limits := d.Limits
	if limits == (Limits{}) {
		limits = DefaultLimits
	}
	files, err := static.Load(d.Assets)
	if err != nil {
		return nil, err
	}
	if err := bundleLab(files, d.Assets); err != nil {
		return nil, fmt.Errorf("server: %w", err)
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
	hosts, err := access.NewHosts(d.Addr, d.AllowHosts)
	if err != nil {
		return nil, fmt.Errorf("server: %w", err)
	}
	gate, err := access.New(d.Token, d.Store, now)
	if err != nil {
		return nil, err
	}
	slots := d.JobSlots
	if slots == 0 {
		slots = jobs.DefaultSlots
	}
	var runner *jobs.Runner
	if d.Queue != nil {
		runner = jobs.NewQueuedRunner(d.Queue)
	} else if runner, err = jobs.NewArchivedRunner(slots, d.Store, studies.DecodeJob); err != nil {
		return nil, fmt.Errorf("server: %w", err)
	}
	spool := d.Spool
	if spool == nil {
		spool = DirSpool("")
	}
	s := &Server{presets: d.Presets, spool: spool, store: d.Store, now: now, hosts: hosts, origins: access.NewOrigins(hosts, d.AllowOrigins),
		sockets: access.NewSockets(limits.SocketsPerClient), gate: gate, limits: limits,
		static: files, vendor: vendor, wasm: wasm, uploads: make(chan struct{}, uploadSlots), reads: jsonapi.NewSharedSlots(readSlots, readsPerClient, readWait),
		hub: live.NewShared(d.Store, now, d.Bus), jobs: runner, compare: compare.NewRunner(runtime.GOMAXPROCS(0)),
		trustProxy: d.TrustProxy}
	// No job of an earlier process runs any more (the data directory's
	// lock makes this server its only user). On the queue, jobs run on
	// the workers and outlive any lab.
	if d.Queue == nil {
		if n, err := d.Store.InterruptJobs(now()); err != nil {
			return nil, err
		} else if n > 0 {
			log.Printf("lab: %d sweeps or tunings were running when the lab last stopped: marked interrupted", n)
		}
	}
	if s.captures, err = capture.New(d.Store, now, d.Capture); err != nil {
		s.hub.Close()
		s.jobs.Close()
		return nil, fmt.Errorf("server: %w", err)
	}
	s.refs = &compare.Resolver{Presets: d.Presets, Store: d.Store}
	s.resolveRef = s.refs.Variant
	s.studies = &studies.Pages{Jobs: s.jobs, Settings: s.refs.Settings, Now: now, Fail: fail, Client: gate.Caller}
	s.mux = s.routes()
	s.handler = s.serveAll(s.mux)
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
	s.captures.Close()
}

// shutdownTimeout is how long Serve lets requests in flight finish.
const shutdownTimeout = 5 * time.Second

// Serve serves s on ln until ctx is done, then lets requests in flight
// finish (for at most shutdownTimeout). It keeps s's limits: at most
// MaxConns HTTP connections at once (more wait to be accepted; an upgraded
// one is a WebSocket and no longer counts), and the timeouts.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	l := s.limits
	hs := &http.Server{
		Handler:           s,
		ReadHeaderTimeout: l.ReadHeader,
		ReadTimeout:       l.Read,
		WriteTimeout:      l.Write,
		IdleTimeout:       l.Idle,
		MaxHeaderBytes:    l.MaxHeaderBytes,
	}
	ln, hs.ConnState = access.LimitListener(ln, l.MaxConns, access.MaxConnsPerClient, s.trusted)
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

// bundleLab adds the lab page's bundles (web.LabBundle and its source map,
// web.LabStyle) to files, built from assets now, so that they are never
// stale and need no build step. Assets without web.LabModule (a test's
// few files) get none.
func bundleLab(files *static.Files, assets fs.FS) error {
	if _, err := fs.Stat(assets, web.LabModule); err != nil {
		return nil
	}
	js, sourceMap, err := static.BundleModule(assets, web.LabModule, web.LabBundle)
	if err != nil {
		return err
	}
	files.Add(web.LabBundle, js)
	files.Add(web.LabBundle+".map", sourceMap)
	css, err := static.ConcatStyles(assets, web.LabStyles)
	if err != nil {
		return err
	}
	files.Add(web.LabStyle, css)
	return nil
}
