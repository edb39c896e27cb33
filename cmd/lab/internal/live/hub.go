// Package live keeps every tab open on a session, and any game following
// it, in sync: they share the session's live settings over a WebSocket at
// /ws/sessions/{id}, and a game may stream its packets into the session's
// live trace. Hub owns the live state; Follower is the reference game
// client (lab follow).
//
// The protocol is text frames holding one JSON object each; setting names and
// values are the vocabulary (see engine.Params).
//
// Server to client:
//
//	{"type":"config","session":"k3v9x2m4q7ab","rev":3,"you":"c7","config":{"schema":1,"settings":{...}}}
//
// The full configuration, sent on connect, after every accepted change and
// after every save. config is the canonical export: every vocabulary key in
// table order, numbers in the stored unit (seconds, Hz, fractions), true or
// false for a Bool, the choice's name for an Enum, an array of names for
// techniques. rev is the saved revision the live settings started from;
// "from" names the client whose change caused the message (absent on connect
// and after a save); "you" is this connection's own id, sent on connect only,
// so a tab can recognize its own changes.
//
//	{"type":"set","name":"displayBehind","value":0.12,"from":"c7"}
//
// Another client changed one setting; value is as in config.settings. Every
// other client gets it just before the config that includes the change.
//
//	{"type":"error","error":"displayBehind = \"2\" is not allowed: want [0, 1] s","field":"displayBehind"}
//
// Your last message was refused and nothing changed; only you get this.
//
//	{"type":"packet","entity":0,"seq":41,"sent":1764000000.125,"arrive":1764000000.168,"pos":[1,2,0],"vel":[7,0,0],"from":"c2"}
//
// A game's packet, stamped with the server's arrival time (see trace.go).
//
// Client to server:
//
//	{"type":"set","name":"displayBehind","value":0.12}
//
// Change one setting. value is a number (an Enum's index, the techniques'
// bit mask, 0 or 1 for a Bool), true or false for a Bool, a list of names for
// techniques, or the parameter's text form as a string ("pareto",
// "epic,buffer", "0.12"). It is checked like any other input, the rules
// between fields included.
//
//	{"type":"packet","entity":0,"seq":41,"sent":1764000000.125,"pos":[1,2,0],"vel":[7,0,0],"rot":[0,0,0,1]}
//
// A game's packet for the session's live trace (see trace.go): recorded
// and sent on to the other clients, or refused with an error.
//
// A game only reads: connect, apply every config message, reconnect with
// backoff when the connection drops (`lab follow` does exactly that).
//
// Live changes are kept in memory, per session, while at least one client is
// connected; a save (PUT /api/sessions/{id}) makes them a revision, and
// starts from them when its body leaves settings out. When the last client
// leaves, unsaved live changes are dropped and the next client starts from
// the latest revision: a saved revision is the only durable state, so a
// server restart never resurrects a half-tuned config nobody saved.
//
// Budgets: a client may send at most SetRate set messages a second (burst
// SetBurst) and PacketRate packet messages a second (burst PacketBurst), each
// at most MaxMessageSize bytes of valid UTF-8. A client over a budget is
// closed; the others keep running. The hub never waits for a client: a
// viewer that falls behind gets only the latest config (every change in
// between is folded into it, which is all a client needs: the config is the
// whole state), misses relayed packets rather than holding up the stream,
// and a viewer that stops reading is closed when a write to it times out.
//
// Close codes: 1003 for a binary frame, 1007 for a frame that is not a JSON
// object or not UTF-8, 1009 for a message over MaxMessageSize bytes, 1008
// for a client over its message budget or whose queue of replies is full,
// 1001 when the server shuts down, 4404 when the session does not exist or
// is deleted, 1011 on a server error.
package live

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/gorilla/websocket"

	"interplab/cmd/lab/internal/jsonapi"
	"interplab/cmd/lab/internal/store"
	"interplab/cmd/lab/internal/traceio"
	"interplab/engine"
)

const (
	writeWait      = 10 * time.Second  // time allowed to write a message to a client
	pongWait       = 60 * time.Second  // time allowed between pongs from a client
	pingPeriod     = pongWait * 9 / 10 // pings go out this often; less than pongWait
	MaxMessageSize = 4096              // largest message a client may send, bytes
	sendBuffer     = 64                // messages queued per client before it is dropped
	ConfigSchema   = 1                 // "schema" of a config: the canonical export's (package export)
	CloseNoSession = 4404              // close code: the session does not exist or was deleted
	wsCloseTooSlow = websocket.ClosePolicyViolation
)

