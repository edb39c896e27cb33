package jobs

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"reflect"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"interplab/cmd/lab/internal/pgtest"
	"interplab/cmd/lab/internal/store"
)

func TestMain(m *testing.M) {
	code := m.Run()
	pgtest.Stop()
	os.Exit(code)
}

// testSpec is the spec of the test kinds: count (N items, 1 to N, then
// the result N) and block (one item, then wait for a cancel). On the
// queue, count is N units, unit i making item i after Sleep, planned in
// batches of Batch units (all at once when 0).
type testSpec struct {
	N     int
	Sleep time.Duration // between items
	Batch int
}

func testDecode(kind string, spec, result []byte) (any, any, error) {
	sp := new(testSpec)
	if err := json.Unmarshal(spec, sp); err != nil {
		return nil, nil, err
	}
	if result == nil {
		return sp, nil, nil
	}
	var n int
	err := json.Unmarshal(result, &n)
	return sp, n, err
}

// testWork is the test kinds' work in a lab's own process.
func testWork(kind string, spec any) (Work, error) {
	sp := spec.(*testSpec)
	switch kind {
	case "count":
		return func(ctx context.Context, progress func(any, int)) (any, error) {
			for i := 1; i <= sp.N; i++ {
				select {
				case <-ctx.Done():
					return nil, ctx.Err()
				case <-time.After(sp.Sleep):
				}
				progress(i, i)
			}
			return sp.N, nil
		}, nil
	case "block":
		return blocking, nil
	}
	return nil, fmt.Errorf("unknown kind %q", kind)
}

// runLog records which worker started and finished which unit.
type runLog struct {
	mu                sync.Mutex
	started, finished map[int][]string // unit → workers
}

func newRunLog() *runLog {
	return &runLog{started: map[int][]string{}, finished: map[int][]string{}}
}

func (l *runLog) add(m map[int][]string, unit int, worker string) {
	l.mu.Lock()
	m[unit] = append(m[unit], worker)
	l.mu.Unlock()
}

// running returns a unit worker has started and not finished, if any.
func (l *runLog) running(worker string) (int, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for u, ws := range l.started {
		if slices.Contains(ws, worker) && !slices.Contains(l.finished[u], worker) {
			return u, true
		}
	}
	return 0, false
}

// testUnits is the test kinds cut into units, as worker runs them.
type testUnits struct {
	kind   string
	sp     *testSpec
	worker string
	log    *runLog
}

func (u testUnits) Plan(state []byte, results []json.RawMessage) (Step, error) {
	planned := 0
	if state != nil {
		planned, _ = strconv.Atoi(string(state))
	}
	if planned != len(results) {
		return Step{}, fmt.Errorf("the state says %d units were planned, and there are %d results", planned, len(results))
	}
	switch u.kind {
	case "count":
		if planned == u.sp.N {
			sum := 0
			for _, r := range results {
				var i int
				json.Unmarshal(r, &i)
				sum += i
			}
			if sum != u.sp.N*(u.sp.N+1)/2 {
				return Step{}, fmt.Errorf("the units' results sum to %d", sum)
			}
			return Step{State: state, Result: u.sp.N}, nil
		}
		batch := u.sp.Batch
		if batch == 0 {
			batch = u.sp.N
		}
		var units []any
		for i := planned + 1; i <= min(planned+batch, u.sp.N); i++ {
			units = append(units, i)
		}
		return Step{State: []byte(strconv.Itoa(planned + len(units))), Units: units}, nil
	case "block":
		switch planned {
		case 0:
			return Step{State: []byte("1"), Units: []any{1}}, nil
		case 1:
			return Step{State: []byte("2"), Units: []any{0}}, nil // waits for a cancel
		}
		return Step{Result: 0}, nil
	}
	return Step{}, fmt.Errorf("unknown kind %q", u.kind)
}

