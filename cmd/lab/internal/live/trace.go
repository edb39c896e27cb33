package live

// Live traces: a game connected to a session's WebSocket (see hub.go) may
// stream the packets it sends, and the lab records them as they arrive:
//
//	{"type":"packet","entity":0,"seq":41,"sent":1764000000.125,"pos":[1,2,0],"vel":[7,0,0],"rot":[0,0,0,1]}
//
// sent is the game's send time in seconds, and should be Unix time (a
// clock synchronised with the lab server's) so that the server's arrival
// stamp minus sent is the one-way delay. pos (m) and vel (m/s) are
// required; entity (default 0, at most 9999), seq (default: the entity's
// previous plus one, or the same for a copy sent at the same time) and rot
// (a unit quaternion x, y, z, w) are optional. An entity's packets must come
// in send order: each is a copy of the previous one (same seq, sent and
// state) or a later send. A packet that breaks a rule is refused with an
// error message, like a bad set, and not recorded.
//
// The server stamps each packet with its own clock at arrival, appends it to
// the session's live trace (the latest LiveTraceCap packets, in memory) and
// sends it, with "arrive" (the stamp, Unix seconds) and "from", to the
// session's other clients, so a page can replay the stream as it comes:
//
//	{"type":"packet","entity":0,"seq":41,"sent":1764000000.125,"arrive":1764000000.168,"pos":[1,2,0],"vel":[7,0,0],"rot":[0,0,0,1],"from":"c2"}
//
// POST /api/sessions/{id}/trace {"name":"..."} saves the live trace as a
// trace (the server's traces API); the live trace goes on recording. When the game's
// clock is not the server's (a delay below 0, or the smallest above 1 s,
// which is more than any latency the lab models), the saved arrivals are
// shifted so that the smallest delay is 0: the latency is then unknown, the
// jitter and loss are right. Like unsaved settings, a live trace is dropped
// when the session's last client leaves.
//
// Memory is bounded twice: a live trace keeps the latest LiveTraceCap
// packets (a sliding window: when it is full, each new packet drops the
// oldest, and the game is told once, with a notice message), and the
// server holds at most LiveTraceTotalCap packets across every session's
// live trace: a packet that would go beyond is refused with an error
// naming the cap, and nothing is dropped from the other sessions.
//
//	{"type":"notice","notice":"the live trace is full: ..."}

import (
	"errors"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strings"

	"interplab/cmd/lab/internal/jsonapi"
	"interplab/cmd/lab/internal/traceio"
	"interplab/engine"
	"interplab/engine/geom"
)

// LiveTraceCap is the most packets a session's live trace keeps; beyond it
// the oldest are dropped. At about 130 bytes a packet, 2.5 MiB.
const LiveTraceCap = 20000

// LiveTraceTotalCap is the most packets the server keeps across every live
// trace: five sessions' full windows, about 13 MiB.
const LiveTraceTotalCap = 5 * LiveTraceCap

// liveMaxLatency is the largest smallest delay taken as a real latency.
const liveMaxLatency = 1.0

// liveTrace is a session's live trace: the rows in arrival order, in a
// ring, and each entity's latest send. It is owned by the hub's goroutine.
type liveTrace struct {
	ring   []traceio.Row
	next   int
	n      int
	total  int // packets ever recorded
	latest map[int]traceio.Row
	told   bool // the game was told the window is full
}

// wsPacketMsg is a packet as the hub sends it on.
type wsPacketMsg struct {
	Type   string     `json:"type"`
	Entity int        `json:"entity"`
	Seq    int        `json:"seq"`
	Sent   float64    `json:"sent"`
	Arrive float64    `json:"arrive"`
	Pos    [3]float64 `json:"pos"`
	Vel    [3]float64 `json:"vel"`
	Rot    []float64  `json:"rot,omitempty"`
	From   string     `json:"from"`
}

// wsNoticeMsg tells a game something it may want to act on; nothing was refused.
type wsNoticeMsg struct {
	Type   string `json:"type"`
	Notice string `json:"notice"`
}