// Hub owns the live state of every session that has clients. One goroutine
// (run) owns the rooms and the clients in them; each connection has one
// reader and one writer goroutine that talk to it through channels.
type Hub struct {
	load     Loader           // latest revisions, for a session's first client
	now      func() time.Time // stamps the arrival of live trace packets
	upgrader websocket.Upgrader

	register   chan *wsClient
	unregister chan *wsClient
	inbound    chan wsInbound
	saved      chan savedRev
	gone       chan string
	live       chan wsLiveQuery
	quit       chan struct{}
	done       chan struct{}
	closeOnce  sync.Once

	rooms     map[string]*wsRoom // owned by run
	nextID    uint64             // owned by run
	traceRows int                // packets held in every room's live trace; owned by run

	traceCap, traceTotalCap int // LiveTraceCap and LiveTraceTotalCap, smaller in tests

	// bus shares the live state with the other labs on the database
	// (bus.go); nil: it is in memory, this hub's alone.
	bus     Bus
	events  <-chan Event    // bus.Events()
	writes  chan busWrite   // sets on their way to the bus, in order
	refused chan busRefusal // sets the bus refused, back to their clients
}

// busWrite is a client's set on its way to the bus.
type busWrite struct {
	c     *wsClient
	id    string // the session
	p     *engine.Param
	value float64
}

// busRefusal is a set the bus refused.
type busRefusal struct {
	c   *wsClient
	err error
}

// busWrites is how many sets may wait for the bus; a set beyond is
// refused with an error (the client may send it again).
const busWrites = 1024

// wsRoom is one session's live state and its clients.
type wsRoom struct {
	id       string
	rev      int
	seq      int64 // the bus's count of changes the settings include
	settings engine.Settings
	clients  map[*wsClient]struct{}
	trace    liveTrace // packets games streamed (trace.go)
}

// wsClient is one WebSocket connection.
type wsClient struct {
	hub     *Hub
	conn    *websocket.Conn
	session string
	id      string   // set by run on register
	ident   Identity // what the client said of itself on connecting
	since   time.Time
	// send queues the messages a client must get in order: the config on
	// connect, its own error replies, relayed packets. Closed by run only.
	send chan *websocket.PreparedMessage
	// closeMsg is the close frame the writer sends when send is closed; run
	// sets it before closing send, which orders the write before the read.
	closeMsg []byte

	// latest is the newest change for the client to see (a set message
	// and the config that includes it), replaced by every later change:
	// a client that falls behind skips to the newest state. wake tells
	// the writer there is one.
	mu     sync.Mutex
	latest []*websocket.PreparedMessage
	wake   chan struct{}
}

type wsInbound struct {
	c   *wsClient
	msg wsInMsg
	err error // the message was not a valid protocol message
}

type wsLiveQuery struct {
	id    string
	reply chan wsLiveReply
	trace bool // reply with the live trace's rows too
}

type wsLiveReply struct {
	settings engine.Settings
	ok       bool
	trace    []traceio.Row
	clients  []ClientInfo
}

// Identity is what a client may say of itself when it connects
// (?engine=&version=&client= on the session's socket, checked by the
// server): a game's netcode library, its version, and the client's own
// name. A lab tab says nothing.
type Identity struct {
	Engine, Version, Client string
}

// ClientInfo describes one client of a session, for the session's page.
type ClientInfo struct {
	ID      string    `json:"id"`
	Engine  string    `json:"engine,omitempty"` // "" for a lab tab or an unnamed follower
	Version string    `json:"version,omitempty"`
	Client  string    `json:"client,omitempty"`
	Since   time.Time `json:"since"`
}

// Clients returns session id's clients on this lab, in the order they
// connected.
func (h *Hub) Clients(id string) []ClientInfo {
	q := wsLiveQuery{id: id, reply: make(chan wsLiveReply, 1)}
	select {
	case h.live <- q:
		return (<-q.reply).clients
	case <-h.done:
		return nil
	}
}

