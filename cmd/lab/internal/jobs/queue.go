package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"

	"interplab/cmd/lab/internal/store"
)

// A team's labs run their studies on a queue in PostgreSQL (river), which
// lab worker processes work (worker.go), instead of in their own process.
// The server side is the same Runner: Start puts the study on the queue
// with its spec, Get returns a Job whose state, progress and result are
// read from the database (the jobs row, its job_items), kept fresh by
// the notifications the workers send on channel lab_jobs, so Progress and
// Cancel work from any lab. The workers run the study in units of work
// (units.go): a population's entity chunks, a sweep's runs of grid
// points, a tuning's candidates, each a queue job of its own that any
// worker takes; the server side, which reads a study's record and items,
// knows nothing of them.
//
// Queued studies are not cancelled when nobody watches them: they are the
// team's, and their result is kept for its link.

// Queue channels and names.
const (
	jobsChannel = "lab_jobs" // a job's record or items changed: the payload is its id
	queueName   = "studies"
	workerClass = 0x1ab2 // advisory lock class of a job's running worker
)

// StudyArgs is a new study on the queue, for a worker to take its plan's
// first step: its record in the jobs table (store.Job) holds the rest.
type StudyArgs struct {
	ID string `json:"id"`
}

// Kind is river's name of a study job.
func (StudyArgs) Kind() string { return "study" }

