package main

// Jobs: sweeps and tunings run on the server, on every core, for seconds to
// minutes. A job starts with POST /api/sweeps or POST /api/tunes, which
// answer 202 with its id at once; its progress streams over a WebSocket at
// /ws/jobs/{id}, with the results finished so far.
//
// The protocol is text frames holding one JSON object each.
//
// Server to client:
//
//	{"type":"progress","job":"a1b2c3d4e5f6a7b8","kind":"sweep","state":"running","done":12,"total":40,"items":[...]}
//
// Sent on connect (with every result finished so far) and whenever more
// have finished since the last message: items holds only the new ones, in
// the order they finished. A sweep's item is an engine.SweepPoint; a
// tuning's is a tuneItem (the candidate's number, cost, feasibility, added
// latency and aligned error). A slow client gets fewer, larger messages,
// never a gap.
//
//	{"type":"end","job":"...","kind":"sweep","state":"done","done":40,"total":40}
//
// The job ended: state is done, cancelled or failed (with "error"). The
// server then closes the connection normally. A client that connects to
// an ended job gets its progress and its end at once.
//
// Client to server:
//
//	{"type":"cancel"}
//
// Cancel the job (as POST /api/jobs/{id}/cancel does). Anything else is
// ignored. When the last client watching a running job disconnects, the job
// is cancelled: nobody is left to see it.
//
// Close codes: 1000 after the end message, 1001 when the server shuts down,
// 1009 for a message over jobMaxMessageSize bytes.

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"interplab/cmd/lab/internal/jsonapi"

	"github.com/gorilla/websocket"
)

// The progress WebSocket's timing and size limits.
const (
	jobWriteWait      = 10 * time.Second     // time allowed to write a message to a client
	jobPongWait       = 60 * time.Second     // time allowed between pongs from a client
	jobPingPeriod     = jobPongWait * 9 / 10 // pings go out this often; less than jobPongWait
	jobMaxMessageSize = 4096                 // largest message a client may send, bytes
)

// Job limits.
const (
	jobMaxRunning = 2        // jobs running at once; more get 429
	jobMaxKept    = 32       // ended jobs kept for their pages, oldest dropped first
	jobMaxBody    = 64 << 10 // largest request body of POST /api/sweeps and /api/tunes, bytes

	// jobMaxWork bounds one job, in entity-frames, each run counting at
	// least compareCostEntities entities: 4e8 is about 3 to 10 minutes of
	// one core (compareMaxWork's measure), a 1,000-point sweep of the
	// default 60 s scenario needs 1.2e8.
	jobMaxWork = 4e8
)

// Job states.
const (
	jobRunning   = "running"
	jobDone      = "done"
	jobCancelled = "cancelled"
	jobFailed    = "failed"
)

// errJobsBusy is returned when jobMaxRunning jobs are running.
var errJobsBusy = fmt.Errorf("%d jobs are running: wait for one to end or cancel it", jobMaxRunning)

// job is one sweep or tuning. Its fields below mu change as it runs.
type job struct {
	id     string
	kind   string // "sweep" or "tune"
	total  int
	spec   any // *sweepJob or *tuneJob: what was asked, for the pages
	cancel context.CancelFunc
	ended  chan struct{} // closed when the job has ended

	mu       sync.Mutex
	done     int
	items    []json.RawMessage // results finished so far, in the order they finished
	state    string
	err      string
	result   any                        // set when ended: []engine.SweepPoint or engine.TuneResult (partial when cancelled)
	watchers map[chan struct{}]struct{} // each is notified (non-blocking, capacity 1) on progress
	watched  bool                       // at least one client has watched
}

// jobStatus is GET /api/jobs/{id} and the fields every WebSocket message
// shares.
type jobStatus struct {
	Type  string            `json:"type,omitempty"`
	Job   string            `json:"job"`
	Kind  string            `json:"kind"`
	State string            `json:"state"`
	Done  int               `json:"done"`
	Total int               `json:"total"`
	Error string            `json:"error,omitempty"`
	Items []json.RawMessage `json:"items,omitempty"`
}

func (j *job) status() jobStatus {
	j.mu.Lock()
	defer j.mu.Unlock()
	return jobStatus{Job: j.id, Kind: j.kind, State: j.state, Done: j.done, Total: j.total, Error: j.err}
}

// since returns the status with the items from index from on.
func (j *job) since(from int) jobStatus {
	j.mu.Lock()
	defer j.mu.Unlock()
	st := jobStatus{Job: j.id, Kind: j.kind, State: j.state, Done: j.done, Total: j.total, Error: j.err}
	if from < len(j.items) {
		st.Items = j.items[from:len(j.items):len(j.items)]
	}
	return st
}

