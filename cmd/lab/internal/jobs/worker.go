package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"interplab/cmd/lab/internal/obs"
)

// WorkOf turns a queued job's kind and spec (JSON, as Start was given it)
// into its work: the lab's studies' (studies.DecodeJob, then
// studies.WorkOf).
type WorkOf func(kind string, spec []byte) (Work, error)

// Worker takes studies from the queue and runs them, Slots at once (lab
// worker). A worker that dies mid-job loses nothing: while it runs a job
// it holds the job's advisory lock on a connection of its own, which
// PostgreSQL releases when the worker's connection goes, however it goes
// (kill -9 included); every worker looks for running jobs whose lock is
// free (reap) and puts them back on the queue, and the next attempt runs
// the job from its start. The engine is deterministic, so the result is
// the same; the items an earlier attempt recorded are kept, and the new
// attempt records only those beyond them.
type Worker struct {
	pool   *pgxpool.Pool
	client *river.Client[pgx.Tx]
	workOf WorkOf
	log    *slog.Logger

	// ReapEvery is how often the worker looks for jobs whose worker died,
	// and Grace how long after river gives a job to a worker that worker
	// has to take its lock.
	ReapEvery, Grace time.Duration
	// Flush is how often a running job's new items are written.
	Flush time.Duration
}

// NewWorker returns a worker of slots jobs at once on pool (migrated:
// MigrateQueue), running the work workOf gives.
func NewWorker(pool *pgxpool.Pool, slots int, workOf WorkOf, log *slog.Logger) (*Worker, error) {
	if err := CheckSlots(slots); err != nil {
		return nil, err
	}
	w := &Worker{pool: pool, workOf: workOf, log: log, ReapEvery: 2 * time.Second, Grace: 10 * time.Second, Flush: 250 * time.Millisecond}
	workers := river.NewWorkers()
	river.AddWorker(workers, river.WorkFunc(w.work))
	client, err := river.NewClient(riverpgxv5.New(pool), &river.Config{
		Queues:  map[string]river.QueueConfig{queueName: {MaxWorkers: slots}},
		Workers: workers,
		// A study runs as long as it needs (a tuning, minutes); a worker
		// that died is found by its lock (reap), not by a timeout.
		JobTimeout:           -1,
		RescueStuckJobsAfter: 24 * time.Hour,
		Logger:               slog.New(quieter{log.Handler(), slog.LevelWarn}), // river's routine counts are noise
	})
	if err != nil {
		return nil, fmt.Errorf("worker: %w", err)
	}
	w.client = client
	return w, nil
}

// Run works the queue until ctx is done; the jobs it runs then go back on
// the queue for another worker.
func (w *Worker) Run(ctx context.Context) error {
	if err := w.client.Start(ctx); err != nil {
		return fmt.Errorf("worker: %w", err)
	}
	tick := time.NewTicker(w.ReapEvery)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			sctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			return w.client.StopAndCancel(sctx)
		case <-tick.C:
			if err := w.reap(ctx); err != nil && ctx.Err() == nil {
				w.log.Warn("look for jobs of dead workers", "err", err)
			}
		}
	}
}

// reap puts back on the queue the running jobs whose worker died: river
// says they run, and their lock is free.
func (w *Worker) reap(ctx context.Context) error {
	rows, err := w.pool.Query(ctx, `SELECT j.id, r.id FROM jobs j JOIN river_job r ON r.id = j.queue_id
		WHERE j.state = 'running' AND r.state = 'running' AND r.attempted_at < now() - make_interval(secs => $1)`, w.Grace.Seconds())
	if err != nil {
		return err
	}
	type stuck struct {
		id    string
		queue int64
	}
	var list []stuck
	for rows.Next() {
		var s stuck
		if err := rows.Scan(&s.id, &s.queue); err != nil {
			rows.Close()
			return err
		}
		list = append(list, s)
	}
	rows.Close()
	if err := rows.Err(); err != nil || len(list) == 0 {
		return err
	}
	conn, err := w.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	for _, s := range list {
		var free bool
		if err := conn.QueryRow(ctx, `SELECT pg_try_advisory_lock($1, hashtext($2))`, workerClass, s.id).Scan(&free); err != nil {
			return err
		}
		if !free {
			continue // its worker runs it
		}
		tag, err := conn.Exec(ctx, `UPDATE river_job SET state = 'available', scheduled_at = now() WHERE id = $1 AND state = 'running'`, s.queue)
		conn.Exec(ctx, `SELECT pg_advisory_unlock($1, hashtext($2))`, workerClass, s.id)
		if err != nil {
			return err
		}
		if tag.RowsAffected() > 0 {
			w.log.Warn("the worker of a job died: the job goes back on the queue", "job", s.id)
		}
	}
	return nil
}

