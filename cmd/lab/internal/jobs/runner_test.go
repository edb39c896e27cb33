package jobs

import (
	"context"
	"errors"
	"math"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// counting reports n items, 1 to n, and returns n.
func counting(n int) Work {
	return func(ctx context.Context, progress func(any, int)) (any, error) {
		for i := 1; i <= n; i++ {
			progress(i, i)
		}
		return n, nil
	}
}

// blocking runs until cancelled, after reporting one item.
func blocking(ctx context.Context, progress func(any, int)) (any, error) {
	progress("started", 1)
	<-ctx.Done()
	return "partial", ctx.Err()
}

func runner(t *testing.T) *Runner {
	t.Helper()
	r, err := NewRunner(DefaultSlots)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	return r
}

func ended(t *testing.T, j *Job) Status {
	t.Helper()
	select {
	case <-j.Ended():
	case <-time.After(5 * time.Second):
		t.Fatalf("job %s did not end", j.ID())
	}
	return j.Since(0)
}

func TestJobEnds(t *testing.T) {
	r := runner(t)
	tests := []struct {
		name   string
		work   Work
		cancel bool
		state  string
		result any
		items  int
		err    string
	}{
		{name: "done", work: counting(3), state: Done, result: 3, items: 3},
		{name: "failed", work: func(context.Context, func(any, int)) (any, error) { return nil, errors.New("no luck") },
			state: Failed, err: "no luck"},
		{name: "cancelled", work: blocking, cancel: true, state: Cancelled, result: "partial", items: 1},
		{name: "an item that does not encode", work: func(ctx context.Context, progress func(any, int)) (any, error) {
			progress(math.NaN(), 1)
			<-ctx.Done()
			return nil, ctx.Err()
		}, state: Failed, err: "encode a result"},
		// The tuner's cost once reached +Inf, which did not encode, and the
		// runner's goroutine took the process down with it.
		{name: "a result that does not encode", work: func(context.Context, func(any, int)) (any, error) {
			return map[string]float64{"cost": math.Inf(1)}, nil
		}, state: Failed, err: "encode the result"},
		{name: "a work that panics", work: func(context.Context, func(any, int)) (any, error) {
			panic("engine: a bug")
		}, state: Failed, err: "internal error: engine: a bug"},
	}
	for _, tt := range tests {
		j, err := r.Start("sweep", tt.name, 3, tt.name, tt.work)
		if err != nil {
			t.Fatalf("%s: Start = %v", tt.name, err)
		}
		if tt.cancel {
			j.Cancel()
		}
		st := ended(t, j)
		res, state := j.Result()
		if st.State != tt.state || state != tt.state || len(st.Items) != tt.items || !strings.Contains(st.Error, tt.err) || res != tt.result {
			t.Errorf("%s: ended %+v with result %v, want %s with %d items, result %v, error %q",
				tt.name, st, res, tt.state, tt.items, tt.result, tt.err)
		}
		if r.Get(j.ID()) != j || j.Spec() != tt.name || j.Kind() != "sweep" || j.Total() != 3 {
			t.Errorf("%s: the runner does not keep the job as started", tt.name)
		}
	}
}

func TestRunnerBusy(t *testing.T) {
	r := runner(t)
	var running []*Job
	for i := range DefaultSlots {
		j, err := r.Start("sweep", "client"+strconv.Itoa(i), 1, nil, blocking)
		if err != nil {
			t.Fatal(err)
		}
		running = append(running, j)
	}
	if _, err := r.Start("sweep", "another", 1, nil, blocking); !errors.Is(err, ErrBusy) {
		t.Errorf("job %d: Start = %v, want ErrBusy", DefaultSlots+1, err)
	}
	running[0].Cancel()
	ended(t, running[0])
	if _, err := r.Start("sweep", "another", 1, nil, counting(1)); err != nil {
		t.Errorf("Start after one ended = %v", err)
	}
}

func TestRunnerKeepsTheLatest(t *testing.T) {
	r := runner(t)
	var first, last *Job
	for i := range MaxKept + 3 {
		j, err := r.Start("tune", "", 1, nil, counting(1))
		if err != nil {
			t.Fatal(err)
		}
		ended(t, j)
		if i == 0 {
			first = j
		}
		last = j
	}
	// The runner evicts after the job's end is visible: wait for it.
	for deadline := time.Now().Add(5 * time.Second); r.Get(first.ID()) != nil; {
		if time.Now().After(deadline) {
			t.Fatal("the oldest ended job is still kept")
		}
		runtime.Gosched()
	}
	if r.Get(last.ID()) == nil {
		t.Error("the latest job is gone")
	}
}

// Close (the lab stopping) interrupts the running jobs: nobody cancelled
// them, and the README tells designers to start them again.
func TestRunnerCloseInterrupts(t *testing.T) {
	r, err := NewRunner(DefaultSlots)
	if err != nil {
		t.Fatal(err)
	}
	j, err := r.Start("sweep", "", 1, nil, blocking)
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	if st := j.Status(); st.State != Interrupted || st.Error == "" {
		t.Errorf("after Close the job is %s (%q), want interrupted with why", st.State, st.Error)
	}
}

// wsServer serves the progress WebSocket of any job of r at /ws/{id}.
func wsServer(t *testing.T, r *Runner) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if j := r.Get(strings.TrimPrefix(req.URL.Path, "/ws/")); j != nil {
			r.ServeWS(w, req, j)
		}
	}))
	t.Cleanup(srv.Close)
	return "ws" + strings.TrimPrefix(srv.URL, "http") + "/ws/"
}

