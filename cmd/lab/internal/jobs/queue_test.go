package jobs

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"reflect"
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
// the result N) and block (one item, then wait for a cancel).
type testSpec struct {
	N     int
	Sleep time.Duration // between items
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

func testWorkOf(kind string, spec []byte) (Work, error) {
	sp, _, err := testDecode(kind, spec, nil)
	if err != nil {
		return nil, err
	}
	return testWork(kind, sp)
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
	pool := testPool(t, url)
	q, err := NewQueue(pool)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(q.Close)
	r := NewQueuedRunner(q, testDecode)
	t.Cleanup(r.Close)
	return lab{Runner: r, url: url}
}

// testPool opens the store at url (its migrations) and the queue's.
func testPool(t *testing.T, url string) *pgxpool.Pool {
	t.Helper()
	st, err := store.OpenPostgres(context.Background(), url, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if err := MigrateQueue(context.Background(), st.Pool()); err != nil {
		t.Fatal(err)
	}
	return st.Pool()
}

// startWorker runs a worker on the database at url until the test ends
// or stop is called.
func startWorker(t *testing.T, url string) (stop func()) {
	t.Helper()
	pool := testPool(t, url)
	w, err := NewWorker(pool, 1, testWorkOf, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	w.ReapEvery, w.Grace, w.Flush = 200*time.Millisecond, time.Second, 20*time.Millisecond
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := w.Run(ctx); err != nil {
			t.Errorf("worker: %v", err)
		}
	}()
	stop = func() {
		cancel()
		<-done
	}
	t.Cleanup(stop)
	return stop
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

// A worker that stops mid-job loses nothing: the job goes back on the
// queue, another worker runs it from its start, and the result and items
// are those of an uninterrupted run, none twice.
func TestQueueJobSurvivesItsWorker(t *testing.T) {
	url := pgtest.New(t)
	l := queuedLab(t, url)
	stopFirst := startWorker(t, url)
	j := l.start(t, "count", "dave", testSpec{N: 40, Sleep: 20 * time.Millisecond})
	waitItems(t, j, 5)
	stopFirst()
	startWorker(t, url)
	st := endedWithin(t, j, 60*time.Second)
	want := make([]string, 40)
	for i := range want {
		want[i] = fmt.Sprint(i + 1)
	}
	got := make([]string, len(st.Items))
	for i, it := range st.Items {
		got[i] = string(it)
	}
	if st.State != Done || !reflect.DeepEqual(got, want) {
		t.Errorf("after its worker stopped the job ended %s with items %v, want done with 1..40 once each", st.State, got)
	}
	if res, _ := j.Result(); res != 40 {
		t.Errorf("result %v, want 40", res)
	}
}