// wsInMsg is a message from a client.
type wsInMsg struct {
	Type  string          `json:"type"`
	Name  string          `json:"name"`
	Value json.RawMessage `json:"value"`

	// A packet's (trace.go).
	Entity *int      `json:"entity"`
	Seq    *int      `json:"seq"`
	Sent   *float64  `json:"sent"`
	Pos    []float64 `json:"pos"`
	Vel    []float64 `json:"vel"`
	Rot    []float64 `json:"rot"`
}

// Config is the canonical export: {"schema":1,"settings":{...}}.
type Config struct {
	Schema   int             `json:"schema"`
	Settings engine.Settings `json:"settings"`
}

type wsConfigMsg struct {
	Type    string `json:"type"`
	Session string `json:"session"`
	Rev     int    `json:"rev"`
	You     string `json:"you,omitempty"`
	From    string `json:"from,omitempty"`
	Config  Config `json:"config"`
}

type wsSetMsg struct {
	Type  string `json:"type"`
	Name  string `json:"name"`
	Value any    `json:"value"`
	From  string `json:"from"`
}

type wsErrorMsg struct {
	Type  string `json:"type"`
	Error string `json:"error"`
	Field string `json:"field,omitempty"`
}

// Loader gives a session's latest revision: the hub calls it when a
// session gets its first client. store.Sessions is one.
type Loader interface {
	Latest(id string) (store.Revision, error)
}

// New returns a running hub that loads sessions with load and stamps the
// arrival of live trace packets with now. Stop it with Close.
func New(load Loader, now func() time.Time) *Hub { return NewShared(load, now, nil) }

// NewShared is New for a hub that shares the live state through bus with
// the other labs on its database; a nil bus is New's hub.
func NewShared(load Loader, now func() time.Time, bus Bus) *Hub {
	h := &Hub{
		load:       load,
		now:        now,
		register:   make(chan *wsClient),
		unregister: make(chan *wsClient),
		inbound:    make(chan wsInbound),
		saved:      make(chan savedRev),
		gone:       make(chan string),
		live:       make(chan wsLiveQuery),
		quit:       make(chan struct{}),
		done:       make(chan struct{}),
		rooms:      map[string]*wsRoom{},

		traceCap:      LiveTraceCap,
		traceTotalCap: LiveTraceTotalCap,
	}
	h.upgrader = websocket.Upgrader{
		ReadBufferSize:  1024,
		WriteBufferSize: 1024,
		// Idle connections hold no write buffer: most of a session's
		// clients are idle between slider changes.
		WriteBufferPool: &sync.Pool{},
		// The route checks the Origin before ServeWS runs, against the
		// server's allow-list too.
		CheckOrigin: func(*http.Request) bool { return true },
		Error: func(w http.ResponseWriter, r *http.Request, status int, reason error) {
			w.Header().Set("Sec-Websocket-Version", "13")
			jsonapi.WriteError(w, &jsonapi.Error{Status: status, Msg: reason.Error()})
		},
	}
	if bus != nil {
		h.bus, h.events = bus, bus.Events()
		h.writes, h.refused = make(chan busWrite, busWrites), make(chan busRefusal, 64)
		go h.write()
	}
	go h.run()
	return h
}

// write hands the clients' sets to the bus, in the order they came; the
// change reaches the clients as the bus's event.
func (h *Hub) write() {
	for {
		var w busWrite
		select {
		case w = <-h.writes:
		case <-h.quit:
			return
		}
		err := h.bus.Set(w.id, w.p.Name, w.c.id, func(s engine.Settings) (engine.Settings, error) {
			return applySet(s, w.p, w.value)
		})
		if err != nil {
			select {
			case h.refused <- busRefusal{w.c, err}:
			case <-h.quit:
				return
			}
		}
	}
}

// busError is what a client is told of err, the bus's refusal of its set
// on session id: the client's own mistake (a value the shared state's
// rules refuse) and an unreachable database as they are (see reply), and
// any other failure of the database as the change not made, its cause
// logged, never sent.
func busError(id string, err error) error {
	if _, ok := errors.AsType[*jsonapi.Error](err); ok {
		return err
	}
	if _, ok := errors.AsType[*engine.FieldError](err); ok || errors.Is(err, errNoLive) || store.Unreachable(err) {
		return err
	}
	log.Printf("lab: live sync of %s: %v", id, err)
	return &jsonapi.Error{Status: http.StatusInternalServerError, Msg: "the lab's database failed to make the change: it was not made; try again"}
}

