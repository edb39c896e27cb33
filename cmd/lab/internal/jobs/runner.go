// Package jobs runs the lab's long work, sweeps, tunings and population
// runs, in the background: at most its slots at once (DefaultSlots unless
// lab serve -jobs says otherwise) and MaxPerClient for one client, each cancellable, its progress kept item by item and streamed
// to watchers over a WebSocket, the latest MaxKept ended jobs kept for their
// pages. A job nobody watches is cancelled: when its last watcher leaves, or
// after UnwatchedTimeout if nobody ever watched it. A job's work is a
// function the caller passes in; the runner knows nothing of what it
// computes, and a work that panics or makes a result that cannot be encoded
// fails its job alone.
package jobs

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"runtime/debug"
	"sync"
	"time"

	"github.com/gorilla/websocket"

	"interplab/cmd/lab/internal/obs"
	"interplab/cmd/lab/internal/store"
)

// Limits of a Runner.
const (
	// DefaultSlots is how many jobs run at once unless told (lab serve
	// -jobs), in [MinSlots, MaxSlots]; more fail with ErrBusy. A job uses
	// every core, so more slots share them, and a sweep takes longer.
	DefaultSlots, MinSlots, MaxSlots = 2, 1, 32
	MaxPerClient                     = 1  // jobs one client may have running, so nobody holds every slot; more fail with ErrClientBusy
	MaxKept                          = 32 // ended jobs kept, the oldest dropped first
	// UnwatchedTimeout is how long a running job may go without a
	// watcher (a progress WebSocket, or a status request) before it is
	// cancelled: a job started and forgotten must not hold a slot.
	UnwatchedTimeout = 60 * time.Second
)

// Job states.
const (
	Running     = "running"
	Done        = "done"
	Cancelled   = "cancelled"
	Failed      = "failed"
	Interrupted = "interrupted" // the lab stopped while it ran (Close, or a job from an archive of a process that ended)
)

// interruptedWhy is an interrupted job's error.
const interruptedWhy = "the lab stopped while it ran: start it again"

// ErrBusy is Start's error, wrapped with how many, when every slot runs a
// job.
var ErrBusy = errors.New("every job slot is taken")

// CheckSlots checks a number of job slots, as lab serve -jobs gives it.
func CheckSlots(n int) error {
	if n < MinSlots || n > MaxSlots {
		return fmt.Errorf("-jobs = %d is not allowed: want how many jobs run at once, in [%d, %d]", n, MinSlots, MaxSlots)
	}
	return nil
}

// ErrClientBusy is Start's error when the client has MaxPerClient jobs
// running.
var ErrClientBusy = fmt.Errorf("you have %d job running, the most one client may: wait for it to end or cancel it", MaxPerClient)

// Work is a job's work. It reports each finished result to progress, with
// how many are done, and returns the job's result and error: a context
// error when ctx was cancelled, with the partial result.
type Work func(ctx context.Context, progress func(item any, done int)) (any, error)

// Job is one sweep or tuning. Its fields below mu change as it runs.
type Job struct {
	id     string
	kind   string
	client string // who started it, for MaxPerClient
	total  int
	spec   any
	cancel context.CancelFunc
	ended  chan struct{} // closed when the job has ended

	mu       sync.Mutex
	done     int
	items    []json.RawMessage // results finished so far, in the order they finished
	state    string
	err      string
	result   any                        // set when ended (partial when cancelled)
	watchers map[chan struct{}]struct{} // each is notified (non-blocking, capacity 1) on progress
	left     bool                       // its last watcher left: it is being cancelled, not abandoned
	seen     time.Time                  // when it last had a watcher, or a status request
	created  time.Time

	queued bool // on the queue (queue.go): read back from the database, never cancelled unwatched
}

// Status is a job's state as GET /api/jobs/{id} answers it, and the fields
// every WebSocket message shares.
type Status struct {
	Type  string            `json:"type,omitempty"`
	Job   string            `json:"job"`
	Kind  string            `json:"kind"`
	State string            `json:"state"`
	Done  int               `json:"done"`
	Total int               `json:"total"`
	Error string            `json:"error,omitempty"`
	Items []json.RawMessage `json:"items,omitempty"`
}

// ID is the job's id: 16 hex digits.
func (j *Job) ID() string { return j.id }

// Kind is what Start was given: "sweep" or "tune".
func (j *Job) Kind() string { return j.kind }

// Total is how many results the job makes when it runs to its end.
func (j *Job) Total() int { return j.total }

