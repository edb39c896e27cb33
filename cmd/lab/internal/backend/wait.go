package backend

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"sync/atomic"
	"time"

	"interplab/cmd/lab/internal/server"
	"interplab/cmd/lab/internal/store"
)

// The backoff between a start's tries to reach the database: the first
// wait, doubled after each try up to the last.
const (
	firstWait = 250 * time.Millisecond
	maxWait   = 5 * time.Second
)

// WaitForDB waits until the PostgreSQL database at url accepts a
// connection, so that a lab or a worker started with it (compose, systemd,
// a reboot) does not give up before the database is up: it tries again
// while the database cannot be reached (store.Unreachable), with a
// backoff from firstWait doubling to maxWait, logging each try and telling
// status (for /readyz) that it waits. It gives up after limit (-db-wait;
// 0: never), when ctx ends, or at once for an error that waiting will not
// mend (a wrong password, no such database, a malformed address).
func WaitForDB(ctx context.Context, url string, limit time.Duration, logger *slog.Logger, status func(string)) error {
	start := time.Now()
	wait := firstWait
	for try := 1; ; try++ {
		err := store.Reach(ctx, url)
		if err == nil {
			if try > 1 {
				logger.Info("the database answers", "db", store.Redact(url), "tries", try, "waited", time.Since(start).Round(time.Millisecond).String())
			}
			return nil
		}
		if !store.Unreachable(err) || ctx.Err() != nil {
			return fmt.Errorf("database %s: %w", store.Redact(url), err)
		}
		waited := time.Since(start)
		if limit > 0 && waited >= limit {
			return fmt.Errorf("database %s did not answer in %v (-db-wait; 0 waits as long as it takes): %w", store.Redact(url), limit, err)
		}
		next := wait
		if limit > 0 {
			next = min(next, limit-waited)
		}
		logger.Warn("waiting for the database", "db", store.Redact(url), "try", try, "next_in", next.String(), "err", err)
		status(fmt.Sprintf("waiting for the database: try %d failed (%s), next in %v", try, store.ErrUnreachable, next))
		select {
		case <-ctx.Done():
			return fmt.Errorf("stopped while waiting for the database %s: %w", store.Redact(url), ctx.Err())
		case <-time.After(next):
		}
		wait = min(wait*2, maxWait)
	}
}

// WaitLab opens a lab on the PostgreSQL database at db, as Lab
// does, once it answers (WaitForDB, for at most dbWait; 0: as long
// as it takes, or until ctx ends); until then relay's port answers that
// the lab is starting (/readyz: what it waits for).
func WaitLab(ctx context.Context, relay *server.Relay, db string, dbWait time.Duration, logger *slog.Logger, deps *server.Deps) (string, func(), error) {
	var status atomic.Value
	status.Store("opening the database")
	starting := &http.Server{Handler: server.Starting(func() string { return status.Load().(string) }), ReadHeaderTimeout: 10 * time.Second}
	go starting.Serve(relay.View())
	defer func() {
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		starting.Shutdown(sctx)
	}()
	if err := WaitForDB(ctx, db, dbWait, logger, func(s string) { status.Store(s) }); err != nil {
		return "", nil, err
	}
	status.Store("migrating the database")
	return Lab(context.Background(), db, "", logger, deps)
}
