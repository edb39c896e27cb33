package lightyear

import "math"

// config is the settings as the client computes with them: durations in
// whole ns, f32 knobs as f32.
type config struct {
	tick, sendInterval          int64 // the tick, and the send interval as the client received it, ns
	minDelay, pingInterval      int64 // ns
	ratio                       float32
	jitterMultiple              uint32
	jitterMargin                float32
	handshakePings              uint32
	errorMargin, maxErrorMargin float32
	threshold                   uint8
	speedup                     float32
}

// announced is the send interval the client works with when the server's
// is sendInterval ns: the server sends it as a tick delta quantized for the
// wire, the client takes it back to a duration.
func announced(sendInterval, tick int64) int64 {
	return toDuration(wire(ticks(sendInterval, tick)), tick)
}

// Fixed in the library, not settings.
const (
	remoteHandshake = 3                     // used pongs before the remote estimate moves
	maxVirtualDelta = 250 * nsPerSec / 1000 // Bevy's largest virtual-time step, ns
	pingSlots       = 128                   // the ping store
	halfSecond      = 0.5                   // the RTT outlier cap's absolute term, s
)

// Run-time f32 and f64 constants, rounded as lightyear's are (see num.go).
var (
	rttAlpha, rttBeta     = 1.0 / 12.0, 1.0 / 6.0
	emaMin, emaMax        = float32(0.02), float32(0.10)
	jitterLow, jitterHigh = float32(1), float32(10)
)

// pingSlot is one slot of the ping store.
type pingSlot struct {
	id   uint16
	sent int64 // local time, ns
	used bool
}

// timing is the part of a lightyear client shared by every interpolated
// entity: the ping RTT and jitter estimate, the remote tick estimate and
// the interpolation timeline with its sync controller.
type timing struct {
	c config

	started bool
	last    int64 // the previous frame's local time, ns

	// Pings and the RTT estimator.
	stopwatch int64 // ns since the last ping
	nextPing  uint16
	store     [pingSlots]pingSlot
	lastUsed  uint16
	anyUsed   bool
	samples   uint32 // pongs used
	srtt, dev int64  // ns
	rtt, jit  int64  // ns
	haveStats bool

	// The remote estimate.
	remote     uint64 // R.now, fixed-point ticks
	offset     int64  // fixed-point ticks
	haveOffset bool
	lastTick   uint32
	haveTick   bool
	accepted   bool // a packet moved the estimate this frame

	// The interpolation timeline.
	now      uint64  // I.now, fixed-point ticks
	speed    float32 // the relative speed the next advance uses
	synced   bool
	posSign  bool  // the controller's previous error sign
	errCount uint8 // consecutive samples beyond errorMargin
}

func newTiming(c config) timing { return timing{c: c, speed: 1, posSign: true} }

// advance moves both clocks to local time t (ns): the remote estimate by the
// real step, the interpolation timeline by the virtual step (clamped to
// 250 ms) at its speed; the ping stopwatch gains the real step.
func (m *timing) advance(t int64) {
	d := int64(0)
	if m.started {
		d = max(t-m.last, 0)
	}
	m.started, m.last = true, t
	m.remote += uint64(ticks(d, m.c.tick))
	v := divF32(min(d, maxVirtualDelta), 1)
	m.now += uint64(ticks(mulF32(v, m.speed), m.c.tick))
	m.stopwatch += d
}

// estimate is the remote estimate: R.now plus the offset.
func (m *timing) estimate() uint64 { return m.remote + uint64(m.offset) }

// receive updates the remote estimate with a packet's header tick.
func (m *timing) receive(tick uint32) {
	if m.samples < remoteHandshake || (m.haveTick && tick < m.lastTick) {
		return
	}
	m.accepted, m.haveTick, m.lastTick = true, true, tick
	est := uint64(tick)<<32 + uint64(ticks(m.rtt/2, m.c.tick))
	raw := int64(est - m.remote)
	if !m.haveOffset {
		m.offset, m.haveOffset = raw, true
		return
	}
	j := float32(m.jit / 1_000_000)
	norm := min(max((j-jitterLow)/(jitterHigh-jitterLow), 0), 1)
	alpha := emaMax - float32(norm*(emaMax-emaMin))
	m.offset = fix(float32(toF32(m.offset)*(1-alpha))) + fix(float32(toF32(raw)*alpha))
}

