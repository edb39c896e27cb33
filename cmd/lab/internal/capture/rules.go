package capture

import (
	"fmt"
	"math"

	"interplab/cmd/lab/internal/store"
	"interplab/engine"
)

// The rules between a capture's updates (docs/capture-protocol.md): the
// reader checks each batch against what the capture holds so far, and
// keeps what it needs of it (the delays' span, the send times' span, the
// last arrival, each entity's newest send), rebuilt from the store when a
// capture is resumed.

// restore rebuilds the reader's state from a capture's stored updates.
func (c *conn) restore(cp store.Capture) *ProtocolError {
	c.lo, c.hi, c.first, c.last = math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	c.ids = map[uint32]store.CaptureUpdate{}
	c.lastArrive = math.Inf(-1)
	c.cap = cp
	err := c.m.st.CaptureUpdates(cp.ID, func(u store.CaptureUpdate) error {
		c.commit(u)
		return nil
	})
	if err != nil {
		return storeError("resume the capture", err)
	}
	return nil
}

// sentSeconds is u's send time in seconds.
func (c *conn) sentSeconds(u *store.CaptureUpdate) float64 {
	if c.cap.TimeBase == "ticks" {
		return u.Sent / c.cap.TickRate
	}
	return u.Sent
}

// commit takes u into the reader's state.
func (c *conn) commit(u store.CaptureUpdate) {
	s := c.sentSeconds(&u)
	d := u.Arrive - s
	c.lo, c.hi = min(c.lo, d), max(c.hi, d)
	c.first, c.last = min(c.first, s), max(c.last, s)
	c.lastArrive = u.Arrive
	if n, ok := c.ids[u.ID]; !ok || u.Sent > n.Sent {
		c.ids[u.ID] = u
	}
}

// checkRules checks a batch's updates against the capture so far (the
// rules between updates of docs/capture-protocol.md) and, if they keep
// them, takes them into the reader's state.
func (c *conn) checkRules(b *batch) *ProtocolError {
	lo, hi, first, last, lastArrive := c.lo, c.hi, c.first, c.last, c.lastArrive
	var fresh map[uint32]store.CaptureUpdate // the batch's own newest sends
	newest := func(id uint32) (store.CaptureUpdate, bool) {
		if u, ok := fresh[id]; ok {
			return u, true
		}
		u, ok := c.ids[id]
		return u, ok
	}
	for i := range b.updates {
		u := &b.updates[i]
		bad := func(field, msg string) *ProtocolError {
			return &ProtocolError{Code: 1007, Field: field, Batch: b.n, Msg: fmt.Sprintf("batch %d: update %d: %s: %s", b.n, i, field, msg)}
		}
		if u.Arrive < lastArrive {
			return bad("arrive", fmt.Sprintf("%v is before the previous update's %v: updates come in the order the client received them", u.Arrive, lastArrive))
		}
		lastArrive = u.Arrive
		s := c.sentSeconds(u)
		if c.cap.TimeBase == "ticks" && (u.Sent < 0 || u.Sent != math.Trunc(u.Sent) || u.Sent > engine.TraceMaxSeq) {
			return bad("sent", fmt.Sprintf("%v: want a tick number, a whole number from 0 to 2^40", u.Sent))
		}
		d := u.Arrive - s
		lo, hi = min(lo, d), max(hi, d)
		shift := 0.0
		if lo < 0 || lo > liveMaxLatency {
			shift = -lo
		}
		if hi+shift > engine.TraceMaxDelay {
			return bad("arrive", fmt.Sprintf("the delays (arrive − sent) would span %.3f s: at most %d", hi+shift, engine.TraceMaxDelay))
		}
		first, last = min(first, s), max(last, s)
		if last-first > engine.TraceMaxSpan {
			return bad("sent", fmt.Sprintf("the capture would span %.0f s of send times: at most %d", last-first, engine.TraceMaxSpan))
		}
		prev, seen := newest(u.ID)
		if !seen && len(c.ids)+len(fresh) >= engine.TraceMaxEntities {
			return bad("entity", fmt.Sprintf("%d: a capture holds at most %d entities", u.ID, engine.TraceMaxEntities))
		}
		if seen && u.Sent == prev.Sent && !sameState(&prev, u) {
			return bad("x", "the same send (entity and sent) as an earlier update with another state: a copy carries the same position, velocity and rotation")
		}
		if !seen || u.Sent > prev.Sent {
			if fresh == nil {
				fresh = map[uint32]store.CaptureUpdate{}
			}
			fresh[u.ID] = *u
		}
	}
	c.lo, c.hi, c.first, c.last, c.lastArrive = lo, hi, first, last, lastArrive
	for id, u := range fresh {
		c.ids[id] = u
	}
	return nil
}

// sameState tells whether two updates carry the same state.
func sameState(a, b *store.CaptureUpdate) bool {
	if a.Pos != b.Pos || a.Flags&flagRot != b.Flags&flagRot || a.Flags&flagRot != 0 && a.Rot != b.Rot {
		return false
	}
	return a.Flags&flagVel == 0 || b.Flags&flagVel == 0 || a.Vel == b.Vel
}