// applySet returns s with parameter p set to v, checked like any input
// (the rules between fields included), in canonical form.
func applySet(s engine.Settings, p *engine.Param, v float64) (engine.Settings, error) {
	// Set replaces the techniques slice, never writes into it.
	if err := p.Set(&s, v); err != nil {
		return engine.Settings{}, err
	}
	if err := s.Validate(); err != nil {
		return engine.Settings{}, err
	}
	return engine.Canonical(s), nil
}

// Close disconnects every client (close code 1001) and stops the hub. It
// returns once the hub's goroutine has stopped; it is safe to call twice.
func (h *Hub) Close() {
	h.closeOnce.Do(func() { close(h.quit) })
	<-h.done
}

// Saved tells the hub that r was saved over prev: the session's live
// settings take what the save changed (the parameters where r differs from
// prev) and keep every other live change, and every client gets the new
// config. An older revision than the one the live state has is ignored.
func (h *Hub) Saved(prev, r store.Revision) {
	if h.bus != nil {
		if err := h.bus.Saved(prev, r); err != nil {
			log.Printf("lab: live sync: publish the save of %s: %v", r.ID, err)
		}
		return
	}
	select {
	case h.saved <- savedRev{prev, r}:
	case <-h.done:
	}
}

// savedRev is a save: the revision it edited and the one it made.
type savedRev struct{ prev, r store.Revision }

// Gone tells the hub that session id was deleted: its clients are
// disconnected with close code 4404.
func (h *Hub) Gone(id string) {
	if h.bus != nil {
		if err := h.bus.Gone(id); err != nil {
			log.Printf("lab: live sync: publish the deletion of %s: %v", id, err)
		}
		return
	}
	select {
	case h.gone <- id:
	case <-h.done:
	}
}

// Live returns session id's live settings, if it has clients.
func (h *Hub) Live(id string) (engine.Settings, bool) {
	q := wsLiveQuery{id: id, reply: make(chan wsLiveReply, 1)}
	select {
	case h.live <- q:
		r := <-q.reply
		if !r.ok && h.bus != nil {
			// Clients on another lab only.
			sh, ok, err := h.bus.Live(id)
			if err != nil {
				log.Printf("lab: live sync: read the live state of %s: %v", id, err)
			}
			return sh.Settings, ok
		}
		return r.settings, r.ok
	case <-h.done:
		return engine.Settings{}, false
	}
}

// ServeWS upgrades the request to a WebSocket on session id and runs the
// connection. The caller has checked that the session exists and that the
// request's Origin may use it.
func (h *Hub) ServeWS(w http.ResponseWriter, r *http.Request, id string) {
	h.ServeIdentified(w, r, id, Identity{})
}

// ServeIdentified is ServeWS for a client that said who it is (checked by
// the caller).
func (h *Hub) ServeIdentified(w http.ResponseWriter, r *http.Request, id string, ident Identity) {
	select {
	case <-h.done:
		jsonapi.WriteError(w, &jsonapi.Error{Status: http.StatusServiceUnavailable, Msg: "server shutting down"})
		return
	default:
	}
	conn, err := h.upgrader.Upgrade(w, r, nil)
	if err != nil {
		return // the upgrader answered with a JSON error
	}
	c := newClient(h, conn, id)
	// since is for people (the session's page), not a stamp of the
	// hub's clock, which stamps live packets alone.
	c.ident, c.since = ident, time.Now()
	select {
	case h.register <- c:
	case <-h.done:
		conn.WriteControl(websocket.CloseMessage,
			websocket.FormatCloseMessage(websocket.CloseGoingAway, "server shutting down"), time.Now().Add(writeWait))
		conn.Close()
		return
	}
	go c.writePump()
	go c.readPump()
}

func newClient(h *Hub, conn *websocket.Conn, session string) *wsClient {
	return &wsClient{hub: h, conn: conn, session: session,
		send:     make(chan *websocket.PreparedMessage, sendBuffer),
		closeMsg: websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""),
		wake:     make(chan struct{}, 1)}
}