func dialJob(t *testing.T, ws string, j *Job) *websocket.Conn {
	t.Helper()
	c, _, err := websocket.DefaultDialer.Dial(ws+j.ID(), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	return c
}

func TestServeWSStreamsToTheEnd(t *testing.T) {
	r := runner(t)
	ws := wsServer(t, r)
	j, _ := r.Start("sweep", "", 4, nil, counting(4))
	ended(t, j)
	c := dialJob(t, ws, j)
	var progress, end Status
	if err := c.ReadJSON(&progress); err != nil || progress.Type != "progress" || len(progress.Items) != 4 {
		t.Fatalf("first message %+v, %v; want the progress with every item", progress, err)
	}
	if err := c.ReadJSON(&end); err != nil || end.Type != "end" || end.State != Done || end.Done != 4 {
		t.Fatalf("second message %+v, %v; want the end", end, err)
	}
	if _, _, err := c.ReadMessage(); !websocket.IsCloseError(err, websocket.CloseNormalClosure) {
		t.Errorf("after the end: %v, want a normal close", err)
	}
}

func TestServeWSCancels(t *testing.T) {
	r := runner(t)
	ws := wsServer(t, r)

	// A cancel message.
	j, _ := r.Start("sweep", "", 2, nil, blocking)
	c := dialJob(t, ws, j)
	if err := c.WriteJSON(map[string]string{"type": "cancel"}); err != nil {
		t.Fatal(err)
	}
	if st := ended(t, j); st.State != Cancelled {
		t.Errorf("after a cancel message the job is %s", st.State)
	}

	// The last watcher leaving.
	j, _ = r.Start("sweep", "", 2, nil, blocking)
	c = dialJob(t, ws, j)
	var first Status
	if err := c.ReadJSON(&first); err != nil || first.State != Running {
		t.Fatalf("first message %+v, %v", first, err)
	}
	c.Close()
	if st := ended(t, j); st.State != Cancelled {
		t.Errorf("after its only watcher left the job is %s", st.State)
	}
}

// A frame that is not UTF-8 closes the connection with 1007.
func TestServeWSRefusesInvalidUTF8(t *testing.T) {
	r := runner(t)
	ws := wsServer(t, r)
	j, _ := r.Start("sweep", "", 2, nil, blocking)
	defer j.Cancel()
	c := dialJob(t, ws, j)
	if err := c.WriteMessage(websocket.TextMessage, []byte("{\"type\":\"can\xffcel\"}")); err != nil {
		t.Fatal(err)
	}
	for {
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		if _, _, err := c.ReadMessage(); err != nil {
			if !websocket.IsCloseError(err, websocket.CloseInvalidFramePayloadData) {
				t.Errorf("after invalid UTF-8: %v, want close 1007", err)
			}
			return
		}
	}
}

func TestRunnerPerClient(t *testing.T) {
	r := runner(t)
	a, err := r.Start("sweep", "10.0.0.7", 1, nil, blocking)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Start("tune", "10.0.0.7", 1, nil, blocking); !errors.Is(err, ErrClientBusy) {
		t.Errorf("a second job for one client: Start = %v, want ErrClientBusy", err)
	}
	b, err := r.Start("tune", "10.0.0.8", 1, nil, blocking)
	if err != nil {
		t.Errorf("another client's job: Start = %v", err)
	} else {
		b.Cancel()
	}
	a.Cancel()
	ended(t, a)
	if j, err := r.Start("tune", "10.0.0.7", 1, nil, counting(1)); err != nil {
		t.Errorf("the client's next job after its first ended: Start = %v", err)
	} else {
		ended(t, j)
	}
}

// A job nobody watches is cancelled after the timeout; one that is watched,
// or whose status is asked for, runs on.
func TestRunnerCancelsUnwatched(t *testing.T) {
	var mu sync.Mutex
	now := time.Unix(1000, 0)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	r := newRunner(DefaultSlots, clock, time.Minute, 5*time.Millisecond)
	t.Cleanup(r.Close)

	forgotten, _ := r.Start("sweep", "a", 1, nil, blocking)
	polled, _ := r.Start("sweep", "b", 1, nil, blocking)
	advance(50 * time.Second)
	polled.Touch(clock())
	advance(20 * time.Second) // forgotten: 70 s unseen; polled: 20 s
	st := ended(t, forgotten)
	if st.State != Failed || !strings.Contains(st.Error, "nobody watched it") {
		t.Errorf("an unwatched job ended %+v, want failed as unwatched", st)
	}
	time.Sleep(50 * time.Millisecond) // several sweeps of the runner
	if st := polled.Status(); st.State != Running {
		t.Errorf("a job polled 20 s ago is %s, want running", st.State)
	}
	ch := polled.watch()
	advance(10 * time.Minute)
	time.Sleep(50 * time.Millisecond)
	if st := polled.Status(); st.State != Running {
		t.Errorf("a watched job is %s, want running", st.State)
	}
	polled.unwatch(ch) // the last watcher leaving cancels it at once
	if st := ended(t, polled); st.State != Cancelled {
		t.Errorf("after its last watcher left the job is %s, want cancelled", st.State)
	}
}
