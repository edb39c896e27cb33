package technique

// IdleSpans is what a send-on-change sender has told the client about one
// entity: the spans of server time over which every snapshot received said
// that the entity had not moved beyond the library's change threshold from
// the values last sent (Mirror's onlySyncOnChange and positionSensitivity,
// NGO's positionThreshold). A display that holds at a time inside such a
// span holds what the sender meant: for every send up to that time the
// sender deliberately sent nothing new (Sample.Idle).
//
// A span opens after a snapshot that set the entity's values (or after the
// first snapshot, when it is already still) and runs through the later
// snapshots that confirmed them unchanged. While it is open it ends at the
// newest snapshot received, so a hold past it (the sender's next word late,
// lost or cut off by an outage) is starvation, not idleness. A snapshot
// that carries a change closes it just before its own time: up to that
// send, the sender had nothing new. Only snapshots that reached the client
// count; late and duplicate ones (not newer than the newest) are ignored.
// The zero value has no span.
//
// It keeps the open span and the one closed before it, enough for a display
// that lags the snapshots by its buffer delay: a hold in an older span, as
// for a display more than one still spell behind, reads as not idle, which
// errs towards counting an underrun.
type IdleSpans struct {
	newest   float64    // the newest snapshot's time, s
	cur      [2]float64 // the open span (from, to], s; empty when to ≤ from
	prev     [2]float64 // the last closed, non-empty span (from, to), s
	received bool
}

// Still records that the sender judged the entity unchanged in the
// snapshot of server time t, whether it then sent an unchanged update or
// nothing for it.
func (s *IdleSpans) Still(t float64) {
	if s.received && t <= s.newest {
		return
	}
	if !s.received {
		s.cur = [2]float64{t, t} // nothing before it: the span starts here
	}
	s.received, s.newest = true, t
	s.cur[1] = t
}

// Moved records that the sender sent a change in the snapshot of server
// time t: the open span, if it holds a still snapshot, closes before t, and
// a new one may start after t.
func (s *IdleSpans) Moved(t float64) {
	if s.received && t <= s.newest {
		return
	}
	s.received, s.newest = true, t
	if s.cur[1] > s.cur[0] {
		s.prev = [2]float64{s.cur[0], t}
	}
	s.cur = [2]float64{t, t}
}

// Covers reports whether server time t lies in a span: after a snapshot
// that set the entity's values, and at or before the newest that confirmed
// them unchanged or, once a change came, before that change.
func (s *IdleSpans) Covers(t float64) bool {
	return t > s.cur[0] && t <= s.cur[1] || t > s.prev[0] && t < s.prev[1]
}