func (h *Hub) run() {
	defer close(h.done)
	for {
		select {
		case c := <-h.register:
			h.join(c)
		case c := <-h.unregister:
			if room := h.rooms[c.session]; room != nil {
				if _, ok := room.clients[c]; ok {
					h.drop(room, c, websocket.CloseNormalClosure, "")
				}
			}
		case in := <-h.inbound:
			h.handle(in)
		case e, ok := <-h.events:
			if !ok {
				h.events = nil // the bus closed: the hub is closing too
				continue
			}
			h.apply(e)
		case r := <-h.refused:
			if room := h.rooms[r.c.session]; room != nil {
				if _, ok := room.clients[r.c]; ok {
					h.reply(room, r.c, busError(room.id, r.err))
				}
			}
		case sv := <-h.saved:
			if room := h.rooms[sv.r.ID]; room != nil && sv.r.Rev > room.rev {
				room.rev = sv.r.Rev
				room.settings = applySaved(room.settings, sv.prev.Settings, sv.r.Settings)
				h.broadcast(room, "")
			}
		case id := <-h.gone:
			if room := h.rooms[id]; room != nil {
				for c := range room.clients {
					h.drop(room, c, CloseNoSession, "session deleted")
				}
			}
		case q := <-h.live:
			room := h.rooms[q.id]
			if room == nil {
				q.reply <- wsLiveReply{}
			} else {
				r := wsLiveReply{settings: room.settings, ok: true}
				if q.trace {
					r.trace = room.trace.rows()
				}
				for c := range room.clients {
					r.clients = append(r.clients, ClientInfo{ID: c.id, Engine: c.ident.Engine, Version: c.ident.Version, Client: c.ident.Client, Since: c.since})
				}
				slices.SortFunc(r.clients, func(a, b ClientInfo) int { return cmp.Or(a.Since.Compare(b.Since), cmp.Compare(a.ID, b.ID)) })
				q.reply <- r
			}
		case <-h.quit:
			for _, room := range h.rooms {
				for c := range room.clients {
					h.drop(room, c, websocket.CloseGoingAway, "server shutting down")
				}
			}
			return
		}
	}
}

// join adds c to its session's room, creating the room from the latest
// revision, and sends c the config.
func (h *Hub) join(c *wsClient) {
	room := h.rooms[c.session]
	if room == nil {
		var r store.Revision
		var seq int64
		var err error
		if h.bus != nil {
			var sh Shared
			sh, err = h.bus.Join(c.session, func() (store.Revision, error) { return h.load.Latest(c.session) })
			r = store.Revision{ID: c.session, Rev: sh.Rev, Settings: sh.Settings}
			seq = sh.Seq
		} else {
			r, err = h.load.Latest(c.session)
		}
		if err != nil {
			code, text := CloseNoSession, "session not found"
			if !errors.Is(err, store.ErrSessionNotFound) && !errors.Is(err, store.ErrSessionDeleted) {
				log.Printf("lab: live sync: load session %s: %v", c.session, err)
				code, text = websocket.CloseInternalServerErr, "cannot load the session"
				if store.Unreachable(err) {
					code, text = websocket.CloseTryAgainLater, store.ErrUnreachable.Error()
				}
			}
			c.closeMsg = websocket.FormatCloseMessage(code, text)
			close(c.send)
			return
		}
		room = &wsRoom{id: c.session, rev: r.Rev, seq: seq, settings: r.Settings, clients: map[*wsClient]struct{}{}}
		h.rooms[c.session] = room
	}
	h.nextID++
	c.id = "c" + strconv.FormatUint(h.nextID, 10)
	if h.bus != nil {
		c.id = h.bus.Tag() + c.id // unique among every lab's clients
	}
	room.clients[c] = struct{}{}
	h.enqueue(room, c, h.configMsg(room, c.id, ""))
}

// drop removes c from room and has its writer send a close frame with code
// and text. The room goes when its last client does.
func (h *Hub) drop(room *wsRoom, c *wsClient, code int, text string) {
	delete(room.clients, c)
	c.closeMsg = websocket.FormatCloseMessage(code, text)
	close(c.send)
	if len(room.clients) == 0 {
		h.traceRows -= room.trace.n
		delete(h.rooms, room.id)
		if h.bus != nil {
			h.bus.Leave(room.id)
		}
	}
}

// enqueue queues m for c without blocking; a client whose queue is full
// cannot keep up and is dropped.
func (h *Hub) enqueue(room *wsRoom, c *wsClient, m *websocket.PreparedMessage) {
	if m == nil {
		return // wsMarshal could not encode it
	}
	select {
	case c.send <- m:
	default:
		h.drop(room, c, wsCloseTooSlow, "client too slow")
	}
}