// progress records one finished result; run calls it from one goroutine.
func (j *job) progress(item any, done int) {
	data, err := json.Marshal(item)
	if err != nil {
		panic("lab: job item does not marshal: " + err.Error())
	}
	j.mu.Lock()
	j.items = append(j.items, data)
	j.done = done
	j.notifyLocked()
	j.mu.Unlock()
}

func (j *job) notifyLocked() {
	for ch := range j.watchers {
		select {
		case ch <- struct{}{}:
		default: // already notified; the writer reads everything new
		}
	}
}

// results returns the result and the state once the job has ended.
func (j *job) results() (any, string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.result, j.state
}

// watch adds a watcher and returns its notification channel, notified once
// at once.
func (j *job) watch() chan struct{} {
	ch := make(chan struct{}, 1)
	ch <- struct{}{}
	j.mu.Lock()
	j.watchers[ch] = struct{}{}
	j.watched = true
	j.mu.Unlock()
	return ch
}

// unwatch removes a watcher; the last one leaving cancels a running job.
func (j *job) unwatch(ch chan struct{}) {
	j.mu.Lock()
	delete(j.watchers, ch)
	last := len(j.watchers) == 0 && j.state == jobRunning
	j.mu.Unlock()
	if last {
		j.cancel()
	}
}

// jobManager keeps the jobs: at most jobMaxRunning running, and the
// jobMaxKept latest ended ones.
type jobManager struct {
	base     context.Context // cancelled by Close
	stop     context.CancelFunc
	upgrader websocket.Upgrader

	mu      sync.Mutex
	jobs    map[string]*job
	order   []string // ids, oldest first
	running int
}

func newJobManager() *jobManager {
	ctx, stop := context.WithCancel(context.Background())
	m := &jobManager{base: ctx, stop: stop, jobs: map[string]*job{}}
	m.upgrader = websocket.Upgrader{
		ReadBufferSize:  1024,
		WriteBufferSize: 4096,
		// CheckOrigin nil: same origin only.
		Error: func(w http.ResponseWriter, r *http.Request, status int, reason error) {
			w.Header().Set("Sec-Websocket-Version", "13")
			jsonapi.WriteError(w, &jsonapi.Error{Status: status, Msg: reason.Error()})
		},
	}
	return m
}

// Close cancels every running job and waits for them to end.
func (m *jobManager) Close() {
	m.stop()
	m.mu.Lock()
	var running []*job
	for _, j := range m.jobs {
		running = append(running, j)
	}
	m.mu.Unlock()
	for _, j := range running {
		<-j.ended
	}
}

// get returns the job with id, or nil.
func (m *jobManager) get(id string) *job {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.jobs[id]
}

// start runs a job of total results in its own goroutine: run reports each
// finished result to progress and returns the job's result and error (a
// context error when cancelled). It fails with errJobsBusy when
// jobMaxRunning jobs are running.
func (m *jobManager) start(kind string, total int, spec any, run func(ctx context.Context, progress func(item any, done int)) (any, error)) (*job, error) {
	var b [8]byte
	rand.Read(b[:])
	ctx, cancel := context.WithCancel(m.base)
	j := &job{id: hex.EncodeToString(b[:]), kind: kind, total: total, spec: spec, cancel: cancel,
		ended: make(chan struct{}), state: jobRunning, watchers: map[chan struct{}]struct{}{}}
	m.mu.Lock()
	if m.running >= jobMaxRunning {
		m.mu.Unlock()
		cancel()
		return nil, errJobsBusy
	}
	m.running++
	m.jobs[j.id] = j
	m.order = append(m.order, j.id)
	m.mu.Unlock()

	go func() {
		res, err := run(ctx, j.progress)
		cancel()
		j.mu.Lock()
		j.result = res
		switch {
		case err == nil:
			j.state = jobDone
		case errors.Is(err, context.Canceled):
			j.state = jobCancelled
		default:
			j.state, j.err = jobFailed, err.Error()
		}
		j.notifyLocked()
		j.mu.Unlock()
		close(j.ended)
		m.mu.Lock()
		m.running--
		m.evictLocked()
		m.mu.Unlock()
	}()
	return j, nil
}

// evictLocked drops the oldest ended jobs beyond jobMaxKept.
func (m *jobManager) evictLocked() {
	ended := 0
	for _, id := range m.order {
		if m.jobs[id].status().State != jobRunning {
			ended++
		}
	}
	for i := 0; ended > jobMaxKept && i < len(m.order); {
		id := m.order[i]
		if m.jobs[id].status().State == jobRunning {
			i++
			continue
		}
		delete(m.jobs, id)
		m.order = append(m.order[:i], m.order[i+1:]...)
		ended--
	}
}

