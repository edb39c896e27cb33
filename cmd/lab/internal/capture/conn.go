package capture

import (
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"math"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/gorilla/websocket"

	"interplab/cmd/lab/internal/store"
)

const (
	helloWait  = 10 * time.Second  // a client's hello must come this soon
	writeWait  = 10 * time.Second  // time allowed to write a message
	pongWait   = 60 * time.Second  // time allowed between a client's messages or pongs
	pingPeriod = pongWait * 9 / 10 // pings go out this often
	maxOutbox  = 64                // messages waiting for the writer before the client is closed
	minCeiling = 500               // the lowest ceiling a slow message sets, updates a second
	slowEvery  = time.Second / 4   // a ceiling is halved at most this often
)

// conn is one client's connection.
type conn struct {
	m       *Manager
	ws      *websocket.Conn
	session string
	cap     store.Capture // set by the hello

	// The reader's own state.
	next       int // the batch number expected next
	queued     int // updates sent to the store, stored or not
	lastDrop   int
	lastArrive float64
	lo, hi     float64                        // smallest and largest arrive − sent, s
	first      float64                        // smallest sent, s
	last       float64                        // largest sent, s
	ids        map[uint32]store.CaptureUpdate // each entity's newest send
	hard, soft bucket                         // twice the ceiling (closed over it) and the ceiling (told to slow down)
	metered    int                            // the ceiling the buckets meter
	lastWarn   time.Time                      // when the client was last told it is over the rate
	lastSlow   time.Time                      // when its ceiling was last lowered

	// qmu orders the reader's batches and a finish in the store's queue.
	qmu       sync.Mutex
	finishing bool // a finish is queued: no batch may follow

	// mu guards what the manager's writer and the page read.
	mu      sync.Mutex
	acked   int // the last stored batch
	updates int // updates stored
	dropped int // the client's last reported count
	ceiling int // updates a second the client may send now
	outbox  []outMsg
	closing []byte // the close frame, once the connection is to end
	wake    chan struct{}
}

// outMsg is a text message for the client; an ack may be folded into a
// newer one.
type outMsg struct {
	ack  bool
	data []byte
}

// ServeWS upgrades the request to a capture connection on session. The
// caller has checked the session, the token and the Origin.
func (m *Manager) ServeWS(w http.ResponseWriter, r *http.Request, session string) {
	select {
	case <-m.quit:
		http.Error(w, `{"error":"server shutting down"}`, http.StatusServiceUnavailable)
		return
	default:
	}
	ws, err := m.upgrader.Upgrade(w, r, nil)
	if err != nil {
		return // the upgrader answered
	}
	c := &conn{m: m, ws: ws, session: session, wake: make(chan struct{}, 1), ceiling: m.opt.Rate}
	m.mu.Lock()
	m.all[c] = true
	m.mu.Unlock()
	m.conns.Add(2)
	go c.writePump()
	go c.readPump()
}