// pong processes the answer to ping id, received at local time t (ns),
// the server having held the ping holdNs ns. It reports whether the pong
// was used.
func (m *timing) pong(id uint16, holdNs, t int64) bool {
	s := &m.store[id%pingSlots]
	if !s.used || s.id != id {
		return false // answered already, or too old
	}
	s.used = false
	if m.anyUsed && int16(id-m.lastUsed) <= 0 {
		return false
	}
	m.anyUsed, m.lastUsed = true, id
	server := toDuration(wire(ticks(holdNs, m.c.tick)), m.c.tick)
	m.sample(max(max(t-s.sent, 0)-server, 0))
	return true
}

// sample feeds one RTT sample (ns) to the estimator.
func (m *timing) sample(d int64) {
	m.samples++
	x := secs64(d)
	if !m.haveStats {
		m.srtt, m.dev = fromSecs64(x), fromSecs64(x/2)
		m.haveStats = true
	} else {
		srtt, dev := secs64(m.srtt), secs64(m.dev)
		if m.samples > 2 {
			bound := min(srtt+float64(3*dev), float64(srtt*3), srtt+halfSecond)
			bound = max(bound, float64(srtt*1.2))
			if x > bound {
				x = bound
			}
		}
		e := math.Abs(x - srtt)
		m.srtt = fromSecs64(float64((1-rttAlpha)*srtt) + float64(rttAlpha*x))
		m.dev = fromSecs64(float64((1-rttBeta)*dev) + float64(rttBeta*e))
	}
	m.rtt = m.srtt
	m.jit = fromSecs64(secs64(m.dev) / 2)
}

// objective is where the interpolation timeline should be: the remote
// estimate less max(send interval × ratio, min delay) and jitter ×
// multiple + jitter margin ticks, each as ticks.
func (m *timing) objective() uint64 {
	c := &m.c
	delay := ticks(max(mulF32(c.sendInterval, c.ratio), c.minDelay), c.tick)
	margin := ticks(m.jit*int64(c.jitterMultiple)+mulF32(c.tick, c.jitterMargin), c.tick)
	return m.estimate() - uint64(delay+margin)
}

// syncKind is what a sync did.
type syncKind uint8

const (
	syncNone    syncKind = iota // no packet accepted this frame
	syncWait                    // too few pongs used
	syncInitial                 // the first sync: a snap
	syncAdjust                  // the controller ran
	syncResync                  // the controller snapped
)

// sync runs the interpolation timeline's sync if this frame accepted a
// packet, then clears the flag.
func (m *timing) sync() syncKind {
	if !m.accepted {
		return syncNone
	}
	m.accepted = false
	c := &m.c
	if m.samples < c.handshakePings {
		return syncWait
	}
	obj := m.objective()
	e := toF32(int64(m.now - obj))
	if !m.synced {
		m.now, m.synced = obj, true
		return syncInitial
	}
	pos := !math.Signbit(float64(e))
	prev := m.posSign
	m.posSign = pos
	abs := float32(math.Abs(float64(e)))
	switch {
	case abs > c.maxErrorMargin:
		m.errCount = 0
		m.now = obj
		return syncResync
	case abs > c.errorMargin:
		if m.errCount < math.MaxUint8 {
			m.errCount++
		}
		if pos != prev || m.errCount < c.threshold {
			m.relax()
			break
		}
		ratio := min(max(abs/c.maxErrorMargin, 0), 1)
		adj := 1 + float32(float32((c.speedup-1)*ratio)*2)
		if e > 0 {
			m.speed = 1 / adj
		} else {
			m.speed = adj
		}
	default:
		m.errCount = 0
		m.relax()
	}
	return syncAdjust
}

// relax brings the speed a tenth of the way back to 1, unless it is within
// 0.001 of it.
func (m *timing) relax() {
	if float32(math.Abs(float64(m.speed-1))) > 0.001 {
		m.speed = m.speed + float32((1-m.speed)*0.1)
	}
}

// ping sends a ping at local time t (ns) if the stopwatch has reached the
// ping interval; it reports the ping's id.
func (m *timing) ping(t int64) (id uint16, sent bool) {
	if m.stopwatch < m.c.pingInterval {
		return 0, false
	}
	m.stopwatch = 0
	id = m.nextPing
	m.nextPing++
	m.store[id%pingSlots] = pingSlot{id: id, sent: t, used: true}
	return id, true
}

// cursor is where the history is sampled: the whole tick of I.now and its
// fraction floored to 1/65536, as f32.
func (m *timing) cursor() (tick uint32, overstep float32) {
	return uint32(m.now >> 32), float32(uint32(m.now)>>16) / 65536
}