// offer queues m for c if there is room, and otherwise lets c miss it:
// for relayed packets, which a viewer may miss without losing the state.
func (h *Hub) offer(c *wsClient, m *websocket.PreparedMessage) {
	if m == nil {
		return
	}
	select {
	case c.send <- m:
	default:
	}
}

// publish makes msgs (a set and its config, or a config) the newest change
// c is to see, replacing any it has not been sent yet.
func (c *wsClient) publish(msgs ...*websocket.PreparedMessage) {
	if slices.Contains(msgs, nil) {
		return // wsMarshal could not encode one
	}
	c.mu.Lock()
	c.latest = msgs
	c.mu.Unlock()
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// takeLatest returns the newest change and clears it.
func (c *wsClient) takeLatest() []*websocket.PreparedMessage {
	c.mu.Lock()
	defer c.mu.Unlock()
	msgs := c.latest
	c.latest = nil
	return msgs
}

// handle applies one message from a client.
func (h *Hub) handle(in wsInbound) {
	room := h.rooms[in.c.session]
	if room == nil {
		return
	}
	if _, ok := room.clients[in.c]; !ok {
		return // dropped while its message was on the way
	}
	if in.err != nil {
		h.reply(room, in.c, in.err)
		return
	}
	if in.msg.Type == "packet" {
		h.livePacket(room, in.c, &in.msg)
		return
	}
	if in.msg.Type != "set" {
		h.reply(room, in.c, jsonapi.BadRequest("type", fmt.Sprintf("unknown message type %q: want set or packet", jsonapi.Clip(in.msg.Type, 40))))
		return
	}
	p, ok := engine.Lookup(in.msg.Name)
	if !ok {
		h.reply(room, in.c, jsonapi.BadRequest("name", fmt.Sprintf("unknown parameter %q: want a vocabulary name (GET /api/params)", jsonapi.Clip(in.msg.Name, 40))))
		return
	}
	v, err := wsParseValue(p, in.msg.Value)
	if err != nil {
		h.reply(room, in.c, err)
		return
	}
	s, err := applySet(room.settings, p, v)
	if err != nil {
		h.reply(room, in.c, err)
		return
	}
	if h.bus != nil {
		// Checked here for a quick answer; made, checked again, on the
		// shared state, and sent to every client as the bus's event.
		select {
		case h.writes <- busWrite{c: in.c, id: room.id, p: p, value: v}:
		default:
			h.reply(room, in.c, &jsonapi.Error{Status: http.StatusServiceUnavailable, Field: p.Name,
				Msg: "live sync is behind: the change was not made; send it again"})
		}
		return
	}
	room.settings = s
	h.announceSet(room, p, in.c.id)
}

// announceSet sends a set of p by client from to the room's other
// clients, with the config that includes it; from gets the config, which
// acknowledges its change.
func (h *Hub) announceSet(room *wsRoom, p *engine.Param, from string) {
	set := wsMarshal(wsSetMsg{Type: "set", Name: p.Name, Value: wsParamValue(p, &room.settings), From: from})
	config := h.configMsg(room, "", from)
	for c := range room.clients {
		if c.id != from {
			c.publish(set, config)
		} else {
			c.publish(config)
		}
	}
}

// apply applies a bus event to this hub's room of its session: the
// state it carries (or, after a gap in the changes, the state reloaded),
// and its messages to the clients.
func (h *Hub) apply(e Event) {
	if e.Kind == "resync" {
		for _, room := range h.rooms {
			h.reload(room)
			h.broadcast(room, "")
		}
		return
	}
	room := h.rooms[e.Session]
	if room == nil {
		return
	}
	switch e.Kind {
	case "gone":
		for c := range room.clients {
			h.drop(room, c, CloseNoSession, "session deleted")
		}
		return
	case "packets":
		h.relayed(room, e.Packets)
		return
	}
	if e.Seq <= room.seq {
		return // included already
	}
	if e.Seq == room.seq+1 && e.Settings != nil {
		room.rev, room.seq, room.settings = e.Rev, e.Seq, *e.Settings
	} else if !h.reload(room) {
		return
	}
	if p, ok := engine.Lookup(e.Name); ok && e.Kind == "set" {
		h.announceSet(room, p, e.From)
		return
	}
	h.broadcast(room, "")
}

// reload reads room's state from the bus; false if it has none or cannot
// be read.
func (h *Hub) reload(room *wsRoom) bool {
	sh, ok, err := h.bus.Load(room.id)
	if err != nil {
		log.Printf("lab: live sync: reload %s: %v", room.id, err)
	}
	if !ok || sh.Seq < room.seq {
		return false
	}
	room.rev, room.seq, room.settings = sh.Rev, sh.Seq, sh.Settings
	return true
}

// broadcast sends room's config to every client.
func (h *Hub) broadcast(room *wsRoom, from string) {
	m := h.configMsg(room, "", from)
	for c := range room.clients {
		c.publish(m)
	}
}

// reply sends an error to c alone. An unreachable database is said in
// words a person can act on (store.ErrUnreachable); its cause, which names
// the database's address, goes to the log only.
func (h *Hub) reply(room *wsRoom, c *wsClient, err error) {
	msg, field := jsonapi.Text(err)
	if store.Unreachable(err) {
		log.Printf("lab: live sync of %s: %v", room.id, err)
		msg, field = store.ErrUnreachable.Error(), ""
	}
	h.enqueue(room, c, wsMarshal(wsErrorMsg{Type: "error", Error: msg, Field: field}))
}

func (h *Hub) configMsg(room *wsRoom, you, from string) *websocket.PreparedMessage {
	return wsMarshal(wsConfigMsg{Type: "config", Session: room.id, Rev: room.rev, You: you, From: from,
		Config: Config{Schema: ConfigSchema, Settings: room.settings}})
}

// wsMarshal encodes a message once for every client that gets it. The
// messages are fixed types holding checked, finite numbers, so it does not
// fail; if it did, the message is logged and not sent (nil).
func wsMarshal(v any) *websocket.PreparedMessage {
	data, err := json.Marshal(v)
	if err != nil {
		log.Printf("lab: live sync: encode %T: %v", v, err)
		return nil
	}
	pm, err := websocket.NewPreparedMessage(websocket.TextMessage, data)
	if err != nil {
		log.Printf("lab: live sync: prepare %T: %v", v, err)
		return nil
	}
	return pm
}

// wsParamValue returns p's value in s as it appears in the config JSON.
func wsParamValue(p *engine.Param, s *engine.Settings) any {
	v := p.Get(s)
	switch p.Kind {
	case engine.Int:
		return int64(v)
	case engine.Bool:
		return v != 0
	case engine.Enum:
		return p.Format(v)
	case engine.Set:
		return strings.Split(p.Format(v), ",")
	}
	return v
}

// wsParseValue reads a set message's value for p: a number, a Bool's true or
// false, a list of technique names, or the text form as a string. The range
// is checked by the caller through p.Set.
func wsParseValue(p *engine.Param, raw json.RawMessage) (float64, error) {
	bad := func(why string) (float64, error) {
		return 0, jsonapi.BadRequest(p.Name, fmt.Sprintf("%s = %s: %s", p.Name, jsonapi.Clip(string(raw), 40), why))
	}
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" { // json.Unmarshal reads null as 0
		return bad("missing value")
	}
	switch {
	case raw[0] == '"':
		var text string
		if err := json.Unmarshal(raw, &text); err != nil {
			return bad("not a JSON string")
		}
		return p.Parse(text)
	case string(raw) == "true" || string(raw) == "false":
		if p.Kind != engine.Bool {
			return bad("true or false is only for on/off parameters")
		}
		if string(raw) == "true" {
			return 1, nil
		}
		return 0, nil
	case raw[0] == '[':
		var names []string
		if p.Kind != engine.Set || json.Unmarshal(raw, &names) != nil {
			return bad("a list is only for techniques, as names")
		}
		return p.Parse(strings.Join(names, ","))
	}
	var v float64
	if err := json.Unmarshal(raw, &v); err != nil {
		return bad("want a finite number or the parameter's text form")
	}
	return v, nil
}

