// Package backend opens what lab serve and lab worker run on: a lab's
// store, a SQLite database in its data directory (locked to this lab) or a
// team's PostgreSQL database, and on PostgreSQL live sync's bus and the
// study queue that labs fill and workers work.
package backend

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"interplab/cmd/lab/internal/jobs"
	"interplab/cmd/lab/internal/live"
	"interplab/cmd/lab/internal/obs"
	"interplab/cmd/lab/internal/server"
	"interplab/cmd/lab/internal/store"
	"interplab/cmd/lab/internal/studies"
)

// CheckLab checks lab serve's -db: none (SQLite in -data) or a PostgreSQL
// address.
func CheckLab(db string) error {
	if db != "" && !store.IsPostgres(db) {
		return fmt.Errorf("-db %q is not allowed: want a PostgreSQL address, postgres://user@host:5432/db (a SQLite database is -data DIR)", store.Redact(db))
	}
	return nil
}

// CheckWorker checks lab worker's -db: the labs' PostgreSQL address.
func CheckWorker(db string) error {
	if !store.IsPostgres(db) {
		return fmt.Errorf("-db %q is not allowed: want the labs' PostgreSQL database, postgres://user@host:5432/db", store.Redact(db))
	}
	return nil
}

// Lab opens a lab's store into deps, and on PostgreSQL its bus and queue:
// the PostgreSQL database at db when db is set (as CheckLab allows), else the
// SQLite database in the directory data, locked so that no other lab
// serves it. close closes what it opened, last first. name says which
// database it is, without a password, for the logs.
func Lab(ctx context.Context, db, data string, logger *slog.Logger, deps *server.Deps) (name string, close func(), err error) {
	if db == "" {
		lock, err := store.Lock(data, time.Now())
		if err != nil {
			return "", nil, err
		}
		st, err := store.Open(data, time.Now())
		if err != nil {
			lock.Unlock()
			return "", nil, err
		}
		deps.Store = st
		return store.Path(data), func() { st.Close(); lock.Unlock() }, nil
	}
	st, err := openQueue(ctx, db, store.DefaultConns)
	if err != nil {
		return "", nil, err
	}
	bus, err := live.NewPGBus(st.Pool())
	if err != nil {
		st.Close()
		return "", nil, err
	}
	q, err := jobs.NewQueue(st.Pool(), st, studies.DecodeJob)
	if err != nil {
		bus.Close()
		st.Close()
		return "", nil, err
	}
	queueDepth(q.Depth, logger)
	deps.Store, deps.Bus, deps.Queue = st, bus, q
	return store.Redact(db), func() { q.Close(); bus.Close(); st.Close() }, nil
}

// Worker opens a worker of slots units at once on the team's PostgreSQL
// database at db (as CheckWorker allows), running the units of the labs' studies. close closes its
// store.
func Worker(ctx context.Context, db string, slots int, logger *slog.Logger) (w *jobs.Worker, close func(), err error) {
	// Each running unit holds a connection (its lock), besides river's
	// and the results' writes.
	st, err := openQueue(ctx, db, slots+8)
	if err != nil {
		return nil, nil, err
	}
	if w, err = jobs.NewWorker(st.Pool(), slots, unitsOf, logger); err != nil {
		st.Close()
		return nil, nil, err
	}
	queueDepth(w.Depth, logger)
	return w, func() { st.Close() }, nil
}

// openQueue opens the store at the PostgreSQL address url with a pool of
// conns connections, its schema and the queue's tables migrated (by
// whichever lab or worker comes first).
func openQueue(ctx context.Context, url string, conns int) (*store.DB, error) {
	st, err := store.OpenPostgresConns(ctx, url, time.Now(), conns)
	if err != nil {
		return nil, err
	}
	if err := jobs.MigrateQueue(ctx, st.Pool()); err != nil {
		st.Close()
		return nil, err
	}
	return st, nil
}

// queueDepth reports the queue's depth, read by depth, in the metrics.
func queueDepth(depth func(context.Context) (int, error), logger *slog.Logger) {
	obs.QueueDepth(func() float64 {
		n, err := depth(context.Background())
		if err != nil {
			logger.Warn("read the queue's depth", "err", err)
		}
		return float64(n)
	})
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
