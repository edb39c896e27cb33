package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"syscall"

	"interplab/cmd/lab/internal/backend"
	"interplab/cmd/lab/internal/cli"
	"interplab/cmd/lab/internal/obs"
	"interplab/cmd/lab/internal/store"
)

const workerUsage = `Usage: lab worker -db postgres://… [-db-wait 0] [-jobs 1]

Works the studies (sweeps, tunings, population runs) the labs serving the
PostgreSQL database -db (or LAB_DB) put on their queue, in units of work:
a population's chunks of entities, a sweep's runs of grid points, a
tuning's candidates. -jobs units at once, each on every core of this
machine. Run as many workers, on as many machines, as the studies need:
a study's units spread over all of them. A worker stopped (Ctrl-C,
SIGTERM) or killed hands back the units it runs; another worker runs them
again, the units already done are kept, and the result is the same.
Started before the database, it waits for it (retrying with backoff,
logging each try) for at most -db-wait.

Flags:
`

// runWorker implements lab worker.
func runWorker(args []string, stdout, stderr io.Writer) int {
	c := cli.New("worker", workerUsage, stdout, stderr)
	db := c.DBFlag("work the queue of the PostgreSQL database at `url`")
	dbWait := c.DBWaitFlag()
	slots := c.SlotsFlag(1, "units of studies", ": a unit uses every core")
	metrics := c.Flags.String("metrics", "", "serve Prometheus metrics (study durations, the queue's depth) at http://`addr`/metrics, e.g. 127.0.0.1:9101; no token: keep it on loopback or a private network")
	lf := c.LogFlags()
	if code, ok := c.Parse(args, 0); !ok {
		return code
	}
	logger, err := lf.Logger(stderr)
	if err != nil {
		return c.Bad(err)
	}
	if err := backend.CheckWorker(db()); err != nil {
		return c.Bad(err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := backend.WaitForDB(ctx, db(), *dbWait, logger, func(string) {}); err != nil {
		return c.Fail(err)
	}
	w, closeDB, err := backend.Worker(ctx, db(), *slots, logger) // the schema, migrated if this worker is first
	if err != nil {
		return c.Fail(err)
	}
	defer closeDB()
	if *metrics != "" {
		addr, closeMetrics, err := obs.ServeMetrics(*metrics)
		if err != nil {
			return c.Fail(fmt.Errorf("-metrics: %w", err))
		}
		defer closeMetrics()
		logger.Info("serving metrics", "addr", addr)
	}
	logger.Info("working the queue", "db", store.Redact(db()), "jobs", *slots, "cores", runtime.GOMAXPROCS(0))
	if err := w.Run(ctx); err != nil {
		return c.Fail(err)
	}
	logger.Info("stopped")
	return 0
}
