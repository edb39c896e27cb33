// Package capture takes the captures games stream into a session over
// /ws/sessions/{id}/capture (docs/capture-protocol.md): a hello naming the
// game's engine, version and capture rate, then binary batches of entity
// updates, each written to the store as it arrives (store.Captures) and
// acknowledged once it is durable; a client that outruns the lab is told
// to slow down, and reports what it dropped. Ending a capture, from the
// game or from the session's page, turns it into an ordinary trace.
//
// One goroutine (write) owns the store's writes: it takes every batch
// queued, of every client, and stores them in one transaction, so the
// lab commits a few times a second however many clients stream. Each
// connection has one reader, which checks what the client sends, and one
// writer, which sends the acks (folded: the newest covers the older) and
// the lab's messages. Memory is bounded by the queue and each client's
// window, never by a capture's length: the batches are on disk.
package capture

import (
	"errors"
	"fmt"
	"log"
	"net/http"
	"sync"
	"time"

	"github.com/gorilla/websocket"

	"interplab/cmd/lab/internal/store"
	"interplab/engine"
)

// Store is what the manager needs of the lab's store.
type Store interface {
	store.Captures
	Latest(id string) (store.Revision, error)
}

// Options are a manager's limits; zero values take the defaults.
type Options struct {
	// Rate is the updates a second each client may send (DefaultRate).
	Rate int
	// Quota is the most updates a capture may hold
	// (engine.TraceMaxPackets).
	Quota int
	// DiskQuota is the most compressed bytes the open captures may hold
	// together; 0: no quota but the disk's.
	DiskQuota int64
	// Queue is how many batches may wait for the store (256); a client
	// that finds it half full is told to slow down.
	Queue int
}

// Manager takes the captures of every session.
type Manager struct {
	st       Store
	now      func() time.Time
	opt      Options
	upgrader websocket.Upgrader

	queue    chan job
	quit     chan struct{}
	done     chan struct{}
	once     sync.Once
	conns    sync.WaitGroup // each connection's reader and writer
	finishes sync.WaitGroup // captures being made traces

	mu       sync.Mutex
	attached map[string]*conn // capture id → the connection streaming it
	all      map[*conn]bool   // every connection
	bytes    int64            // compressed bytes of the open captures
}

// job is the writer's work: a batch to store, or a capture to finish
// once the batches queued before it are stored.
type job struct {
	c      *conn
	batch  store.CaptureBatch
	finish *finishReq
}

type finishReq struct {
	id      string
	dropped int // the client's final count; −1: keep the stored one
	reply   chan finishResult
}

type finishResult struct {
	info      store.TraceInfo
	updates   int
	dropped   int
	conflicts int
	err       error
}

// New returns a running manager over st; Close stops it.
func New(st Store, now func() time.Time, opt Options) (*Manager, error) {
	if opt.DiskQuota < 0 {
		return nil, fmt.Errorf("capture-quota: %d bytes: want 0 (no quota) or more", opt.DiskQuota)
	}
	if opt.Rate <= 0 {
		opt.Rate = DefaultRate
	}
	if opt.Quota <= 0 || opt.Quota > engine.TraceMaxPackets {
		opt.Quota = engine.TraceMaxPackets
	}
	if opt.Queue <= 0 {
		opt.Queue = 256
	}
	b, err := st.CaptureBytes()
	if err != nil && !store.Unreachable(err) {
		return nil, err
	}
	m := &Manager{st: st, now: now, opt: opt,
		queue: make(chan job, opt.Queue), quit: make(chan struct{}), done: make(chan struct{}),
		attached: map[string]*conn{}, all: map[*conn]bool{}, bytes: b}
	m.upgrader = websocket.Upgrader{
		ReadBufferSize:  4096,
		WriteBufferSize: 1024,
		WriteBufferPool: &sync.Pool{},
		// The route checks the Origin before ServeWS runs.
		CheckOrigin: func(*http.Request) bool { return true },
	}
	go m.write()
	return m, nil
}

// Close disconnects every client (1001: they resume later) and stops the
// manager once the batches already queued are stored.
func (m *Manager) Close() {
	m.once.Do(func() {
		close(m.quit)
		m.mu.Lock()
		all := make([]*conn, 0, len(m.all))
		for c := range m.all {
			all = append(all, c)
		}
		m.mu.Unlock()
		for _, c := range all {
			c.fail(&ProtocolError{Code: websocket.CloseGoingAway, Msg: "the lab is shutting down: resume later"})
		}
	})
	<-m.done
	m.finishes.Wait()
	m.conns.Wait()
}

