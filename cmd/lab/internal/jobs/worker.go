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
	"github.com/riverqueue/river/rivertype"

	"interplab/cmd/lab/internal/obs"
)

// Worker takes studies' units from the queue and runs them, Slots at once
// (lab worker); it also takes the first step of each new study's plan
// (units.go). A worker that dies mid-unit loses that unit only: while it
// runs a unit it holds the unit's advisory lock on a connection of its
// own, which PostgreSQL releases when the worker's connection goes, however
// it goes (kill -9 included); every worker looks for running units whose
// lock is free (reap) and puts them back on the queue, and the next
// attempt runs the unit again. The units already recorded are kept.
type Worker struct {
	pool    *pgxpool.Pool
	client  *river.Client[pgx.Tx]
	unitsOf UnitsOf
	log     *slog.Logger

	// ReapEvery is how often the worker looks for units whose worker died,
	// and Grace how long after river gives a unit to a worker that worker
	// has to take its lock.
	ReapEvery, Grace time.Duration
}

// NewWorker returns a worker of slots units at once on pool (migrated:
// MigrateQueue), running the units unitsOf gives.
func NewWorker(pool *pgxpool.Pool, slots int, unitsOf UnitsOf, log *slog.Logger) (*Worker, error) {
	if err := CheckSlots(slots); err != nil {
		return nil, err
	}
	w := &Worker{pool: pool, unitsOf: unitsOf, log: log, ReapEvery: 2 * time.Second, Grace: 10 * time.Second}
	workers := river.NewWorkers()
	river.AddWorker(workers, river.WorkFunc(w.plan))
	river.AddWorker(workers, river.WorkFunc(w.unit))
	client, err := river.NewClient(riverpgxv5.New(pool), &river.Config{
		Queues:  map[string]river.QueueConfig{queueName: {MaxWorkers: slots}},
		Workers: workers,
		// A unit runs as long as it needs (a population tuning's
		// candidate, a minute); a worker that died is found by its lock
		// (reap), not by a timeout.
		JobTimeout:           -1,
		RescueStuckJobsAfter: 24 * time.Hour,
		// The next unit is fetched as soon as one ends: river's default
		// cooldown of 100 ms would be a tenth of a second-long unit.
		FetchCooldown: 10 * time.Millisecond,
		Logger:        slog.New(quieter{log.Handler(), slog.LevelWarn}), // river's routine counts are noise
	})
	if err != nil {
		return nil, fmt.Errorf("worker: %w", err)
	}
	w.client = client
	return w, nil
}

// Run works the queue until ctx is done; the units it runs then go back
// on the queue for another worker.
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
				w.log.Warn("look for units of dead workers", "err", err)
			}
		}
	}
}