// errWSNotJSON is wsDecode's answer to a frame that is not a JSON object: a
// protocol violation that closes the connection.
var errWSNotJSON = errors.New("not a JSON object")

// wsDecode checks one client frame. A frame that is not a JSON object gives
// errWSNotJSON; an object that is not a valid message gives an error for the
// client (a 400 *jsonapi.Error).
func wsDecode(data []byte) (wsInMsg, error) {
	trimmed := bytes.TrimSpace(data)
	if !json.Valid(trimmed) || len(trimmed) == 0 || trimmed[0] != '{' {
		return wsInMsg{}, errWSNotJSON
	}
	var m wsInMsg
	if err := jsonapi.Unmarshal(trimmed, &m, ""); err != nil {
		return wsInMsg{}, err
	}
	return m, nil
}

// readPump reads the client's messages and hands them to the hub. It is the
// only reader of the connection.
func (c *wsClient) readPump() {
	defer func() {
		select {
		case c.hub.unregister <- c:
		case <-c.hub.done:
		}
		c.conn.Close()
	}()
	c.conn.SetReadLimit(MaxMessageSize) // over it, gorilla closes with 1009
	c.conn.SetReadDeadline(time.Now().Add(pongWait))
	c.conn.SetPongHandler(func(string) error { return c.conn.SetReadDeadline(time.Now().Add(pongWait)) })
	now := time.Now()
	sets, packets := newBucket(SetRate, SetBurst, now), newBucket(PacketRate, PacketBurst, now)
	for {
		kind, data, err := c.conn.ReadMessage()
		if err != nil {
			return
		}
		if kind != websocket.TextMessage {
			c.closeWith(websocket.CloseUnsupportedData, "text frames only")
			return
		}
		if !utf8.Valid(data) {
			c.closeWith(websocket.CloseInvalidFramePayloadData, "not UTF-8 text")
			return
		}
		m, err := wsDecode(data)
		if errors.Is(err, errWSNotJSON) {
			c.closeWith(websocket.CloseInvalidFramePayloadData, err.Error())
			return
		}
		budget, rate, burst := &sets, SetRate, SetBurst
		if m.Type == "packet" {
			budget, rate, burst = &packets, PacketRate, PacketBurst
		}
		if !budget.take(time.Now()) {
			c.closeWith(websocket.ClosePolicyViolation, fmt.Sprintf("over the message budget: at most %d %s messages a second (burst %d)",
				rate, cmp.Or(m.Type, "set"), burst))
			return
		}
		select {
		case c.hub.inbound <- wsInbound{c: c, msg: m, err: err}:
		case <-c.hub.done:
			return
		}
	}
}