// write stores the queued batches, as many as are waiting in one
// transaction, acknowledges them, and starts the finishes queued after
// them.
func (m *Manager) write() {
	defer close(m.done)
	var jobs []job
	for {
		jobs = jobs[:0]
		select {
		case j := <-m.queue:
			jobs = append(jobs, j)
		case <-m.quit:
			// Store what is queued: it may have been sent by a client
			// that is now told to resume.
		drain:
			for {
				select {
				case j := <-m.queue:
					jobs = append(jobs, j)
				default:
					break drain
				}
			}
			m.store(jobs)
			return
		}
	more:
		for len(jobs) < cap(m.queue) {
			select {
			case j := <-m.queue:
				jobs = append(jobs, j)
			default:
				break more
			}
		}
		m.store(jobs)
	}
}

// store writes jobs' batches in one transaction, then acknowledges them
// and starts the finishes among them.
func (m *Manager) store(jobs []job) {
	var batches []store.CaptureBatch
	var owners []*conn
	for _, j := range jobs {
		if j.finish == nil {
			batches, owners = append(batches, j.batch), append(owners, j.c)
		}
	}
	if len(batches) > 0 {
		sizes, err := m.st.AppendCaptureBatches(batches)
		if err != nil && len(batches) > 1 {
			// One client's failure (its capture stopped under it, say)
			// must not fail the others': each alone.
			sizes, err = make([]int64, len(batches)), nil
			failed := map[*conn]bool{}
			for i, b := range batches {
				if failed[owners[i]] {
					sizes[i] = -1
					continue
				}
				s, e := m.st.AppendCaptureBatches([]store.CaptureBatch{b})
				if e != nil {
					owners[i].fail(m.writeError(b, e))
					failed[owners[i]], sizes[i] = true, -1
					continue
				}
				sizes[i] = s[0]
			}
		} else if err != nil {
			owners[0].fail(m.writeError(batches[0], err))
			sizes = []int64{-1}
		}
		for i, b := range batches {
			if sizes[i] < 0 {
				continue
			}
			m.mu.Lock()
			m.bytes += sizes[i]
			m.mu.Unlock()
			owners[i].stored(b, m.pressure())
		}
	}
	for _, j := range jobs {
		if j.finish != nil {
			m.finishes.Add(1)
			go func() {
				defer m.finishes.Done()
				j.finish.reply <- m.finishNow(j.finish)
			}()
		}
	}
}

// pressure tells how full the queue is, in [0, 1].
func (m *Manager) pressure() float64 { return float64(len(m.queue)) / float64(cap(m.queue)) }

// writeError is what a client is told when its batch could not be
// stored.
func (m *Manager) writeError(b store.CaptureBatch, err error) *ProtocolError {
	switch {
	case errors.Is(err, store.ErrFull):
		return &ProtocolError{Code: CloseQuota, Batch: b.Batch,
			Msg: fmt.Sprintf("batch %d: the lab's disk is full: the capture keeps what was acknowledged; end it or stop it on the session's page", b.Batch)}
	case store.Unreachable(err):
		log.Printf("lab: capture %s: batch %d: %v", b.Capture, b.Batch, err)
		return &ProtocolError{Code: websocket.CloseTryAgainLater, Batch: b.Batch, Msg: store.ErrUnreachable.Error()}
	case errors.Is(err, store.ErrCaptureNotFound), errors.Is(err, store.ErrCaptureOrder):
		return &ProtocolError{Code: CloseNotFound, Batch: b.Batch, Msg: "the capture was stopped or ended"}
	}
	log.Printf("lab: capture %s: batch %d: %v", b.Capture, b.Batch, err)
	return &ProtocolError{Code: websocket.CloseInternalServerErr, Batch: b.Batch,
		Msg: fmt.Sprintf("batch %d: the lab failed to store it: resume and send it again", b.Batch)}
}

