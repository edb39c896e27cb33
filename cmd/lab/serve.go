package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"interplab/cmd/lab/internal/compare"
	"interplab/cmd/lab/internal/jobs"
	"interplab/cmd/lab/internal/jsonapi"
	"interplab/cmd/lab/internal/link"
	"interplab/cmd/lab/internal/live"
	"interplab/cmd/lab/internal/store"
	"interplab/engine"
	"interplab/presets"
	"interplab/templates"
	"interplab/web"
)

// Server timeouts: generous for a page on a LAN or localhost, bounded so a
// stuck client cannot hold a connection forever.
const (
	serveReadHeaderTimeout = 10 * time.Second
	serveIdleTimeout       = 2 * time.Minute
	serveShutdownTimeout   = 5 * time.Second
)

// runServe implements lab serve: it serves the lab page, its assets and the
// JSON API until SIGINT or SIGTERM, then shuts down gracefully.
func runServe(args []string, stdout, stderr io.Writer) int {
	fs := labFlags("serve", "Usage: lab serve [-addr :8080] [-data ./data]\n\nServes the lab page, the presets, exports, saved sessions, comparison\ncharts and live sync.\n\nFlags:\n", stderr)
	addr := fs.String("addr", ":8080", "listen on `address` (host:port)")
	data := fs.String("data", "./data", "keep saved sessions in `dir` (created on first run)")
	if code, ok := parseLabFlags(fs, args, 0, stderr); !ok {
		return code
	}
	list, err := presets.All()
	if err != nil {
		fmt.Fprintf(stderr, "lab serve: %v\n", err)
		return 1
	}
	srv, err := newServer(list, web.FS)
	if err != nil {
		fmt.Fprintf(stderr, "lab serve: %v\n", err)
		return 1
	}
	defer srv.jobs.Close() // cancels the running sweeps and tunings
	st, err := store.Open(*data, time.Now())
	if err != nil {
		fmt.Fprintf(stderr, "lab serve: %v\n", err)
		return 1
	}
	defer st.Close()
	hub := live.New(st, time.Now)
	defer hub.Close() // before the store closes: deferred calls run last first
	srv.enableSessions(st, hub, time.Now)
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintf(stderr, "lab serve: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "lab: serving on http://%s/\n", ln.Addr())
	if !srv.wasm.built() {
		fmt.Fprintf(stderr, "lab serve: warning: %s\n", wasmNotBuilt)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := serveUntil(ctx, ln, srv); err != nil {
		fmt.Fprintf(stderr, "lab serve: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "lab: stopped\n")
	return 0
}

// serveUntil serves h on ln until ctx is done, then lets requests in
// flight finish (for at most serveShutdownTimeout).
func serveUntil(ctx context.Context, ln net.Listener, h http.Handler) error {
	hs := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: serveReadHeaderTimeout,
		IdleTimeout:       serveIdleTimeout,
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), serveShutdownTimeout)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// server is the lab's HTTP handler.
type server struct {
	presets []presets.Preset
	static  *assetSet     // web's files under /static/
	wasm    wasmAsset     // /lab.wasm
	store   *store.SQLite // saved sessions; nil until enableSessions
	jobs    *jobs.Runner  // sweeps and tunings (sweeppage.go)
	compare *compare.Runner
	mux     *http.ServeMux
}

// newServer returns the handler for the given presets and assets (an fs.FS
// laid out like package web's: static files, and the gzipped wasm build at
// web.WASMFile).
func newServer(list []presets.Preset, assets fs.FS) (*server, error) {
	static, err := loadAssets(assets)
	if err != nil {
		return nil, err
	}
	wasm, err := loadWasm(assets, web.WASMFile)
	if err != nil {
		return nil, err
	}
	vendor, err := loadAssets(web.Vendor)
	if err != nil {
		return nil, err
	}
	s := &server{presets: list, static: static, wasm: wasm, mux: http.NewServeMux()}
	s.mux.Handle("GET /{$}", gzipResponses(http.HandlerFunc(s.handlePage)))
	s.mux.Handle("GET /api/params", gzipResponses(http.HandlerFunc(s.handleParams)))
	s.mux.Handle("GET /api/presets", gzipResponses(http.HandlerFunc(s.handlePresets)))
	s.mux.Handle("GET /api/presets/{name}", gzipResponses(http.HandlerFunc(s.handlePreset)))
	s.mux.Handle("GET /api/export", gzipResponses(http.HandlerFunc(s.handleExport)))
	s.mux.HandleFunc("/api/", s.handleAPINotFound)
	s.mux.Handle("GET /static/", http.StripPrefix("/static/", s.static))
	s.mux.Handle("GET "+web.VendorMount, http.StripPrefix(web.VendorMount, vendor))
	s.mux.Handle("GET /lab.wasm", s.wasm)
	// Browsers ask for an icon on every page; no content, rather than a
	// 404 in every console.
	s.mux.HandleFunc("GET /favicon.ico", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Cache-Control", "max-age=86400")
		w.WriteHeader(http.StatusNoContent)
	})
	s.compare = compare.NewRunner(runtime.GOMAXPROCS(0))
	registerCompareVariants(s.mux, s.compare, s.resolveCompareVariant)
	s.jobs = registerJobs(s)
	registerTracePage(s)
	return s, nil
}

// enableSessions adds saved sessions, their pages and live sync over
// WebSocket, kept in st.
func (s *server) enableSessions(st *store.SQLite, hub *live.Hub, now func() time.Time) {
	s.store = st
	registerSessions(s.mux, st, hub, now)
	registerSessionPages(s, st, hub, now)
	registerTraces(s.mux, st, hub, now)
}

// resolveVariant turns a comparison ref into a label and settings:
// preset:NAME, session:ID, session:ID@REV, or q:QUERY (a share link's query).
func (s *server) resolveVariant(ref string) (string, engine.Settings, error) {
	kind, arg, _ := strings.Cut(ref, ":")
	switch kind {
	case "preset":
		for _, p := range s.presets {
			if p.Name == arg {
				return p.Title, p.Settings, nil
			}
		}
		return "", engine.Settings{}, fmt.Errorf("no preset %q", arg)
	case "q":
		q, err := url.ParseQuery(arg)
		if err != nil {
			return "", engine.Settings{}, fmt.Errorf("bad query: %w", err)
		}
		preset, st, errs := link.Parse(q)
		if len(errs) > 0 {
			return "", engine.Settings{}, errs[0]
		}
		label := "settings"
		if preset != "" {
			label = preset + " + changes"
		}
		return label, st, nil
	case "session":
		if s.store == nil {
			return "", engine.Settings{}, errors.New("sessions are not enabled on this server")
		}
		id, revText, hasRev := strings.Cut(arg, "@")
		var r store.Revision
		var err error
		if hasRev {
			rev, perr := strconv.Atoi(revText)
			if perr != nil || rev < 1 {
				return "", engine.Settings{}, fmt.Errorf("bad revision %q", revText)
			}
			r, err = s.store.Revision(id, rev)
		} else {
			r, err = s.store.Latest(id)
		}
		if err != nil {
			return "", engine.Settings{}, err
		}
		return fmt.Sprintf("%s (rev %d)", r.Name, r.Rev), r.Settings, nil
	}
	return "", engine.Settings{}, fmt.Errorf("unknown variant %q: want preset:NAME, session:ID[@REV] or q:QUERY", ref)
}

func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("X-Content-Type-Options", "nosniff")
	jsonapi.Recover(s.mux).ServeHTTP(w, r)
}

// handleAPINotFound answers API requests no route takes, in JSON: 405 when
// the path exists for GET, 404 otherwise.
func (s *server) handleAPINotFound(w http.ResponseWriter, r *http.Request) {
	get := r.Clone(r.Context())
	get.Method = http.MethodGet
	if _, pattern := s.mux.Handler(get); pattern != "/api/" {
		w.Header().Set("Allow", "GET, HEAD")
		jsonapi.WriteError(w, &jsonapi.Error{Status: http.StatusMethodNotAllowed, Msg: r.Method + " not allowed: use GET"})
		return
	}
	jsonapi.WriteError(w, &jsonapi.Error{Status: http.StatusNotFound, Msg: "no such API: " + r.URL.Path})
}

// handlePage renders the lab page for the state in the URL's query.
func (s *server) handlePage(w http.ResponseWriter, r *http.Request) {
	var buf bytes.Buffer
	if err := templates.Page(s.pageView(r)).Render(r.Context(), &buf); err != nil {
		http.Error(w, "render page: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	w.Write(buf.Bytes())
}

// pageView builds the page's view model from a share link: the restored
// settings, every problem with the link (never dropped silently), and the
// link of the state actually shown.
func (s *server) pageView(r *http.Request) templates.PageView {
	var errs []string
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		// ParseQuery keeps the pairs it could read; report the rest.
		errs = append(errs, "malformed link: "+err.Error())
	}
	trace, replaying, terr := replayTraceKey(q)
	if terr != nil {
		errs = append(errs, terr.Error())
	}
	preset, settings, ferrs := link.Parse(q)
	for _, e := range ferrs {
		errs = append(errs, e.Error())
	}
	v := templates.PageView{
		Params:   engine.Params(),
		Settings: settings,
		Preset:   preset,
		Errors:   errs,
		Query:    link.Query(preset, settings),
	}
	if replaying {
		s.replayPage(&v, trace, q)
		v.Query = link.Query(preset, v.Settings)
	}
	for _, p := range s.presets {
		v.Presets = append(v.Presets, templates.PresetView{
			Name: p.Name, Title: p.Title, Doc: p.Doc, Query: link.Query("", p.Settings),
		})
	}
	return v
}