// livePacket records a packet message from c and sends it on.
func (h *Hub) livePacket(room *wsRoom, c *wsClient, m *wsInMsg) {
	row, err := room.trace.check(m)
	if err != nil {
		h.reply(room, c, err)
		return
	}
	row.Arrive = float64(h.now().UnixNano()) / 1e9
	recorded, full := h.record(room, row)
	if !recorded {
		h.reply(room, c, &jsonapi.Error{Status: http.StatusInsufficientStorage, Field: "type",
			Msg: fmt.Sprintf("packet refused: the server holds %d live packets across sessions, its limit; save a live trace (POST /api/sessions/{id}/trace) and close its session to free room", h.traceTotalCap)})
		return
	}
	if full && !room.trace.told {
		room.trace.told = true
		h.enqueue(room, c, wsMarshal(wsNoticeMsg{Type: "notice",
			Notice: fmt.Sprintf("the live trace is full: it keeps the latest %d packets and drops the oldest from now on; save it (POST /api/sessions/{id}/trace) to keep them", h.traceCap)}))
	}
	out := wsPacketMsg{Type: "packet", Entity: row.Entity, Seq: row.Seq, Sent: row.Sent, Arrive: row.Arrive,
		Pos: row.Pos, Vel: row.Vel, From: c.id}
	if row.HasRot {
		out.Rot = row.Rot[:]
	}
	pm := wsMarshal(out)
	for other := range room.clients {
		if other != c {
			h.offer(other, pm)
		}
	}
	if h.bus != nil {
		h.bus.Relay(room.id, out)
	}
}

// relayed records the packets another lab's game sent (a bus's packets
// event) in room's live trace and sends them on to its clients, as that
// lab stamped them. Beyond the server's cap of live packets they are
// left out, as a viewer that falls behind misses them.
func (h *Hub) relayed(room *wsRoom, packets []wsPacketMsg) {
	for _, p := range packets {
		if strings.HasPrefix(p.From, h.bus.Tag()) {
			continue // this lab's own
		}
		row := traceio.Row{Entity: p.Entity, Seq: p.Seq, Sent: p.Sent, Arrive: p.Arrive, Pos: p.Pos, Vel: p.Vel}
		if len(p.Rot) == 4 {
			row.Rot, row.HasRot = geom.Quat(p.Rot), true
		}
		if recorded, _ := h.record(room, row); !recorded {
			continue
		}
		pm := wsMarshal(p)
		for c := range room.clients {
			h.offer(c, pm)
		}
	}
}

// record appends row to room's live trace within the server's cap of live
// packets. A trace whose window is not full grows by a row, which counts
// towards the cap: at the cap, row is left out and recorded is false. A
// full window (full) drops its oldest row instead, and the count stays.
func (h *Hub) record(room *wsRoom, row traceio.Row) (recorded, full bool) {
	full = room.trace.n >= h.traceCap
	if !full && h.traceRows >= h.traceTotalCap {
		return false, false
	}
	room.trace.add(row, h.traceCap)
	if !full {
		h.traceRows++
	}
	return true, full
}