// Spec is what the job was asked, as Start was given it, for its pages.
func (j *Job) Spec() any { return j.spec }

// Cancel stops the job; an ended job is left as it is.
func (j *Job) Cancel() { j.cancel() }

// Ended is closed when the job has ended.
func (j *Job) Ended() <-chan struct{} { return j.ended }

// Status returns the job's state without its items.
func (j *Job) Status() Status {
	j.mu.Lock()
	defer j.mu.Unlock()
	return Status{Job: j.id, Kind: j.kind, State: j.state, Done: j.done, Total: j.total, Error: j.err}
}

// Since returns the status with the items from index from on, in the order
// they finished.
func (j *Job) Since(from int) Status {
	j.mu.Lock()
	defer j.mu.Unlock()
	st := Status{Job: j.id, Kind: j.kind, State: j.state, Done: j.done, Total: j.total, Error: j.err}
	if from < len(j.items) {
		st.Items = j.items[from:len(j.items):len(j.items)]
	}
	return st
}

// Touch tells the job somebody is watching it (a status request), which
// keeps it from being cancelled as unwatched for UnwatchedTimeout.
func (j *Job) Touch(now time.Time) {
	j.mu.Lock()
	j.seen = now
	j.mu.Unlock()
}

// unwatchedSince tells whether the job is running without a watcher and
// was last seen before cutoff.
func (j *Job) unwatchedSince(cutoff time.Time) bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.state == Running && len(j.watchers) == 0 && !j.left && j.seen.Before(cutoff)
}

// Result returns the work's result and the job's state; the result is nil
// while the job runs.
func (j *Job) Result() (any, string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.result, j.state
}

// progress records one finished result; the work calls it from one
// goroutine. An item that does not encode fails the job.
func (j *Job) progress(item any, done int) {
	data, err := json.Marshal(item)
	j.mu.Lock()
	defer j.mu.Unlock()
	if err != nil {
		if j.err == "" {
			j.err = "encode a result: " + err.Error()
		}
		j.cancel()
		return
	}
	j.items = append(j.items, data)
	j.done = done
	j.notifyLocked()
}

func (j *Job) notifyLocked() {
	for ch := range j.watchers {
		select {
		case ch <- struct{}{}:
		default: // already notified; the writer reads everything new
		}
	}
}

// watch adds a watcher and returns its notification channel, notified once
// at once.
func (j *Job) watch() chan struct{} {
	ch := make(chan struct{}, 1)
	ch <- struct{}{}
	j.mu.Lock()
	j.watchers[ch] = struct{}{}
	j.mu.Unlock()
	return ch
}

// unwatch removes a watcher; the last one leaving cancels a running job.
func (j *Job) unwatch(ch chan struct{}) {
	j.mu.Lock()
	delete(j.watchers, ch)
	last := len(j.watchers) == 0 && j.state == Running && !j.queued
	j.left = j.left || last // the sweep must not fail it as unwatched meanwhile
	j.mu.Unlock()
	if last {
		j.cancel()
	}
}

// execute runs the job's work to its end and records how it ended. It is
// the one place a job's work runs: a work that panics fails its job (the
// panic is logged with its stack), and so does a result that cannot be
// encoded (a NaN or an infinity in it), never the process. A work
// cancelled because the runner closes (stop is done) was interrupted, not
// cancelled.
func (j *Job) execute(ctx context.Context, work Work, stop <-chan struct{}) {
	res, err := j.run(ctx, work)
	if err == nil {
		if _, merr := json.Marshal(res); merr != nil {
			res, err = nil, fmt.Errorf("encode the result: %w", merr)
		}
	}
	j.cancel()
	j.mu.Lock()
	defer j.mu.Unlock()
	j.result = res
	switch {
	case j.err != "":
		j.state = Failed
	case err == nil:
		j.state = Done
	case errors.Is(err, context.Canceled) && closed(stop):
		j.state, j.err = Interrupted, interruptedWhy
	case errors.Is(err, context.Canceled):
		j.state = Cancelled
	default:
		j.state, j.err = Failed, err.Error()
	}
	j.notifyLocked()
}

// closed tells whether ch is closed.
func closed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// run calls work, turning a panic into an error.
func (j *Job) run(ctx context.Context, work Work) (res any, err error) {
	defer func() {
		if p := recover(); p != nil {
			log.Printf("lab: %s job %s: panic: %v\n%s", j.kind, j.id, p, debug.Stack())
			res, err = nil, fmt.Errorf("internal error: %v", p)
		}
	}()
	return work(ctx, j.progress)
}