// reap puts back on the queue the running plans and units whose worker
// died: river says they run, and their lock is free.
func (w *Worker) reap(ctx context.Context) error {
	rows, err := w.pool.Query(ctx, `
		SELECT j.id, -1, r.id FROM jobs j JOIN river_job r ON r.id = j.queue_id
		WHERE j.state = 'running' AND r.state = 'running' AND r.attempted_at < now() - make_interval(secs => $1)
		UNION ALL
		SELECT u.job, u.n, r.id FROM job_units u JOIN jobs j ON j.id = u.job JOIN river_job r ON r.id = u.queue_id
		WHERE j.state = 'running' AND u.result IS NULL AND r.state = 'running' AND r.attempted_at < now() - make_interval(secs => $1)`,
		w.Grace.Seconds())
	if err != nil {
		return err
	}
	type stuck struct {
		id    string
		n     int
		queue int64
	}
	list, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (stuck, error) {
		var s stuck
		err := row.Scan(&s.id, &s.n, &s.queue)
		return s, err
	})
	if err != nil || len(list) == 0 {
		return err
	}
	conn, err := w.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	for _, s := range list {
		key := lockKey(s.id, s.n)
		var free bool
		if err := conn.QueryRow(ctx, `SELECT pg_try_advisory_lock($1, hashtext($2))`, workerClass, key).Scan(&free); err != nil {
			return err
		}
		if !free {
			continue // its worker runs it
		}
		tag, err := conn.Exec(ctx, `UPDATE river_job SET state = 'available', scheduled_at = now() WHERE id = $1 AND state = 'running'`, s.queue)
		conn.Exec(ctx, `SELECT pg_advisory_unlock($1, hashtext($2))`, workerClass, key)
		if err != nil {
			return err
		}
		if tag.RowsAffected() > 0 {
			w.log.Warn("the worker of a unit died: the unit goes back on the queue", "job", s.id, "unit", s.n)
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

// errWorkerStopping is a unit stopped because its worker stops: not the
// study's end.
var errWorkerStopping = errors.New("the worker stops")

// hold takes the advisory lock key on a connection of its own, to hold
// while the plan or unit it names runs: that connection's death is its
// worker's. got is false when another worker holds it.
func (w *Worker) hold(ctx context.Context, key string) (lock *pgxpool.Conn, got bool, err error) {
	lock, err = w.pool.Acquire(ctx)
	if err != nil {
		return nil, false, err
	}
	if err := lock.QueryRow(ctx, `SELECT pg_try_advisory_lock($1, hashtext($2))`, workerClass, key).Scan(&got); err != nil || !got {
		lock.Release()
		return nil, false, err
	}
	return lock, true, nil
}

// let releases a lock hold took.
func (w *Worker) let(lock *pgxpool.Conn, key string) {
	lock.Exec(context.Background(), `SELECT pg_advisory_unlock($1, hashtext($2))`, workerClass, key)
	lock.Release()
}

// plan takes the first step of a new study's plan (river's worker function
// of StudyArgs): its first units on the queue.
func (w *Worker) plan(ctx context.Context, job *river.Job[StudyArgs]) error {
	id := job.Args.ID
	lock, got, err := w.hold(ctx, lockKey(id, -1))
	if err != nil {
		return err
	}
	if !got {
		return river.JobSnooze(5 * time.Second) // another worker still plans it
	}
	defer w.let(lock, lockKey(id, -1))
	return w.record(ctx, id, -1, nil, nil)
}

// unit runs one unit of a study (river's worker function of UnitArgs) and
// records its result.
func (w *Worker) unit(ctx context.Context, job *river.Job[UnitArgs]) error {
	id, n := job.Args.ID, job.Args.N
	key := lockKey(id, n)
	lock, got, err := w.hold(ctx, key)
	if err != nil {
		return err
	}
	if !got {
		return river.JobSnooze(5 * time.Second) // another worker still runs it
	}
	defer w.let(lock, key)

	var kind, spec, unit string
	var running, recorded bool
	err = w.pool.QueryRow(ctx, `SELECT j.kind, j.spec, j.state = 'running' AND NOT j.cancel, u.unit, u.result IS NOT NULL
		FROM jobs j JOIN job_units u ON u.job = j.id WHERE j.id = $1 AND u.n = $2`, id, n).
		Scan(&kind, &spec, &running, &unit, &recorded)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil // the study is gone
	}
	if err != nil {
		return err
	}
	if !running || recorded {
		return nil // the study ended, or an earlier attempt recorded the unit
	}
	log := w.log.With("job", id, "kind", kind, "unit", n, "attempt", job.Attempt)
	units, err := w.unitsOf(kind, []byte(spec))
	if err != nil {
		return w.end(id, Failed, err.Error())
	}
	log.Info("unit started")
	started := time.Now()

	jctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	var watch sync.WaitGroup
	watch.Go(func() { w.watch(jctx, stop, id, lock) })
	res, err := runUnit(jctx, units, json.RawMessage(unit))
	stop(nil)
	watch.Wait()
	cause := context.Cause(jctx)
	if err == nil {
		var b []byte
		if b, err = json.Marshal(res); err != nil {
			return w.end(id, Failed, "encode a unit's result: "+err.Error())
		}
		// Recorded even while the worker stops: the unit is done.
		rctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := w.record(rctx, id, n, units, b); err != nil {
			return err // not recorded: river runs the unit again
		}
		secs := time.Since(started).Seconds()
		log.Info("unit done", "seconds", secs)
		obs.UnitSeconds.WithLabelValues(kind).Observe(secs)
		return nil
	}
	switch {
	case errors.Is(cause, errStudyEnded):
		return nil // cancelled on a lab, or failed by another unit
	case ctx.Err() != nil || errors.Is(cause, errLostLock):
		log.Warn("unit stopped before its end: it goes back on the queue", "cause", cause)
		return errWorkerStopping // river retries it
	default:
		return w.end(id, Failed, err.Error())
	}
}

// Reasons a running unit's context ends.
var (
	errStudyEnded = errors.New("the study ended")
	errLostLock   = errors.New("lost the connection that holds the unit's lock")
)

// watch stops the unit when its study ends (a cancel asked on any lab, or
// another unit failed), or when the connection holding its lock fails
// (another worker may then take the unit).
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
		var over bool
		err := w.pool.QueryRow(ctx, `SELECT cancel OR state <> 'running' FROM jobs WHERE id = $1`, id).Scan(&over)
		if err == nil && over || errors.Is(err, pgx.ErrNoRows) {
			stop(errStudyEnded)
			return
		}
	}
}