// check validates a packet message against the trace so far and returns
// its row (without the arrival).
func (lt *liveTrace) check(m *wsInMsg) (traceio.Row, error) {
	bad := func(field, msg string) (traceio.Row, error) {
		return traceio.Row{}, jsonapi.BadRequest(field, msg)
	}
	row := traceio.Row{Seq: -1}
	if m.Entity != nil {
		row.Entity = *m.Entity
		if row.Entity < 0 || row.Entity >= engine.TraceMaxEntities {
			return bad("entity", fmt.Sprintf("entity %d: want 0 to %d", row.Entity, engine.TraceMaxEntities-1))
		}
	}
	if m.Seq != nil {
		row.Seq = *m.Seq
		if row.Seq < 0 || row.Seq > engine.TraceMaxSeq {
			return bad("seq", fmt.Sprintf("seq %d: want 0 to 2^40", row.Seq))
		}
	}
	if m.Sent == nil {
		return bad("sent", "missing sent: the send time, Unix seconds")
	}
	row.Sent = *m.Sent
	if !(math.Abs(row.Sent) <= engine.TraceMaxTime) {
		return bad("sent", "sent: want a time within ±1e10 s")
	}
	for _, a := range []struct {
		name string
		v    []float64
		dst  []float64
	}{{"pos", m.Pos, row.Pos[:]}, {"vel", m.Vel, row.Vel[:]}} {
		if len(a.v) != 3 {
			return bad(a.name, fmt.Sprintf("%s: %d numbers, want 3", a.name, len(a.v)))
		}
		for i, x := range a.v {
			if !(math.Abs(x) <= engine.TraceMaxCoord) {
				return bad(a.name, a.name+": want numbers within ±1e7")
			}
			a.dst[i] = x
		}
	}
	if m.Rot != nil {
		if len(m.Rot) != 4 {
			return bad("rot", fmt.Sprintf("rot: %d numbers, want 4 (x, y, z, w)", len(m.Rot)))
		}
		if err := row.SetRot(geom.Quat(m.Rot)); err != nil {
			return bad("rot", "rot: "+err.Msg)
		}
	}
	prev, seen := lt.latest[row.Entity]
	switch {
	case !seen:
		if row.Seq < 0 {
			row.Seq = 0
		}
	case row.Sent == prev.Sent && (row.Seq < 0 || row.Seq == prev.Seq):
		row.Seq = prev.Seq
		if row.Pos != prev.Pos || row.Vel != prev.Vel || row.HasRot != prev.HasRot || row.Rot != prev.Rot {
			return bad("sent", fmt.Sprintf("entity %d: a second state at sent = %v: a copy carries the same state", row.Entity, row.Sent))
		}
	case row.Sent <= prev.Sent:
		return bad("sent", fmt.Sprintf("entity %d: sent %v is not after its previous %v: send packets in send order", row.Entity, row.Sent, prev.Sent))
	case row.Seq < 0:
		row.Seq = prev.Seq + 1
	case row.Seq <= prev.Seq:
		return bad("seq", fmt.Sprintf("entity %d: seq %d is not after its previous %d", row.Entity, row.Seq, prev.Seq))
	}
	return row, nil
}

// add appends row, dropping the oldest beyond capacity rows.
func (lt *liveTrace) add(row traceio.Row, capacity int) {
	if lt.ring == nil {
		lt.ring = make([]traceio.Row, 0, 256)
		lt.latest = map[int]traceio.Row{}
	}
	if len(lt.ring) < capacity {
		lt.ring = append(lt.ring, row)
	} else {
		lt.ring[lt.next] = row
	}
	lt.next = (lt.next + 1) % capacity
	lt.n = min(lt.n+1, capacity)
	lt.total++
	lt.latest[row.Entity] = row
}

// rows returns a copy of the recorded rows, oldest first, numbered from 1
// in their line field.
func (lt *liveTrace) rows() []traceio.Row {
	// Until the ring is full, next is its length: the same rotation
	// gives the rows in order.
	out := make([]traceio.Row, 0, lt.n)
	out = append(append(out, lt.ring[lt.next:]...), lt.ring[:lt.next]...)
	for i := range out {
		out[i].Line = lt.total - lt.n + i + 1
	}
	return out
}

// LiveTrace returns the rows of session id's live trace, oldest first, if
// the session has clients.
func (h *Hub) LiveTrace(id string) ([]traceio.Row, bool) {
	q := wsLiveQuery{id: id, reply: make(chan wsLiveReply, 1), trace: true}
	select {
	case h.live <- q:
		r := <-q.reply
		return r.trace, r.ok
	case <-h.done:
		return nil, false
	}
}

// TraceFrom makes a trace called name from a live trace's rows: sorted
// by send time, the arrivals shifted when the clocks differ (see above).
// Errors name the packet by its number in the live trace.
func TraceFrom(rows []traceio.Row, name string) (*engine.Trace, error) {
	if len(rows) == 0 {
		return nil, &jsonapi.Error{Status: http.StatusConflict, Msg: "the live trace has no packets yet"}
	}
	low := math.Inf(1)
	for _, r := range rows {
		low = min(low, r.Arrive-r.Sent)
	}
	if low < 0 || low > liveMaxLatency {
		// From the delays, so that no arrival rounds to before its send.
		for i := range rows {
			rows[i].Arrive = rows[i].Sent + (rows[i].Arrive - rows[i].Sent - low)
		}
	}
	tr, err := traceio.Build(slices.Clone(rows), name)
	if err != nil {
		if ie, ok := errors.AsType[*traceio.InputError](err); ok && ie.Line > 0 {
			return nil, jsonapi.BadRequest(ie.Field, fmt.Sprintf("live packet %d: %s", ie.Line, ie.Msg))
		}
		return nil, err
	}
	return tr, nil
}