// quieter passes on the records of its handler from level min up.
type quieter struct {
	slog.Handler
	min slog.Level
}

func (q quieter) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= q.min && q.Handler.Enabled(ctx, l)
}

func (q quieter) WithAttrs(a []slog.Attr) slog.Handler { return quieter{q.Handler.WithAttrs(a), q.min} }
func (q quieter) WithGroup(n string) slog.Handler      { return quieter{q.Handler.WithGroup(n), q.min} }

// errWorkerStopping is a job's work stopped because its worker stops: not
// the job's end.
var errWorkerStopping = errors.New("the worker stops")

// work runs one queued study (river's worker function).
func (w *Worker) work(ctx context.Context, job *river.Job[StudyArgs]) error {
	id := job.Args.ID
	// The job's lock, on a connection held for the job: its death is
	// the job's worker's death.
	lock, err := w.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer lock.Release()
	var got bool
	if err := lock.QueryRow(ctx, `SELECT pg_try_advisory_lock($1, hashtext($2))`, workerClass, id).Scan(&got); err != nil {
		return err
	}
	if !got {
		return river.JobSnooze(5 * time.Second) // another worker still runs it
	}
	defer lock.Exec(context.Background(), `SELECT pg_advisory_unlock($1, hashtext($2))`, workerClass, id)

	var kind, spec string
	var cancel bool
	var recorded int
	err = w.pool.QueryRow(ctx, `UPDATE jobs SET attempt = $2 WHERE id = $1 AND state = 'running'
		RETURNING kind, spec, cancel, (SELECT count(*) FROM job_items WHERE job = $1)`, id, job.Attempt).
		Scan(&kind, &spec, &cancel, &recorded)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil // ended meanwhile, or gone
	}
	if err != nil {
		return err
	}
	log := w.log.With("job", id, "kind", kind, "attempt", job.Attempt)
	if cancel {
		return w.end(id, Cancelled, "", nil)
	}
	work, err := w.workOf(kind, []byte(spec))
	if err != nil {
		return w.end(id, Failed, err.Error(), nil)
	}
	log.Info("job started", "items recorded before", recorded)
	started := time.Now()

	jctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	var watch sync.WaitGroup
	watch.Go(func() { w.watch(jctx, stop, id, lock) })
	out := &itemWriter{w: w, id: id, skip: recorded, next: recorded}
	watch.Go(func() { out.run(jctx) })

	res, err := runWork(jctx, work, out.add)
	stop(nil)
	watch.Wait()
	if ferr := out.flush(context.Background()); ferr != nil {
		return ferr // the attempt could not record its progress: river retries
	}
	if err == nil {
		if _, merr := json.Marshal(res); merr != nil {
			res, err = nil, fmt.Errorf("encode the result: %w", merr)
		}
	}
	cause := context.Cause(jctx)
	if err != nil && !errors.Is(cause, errCancelAsked) {
		// river stops a job asked to cancel too (JobCancel), with its own
		// cause: the job's flag tells a cancel from a worker stopping.
		var asked bool
		if w.pool.QueryRow(context.Background(), `SELECT cancel FROM jobs WHERE id = $1`, id).Scan(&asked) == nil && asked {
			cause = errCancelAsked
		}
	}
	switch {
	case err == nil && out.err != "":
		return w.end(id, Failed, out.err, nil)
	case err == nil:
		b, _ := json.Marshal(res)
		log.Info("job done", "seconds", time.Since(started).Seconds())
		obs.JobSeconds.WithLabelValues(kind).Observe(time.Since(started).Seconds())
		return w.end(id, Done, "", b)
	case errors.Is(cause, errCancelAsked):
		return w.end(id, Cancelled, "", nil)
	case ctx.Err() != nil || errors.Is(cause, errLostLock):
		log.Warn("job stopped before its end: it goes back on the queue", "cause", cause)
		return errWorkerStopping // river retries it
	default:
		return w.end(id, Failed, err.Error(), nil)
	}
}