// runUnit runs a unit, turning a panic into an error.
func runUnit(ctx context.Context, units Units, unit json.RawMessage) (res any, err error) {
	defer func() {
		if p := recover(); p != nil {
			slog.Error("unit panicked", "panic", p, "stack", string(debug.Stack()))
			res, err = nil, fmt.Errorf("internal error: %v", p)
		}
	}()
	return units.Run(ctx, unit)
}

// record writes unit n's result (JSON) and the progress items it makes, and
// when that was the last unit to run, takes the plan's next step: more
// units on the queue, or the study's end with its result. n < 0 takes a
// new study's first step (units is then the study's, from its spec). It is
// one transaction holding the study's row, so a unit is recorded whole,
// once, and each step is taken once.
func (w *Worker) record(ctx context.Context, id string, n int, units Units, result []byte) error {
	var ended string
	var kind string
	var created int64
	err := pgx.BeginFunc(ctx, w.pool, func(tx pgx.Tx) error {
		ended = ""
		var spec, state string
		var plan *string
		var done int
		var cancel bool
		err := tx.QueryRow(ctx, `SELECT kind, spec, state, done, plan, cancel, created_ns FROM jobs WHERE id = $1 FOR UPDATE`, id).
			Scan(&kind, &spec, &state, &done, &plan, &cancel, &created)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil // gone
		}
		if err != nil || state != Running {
			return err
		}
		end := func(state, why string, result []byte) error {
			ended = state
			return w.endTx(ctx, tx, id, state, why, result)
		}
		if cancel {
			return end(Cancelled, "", nil)
		}
		if n < 0 {
			if plan != nil {
				return nil // planned already
			}
			if units, err = w.unitsOf(kind, []byte(spec)); err != nil {
				return end(Failed, err.Error(), nil)
			}
		} else {
			tag, err := tx.Exec(ctx, `UPDATE job_units SET result = $3 WHERE job = $1 AND n = $2 AND result IS NULL`, id, n, string(result))
			if err != nil || tag.RowsAffected() == 0 {
				return err // recorded by an earlier attempt
			}
			items, err := units.Items(result, done)
			if err != nil {
				return end(Failed, "the progress of a unit: "+err.Error(), nil)
			}
			texts := make([]string, len(items))
			for i, it := range items {
				b, err := json.Marshal(it)
				if err != nil {
					return end(Failed, "encode a result: "+err.Error(), nil)
				}
				texts[i] = string(b)
			}
			if _, err := tx.Exec(ctx, `INSERT INTO job_items (job, n, item)
				SELECT $1, $2 + i - 1, item FROM unnest($3::text[]) WITH ORDINALITY AS t(item, i)`, id, done, texts); err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, `UPDATE jobs SET done = done + $2 WHERE id = $1`, id, len(items)); err != nil {
				return err
			}
			var left int
			if err := tx.QueryRow(ctx, `SELECT count(*) FROM job_units WHERE job = $1 AND result IS NULL`, id).Scan(&left); err != nil {
				return err
			}
			if left > 0 {
				return notify(ctx, tx, id)
			}
		}

		// The plan's next step, from every unit's result.
		rows, err := tx.Query(ctx, `SELECT result FROM job_units WHERE job = $1 ORDER BY n`, id)
		if err != nil {
			return err
		}
		results, err := pgx.CollectRows(rows, rowToJSON)
		if err != nil {
			return err
		}
		var st []byte
		if plan != nil {
			st = []byte(*plan)
		}
		step, err := planStep(units, st, results)
		if err != nil {
			return end(Failed, err.Error(), nil)
		}
		if _, err := tx.Exec(ctx, `UPDATE jobs SET plan = $2 WHERE id = $1`, id, string(step.State)); err != nil {
			return err
		}
		if len(step.Units) == 0 {
			b, err := json.Marshal(step.Result)
			if err != nil {
				return end(Failed, "encode the result: "+err.Error(), nil)
			}
			return end(Done, "", b)
		}
		return w.queueUnits(ctx, tx, id, len(results), step.Units)
	})
	if err == nil && ended != "" {
		w.log.Info("study "+ended, "job", id, "kind", kind)
		if ended == Done {
			obs.JobSeconds.WithLabelValues(kind).Observe(time.Since(time.Unix(0, created)).Seconds())
		}
	}
	return err
}

