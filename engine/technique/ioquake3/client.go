package ioquake3

import "interplab/engine/geom"

// adjust is how a frame moved the client clock's offset.
type adjust uint8

const (
	adjNone  adjust = iota // no move this frame
	adjFirst               // the first snapshot set the offset
	adjReset               // over 500 ms off: taken outright
	adjFast                // over 100 ms off: halfway
	adjUp                  // +1 ms
	adjDown                // −2 ms
)

var adjustNames = [...]string{"", "first", "reset", "fast", "+1", "-2"}

// drawMode is what the cgame drew for the remote player.
type drawMode uint8

const (
	drawNone   drawMode = iota // no snapshot yet
	drawInterp                 // between snap and next
	drawHold                   // no next snapshot: the newest origin
	drawExtrap                 // no next snapshot, cg_smoothClients: along the velocity
)

var drawModeNames = [...]string{"none", "interp", "hold", "extrap"}

// snapRef is a received snapshot: its server time and the remote player's
// command time, ms, and where its entities' states are stored.
type snapRef struct {
	t, tr int64
	slot  int32
}

// maxQueued is how many received snapshots the cgame can still read: the
// game keeps a window of 32 message numbers.
const maxQueued = 32

// client is the Quake III client clock and the cgame's snapshot
// bookkeeping for n remote players that share their snapshots, in integer
// milliseconds; the players' origins are float32, as the game holds them.
type client struct {
	n      int
	nudge  int64 // cl_timeNudge, clamped
	smooth bool  // players keep their linear-stop trajectory (cg_smoothClients 1 with a server that sends them so)

	// The clock.
	lastSeq     int64 // the newest accepted message number
	latest      int64 // the server time of the newest accepted snapshot
	any, active bool  // a snapshot was accepted; the clock has its offset
	fresh       bool  // snapshots accepted since the last adjustment
	nearNewest  bool  // the un-nudged time came within 5 ms of latest since the last adjustment
	offset      int64 // server time − client time
	drawTime    int64 // the time handed to the cgame
	floorTime   int64 // the time the last frame drew: the floor of the next

	// The cgame.
	queue          []snapRef // accepted, not yet read, oldest first
	snap, next     snapRef   // the snapshots at or before and after the view time
	hasSnap, hasNx bool      // whether snap and next are set
	viewTime       int64     // the time the player is drawn at, ms: drawTime, or snap's when that is later
	frac           float32   // the fraction of the way from snap to next
	mode           drawMode  // what this frame draws
	adj            adjust    // how this frame moved the offset

	// Storage: per slot, n players' states.
	pos, vel [][3]float32
	rot      []geom.Quat
	free     []int32
	slots    int32
}

func newClient(n int, lastSeq int64, nudge int64, smooth bool) *client {
	return &client{n: n, lastSeq: lastSeq, nudge: nudge, smooth: smooth, queue: make([]snapRef, 0, maxQueued+1)}
}

// alloc returns a free storage slot.
func (c *client) alloc() int32 {
	if k := len(c.free); k > 0 {
		s := c.free[k-1]
		c.free = c.free[:k-1]
		return s
	}
	s := c.slots
	c.slots++
	c.pos = append(c.pos, make([][3]float32, c.n)...)
	c.vel = append(c.vel, make([][3]float32, c.n)...)
	c.rot = append(c.rot, make([]geom.Quat, c.n)...)
	return s
}

// receive offers the snapshot with message number seq and server time t
// (ms), the players' command time tr (ms). It returns false when it is
// dropped (seq not after the newest accepted), else a slot whose states
// the caller fills before the next frame.
func (c *client) receive(seq, t, tr int64) (slot int32, ok bool) {
	if seq <= c.lastSeq {
		return 0, false
	}
	c.lastSeq, c.latest, c.any, c.fresh = seq, t, true, true
	if len(c.queue) == maxQueued {
		// Too old for the game's window: never read.
		c.free = append(c.free, c.queue[0].slot)
		c.queue = append(c.queue[:0], c.queue[1:]...)
	}
	slot = c.alloc()
	c.queue = append(c.queue, snapRef{t: t, tr: tr, slot: slot})
	return slot, true
}