func (u testUnits) Run(ctx context.Context, unit json.RawMessage) (any, error) {
	var i int
	if err := json.Unmarshal(unit, &i); err != nil {
		return nil, err
	}
	if u.log != nil {
		u.log.add(u.log.started, i, u.worker)
	}
	if i == 0 {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-time.After(u.sp.Sleep):
	}
	if u.log != nil {
		u.log.add(u.log.finished, i, u.worker)
	}
	return i, nil
}

func (u testUnits) Items(result json.RawMessage, done int) ([]any, error) {
	var i int
	err := json.Unmarshal(result, &i)
	return []any{i}, err
}

// testUnitsOf is the units of worker, recording what it runs in log (nil
// for none).
func testUnitsOf(worker string, log *runLog) UnitsOf {
	return func(kind string, spec []byte) (Units, error) {
		sp, _, err := testDecode(kind, spec, nil)
		if err != nil {
			return nil, err
		}
		if kind != "count" && kind != "block" {
			return nil, fmt.Errorf("unknown kind %q", kind)
		}
		return testUnits{kind: kind, sp: sp.(*testSpec), worker: worker, log: log}, nil
	}
}

// lab is what a test starts jobs through: a runner, and on PostgreSQL the
// database's address, so that more labs and workers can join.
type lab struct {
	*Runner
	url string
}

// eachRunner runs test with the in-process runner (SQLite's lab) and with
// a queued one on PostgreSQL with one worker, as subtests.
func eachRunner(t *testing.T, test func(t *testing.T, l lab)) {
	t.Run("memory", func(t *testing.T) {
		r, err := NewArchivedRunner(DefaultSlots, nil, testDecode)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(r.Close)
		test(t, lab{Runner: r})
	})
	t.Run("postgres", func(t *testing.T) {
		url := pgtest.New(t)
		l := queuedLab(t, url)
		startWorker(t, url)
		test(t, l)
	})
}

// queuedLab is a lab whose runner puts jobs on the queue of the database
// at url (migrated on first use).
func queuedLab(t *testing.T, url string) lab {
	t.Helper()
	st := testStore(t, url)
	q, err := NewQueue(st.Pool(), st, testDecode)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(q.Close)
	r := NewQueuedRunner(q)
	t.Cleanup(r.Close)
	return lab{Runner: r, url: url}
}

// testPool opens the store at url (its migrations) and the queue's, and
// returns its pool.
func testPool(t *testing.T, url string) *pgxpool.Pool {
	t.Helper()
	return testStore(t, url).Pool()
}