// planStep calls units.Plan, turning a panic into an error.
func planStep(units Units, state []byte, results []json.RawMessage) (step Step, err error) {
	defer func() {
		if p := recover(); p != nil {
			slog.Error("plan panicked", "panic", p, "stack", string(debug.Stack()))
			step, err = Step{}, fmt.Errorf("internal error: %v", p)
		}
	}()
	return units.Plan(state, results)
}

// queueUnits records a study's next units, numbered from first, and puts
// them on the queue, in transaction tx.
func (w *Worker) queueUnits(ctx context.Context, tx pgx.Tx, id string, first int, units []any) error {
	texts := make([]string, len(units))
	params := make([]river.InsertManyParams, len(units))
	for i, u := range units {
		b, err := json.Marshal(u)
		if err != nil {
			return w.endTx(ctx, tx, id, Failed, "encode a unit: "+err.Error(), nil)
		}
		texts[i] = string(b)
		params[i] = river.InsertManyParams{Args: UnitArgs{ID: id, N: first + i}, InsertOpts: &river.InsertOpts{Queue: queueName}}
	}
	if _, err := tx.Exec(ctx, `INSERT INTO job_units (job, n, unit)
		SELECT $1, $2 + i - 1, unit FROM unnest($3::text[]) WITH ORDINALITY AS t(unit, i)`, id, first, texts); err != nil {
		return err
	}
	res, err := w.client.InsertManyTx(ctx, tx, params)
	if err != nil {
		return err
	}
	ns, ids := make([]int64, len(res)), make([]int64, len(res))
	for i, r := range res {
		ns[i], ids[i] = int64(first+i), r.Job.ID
	}
	if _, err := tx.Exec(ctx, `UPDATE job_units SET queue_id = q.id FROM unnest($2::bigint[], $3::bigint[]) AS q(n, id)
		WHERE job_units.job = $1 AND job_units.n = q.n`, id, ns, ids); err != nil {
		return err
	}
	return notify(ctx, tx, id)
}

// end records how study id ended, and tells every lab.
func (w *Worker) end(id, state, why string) error {
	err := pgx.BeginFunc(context.Background(), w.pool, func(tx pgx.Tx) error {
		return w.endTx(context.Background(), tx, id, state, why, nil)
	})
	if err == nil {
		w.log.Info("study "+state, "job", id, "error", why)
	}
	return err
}

// endTx records in tx how study id ended, with its result when done,
// drops its units still waiting on the queue, and tells every lab.
func (w *Worker) endTx(ctx context.Context, tx pgx.Tx, id, state, why string, result []byte) error {
	var res *string
	if result != nil {
		s := string(result)
		res = &s
	}
	tag, err := tx.Exec(ctx, `UPDATE jobs SET state = $2, error = $3, result = $4, ended_ns = $5 WHERE id = $1 AND state = 'running'`,
		id, state, why, res, time.Now().UnixNano())
	if err != nil || tag.RowsAffected() == 0 {
		return err
	}
	if err := dropWaiting(ctx, tx, w.client, id); err != nil {
		return err
	}
	return notify(ctx, tx, id)
}

// dropWaiting deletes from the queue, in tx, the plan and units of study
// id that no worker has taken: the study ended.
func dropWaiting(ctx context.Context, tx pgx.Tx, client *river.Client[pgx.Tx], id string) error {
	rows, err := tx.Query(ctx, `SELECT queue_id FROM jobs WHERE id = $1 AND queue_id IS NOT NULL
		UNION ALL SELECT queue_id FROM job_units WHERE job = $1 AND result IS NULL AND queue_id IS NOT NULL`, id)
	if err != nil {
		return err
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil || len(ids) == 0 {
		return err
	}
	_, err = client.JobDeleteManyTx(ctx, tx, river.NewJobDeleteManyParams().IDs(ids...).
		States(rivertype.JobStateAvailable, rivertype.JobStateScheduled, rivertype.JobStateRetryable, rivertype.JobStatePending))
	return err
}

// notify tells every lab, once tx commits, that study id changed.
func notify(ctx context.Context, tx pgx.Tx, id string) error {
	_, err := tx.Exec(ctx, `SELECT pg_notify($1, $2)`, jobsChannel, id)
	return err
}

// Depth is how many plans and units wait on the queue for a worker.
func (w *Worker) Depth(ctx context.Context) (int, error) { return depth(ctx, w.pool) }