// closeWith sends a close frame; WriteControl may run beside the writer.
func (c *wsClient) closeWith(code int, text string) {
	c.conn.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, text), time.Now().Add(writeWait))
}

// writePump writes the hub's messages and the pings. It is the only writer of
// the connection (besides WriteControl).
func (c *wsClient) writePump() {
	ticker := time.NewTicker(pingPeriod)
	defer func() {
		ticker.Stop()
		c.conn.Close()
	}()
	write := func(m *websocket.PreparedMessage, ok bool) bool {
		c.conn.SetWriteDeadline(time.Now().Add(writeWait))
		if !ok {
			c.conn.WriteMessage(websocket.CloseMessage, c.closeMsg)
			return false
		}
		return c.conn.WritePreparedMessage(m) == nil
	}
	for {
		// The queue first: it holds the config sent on connect, which
		// must come before any later change.
		select {
		case m, ok := <-c.send:
			if !write(m, ok) {
				return
			}
			continue
		default:
		}
		select {
		case m, ok := <-c.send:
			if !write(m, ok) {
				return
			}
		case <-c.wake:
			for _, m := range c.takeLatest() {
				if !write(m, true) {
					return
				}
			}
		case <-ticker.C:
			c.conn.SetWriteDeadline(time.Now().Add(writeWait))
			if err := c.conn.WriteMessage(websocket.PingMessage, nil); err != nil {
				return
			}
		}
	}
}

// applySaved returns live with the parameters a save changed (those where
// saved differs from prev) set to their saved values: a save that changed
// only the notes leaves every live change as it was.
func applySaved(live, prev, saved engine.Settings) engine.Settings {
	out := live
	out.Techniques = slices.Clone(live.Techniques)
	for _, c := range engine.Diff(prev, saved) {
		p, _ := engine.Lookup(c.Name)
		p.Set(&out, p.Get(&saved)) // saved is valid: so is each value
	}
	if err := out.Validate(); err != nil {
		// The merge broke a rule between fields (a live sendRate above
		// the saved tickRate): the saved settings win whole.
		return saved
	}
	return engine.Canonical(out)
}