// Archive keeps jobs beyond the process (store.Jobs is one): the runner
// records each job when it starts and when it ends, a finished one with
// its result, and looks there for a job it no longer holds, so a job's page
// survives a restart. A cancelled or failed job is recorded without a
// partial result: nothing half-done is kept.
type Archive interface {
	SaveJob(j store.Job) error
	LoadJob(id string) (store.Job, error)
}

// Decoder turns an archived job's spec and result (JSON, as the runner
// encoded what Start was given and what the work returned) back into
// values of the types the caller uses; result is nil for a job that did
// not finish.
type Decoder func(kind string, spec, result []byte) (specV, resultV any, err error)

// Runner keeps the jobs: at most its slots running, and the MaxKept latest
// ended ones.
type Runner struct {
	slots    int             // jobs running at once
	base     context.Context // cancelled by Close
	stop     context.CancelFunc
	upgrader *websocket.Upgrader
	swept    chan struct{} // closed when the sweeper has stopped

	// now and unwatched are time.Now and UnwatchedTimeout but in tests.
	now       func() time.Time
	unwatched time.Duration

	archive Archive // nil: the jobs live as long as the process
	decode  Decoder
	queue   *Queue // non-nil: the jobs run on the queue, by workers (queue.go)

	mu      sync.Mutex
	jobs    map[string]*Job
	order   []string // ids, oldest first
	running int
}

// NewRunner returns a runner of slots jobs at once (CheckSlots), with no
// jobs. Close it to stop its jobs.
func NewRunner(slots int) (*Runner, error) {
	if err := CheckSlots(slots); err != nil {
		return nil, err
	}
	return newRunner(slots, time.Now, UnwatchedTimeout, time.Second), nil
}

// NewArchivedRunner is NewRunner with an archive of its jobs, and the
// decoder of what it holds.
func NewArchivedRunner(slots int, a Archive, decode Decoder) (*Runner, error) {
	r, err := NewRunner(slots)
	if err != nil {
		return nil, err
	}
	r.archive, r.decode = a, decode
	return r, nil
}

// NewQueuedRunner returns a runner whose jobs run on q, by workers, and
// are read back from the database with q's decoder: Start puts a job on
// the queue, Get reads any lab's job. It has no slots: the queue holds
// what the workers have not taken yet.
func NewQueuedRunner(q *Queue) *Runner {
	r := newRunner(MaxSlots, time.Now, UnwatchedTimeout, time.Second)
	r.queue = q
	return r
}

// newRunner returns a runner of slots jobs at once on the clock now that
// cancels jobs unwatched for longer than unwatched, looking every period.
func newRunner(slots int, now func() time.Time, unwatched, period time.Duration) *Runner {
	ctx, stop := context.WithCancel(context.Background())
	r := &Runner{slots: slots, base: ctx, stop: stop, upgrader: newUpgrader(), swept: make(chan struct{}),
		now: now, unwatched: unwatched, jobs: map[string]*Job{}}
	go r.sweep(period)
	return r
}

// sweep cancels, every period, the running jobs unwatched for longer than
// r.unwatched, until the runner closes.
func (r *Runner) sweep(period time.Duration) {
	defer close(r.swept)
	tick := time.NewTicker(period)
	defer tick.Stop()
	for {
		select {
		case <-r.base.Done():
			return
		case <-tick.C:
		}
		cutoff := r.now().Add(-r.unwatched)
		r.mu.Lock()
		var stale []*Job
		for _, j := range r.jobs {
			if j.unwatchedSince(cutoff) {
				stale = append(stale, j)
			}
		}
		r.mu.Unlock()
		for _, j := range stale {
			j.fail(fmt.Sprintf("cancelled: nobody watched it for %v", r.unwatched))
		}
	}
}

// fail ends a running job as failed with the reason why.
func (j *Job) fail(why string) {
	j.mu.Lock()
	if j.err == "" {
		j.err = why
	}
	j.mu.Unlock()
	j.cancel()
}

// Close stops every running job, which ends interrupted, and waits for
// them to end.
func (r *Runner) Close() {
	r.stop()
	<-r.swept
	r.mu.Lock()
	var all []*Job
	for _, j := range r.jobs {
		all = append(all, j)
	}
	r.mu.Unlock()
	for _, j := range all {
		<-j.ended
	}
}

