// Package obs is how the lab is operated: its Prometheus metrics (served
// at /metrics by the server) and its structured logs (log/slog). The
// packages that do the work record into the metrics here; nothing here
// knows what they do.
package obs

import (
	"bufio"
	"errors"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Registry holds the lab's metrics, the Go runtime's and the process's.
var Registry = prometheus.NewRegistry()

// The lab's metrics.
var (
	// Requests counts the answered requests by route pattern (the route
	// table's, never the raw path: bounded labels) and status.
	Requests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "lab_http_requests_total", Help: "HTTP requests answered, by route pattern and status.",
	}, []string{"route", "status"})
	// RequestSeconds is how long the answers took, by route pattern.
	RequestSeconds = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "lab_http_request_seconds", Help: "Time to answer an HTTP request, by route pattern (WebSockets: until the upgrade).",
		Buckets: prometheus.ExponentialBuckets(0.001, 4, 9),
	}, []string{"route"})
	// Viewers is the live-sync WebSockets open on this lab.
	Viewers = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "lab_live_viewers", Help: "Live-sync WebSocket clients connected to this lab.",
	})
	// JobSeconds is how long finished studies ran, by kind.
	JobSeconds = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "lab_job_seconds", Help: "Run time of studies that finished, by kind (sweep, tune, population); on the queue from the study's start to its end, waits included.",
		Buckets: prometheus.ExponentialBuckets(0.5, 2, 12),
	}, []string{"kind"})
	// UnitSeconds is how long a worker took to run studies' units of
	// work, by the study's kind.
	UnitSeconds = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "lab_unit_seconds", Help: "Run time of the units of work of studies (entity chunks, grid points, tuning candidates) on a worker, by the study's kind.",
		Buckets: prometheus.ExponentialBuckets(0.01, 2, 16),
	}, []string{"kind"})
	// StoreSeconds is the store's query latency, by operation.
	StoreSeconds = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "lab_store_seconds", Help: "Latency of the store's database statements, by operation (exec, query, begin, commit).",
		Buckets: prometheus.ExponentialBuckets(0.0001, 4, 9),
	}, []string{"op"})
)

func init() {
	Registry.MustRegister(Requests, RequestSeconds, Viewers, JobSeconds, UnitSeconds, StoreSeconds,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
}

// QueueDepth registers a gauge of the work waiting on the queue (new
// studies' plans and studies' units), read by depth at each scrape (a lab
// or worker on PostgreSQL).
func QueueDepth(depth func() float64) {
	g := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "lab_queue_depth", Help: "Units of studies (and new studies to plan) on the queue that no worker runs yet.",
	}, depth)
	if err := Registry.Register(g); err != nil && !errors.As(err, new(prometheus.AlreadyRegisteredError)) {
		slog.Error("register the queue depth", "err", err)
	}
}

// Handler serves the metrics in Prometheus's text format.
func Handler() http.Handler {
	return promhttp.HandlerFor(Registry, promhttp.HandlerOpts{ErrorLog: log.Default()})
}

// ServeMetrics serves the metrics alone at http://addr/metrics (lab worker
// -metrics), with no token, until close.
func ServeMetrics(addr string) (bound string, close func(), err error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", Handler())
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	return ln.Addr().String(), func() { srv.Close() }, nil
}

// Observe returns a function that, called at the end of an operation,
// records its duration in h.
func Observe(h prometheus.Observer) func() {
	start := time.Now()
	return func() { h.Observe(time.Since(start).Seconds()) }
}

// Route wraps the handler of route pattern with its request metrics.
func Route(pattern string, next http.Handler) http.Handler {
	secs := RequestSeconds.WithLabelValues(pattern)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sw := &statusWriter{ResponseWriter: w}
		start := time.Now()
		next.ServeHTTP(sw, r)
		secs.Observe(time.Since(start).Seconds())
		status := sw.status
		if status == 0 {
			status = http.StatusOK
		}
		Requests.WithLabelValues(pattern, strconv.Itoa(status)).Inc()
	})
}

// statusWriter notes the status of an answer. It passes on what the
// handlers ask of their writer: Flush, Hijack (WebSockets: 101) and, for
// http.ResponseController, Unwrap.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w *statusWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	h, ok := w.ResponseWriter.(http.Hijacker)
	if !ok {
		return nil, nil, errors.New("obs: the response writer cannot be hijacked")
	}
	c, rw, err := h.Hijack()
	if err == nil && w.status == 0 {
		w.status = http.StatusSwitchingProtocols
	}
	return c, rw, err
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// Logger returns the lab's logger writing to w: text lines (key=value),
// or JSON lines when format is "json", at level (debug, info, warn,
// error). It also becomes slog's and the log package's default, so every
// package's messages are structured lines.
func Logger(w io.Writer, format, level string) (*slog.Logger, error) {
	var lv slog.Level
	if err := lv.UnmarshalText([]byte(level)); err != nil {
		return nil, errors.New("-log-level = " + strconv.Quote(level) + " is not allowed: want debug, info, warn or error")
	}
	opts := &slog.HandlerOptions{Level: lv}
	var h slog.Handler
	switch strings.ToLower(format) {
	case "text", "":
		h = slog.NewTextHandler(w, opts)
	case "json":
		h = slog.NewJSONHandler(w, opts)
	default:
		return nil, errors.New("-log-format = " + strconv.Quote(format) + " is not allowed: want text or json")
	}
	l := slog.New(h)
	slog.SetDefault(l)
	return l, nil
}

// Stderr is where the lab's commands log: standard error.
var Stderr io.Writer = os.Stderr