// handleStatus is GET /api/jobs/{id}.
func (m *jobManager) handleStatus(w http.ResponseWriter, r *http.Request) {
	j := m.get(r.PathValue("id"))
	if j == nil {
		jsonapi.WriteError(w, &jsonapi.Error{Status: http.StatusNotFound, Msg: "no such job", Field: "id"})
		return
	}
	jsonapi.WriteJSON(w, http.StatusOK, j.status())
}

// jobCancelWait is how long POST /api/jobs/{id}/cancel waits for the job
// to stop before answering; the engine stops within milliseconds.
const jobCancelWait = 5 * time.Second

// handleCancel is POST /api/jobs/{id}/cancel: it cancels the job and
// answers its status once it has ended (an ended job is left as it is).
func (m *jobManager) handleCancel(w http.ResponseWriter, r *http.Request) {
	j := m.get(r.PathValue("id"))
	if j == nil {
		jsonapi.WriteError(w, &jsonapi.Error{Status: http.StatusNotFound, Msg: "no such job", Field: "id"})
		return
	}
	j.cancel()
	select {
	case <-j.ended:
	case <-time.After(jobCancelWait):
	case <-r.Context().Done():
		return
	}
	jsonapi.WriteJSON(w, http.StatusOK, j.status())
}

// handleWS is GET /ws/jobs/{id}: the job's progress (see the protocol at
// the top of this file).
func (m *jobManager) handleWS(w http.ResponseWriter, r *http.Request) {
	j := m.get(r.PathValue("id"))
	if j == nil {
		jsonapi.WriteError(w, &jsonapi.Error{Status: http.StatusNotFound, Msg: "no such job", Field: "id"})
		return
	}
	conn, err := m.upgrader.Upgrade(w, r, nil)
	if err != nil {
		return // the upgrader answered
	}
	notify := j.watch()
	left := make(chan struct{})
	go jobReadPump(conn, j, left)
	go func() {
		jobWritePump(conn, j, notify, left, m.base.Done())
		j.unwatch(notify)
	}()
}

// jobReadPump reads the client's messages until the connection closes,
// then closes left. It is the connection's only reader.
func jobReadPump(conn *websocket.Conn, j *job, left chan<- struct{}) {
	defer close(left)
	conn.SetReadLimit(jobMaxMessageSize)
	conn.SetReadDeadline(time.Now().Add(jobPongWait))
	conn.SetPongHandler(func(string) error { return conn.SetReadDeadline(time.Now().Add(jobPongWait)) })
	for {
		kind, data, err := conn.ReadMessage()
		if err != nil {
			return
		}
		var msg struct {
			Type string `json:"type"`
		}
		if kind == websocket.TextMessage && json.Unmarshal(data, &msg) == nil && msg.Type == "cancel" {
			j.cancel()
		}
	}
}

// jobWritePump sends the job's progress as it comes, then its end, and
// pings meanwhile. It is the connection's only writer.
func jobWritePump(conn *websocket.Conn, j *job, notify <-chan struct{}, left <-chan struct{}, shutdown <-chan struct{}) {
	ticker := time.NewTicker(jobPingPeriod)
	defer func() {
		ticker.Stop()
		conn.Close()
	}()
	sent, sentDone := 0, -1
	write := func(v any) bool {
		conn.SetWriteDeadline(time.Now().Add(jobWriteWait))
		return conn.WriteJSON(v) == nil
	}
	for {
		select {
		case <-notify:
			st := j.since(sent)
			if len(st.Items) > 0 || st.Done != sentDone {
				st.Type = "progress"
				if !write(st) {
					return
				}
				sent += len(st.Items)
				sentDone = st.Done
			}
			if st.State != jobRunning {
				st.Type, st.Items = "end", nil
				if write(st) {
					conn.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""),
						time.Now().Add(jobWriteWait))
					// Let the client close its side before the TCP close.
					select {
					case <-left:
					case <-time.After(time.Second):
					}
				}
				return
			}
		case <-ticker.C:
			conn.SetWriteDeadline(time.Now().Add(jobWriteWait))
			if conn.WriteMessage(websocket.PingMessage, nil) != nil {
				return
			}
		case <-left:
			return
		case <-shutdown:
			conn.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseGoingAway, "server shutting down"),
				time.Now().Add(jobWriteWait))
			return
		}
	}
}

// jobAccepted is the 202 answer of POST /api/sweeps and /api/tunes.
type jobAccepted struct {
	ID    string `json:"id"`
	Kind  string `json:"kind"`
	Total int    `json:"total"`
	WS    string `json:"ws"`   // the progress WebSocket's path
	Page  string `json:"page"` // the job's page: its results once done
}