// MigrateQueue brings river's tables up to date, under an advisory lock
// so that labs and workers starting at once migrate one at a time.
func MigrateQueue(ctx context.Context, pool *pgxpool.Pool) error {
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("migrate the job queue: %w", err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock($1, 0)`, workerClass); err != nil {
		return fmt.Errorf("migrate the job queue: %w", err)
	}
	defer conn.Exec(context.Background(), `SELECT pg_advisory_unlock($1, 0)`, workerClass)
	m, err := rivermigrate.New(riverpgxv5.New(pool), &rivermigrate.Config{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return fmt.Errorf("migrate the job queue: %w", err)
	}
	if _, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		return fmt.Errorf("migrate the job queue: %w", err)
	}
	return nil
}

// Queue is the server side of the job queue: it puts studies on it and
// reads them back.
type Queue struct {
	pool    *pgxpool.Pool
	archive Archive               // the jobs' records: the store on pool
	decode  Decoder               // the jobs' specs and results
	client  *river.Client[pgx.Tx] // inserts only: the workers work
	ctx     context.Context
	stop    context.CancelFunc
	done    chan struct{}

	mu    sync.Mutex
	views map[string]*Job // jobs read back, kept fresh while running
}

// NewQueue returns the queue on pool, listening for its jobs' changes
// until Close, reading their records from a, the store on pool, and their
// specs and results with decode. The queue's tables must be migrated
// (MigrateQueue).
func NewQueue(pool *pgxpool.Pool, a Archive, decode Decoder) (*Queue, error) {
	client, err := river.NewClient(riverpgxv5.New(pool), &river.Config{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return nil, fmt.Errorf("job queue: %w", err)
	}
	ctx, stop := context.WithCancel(context.Background())
	q := &Queue{pool: pool, archive: a, decode: decode, client: client, ctx: ctx, stop: stop, done: make(chan struct{}), views: map[string]*Job{}}
	go q.listen()
	return q, nil
}

// Close stops listening.
func (q *Queue) Close() {
	q.stop()
	<-q.done
}

// listen refreshes the views of the jobs the notifications name, and
// every running view once a second in case one was missed.
func (q *Queue) listen() {
	defer close(q.done)
	names := make(chan string, 256)
	go func() {
		for q.ctx.Err() == nil {
			conn, err := q.pool.Acquire(q.ctx)
			if err == nil {
				_, err = conn.Exec(q.ctx, "LISTEN "+jobsChannel)
				for err == nil {
					var n *pgconn.Notification
					n, err = conn.Conn().WaitForNotification(q.ctx)
					if err == nil {
						select {
						case names <- n.Payload:
						default: // the tick catches up
						}
					}
				}
				conn.Hijack().Close(context.Background())
			}
			select {
			case <-q.ctx.Done():
			case <-time.After(time.Second):
			}
		}
	}()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-q.ctx.Done():
			return
		case id := <-names:
			q.mu.Lock()
			j := q.views[id]
			q.mu.Unlock()
			if j != nil {
				q.refresh(j)
			}
		case <-tick.C:
			q.mu.Lock()
			var running []*Job
			for _, j := range q.views {
				if j.Status().State == Running {
					running = append(running, j)
				}
			}
			q.mu.Unlock()
			for _, j := range running {
				q.refresh(j)
			}
		}
	}
}

// start puts a study on the queue for client: its record (running, done
// 0) and river's job of its plan, in one transaction. A client with MaxPerClient
// studies running, on any lab, gets ErrClientBusy.
func (q *Queue) start(kind, client string, total int, spec any, now time.Time) (*Job, error) {
	specJSON, err := json.Marshal(spec)
	if err != nil {
		return nil, fmt.Errorf("encode the spec: %w", err)
	}
	id := newJobID()
	err = pgx.BeginFunc(q.ctx, q.pool, func(tx pgx.Tx) error {
		// One start per client at a time, on every lab.
		if _, err := tx.Exec(q.ctx, `SELECT pg_advisory_xact_lock($1, hashtext($2))`, workerClass, "client "+client); err != nil {
			return err
		}
		var mine int
		if err := tx.QueryRow(q.ctx, `SELECT count(*) FROM jobs WHERE client = $1 AND state = 'running'`, client).Scan(&mine); err != nil {
			return err
		}
		if client != "" && mine >= MaxPerClient {
			return ErrClientBusy
		}
		if _, err := tx.Exec(q.ctx, `INSERT INTO jobs (id, kind, state, error, done, total, spec, created_ns, client)
			VALUES ($1, $2, 'running', '', 0, $3, $4, $5, $6)`, id, kind, total, string(specJSON), now.UnixNano(), client); err != nil {
			return err
		}
		res, err := q.client.InsertTx(q.ctx, tx, StudyArgs{ID: id}, &river.InsertOpts{Queue: queueName})
		if err != nil {
			return err
		}
		if _, err := tx.Exec(q.ctx, `UPDATE jobs SET queue_id = $2 WHERE id = $1`, id, res.Job.ID); err != nil {
			return err
		}
		_, err = tx.Exec(q.ctx, `DELETE FROM jobs WHERE state <> 'running' AND id NOT IN (SELECT id FROM jobs ORDER BY created_ns DESC LIMIT $1)`, store.MaxJobs)
		return err
	})
	if err != nil {
		if errors.Is(err, ErrClientBusy) {
			return nil, err
		}
		return nil, fmt.Errorf("put the %s on the queue: %w", kind, err)
	}
	return q.view(id, kind, total, spec, now), nil
}

// view returns the view of job id, made and kept on first use. The
// listener refreshes it from then on: it is whole before it is kept.
func (q *Queue) view(id, kind string, total int, spec any, created time.Time) *Job {
	q.mu.Lock()
	defer q.mu.Unlock()
	if j := q.views[id]; j != nil {
		return j
	}
	j := &Job{id: id, kind: kind, total: total, spec: spec, ended: make(chan struct{}), state: Running,
		watchers: map[chan struct{}]struct{}{}, created: created, queued: true}
	j.cancel = func() { q.cancelJob(j) }
	q.views[id] = j
	// Ended views beyond MaxKept go: their records stay in the database.
	if len(q.views) > 4*MaxKept {
		for vid, v := range q.views {
			if v.Status().State != Running && vid != id {
				delete(q.views, vid)
			}
		}
	}
	return j
}

// get returns the view of job id read from the database, or nil.
func (q *Queue) get(id string) *Job {
	q.mu.Lock()
	j := q.views[id]
	q.mu.Unlock()
	if j != nil {
		return j
	}
	rec, err := q.archive.LoadJob(id)
	if err != nil {
		if !errors.Is(err, store.ErrJobNotFound) {
			slog.Error("load job", "job", id, "err", err)
		}
		return nil
	}
	spec, _, err := q.decode(rec.Kind, rec.Spec, nil)
	if err != nil {
		slog.Error("load job", "job", id, "err", err)
		return nil
	}
	j = q.view(id, rec.Kind, rec.Total, spec, rec.Created)
	q.apply(j, rec)
	return j
}

// refresh reads j's record and brings j up to it (apply).
func (q *Queue) refresh(j *Job) {
	rec, err := q.archive.LoadJob(j.id)
	if err != nil {
		if q.ctx.Err() == nil {
			slog.Error("refresh job", "job", j.id, "err", err)
		}
		return
	}
	q.apply(j, rec)
}

// apply brings j up to rec, its record as just read: its new items, its
// progress, and when it has ended, its state and result; and tells its
// watchers. The result is decoded only when j ends here: a view that has
// ended keeps the one it has.
func (q *Queue) apply(j *Job, rec store.Job) {
	j.mu.Lock()
	from, running := len(j.items), j.state == Running
	j.mu.Unlock()
	items, err := loadItems(q.ctx, q.pool, j.id, from)
	if err != nil {
		slog.Error("refresh job", "job", j.id, "err", err)
		return
	}
	var result any
	if running && rec.State == Done && rec.Result != nil {
		_, result, err = q.decode(rec.Kind, rec.Spec, rec.Result)
		if err != nil {
			slog.Error("decode job result", "job", j.id, "err", err)
		}
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if len(j.items) == from {
		j.items = append(j.items, items...)
	}
	j.done, j.total, j.err = rec.Done, rec.Total, rec.Error
	if j.state == Running && rec.State != Running {
		j.state, j.result = rec.State, result
		close(j.ended)
	}
	j.notifyLocked()
}

// cancelJob ends j cancelled, on every lab: its units waiting on the
// queue are dropped, and the workers running its units stop them within
// a second (they watch the study's state).
func (q *Queue) cancelJob(j *Job) {
	err := pgx.BeginFunc(q.ctx, q.pool, func(tx pgx.Tx) error {
		tag, err := tx.Exec(q.ctx, `UPDATE jobs SET cancel = true, state = 'cancelled', ended_ns = $2 WHERE id = $1 AND state = 'running'`,
			j.id, time.Now().UnixNano())
		if err != nil || tag.RowsAffected() == 0 {
			return err // ended already
		}
		if err := dropWaiting(q.ctx, tx, q.client, j.id); err != nil {
			return err
		}
		return notify(q.ctx, tx, j.id)
	})
	if err != nil {
		slog.Error("cancel job", "job", j.id, "err", err)
	}
	q.refresh(j)
}

// loadItems reads job id's items from index from on.
func loadItems(ctx context.Context, pool *pgxpool.Pool, id string, from int) ([]json.RawMessage, error) {
	rows, err := pool.Query(ctx, `SELECT item FROM job_items WHERE job = $1 AND n >= $2 ORDER BY n`, id, from)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, rowToJSON)
}

// rowToJSON reads a row of one column, JSON text: an item, a unit's
// result.
func rowToJSON(row pgx.CollectableRow) (json.RawMessage, error) {
	var s string
	err := row.Scan(&s)
	return json.RawMessage(s), err
}

// Depth is how many plans and units of studies wait on the queue for a
// worker.
func (q *Queue) Depth(ctx context.Context) (int, error) { return depth(ctx, q.pool) }

// depth is how many plans and units wait on the queue in pool for a
// worker: labs and workers report it alike.
func depth(ctx context.Context, pool *pgxpool.Pool) (int, error) {
	var n int
	err := pool.QueryRow(ctx, `SELECT count(*) FROM river_job WHERE queue = $1 AND state IN ('available', 'retryable', 'scheduled')`, queueName).Scan(&n)
	return n, err
}