// finishNow makes capture req.id a trace.
func (m *Manager) finishNow(req *finishReq) finishResult {
	c, err := m.st.Capture(req.id)
	if err != nil {
		return finishResult{err: err}
	}
	if req.dropped >= 0 && req.dropped != c.Dropped {
		if err := m.st.SetCaptureDropped(c.ID, req.dropped); err != nil {
			return finishResult{err: err}
		}
		c.Dropped = req.dropped
	}
	if c.Updates == 0 {
		return finishResult{err: &ProtocolError{Code: 1002, Msg: "the capture holds no update: nothing to save"}}
	}
	b := &Builder{Ticks: c.TimeBase == "ticks", TickRate: c.TickRate}
	if err := m.st.CaptureUpdates(c.ID, func(u store.CaptureUpdate) error { b.Add(u); return nil }); err != nil {
		return finishResult{err: err}
	}
	tr, conflicts := b.Trace(c.Name)
	info, err := m.st.FinishCapture(c.ID, tr, "capture", m.now())
	if err != nil {
		return finishResult{err: err}
	}
	m.mu.Lock()
	m.bytes = max(0, m.bytes-c.Bytes)
	m.mu.Unlock()
	return finishResult{info: info, updates: c.Updates, dropped: c.Dropped, conflicts: conflicts}
}

// Stop turns capture id of session into a trace: the batches its client
// sent before are stored first, and the client is told "saved" and
// closed. It returns the trace.
func (m *Manager) Stop(session, id string) (store.TraceInfo, error) {
	c, err := m.st.Capture(id)
	if err != nil {
		return store.TraceInfo{}, err
	}
	if c.Session != session {
		return store.TraceInfo{}, store.ErrCaptureNotFound
	}
	m.mu.Lock()
	cn := m.attached[id]
	m.mu.Unlock()
	if cn != nil {
		r, err := cn.finish(-1)
		return r.info, err
	}
	r := m.finishQueued(nil, id, -1)
	return r.info, r.err
}

// finishQueued queues the finish of capture id behind the batches queued
// before it, and waits for it.
func (m *Manager) finishQueued(c *conn, id string, dropped int) finishResult {
	req := &finishReq{id: id, dropped: dropped, reply: make(chan finishResult, 1)}
	select {
	case m.queue <- job{c: c, finish: req}:
	case <-m.quit:
		return finishResult{err: &ProtocolError{Code: websocket.CloseGoingAway, Msg: "the lab is shutting down: resume later"}}
	}
	select {
	case r := <-req.reply:
		return r
	case <-m.done:
		// The writer stopped, maybe before it took the finish.
		select {
		case r := <-req.reply:
			return r
		case <-time.After(time.Second):
		}
		return finishResult{err: &ProtocolError{Code: websocket.CloseGoingAway, Msg: "the lab is shutting down: resume later"}}
	}
}

// Client is what the session's page shows of a capture: its client, when
// one is connected, and its progress.
type Client struct {
	Capture   string    `json:"capture"`
	Name      string    `json:"name"`
	Engine    string    `json:"engine"`
	Version   string    `json:"version"`
	Client    string    `json:"client,omitempty"`
	Rate      float64   `json:"rate"`
	Connected bool      `json:"connected"`
	Updates   int       `json:"updates"` // stored (acknowledged)
	Batches   int       `json:"batches"`
	Dropped   int       `json:"dropped"`
	Bytes     int64     `json:"bytes"`
	Ceiling   int       `json:"ceiling,omitempty"` // updates a second the client is allowed now
	Created   time.Time `json:"created"`
}

// Clients returns session's open captures, connected or not.
func (m *Manager) Clients(session string) ([]Client, error) {
	cs, err := m.st.Captures(session)
	if err != nil {
		return nil, err
	}
	out := make([]Client, 0, len(cs))
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, c := range cs {
		cl := Client{Capture: c.ID, Name: c.Name, Engine: c.Engine, Version: c.Version, Client: c.Client, Rate: c.Rate,
			Updates: c.Updates, Batches: c.Batches, Dropped: c.Dropped, Bytes: c.Bytes, Created: c.Created}
		if cn := m.attached[c.ID]; cn != nil {
			cl.Connected = true
			cn.mu.Lock()
			cl.Updates, cl.Batches, cl.Dropped, cl.Ceiling = cn.updates, cn.acked, max(cl.Dropped, cn.dropped), cn.ceiling
			cn.mu.Unlock()
		}
		out = append(out, cl)
	}
	return out, nil
}
