package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"interplab/cmd/lab/internal/cli"
	"interplab/cmd/lab/internal/jobs"
	"interplab/cmd/lab/internal/obs"
	"interplab/cmd/lab/internal/store"
	"interplab/cmd/lab/internal/studies"
)

const workerUsage = `Usage: lab worker -db postgres://… [-jobs 1]

Works the studies (sweeps, tunings, population runs) the labs serving the
PostgreSQL database -db (or LAB_DB) put on their queue, in units of work:
a population's chunks of entities, a sweep's runs of grid points, a
tuning's candidates. -jobs units at once, each on every core of this
machine. Run as many workers, on as many machines, as the studies need:
a study's units spread over all of them. A worker stopped (Ctrl-C,
SIGTERM) or killed hands back the units it runs; another worker runs them
again, the units already done are kept, and the result is the same.

Flags:
`

// runWorker implements lab worker.
func runWorker(args []string, stdout, stderr io.Writer) int {
	c := cli.New("worker", workerUsage, stdout, stderr)
	db := c.Flags.String("db", "", "work the queue of the PostgreSQL database at `url` (default $LAB_DB)")
	slots := 1
	c.Flags.Func("jobs", fmt.Sprintf("run at most `n` units of studies at once, in [%d, %d] (default 1: a unit uses every core)", jobs.MinSlots, jobs.MaxSlots), func(arg string) error {
		n, err := strconv.Atoi(arg)
		if err != nil {
			return fmt.Errorf("%q is not a number: want how many units run at once, in [%d, %d]", arg, jobs.MinSlots, jobs.MaxSlots)
		}
		slots = n
		return jobs.CheckSlots(n)
	})
	metrics := c.Flags.String("metrics", "", "serve Prometheus metrics (study durations, the queue's depth) at http://`addr`/metrics, e.g. 127.0.0.1:9101; no token: keep it on loopback or a private network")
	logFormat := c.Flags.String("log-format", "text", "log lines as `format`: text (key=value) or json")
	logLevel := c.Flags.String("log-level", "info", "log from `level` up: debug, info, warn or error")
	if code, ok := c.Parse(args, 0); !ok {
		return code
	}
	logger, err := obs.Logger(stderr, *logFormat, *logLevel)
	if err != nil {
		return c.Bad(err)
	}
	if *db == "" {
		*db = os.Getenv("LAB_DB")
	}
	if !store.IsPostgres(*db) {
		return c.Bad(fmt.Errorf("-db %q is not allowed: want the labs' PostgreSQL database, postgres://user@host:5432/db", store.Redact(*db)))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	url := *db
	if need := slots + 8; need > store.DefaultConns && !strings.Contains(url, "pool_max_conns") {
		// Each running unit holds a connection (its lock), besides
		// river's and the results' writes.
		url += map[bool]string{true: "&", false: "?"}[strings.Contains(url, "?")] + "pool_max_conns=" + strconv.Itoa(need)
	}
	st, err := store.OpenPostgres(ctx, url, time.Now()) // the schema, migrated if this worker is first
	if err != nil {
		return c.Fail(err)
	}
	defer st.Close()
	if err := jobs.MigrateQueue(ctx, st.Pool()); err != nil {
		return c.Fail(err)
	}
	w, err := jobs.NewWorker(st.Pool(), slots, unitsOf, logger)
	if err != nil {
		return c.Fail(err)
	}
	if *metrics != "" {
		ln, err := net.Listen("tcp", *metrics)
		if err != nil {
			return c.Fail(fmt.Errorf("-metrics: %w", err))
		}
		obs.QueueDepth(func() float64 {
			n, _ := w.Depth(context.Background())
			return float64(n)
		})
		mux := http.NewServeMux()
		mux.Handle("GET /metrics", obs.Handler())
		srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
		go srv.Serve(ln)
		defer srv.Close()
		logger.Info("serving metrics", "addr", ln.Addr().String())
	}
	logger.Info("working the queue", "db", store.Redact(*db), "jobs", slots, "cores", runtime.GOMAXPROCS(0))
	if err := w.Run(ctx); err != nil {
		return c.Fail(err)
	}
	logger.Info("stopped")
	return 0
}

// unitsOf is a queued study's units of work: its spec decoded as the
// labs' pages decode it, run by the same engine code as in a lab's own
// process.
func unitsOf(kind string, spec []byte) (jobs.Units, error) {
	sp, _, err := studies.DecodeJob(kind, spec, nil)
	if err != nil {
		return nil, err
	}
	return studies.UnitsOf(kind, sp)
}