// Get returns the job with id, or nil: one this runner holds, or one from
// its archive, ended (a job archived as running was interrupted by the
// end of its process).
func (r *Runner) Get(id string) *Job {
	if r.queue != nil {
		return r.queue.get(id)
	}
	r.mu.Lock()
	j := r.jobs[id]
	r.mu.Unlock()
	if j != nil || r.archive == nil {
		return j
	}
	rec, err := r.archive.LoadJob(id)
	if err != nil {
		if !errors.Is(err, store.ErrJobNotFound) {
			log.Printf("lab: load job %s: %v", id, err)
		}
		return nil
	}
	spec, result, err := r.decode(rec.Kind, rec.Spec, rec.Result)
	if err != nil {
		log.Printf("lab: load job %s: %v", id, err)
		return nil
	}
	j = &Job{id: rec.ID, kind: rec.Kind, total: rec.Total, spec: spec, cancel: func() {},
		ended: make(chan struct{}), done: rec.Done, state: rec.State, err: rec.Error, result: result,
		watchers: map[chan struct{}]struct{}{}}
	if j.state == Running {
		j.state, j.err = Interrupted, interruptedWhy
	}
	close(j.ended)
	return j
}

// record is j's archive record; with its result when it finished.
func (j *Job) record(now time.Time) store.Job {
	spec, _ := json.Marshal(j.spec)
	j.mu.Lock()
	defer j.mu.Unlock()
	rec := store.Job{ID: j.id, Kind: j.kind, State: j.state, Error: j.err, Done: j.done, Total: j.total,
		Spec: spec, Created: j.created}
	if j.state != Running {
		rec.Ended = now
	}
	if j.state == Done {
		rec.Result, _ = json.Marshal(j.result) // execute checked that it encodes
	}
	return rec
}

// save records j in the archive, if there is one.
func (r *Runner) save(j *Job) {
	if r.archive == nil {
		return
	}
	if err := r.archive.SaveJob(j.record(r.now())); err != nil {
		log.Printf("lab: record job %s: %v", j.id, err)
	}
}

// Start runs work as a job of total results in a goroutine of its own,
// for client (who asks: an address or a user; "" for the command line);
// kind and spec are kept for the job's pages. It fails with ErrBusy when
// every slot runs a job, and with ErrClientBusy when client has
// MaxPerClient running.
func (r *Runner) Start(kind, client string, total int, spec any, work Work) (*Job, error) {
	if r.queue != nil {
		return r.queue.start(kind, client, total, spec, r.now())
	}
	ctx, cancel := context.WithCancel(r.base)
	j := &Job{id: newJobID(), kind: kind, client: client, total: total, spec: spec, cancel: cancel,
		ended: make(chan struct{}), state: Running, watchers: map[chan struct{}]struct{}{}, seen: r.now(), created: r.now()}
	r.mu.Lock()
	if r.running >= r.slots {
		r.mu.Unlock()
		cancel()
		return nil, fmt.Errorf("%w: %d jobs are running, the most this lab runs at once (lab serve -jobs): wait for one to end or cancel it", ErrBusy, r.slots)
	}
	mine := 0
	for _, o := range r.jobs {
		if o.client == client && o.Status().State == Running {
			mine++
		}
	}
	if mine >= MaxPerClient {
		r.mu.Unlock()
		cancel()
		return nil, ErrClientBusy
	}
	r.running++
	r.jobs[j.id] = j
	r.order = append(r.order, j.id)
	r.mu.Unlock()
	r.save(j)

	go func() {
		started := time.Now()
		j.execute(ctx, work, r.base.Done())
		if _, state := j.Result(); state == Done {
			obs.JobSeconds.WithLabelValues(kind).Observe(time.Since(started).Seconds())
		}
		r.save(j)
		close(j.ended)
		r.mu.Lock()
		r.running--
		r.evictLocked()
		r.mu.Unlock()
	}()
	return j, nil
}

// newJobID returns a new job's id: 8 random bytes in 16 hex digits.
func newJobID() string {
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// evictLocked drops the oldest ended jobs beyond MaxKept.
func (r *Runner) evictLocked() {
	ended := 0
	for _, id := range r.order {
		if r.jobs[id].Status().State != Running {
			ended++
		}
	}
	for i := 0; ended > MaxKept && i < len(r.order); {
		id := r.order[i]
		if r.jobs[id].Status().State == Running {
			i++
			continue
		}
		delete(r.jobs, id)
		r.order = append(r.order[:i], r.order[i+1:]...)
		ended--
	}
}