// send queues a message; a client whose queue is full is closed.
func (c *conn) send(v any, ack bool) {
	data, err := json.Marshal(v)
	if err != nil {
		log.Printf("lab: capture: encode %T: %v", v, err)
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closing != nil {
		return
	}
	if n := len(c.outbox); ack && n > 0 && c.outbox[n-1].ack {
		c.outbox[n-1].data = data // the newer ack covers the older
	} else if n >= maxOutbox {
		c.closing = websocket.FormatCloseMessage(websocket.ClosePolicyViolation, "client too slow to read the lab's messages")
	} else {
		c.outbox = append(c.outbox, outMsg{ack: ack, data: data})
	}
	c.poke()
}

func (c *conn) poke() {
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// fail tells the client err and closes the connection with its code. Only
// the first call counts.
func (c *conn) fail(err *ProtocolError) {
	msg := struct {
		Type  string `json:"type"`
		Error string `json:"error"`
		Field string `json:"field,omitempty"`
		Batch int    `json:"batch,omitempty"`
	}{"error", err.Msg, err.Field, err.Batch}
	c.send(msg, false)
	c.closeWith(err.Code, err.Msg)
}

// closeWith ends the connection with code: the writer sends what is
// queued, then the close frame.
func (c *conn) closeWith(code int, text string) {
	if len(text) > 120 { // a close frame's reason is at most 123 bytes
		text = text[:120]
	}
	c.mu.Lock()
	if c.closing == nil {
		c.closing = websocket.FormatCloseMessage(code, text)
	}
	c.poke()
	c.mu.Unlock()
	c.detach()
}

// detach lets another connection resume the capture.
func (c *conn) detach() {
	c.m.mu.Lock()
	if c.cap.ID != "" && c.m.attached[c.cap.ID] == c {
		delete(c.m.attached, c.cap.ID)
	}
	delete(c.m.all, c)
	c.m.mu.Unlock()
}

func (c *conn) writePump() {
	defer c.m.conns.Done()
	ticker := time.NewTicker(pingPeriod)
	defer func() {
		ticker.Stop()
		c.ws.Close()
	}()
	for {
		select {
		case <-c.wake:
		case <-ticker.C:
			c.ws.SetWriteDeadline(time.Now().Add(writeWait))
			if err := c.ws.WriteMessage(websocket.PingMessage, nil); err != nil {
				return
			}
			continue
		}
		c.mu.Lock()
		out, closing := c.outbox, c.closing
		c.outbox = nil
		c.mu.Unlock()
		for _, m := range out {
			c.ws.SetWriteDeadline(time.Now().Add(writeWait))
			if err := c.ws.WriteMessage(websocket.TextMessage, m.data); err != nil {
				return
			}
		}
		if closing != nil {
			c.ws.SetWriteDeadline(time.Now().Add(writeWait))
			c.ws.WriteMessage(websocket.CloseMessage, closing)
			// Give the client a moment to answer the close, so that it
			// reads every message before the connection goes.
			c.ws.SetReadDeadline(time.Now().Add(time.Second))
			return
		}
	}
}

// ended tells whether the connection is closing.
func (c *conn) ended() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closing != nil
}

func (c *conn) readPump() {
	defer func() {
		c.detach()
		c.closeWith(websocket.CloseNormalClosure, "")
		c.m.conns.Done()
	}()
	c.ws.SetReadLimit(MaxBatchBytes) // over it, gorilla closes with 1009
	c.ws.SetReadDeadline(time.Now().Add(helloWait))
	kind, data, err := c.ws.ReadMessage()
	if err != nil {
		if errors.Is(err, websocket.ErrReadLimit) {
			return
		}
		if ne, ok := err.(interface{ Timeout() bool }); ok && ne.Timeout() {
			c.fail(&ProtocolError{Code: websocket.ClosePolicyViolation, Msg: "no hello within 10 s"})
		}
		return
	}
	if err := c.hello(kind, data); err != nil {
		c.fail(err)
		return
	}
	c.ws.SetPongHandler(func(string) error { return c.ws.SetReadDeadline(time.Now().Add(pongWait)) })
	for {
		c.ws.SetReadDeadline(time.Now().Add(pongWait))
		kind, data, err := c.ws.ReadMessage()
		if err != nil || c.ended() {
			return
		}
		var perr *ProtocolError
		switch kind {
		case websocket.BinaryMessage:
			perr = c.batch(data)
		case websocket.TextMessage:
			perr = c.control(data)
		}
		if perr != nil {
			c.fail(perr)
			return
		}
		if c.ended() {
			return
		}
	}
}

// hello reads the client's hello and attaches it to a new or resumed
// capture.
func (c *conn) hello(kind int, data []byte) *ProtocolError {
	if kind != websocket.TextMessage {
		return &ProtocolError{Code: websocket.CloseUnsupportedData, Msg: "the first message must be a hello, as a text frame of JSON"}
	}
	if len(data) > MaxTextBytes {
		return &ProtocolError{Code: websocket.CloseMessageTooBig, Msg: fmt.Sprintf("a text message is at most %d bytes", MaxTextBytes)}
	}
	h, err := parseHello(data)
	if err != nil {
		return err.(*ProtocolError)
	}
	if perr := c.m.attach(c, h); perr != nil {
		return perr
	}
	c.send(struct {
		Type          string `json:"type"`
		Protocol      int    `json:"protocol"`
		Capture       string `json:"capture"`
		Trace         string `json:"trace"`
		Acked         int    `json:"acked"`
		Updates       int    `json:"updates"`
		MaxBatch      int    `json:"maxBatch"`
		MaxBatchBytes int    `json:"maxBatchBytes"`
		Window        int    `json:"window"`
		Rate          int    `json:"rate"`
		Quota         int    `json:"quota"`
	}{"welcome", Protocol, c.cap.ID, c.cap.Name, c.cap.Batches, c.cap.Updates, MaxBatch, MaxBatchBytes, Window, c.m.opt.Rate, c.m.opt.Quota}, false)
	return nil
}

// attach makes c the connection of a new capture, or of the one its
// hello resumes, and sets c's state from what is stored.
func (m *Manager) attach(c *conn, h hello) *ProtocolError {
	ticks := h.Time == "ticks"
	tickRate := 0.0
	if ticks {
		tickRate = *h.TickRate
	}
	var cp store.Capture
	var err error
	if h.Capture != "" {
		cp, err = m.st.Capture(h.Capture)
		switch {
		case errors.Is(err, store.ErrCaptureNotFound) || err == nil && cp.Session != c.session:
			return &ProtocolError{Code: CloseNotFound, Field: "capture", Msg: "capture: no open capture " + strconv.Quote(clip(h.Capture)) + " in this session: it was saved, or never was"}
		case err != nil:
			return storeError("resume the capture", err)
		case cp.Engine != h.Engine || cp.TimeBase != h.Time || cp.TickRate != tickRate:
			return &ProtocolError{Code: CloseConflict, Field: "capture", Msg: fmt.Sprintf("capture: it was started by %s with time %q: resume it with the same engine and time base", cp.Engine, cp.TimeBase)}
		case h.Name != "" && h.Name != cp.Name:
			return &ProtocolError{Code: CloseConflict, Field: "name", Msg: "name: the capture is called " + cp.Name}
		}
		if perr := c.restore(cp); perr != nil {
			return perr
		}
	} else {
		cp = store.Capture{Session: c.session, Name: h.Name, Engine: h.Engine, Version: h.Version, Client: h.Client,
			Rate: *h.Rate, TimeBase: h.Time, TickRate: tickRate, Created: m.now()}
		for try := 1; ; try++ {
			if h.Name == "" {
				cp.Name = "capture-" + c.session + "-" + cp.Created.UTC().Format("20060102-150405")
				if try > 1 {
					cp.Name += "-" + strconv.Itoa(try)
				}
			}
			cp, err = m.st.CreateCapture(cp)
			if errors.Is(err, store.ErrTraceExists) && h.Name == "" && try < 20 {
				continue
			}
			break
		}
		if errors.Is(err, store.ErrTraceExists) {
			return &ProtocolError{Code: CloseConflict, Field: "name", Msg: fmt.Sprintf("name: %q is taken by a trace or another capture", cp.Name)}
		}
		if err != nil {
			return storeError("start the capture", err)
		}
		c.lo, c.hi, c.first, c.last = math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
		c.ids = map[uint32]store.CaptureUpdate{}
		c.lastArrive = math.Inf(-1)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if other := m.attached[cp.ID]; other != nil {
		return &ProtocolError{Code: CloseConflict, Field: "capture", Msg: "capture: another connection is streaming it"}
	}
	m.attached[cp.ID] = c
	c.cap = cp
	c.next, c.queued, c.lastDrop = cp.Batches+1, cp.Updates, cp.Dropped
	c.acked, c.updates, c.dropped = cp.Batches, cp.Updates, cp.Dropped
	c.meter(c.ceiling, time.Now())
	return nil
}

// storeError is what a client is told of a store's failure.
func storeError(doing string, err error) *ProtocolError {
	if store.Unreachable(err) {
		return &ProtocolError{Code: websocket.CloseTryAgainLater, Msg: store.ErrUnreachable.Error()}
	}
	if errors.Is(err, store.ErrFull) {
		return &ProtocolError{Code: CloseQuota, Msg: "the lab's disk is full"}
	}
	log.Printf("lab: capture: %s: %v", doing, err)
	return &ProtocolError{Code: websocket.CloseInternalServerErr, Msg: "the lab failed to " + doing + ": try again"}
}

// batch checks one batch frame and queues it for the store.
func (c *conn) batch(data []byte) *ProtocolError {
	var b batch
	if err := decodeBatch(data, &b); err != nil {
		return err.(*ProtocolError)
	}
	bad := func(code int, field, msg string) *ProtocolError {
		return &ProtocolError{Code: code, Field: field, Batch: b.n, Msg: fmt.Sprintf("batch %d: %s", b.n, msg)}
	}
	if b.n != c.next {
		return bad(1007, "batch", fmt.Sprintf("want batch %d next (batch numbers go up by one from the welcome's acked + 1)", c.next))
	}
	c.mu.Lock()
	acked, ceiling := c.acked, c.ceiling
	c.mu.Unlock()
	if b.n-acked > Window {
		return bad(websocket.ClosePolicyViolation, "batch", fmt.Sprintf("%d batches unacknowledged: at most %d (the window); wait for acks", b.n-acked, Window))
	}
	if b.dropped < c.lastDrop {
		return bad(1007, "dropped", fmt.Sprintf("%d after %d: the dropped count is a running total, never smaller", b.dropped, c.lastDrop))
	}
	n := len(b.updates)
	if c.queued+n > c.m.opt.Quota {
		return bad(CloseQuota, "", fmt.Sprintf("the capture would hold %d updates: at most %d (its quota); what was acknowledged is kept: end the capture", c.queued+n, c.m.opt.Quota))
	}
	if q := c.m.opt.DiskQuota; q > 0 {
		c.m.mu.Lock()
		used := c.m.bytes
		c.m.mu.Unlock()
		if used >= q {
			return bad(CloseQuota, "", fmt.Sprintf("the lab's captures hold %d bytes: at most %d (its disk quota, lab serve -capture-quota); what was acknowledged is kept: end the capture", used, q))
		}
	}
	now := time.Now()
	if ceiling != c.metered {
		c.meter(ceiling, now)
	}
	if !c.hard.take(now, float64(n)) {
		return bad(websocket.ClosePolicyViolation, "", fmt.Sprintf("over twice the rate: at most %d updates a second now", ceiling))
	}
	if !c.soft.take(now, float64(n)) && now.Sub(c.lastWarn) > time.Second {
		c.lastWarn = now
		c.slow(ceiling, "over the rate")
	}
	if perr := c.checkRules(&b); perr != nil {
		return perr
	}
	c.qmu.Lock()
	defer c.qmu.Unlock()
	if c.finishing {
		return nil // the capture is being saved: later batches are not part of it
	}
	select {
	case c.m.queue <- job{c: c, batch: store.CaptureBatch{Capture: c.cap.ID, Batch: b.n, Dropped: b.dropped, Updates: b.updates}}:
	case <-c.m.quit:
		return &ProtocolError{Code: websocket.CloseGoingAway, Msg: "the lab is shutting down: resume later"}
	}
	c.next++
	c.queued += n
	c.lastDrop = b.dropped
	if c.m.pressure() > 0.5 && ceiling > minCeiling && now.Sub(c.lastSlow) > slowEvery {
		c.lastSlow = now
		c.setCeiling(max(minCeiling, ceiling/2), "the lab's writes are behind")
	}
	return nil
}

// stored is the manager's word that b is durable; pressure is how full
// the store's queue is now.
func (c *conn) stored(b store.CaptureBatch, pressure float64) {
	c.mu.Lock()
	c.acked, c.updates, c.dropped = b.Batch, c.updates+len(b.Updates), b.Dropped
	updates, ceiling := c.updates, c.ceiling
	c.mu.Unlock()
	c.send(struct {
		Type    string `json:"type"`
		Batch   int    `json:"batch"`
		Updates int    `json:"updates"`
	}{"ack", b.Batch, updates}, true)
	if pressure < 0.125 && ceiling < c.m.opt.Rate {
		c.setCeiling(c.m.opt.Rate, "the lab has caught up")
	}
}

// setCeiling changes the client's ceiling and tells it.
func (c *conn) setCeiling(rate int, reason string) {
	c.mu.Lock()
	c.ceiling = rate
	c.mu.Unlock()
	c.slow(rate, reason)
}

// slow tells the client its ceiling.
func (c *conn) slow(rate int, reason string) {
	c.send(struct {
		Type   string `json:"type"`
		Rate   int    `json:"rate"`
		Reason string `json:"reason"`
	}{"slow", rate, reason}, false)
}

// control reads a text message after the hello: end.
func (c *conn) control(data []byte) *ProtocolError {
	if len(data) > MaxTextBytes {
		return &ProtocolError{Code: websocket.CloseMessageTooBig, Msg: fmt.Sprintf("a text message is at most %d bytes", MaxTextBytes)}
	}
	var m control
	if err := decodeJSON(data, &m); err != nil {
		return err.(*ProtocolError)
	}
	if m.Type != "end" {
		return &ProtocolError{Code: 1002, Field: "type", Msg: fmt.Sprintf("type: %q: after the hello a client sends batches (binary) and end", clip(m.Type))}
	}
	dropped := c.lastDrop
	if m.Dropped != nil {
		if *m.Dropped < c.lastDrop {
			return &ProtocolError{Code: 1007, Field: "dropped", Msg: fmt.Sprintf("dropped: %d after %d: the dropped count is a running total, never smaller", *m.Dropped, c.lastDrop)}
		}
		dropped = *m.Dropped
	}
	_, err := c.finish(dropped)
	if err != nil {
		if perr, ok := err.(*ProtocolError); ok {
			return perr
		}
		return storeError("save the capture", err)
	}
	return nil
}

// finish saves the capture once the batches queued before are stored,
// tells the client, and closes the connection; dropped −1 keeps the
// stored count.
func (c *conn) finish(dropped int) (finishResult, error) {
	c.qmu.Lock()
	if c.finishing {
		c.qmu.Unlock()
		return finishResult{}, &ProtocolError{Code: CloseConflict, Msg: "the capture is being saved already"}
	}
	c.finishing = true
	c.qmu.Unlock()
	r := c.m.finishQueued(c, c.cap.ID, dropped)
	if r.err != nil {
		c.qmu.Lock()
		c.finishing = false
		c.qmu.Unlock()
		return r, r.err
	}
	c.send(struct {
		Type      string `json:"type"`
		Trace     string `json:"trace"`
		Updates   int    `json:"updates"`
		Dropped   int    `json:"dropped"`
		Conflicts int    `json:"conflicts,omitempty"`
	}{"saved", r.info.Name, r.updates, r.dropped, r.conflicts}, false)
	c.closeWith(websocket.CloseNormalClosure, "capture saved")
	return r, nil
}

// meter sets the buckets for ceiling, a second's worth and a batch of
// burst each.
func (c *conn) meter(ceiling int, now time.Time) {
	c.metered = ceiling
	c.hard = newBucket(2*float64(ceiling), 2*float64(ceiling)+MaxBatch, now)
	c.soft = newBucket(float64(ceiling), float64(ceiling)+MaxBatch, now)
}

// bucket is a token bucket of updates.
type bucket struct {
	rate, burst, tokens float64
	last                time.Time
}

func newBucket(rate, burst float64, now time.Time) bucket {
	return bucket{rate: rate, burst: burst, tokens: burst, last: now}
}

// take takes n tokens at now, and tells whether there were.
func (b *bucket) take(now time.Time, n float64) bool {
	if dt := now.Sub(b.last).Seconds(); dt > 0 {
		b.tokens = min(b.burst, b.tokens+dt*b.rate)
		b.last = now
	}
	if b.tokens < n {
		return false
	}
	b.tokens -= n
	return true
}