// readNext hands the cgame the oldest snapshot it has not read.
func (c *client) readNext() (snapRef, bool) {
	if len(c.queue) == 0 {
		return snapRef{}, false
	}
	s := c.queue[0]
	c.queue = append(c.queue[:0], c.queue[1:]...)
	return s, true
}

// frame runs the client clock at client time now (ms), then the cgame's
// snapshot bookkeeping: it sets drawTime, viewTime, snap and next, frac
// and mode; the players' origins follow from them (origin).
func (c *client) frame(now int64) {
	c.adj, c.mode = adjNone, drawNone
	if !c.any {
		return
	}
	if !c.active {
		c.offset, c.floorTime = c.latest-now, c.latest
		c.fresh, c.active, c.adj = false, true, adjFirst
	}
	c.drawTime = max(now+c.offset-c.nudge, c.floorTime)
	c.floorTime = c.drawTime
	if now+c.offset >= c.latest-5 {
		c.nearNewest = true
	}
	if c.fresh {
		c.fresh = false
		off := c.latest - now
		d := off - c.offset
		if d < 0 {
			d = -d
		}
		switch {
		case d > 500:
			c.offset, c.drawTime, c.floorTime, c.adj = off, c.latest, c.latest, adjReset
		case d > 100:
			c.offset, c.adj = (c.offset+off)>>1, adjFast
		case c.nearNewest:
			c.nearNewest, c.offset, c.adj = false, c.offset-2, adjDown
		default:
			c.offset, c.adj = c.offset+1, adjUp
		}
	}
	c.pickSnapshots(c.drawTime)
}

// pickSnapshots keeps the two snapshots around time t (ms) and sets frac and mode.
func (c *client) pickSnapshots(t int64) {
	if !c.hasSnap {
		s, ok := c.readNext()
		if !ok {
			c.viewTime = t
			return
		}
		c.snap, c.hasSnap = s, true
	}
	for {
		if !c.hasNx {
			s, ok := c.readNext()
			if !ok {
				break
			}
			c.next, c.hasNx = s, true
		}
		if c.snap.t <= t && t < c.next.t {
			break
		}
		c.free = append(c.free, c.snap.slot)
		c.snap, c.hasNx = c.next, false
	}
	t = max(t, c.snap.t)
	c.viewTime = t
	c.frac = 0
	switch {
	case c.hasNx:
		c.mode = drawInterp
		if d := c.next.t - c.snap.t; d != 0 {
			c.frac = float32(t-c.snap.t) / float32(d)
		}
	case c.smooth:
		c.mode = drawExtrap
	default:
		c.mode = drawHold
	}
}

// at is player e's origin in the snapshot stored in slot, its trajectory
// evaluated at time at (ms): the sent origin, or with a linear-stop
// trajectory the origin moved along the velocity for the time since the
// command time tr, at most 50 ms.
func (c *client) at(slot int32, tr int64, e int, at int64) [3]float32 {
	k := int(slot)*c.n + e
	p := c.pos[k]
	if !c.smooth {
		return p
	}
	at = min(at, tr+trajectoryMsec)
	dt := float32(float32(at-tr) * float32(0.001))
	if dt < 0 {
		dt = 0
	}
	v := &c.vel[k]
	return [3]float32{p[0] + float32(v[0]*dt), p[1] + float32(v[1]*dt), p[2] + float32(v[2]*dt)}
}

// trajectoryMsec is the duration of the linear-stop trajectory a server
// sends players as, ms.
const trajectoryMsec = 50

// origin is player e's drawn origin in the frame set up by frame; ok is
// false when nothing is drawn.
func (c *client) origin(e int) (o [3]float32, ok bool) {
	switch c.mode {
	case drawNone:
		return o, false
	case drawInterp:
		a := c.at(c.snap.slot, c.snap.tr, e, c.snap.t)
		b := c.at(c.next.slot, c.next.tr, e, c.next.t)
		f := c.frac
		return [3]float32{
			a[0] + float32(f*float32(b[0]-a[0])),
			a[1] + float32(f*float32(b[1]-a[1])),
			a[2] + float32(f*float32(b[2]-a[2])),
		}, true
	default:
		return c.at(c.snap.slot, c.snap.tr, e, c.viewTime), true
	}
}