// Reasons a running job's context ends.
var (
	errCancelAsked = errors.New("cancel asked")
	errLostLock    = errors.New("lost the connection that holds the job's lock")
)

// watch stops the job when somebody asks to cancel it, or when the
// connection holding its lock fails (another worker may then take it).
func (w *Worker) watch(ctx context.Context, stop context.CancelCauseFunc, id string, lock *pgxpool.Conn) {
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		if err := lock.Ping(ctx); err != nil {
			if ctx.Err() == nil {
				stop(errLostLock)
			}
			return
		}
		var cancel bool
		if err := w.pool.QueryRow(ctx, `SELECT cancel FROM jobs WHERE id = $1`, id).Scan(&cancel); err == nil && cancel {
			stop(errCancelAsked)
			return
		}
	}
}

// end records how job id ended, and tells every lab.
func (w *Worker) end(id, state, why string, result []byte) error {
	ctx := context.Background()
	var res *string
	if result != nil {
		s := string(result)
		res = &s
	}
	_, err := w.pool.Exec(ctx, `UPDATE jobs SET state = $2, error = $3, result = $4, ended_ns = $5 WHERE id = $1 AND state = 'running'`,
		id, state, why, res, time.Now().UnixNano())
	if err == nil {
		_, err = w.pool.Exec(ctx, `SELECT pg_notify($1, $2)`, jobsChannel, id)
	}
	return err
}

// runWork calls work, turning a panic into an error.
func runWork(ctx context.Context, work Work, progress func(any, int)) (res any, err error) {
	defer func() {
		if p := recover(); p != nil {
			slog.Error("job panicked", "panic", p, "stack", string(debug.Stack()))
			res, err = nil, fmt.Errorf("internal error: %v", p)
		}
	}()
	return work(ctx, progress)
}

// itemWriter writes a running job's items, a batch every Flush: the
// items beyond skip (those an earlier attempt recorded), numbered on.
type itemWriter struct {
	w    *Worker
	id   string
	skip int // items an earlier attempt recorded
	seen int // items this attempt made

	mu      sync.Mutex
	pending [][]byte
	next    int // the number of the next item written
	done    int
	err     string // an item that does not encode fails the job
}

// add is the work's progress callback.
func (o *itemWriter) add(item any, done int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.seen++
	o.done = max(o.done, done)
	if o.seen <= o.skip {
		return
	}
	b, err := json.Marshal(item)
	if err != nil {
		if o.err == "" {
			o.err = "encode a result: " + err.Error()
		}
		return
	}
	o.pending = append(o.pending, b)
}

func (o *itemWriter) run(ctx context.Context) {
	tick := time.NewTicker(o.w.Flush)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			if err := o.flush(ctx); err != nil && ctx.Err() == nil {
				o.w.log.Warn("record a job's progress", "job", o.id, "err", err)
			}
		}
	}
}

// flush writes the pending items and the count done, and tells every lab.
func (o *itemWriter) flush(ctx context.Context) error {
	o.mu.Lock()
	items, from, done := o.pending, o.next, o.done
	o.pending = nil
	o.next += len(items)
	o.mu.Unlock()
	if len(items) == 0 && done == 0 {
		return nil
	}
	err := pgx.BeginFunc(ctx, o.w.pool, func(tx pgx.Tx) error {
		for i, b := range items {
			if _, err := tx.Exec(ctx, `INSERT INTO job_items (job, n, item) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`, o.id, from+i, string(b)); err != nil {
				return err
			}
		}
		if _, err := tx.Exec(ctx, `UPDATE jobs SET done = greatest(done, $2) WHERE id = $1`, o.id, done); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `SELECT pg_notify($1, $2)`, jobsChannel, o.id)
		return err
	})
	if err != nil {
		o.mu.Lock()
		o.pending = append(items, o.pending...)
		o.next = from
		o.mu.Unlock()
	}
	return err
}

// Depth is how many studies wait on the queue for a worker.
func (w *Worker) Depth(ctx context.Context) (int, error) {
	var n int
	err := w.pool.QueryRow(ctx, `SELECT count(*) FROM river_job WHERE queue = $1 AND state IN ('available', 'retryable', 'scheduled')`, queueName).Scan(&n)
	return n, err
}