// testStore opens the store at url (its migrations) and the queue's.
func testStore(t *testing.T, url string) *store.DB {
	t.Helper()
	st, err := store.OpenPostgres(context.Background(), url, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if err := MigrateQueue(context.Background(), st.Pool()); err != nil {
		t.Fatal(err)
	}
	return st
}

// startWorker runs a worker on the database at url until the test ends
// or stop is called.
func startWorker(t *testing.T, url string) (stop func()) {
	t.Helper()
	return runWorker(t, testPool(t, url), testUnitsOf("", nil), nil)
}

// runWorker runs a worker on pool with units until the test ends or stop
// is called. A worker whose connections cut kills does not wait for its
// end, and its errors are not the test's.
func runWorker(t *testing.T, pool *pgxpool.Pool, units UnitsOf, cut *pgtest.Cut) (stop func()) {
	t.Helper()
	w, err := NewWorker(pool, 1, units, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	w.ReapEvery, w.Grace = 200*time.Millisecond, time.Second
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := w.Run(ctx); err != nil && cut == nil {
			t.Errorf("worker: %v", err)
		}
	}()
	stop = sync.OnceFunc(func() {
		cancel()
		if cut == nil {
			<-done
		}
	})
	t.Cleanup(stop)
	return stop
}

// namedWorker runs a worker recording in log as name what it runs, on a
// pool whose connections the returned Cut cuts as a kill -9 would.
func namedWorker(t *testing.T, url, name string, log *runLog) *pgtest.Cut {
	t.Helper()
	testPool(t, url) // the migrations
	pool, cut := pgtest.CuttablePool(t, url)
	runWorker(t, pool, testUnitsOf(name, log), cut)
	return cut
}

// start starts a test job of kind, for client.
func (l lab) start(t *testing.T, kind, client string, sp testSpec) *Job {
	t.Helper()
	work, _ := testWork(kind, &sp)
	j, err := l.Start(kind, client, sp.N, &sp, work)
	if err != nil {
		t.Fatalf("Start(%s) = %v", kind, err)
	}
	return j
}

func endedWithin(t *testing.T, j *Job, d time.Duration) Status {
	t.Helper()
	select {
	case <-j.Ended():
	case <-time.After(d):
		t.Fatalf("job %s did not end in %v: %+v", j.ID(), d, j.Status())
	}
	return j.Since(0)
}

// A job runs to its end, its items in order and its result, in the lab's
// process or on the queue alike; and Get finds it by id.
func TestJobRunsOnEitherRunner(t *testing.T) {
	eachRunner(t, func(t *testing.T, l lab) {
		j := l.start(t, "count", "alice", testSpec{N: 5, Sleep: time.Millisecond})
		st := endedWithin(t, j, 30*time.Second)
		if st.State != Done || st.Done != 5 || len(st.Items) != 5 {
			t.Fatalf("ended %+v, want done with 5 items", st)
		}
		for i, it := range st.Items {
			if string(it) != fmt.Sprint(i+1) {
				t.Errorf("item %d = %s, want %d", i, it, i+1)
			}
		}
		if res, state := j.Result(); state != Done || res != 5 {
			t.Errorf("Result() = %v, %s; want 5, done", res, state)
		}
		if got := l.Get(j.ID()); got == nil || got.Status().State != Done {
			t.Errorf("Get(%s) = %v, want the job, done", j.ID(), got)
		}
	})
}

// Cancel stops a running job; a client may run one job at a time.
func TestJobCancelAndPerClient(t *testing.T) {
	eachRunner(t, func(t *testing.T, l lab) {
		j := l.start(t, "block", "bob", testSpec{N: 1})
		waitItems(t, j, 1)
		if _, err := l.Start("count", "bob", 1, &testSpec{N: 1}, counting(1)); err != ErrClientBusy {
			t.Errorf("a second job for bob: %v, want ErrClientBusy", err)
		}
		j.Cancel()
		if st := endedWithin(t, j, 30*time.Second); st.State != Cancelled {
			t.Errorf("after Cancel the job is %s, want cancelled", st.State)
		}
		if _, err := l.Start("count", "bob", 1, &testSpec{N: 1}, counting(1)); err != nil {
			t.Errorf("bob's next job after the cancel: %v", err)
		}
	})
}

func waitItems(t *testing.T, j *Job, n int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for len(j.Since(0).Items) < n {
		if time.Now().After(deadline) {
			t.Fatalf("job %s has %d items after 30 s, want %d", j.ID(), len(j.Since(0).Items), n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// On the queue, a job started on one lab is followed and cancelled from
// another: its progress and state are the database's.
func TestQueueAcrossLabs(t *testing.T) {
	url := pgtest.New(t)
	a, b := queuedLab(t, url), queuedLab(t, url)
	startWorker(t, url)
	j := a.start(t, "count", "carol", testSpec{N: 20, Sleep: 5 * time.Millisecond})
	onB := b.Get(j.ID())
	if onB == nil {
		t.Fatal("lab B does not find the job lab A started")
	}
	st := endedWithin(t, onB, 30*time.Second)
	if st.State != Done || len(st.Items) != 20 {
		t.Errorf("on B the job ended %+v, want done with 20 items", st)
	}
	blocked := a.start(t, "block", "carol", testSpec{N: 1})
	other := b.Get(blocked.ID())
	waitItems(t, other, 1)
	other.Cancel()
	if st := endedWithin(t, blocked, 30*time.Second); st.State != Cancelled {
		t.Errorf("cancelled on B, the job on A is %s, want cancelled", st.State)
	}
}

// A worker that stops mid-unit loses nothing: the unit goes back on the
// queue and another worker runs it; the units already recorded are not
// run again, and the result and items are those of an uninterrupted run,
// none twice.
func TestQueueUnitsSurviveAStoppedWorker(t *testing.T) {
	url := pgtest.New(t)
	l := queuedLab(t, url)
	log := newRunLog()
	testPool(t, url)
	stopFirst := runWorker(t, testPool(t, url), testUnitsOf("first", log), nil)
	j := l.start(t, "count", "dave", testSpec{N: 40, Sleep: 20 * time.Millisecond, Batch: 8})
	waitItems(t, j, 5)
	stopFirst()
	runWorker(t, testPool(t, url), testUnitsOf("second", log), nil)
	st := endedWithin(t, j, 60*time.Second)
	checkCount(t, j, st, 40)
	again := 0
	for u, ws := range log.started {
		if len(log.finished[u]) != 1 {
			t.Errorf("unit %d finished on %v, want once", u, log.finished[u])
		}
		if len(ws) > 1 {
			again++
		}
	}
	if again > 1 {
		t.Errorf("%d units ran again after the first worker stopped, want at most the one it ran", again)
	}
}

// A worker killed mid-unit (its connections cut, as kill -9 cuts them)
// loses that unit only: the other worker finds its lock free, puts it back
// on the queue and runs it; the units recorded before are kept.
func TestQueueUnitSurvivesAKilledWorker(t *testing.T) {
	url := pgtest.New(t)
	l := queuedLab(t, url)
	log := newRunLog()
	killA := namedWorker(t, url, "A", log)
	j := l.start(t, "count", "erin", testSpec{N: 12, Sleep: 150 * time.Millisecond})
	waitItems(t, j, 2)
	var unit int
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		var ok bool
		if unit, ok = log.running("A"); ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("worker A ran no unit in 30 s")
		}
	}
	killA.Now()
	namedWorker(t, url, "B", log)
	st := endedWithin(t, j, 60*time.Second)
	checkCount(t, j, st, 12)
	log.mu.Lock()
	defer log.mu.Unlock()
	if ws := log.started[unit]; len(ws) < 2 || ws[len(ws)-1] != "B" {
		t.Errorf("unit %d, killed on A, started on %v: want it run again on B", unit, ws)
	}
	for u, ws := range log.started {
		if u != unit && len(ws) != 1 {
			t.Errorf("unit %d started on %v: want once, a unit recorded is kept", u, ws)
		}
	}
}

// The same study on one worker and on three gives the same result and
// items, and the three share its units.
func TestQueueSameOnOneAndThreeWorkers(t *testing.T) {
	spec := testSpec{N: 30, Sleep: 30 * time.Millisecond, Batch: 7}
	for _, workers := range []int{1, 3} {
		url := pgtest.New(t)
		l := queuedLab(t, url)
		log := newRunLog()
		for w := range workers {
			namedWorker(t, url, strconv.Itoa(w), log)
		}
		j := l.start(t, "count", "frank", spec)
		checkCount(t, j, endedWithin(t, j, 60*time.Second), spec.N)
		who := map[string]bool{}
		for _, ws := range log.finished {
			for _, w := range ws {
				who[w] = true
			}
		}
		if workers > 1 && len(who) < 2 {
			t.Errorf("%d workers: only %v ran units", workers, who)
		}
	}
}

// checkCount checks that a count job of n ended done, its result n and
// its items 1 to n once each, in the order their units finished.
func checkCount(t *testing.T, j *Job, st Status, n int) {
	t.Helper()
	got := make([]int, len(st.Items))
	for i, it := range st.Items {
		json.Unmarshal(it, &got[i])
	}
	slices.Sort(got)
	want := make([]int, n)
	for i := range want {
		want[i] = i + 1
	}
	if st.State != Done || st.Done != n || !reflect.DeepEqual(got, want) {
		t.Errorf("the job ended %s, done %d, with items %v; want done with 1..%d once each", st.State, st.Done, got, n)
	}
	if res, _ := j.Result(); res != n {
		t.Errorf("result %v, want %d", res, n)
	}
}
