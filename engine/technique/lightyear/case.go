package lightyear

import (
	"errors"
	"math"
	"strconv"

	"interplab/engine/geom"
	"interplab/engine/param"
	"interplab/engine/technique"
)

// Case is a case of lightyear (golden/peers/lightyear): a packet schedule
// replayed through lightyear's own client (ping estimator, remote tick
// estimate, interpolation timeline, one interpolated component). Times are
// seconds of the client's local clock, positions metres. Only the inputs
// are decoded; the checker and the tests read out.
type Case struct {
	Name     string       `json:"name"`
	Library  string       `json:"library"` // "lightyear"
	Settings CaseSettings `json:"settings"`
	Packets  []Packet     `json:"packets"` // in arrival order
	Frames   []float64    `json:"frames"`  // client local times, s, non-decreasing
}

// CaseSettings are a case's knobs: durations in ns, f32 knobs as decimal
// text, parsed straight to f32 as lightyear's would be written.
type CaseSettings struct {
	TickNs                     *int64  `json:"tickNs"`
	SendIntervalNs             *int64  `json:"sendIntervalNs"`
	MinDelayNs                 *int64  `json:"minDelayNs"`
	SendIntervalRatio          decimal `json:"sendIntervalRatio"`
	JitterMultiple             *int64  `json:"jitterMultiple"`
	JitterMargin               decimal `json:"jitterMargin"`
	HandshakePings             *int64  `json:"handshakePings"`
	ErrorMargin                decimal `json:"errorMargin"`
	MaxErrorMargin             decimal `json:"maxErrorMargin"`
	ConsecutiveErrorsThreshold *int64  `json:"consecutiveErrorsThreshold"`
	SpeedupFactor              decimal `json:"speedupFactor"`
	PingIntervalNs             *int64  `json:"pingIntervalNs"`
}

// Packet is one packet of a Case: the server tick in its header, when it
// arrived, and what it carries.
type Packet struct {
	Tick   int64     `json:"tick"`
	Arrive float64   `json:"arrive"` // client local time, s
	Pos    []float64 `json:"pos"`    // the entity's position at Tick, m; null: none
	Pong   *Pong     `json:"pong"`   // null: none
}

// Pong is the server's answer to a ping.
type Pong struct {
	ID     int64 `json:"id"`     // the ping's id
	HoldNs int64 `json:"holdNs"` // the server's time between the ping and the pong, ns
}

// row is one frame of a replayed case with the client's internals, as the
// case's out rows give them.
type row struct {
	technique.PeerFrame
	P                  vec3
	Tick               uint32
	Overstep           float32
	NowBits            uint64
	Start, End         int64 // history ticks around the cursor; -1: none
	HistoryLen         int
	Synced             bool
	Speed              float32
	RemoteEstimateBits uint64
	Sync               syncKind
	Pongs              []pongRow
}

// pongRow is one processed pong: its id, whether it was used, and the RTT,
// jitter (ns) and used count after it.
type pongRow struct {
	ID          uint16
	Used        bool
	RTT, Jitter int64
	Samples     uint32
}

// Run checks the case's inputs and replays it through the technique's
// client, frame by frame as the case's README section describes. A frame
// is Drawn when an entry of the history was at or before the cursor.
func (c *Case) Run() ([]technique.PeerFrame, error) {
	return technique.PeerFrames(c.run())
}

// decimal is an f32 knob as a case writes it: a JSON string of decimal
// text ("1.7"), or a plain JSON number.
type decimal string

// UnmarshalJSON takes the text between the quotes, or the number as written.
func (d *decimal) UnmarshalJSON(b []byte) error {
	if len(b) >= 2 && b[0] == '"' && b[len(b)-1] == '"' {
		b = b[1 : len(b)-1]
	}
	*d = decimal(b)
	return nil
}

// f32 parses an f32 knob written as decimal text.
func f32(n decimal, at string, lo, hi float32) (float32, error) {
	v, err := strconv.ParseFloat(string(n), 32)
	if err != nil || !(float32(v) >= lo && float32(v) <= hi) {
		return 0, errors.New("settings." + at + " = " + strconv.Quote(string(n)) + ": want a number in [" +
			param.FormatNumber(float64(lo)) + ", " + param.FormatNumber(float64(hi)) + "]")
	}
	return float32(v), nil
}

// integer reads an integer knob.
func integer(p *int64, at string, lo, hi int64) (int64, error) {
	if p == nil || *p < lo || *p > hi {
		return 0, errors.New("settings." + at + ": want a whole number in [" +
			strconv.FormatInt(lo, 10) + ", " + strconv.FormatInt(hi, 10) + "]")
	}
	return *p, nil
}

// config checks the case's settings and returns them as the client's.
func (cs *CaseSettings) config() (config, error) {
	var c config
	var err error
	ints := []struct {
		p      *int64
		at     string
		lo, hi int64
		dst    *int64
	}{
		{cs.TickNs, "tickNs", 1, 10 * nsPerSec, &c.tick},
		{cs.SendIntervalNs, "sendIntervalNs", 1, 10 * nsPerSec, &c.sendInterval},
		{cs.MinDelayNs, "minDelayNs", 0, 10 * nsPerSec, &c.minDelay},
		{cs.PingIntervalNs, "pingIntervalNs", 0, 10 * nsPerSec, &c.pingInterval},
	}
	for _, f := range ints {
		if *f.dst, err = integer(f.p, f.at, f.lo, f.hi); err != nil {
			return c, err
		}
	}
	small := []struct {
		p   *int64
		at  string
		max int64
	}{{cs.JitterMultiple, "jitterMultiple", 255}, {cs.HandshakePings, "handshakePings", 255}, {cs.ConsecutiveErrorsThreshold, "consecutiveErrorsThreshold", 255}}
	var v [3]int64
	for i, f := range small {
		if v[i], err = integer(f.p, f.at, 0, f.max); err != nil {
			return c, err
		}
	}
	c.jitterMultiple, c.handshakePings, c.threshold = uint32(v[0]), uint32(v[1]), uint8(v[2])
	floats := []struct {
		n      decimal
		at     string
		lo, hi float32
		dst    *float32
	}{
		{cs.SendIntervalRatio, "sendIntervalRatio", 0, 1000, &c.ratio},
		{cs.JitterMargin, "jitterMargin", 0, 1000, &c.jitterMargin},
		{cs.ErrorMargin, "errorMargin", 0, 1e6, &c.errorMargin},
		{cs.MaxErrorMargin, "maxErrorMargin", 0, 1e6, &c.maxErrorMargin},
		{cs.SpeedupFactor, "speedupFactor", 0, 1000, &c.speedup},
	}
	for _, f := range floats {
		if *f.dst, err = f32(f.n, f.at, f.lo, f.hi); err != nil {
			return c, err
		}
	}
	c.sendInterval = announced(c.sendInterval, c.tick)
	return c, nil
}

// ns is a case time as the library was fed it: whole nanoseconds.
func ns(t float64) int64 { return int64(math.Round(t * nsPerSec)) }

// check checks the packets and frames.
func (c *Case) check() error {
	for i := range c.Packets {
		p := &c.Packets[i]
		at := "packets[" + strconv.Itoa(i) + "]"
		if p.Tick < 0 || p.Tick > math.MaxUint32 {
			return errors.New(at + ".tick = " + strconv.FormatInt(p.Tick, 10) + ": want a server tick in [0, 4294967295]")
		}
		if !(p.Arrive >= 0 && p.Arrive < 1e9) {
			return errors.New(at + ".arrive = " + param.FormatNumber(p.Arrive) + ": want a local time ≥ 0 s")
		}
		if i > 0 && p.Arrive < c.Packets[i-1].Arrive {
			return errors.New(at + ".arrive: want ≥ the previous packet's (packets are listed in arrival order)")
		}
		if p.Pos != nil {
			if len(p.Pos) != 3 || !geom.Finite(p.Pos[0]) || !geom.Finite(p.Pos[1]) || !geom.Finite(p.Pos[2]) {
				return errors.New(at + ".pos: want null or [x, y, z], 3 finite numbers of metres")
			}
		}
		if p.Pong != nil && (p.Pong.ID < 0 || p.Pong.ID > math.MaxUint16 || p.Pong.HoldNs < 0 || p.Pong.HoldNs > 10*nsPerSec) {
			return errors.New(at + ".pong: want an id in [0, 65535] and holdNs in [0, 1e10]")
		}
	}
	if len(c.Frames) == 0 {
		return errors.New("frames: want at least one frame time")
	}
	for i, f := range c.Frames {
		if !(f >= 0 && f < 1e9) || (i > 0 && f < c.Frames[i-1]) {
			return errors.New("frames[" + strconv.Itoa(i) + "] = " + param.FormatNumber(f) + ": want local times ≥ 0 s in non-decreasing order")
		}
	}
	return nil
}

// run replays the case (see Run), with the internals.
func (c *Case) run() ([]row, error) {
	cfg, err := c.Settings.config()
	if err == nil {
		err = c.check()
	}
	if err == nil && c.Library != "" && c.Library != Name {
		err = errors.New("library = " + strconv.Quote(c.Library) + ": want \"lightyear\"")
	}
	if err != nil {
		if c.Name != "" {
			return nil, errors.New("lightyear case " + strconv.Quote(c.Name) + ": " + err.Error())
		}
		return nil, errors.New("lightyear case: " + err.Error())
	}
	m := newTiming(cfg)
	h := newHistory(1)
	id := geom.Quat{0, 0, 0, 1}
	rows := make([]row, len(c.Frames))
	next := 0
	for i, f := range c.Frames {
		t := ns(f)
		r := &rows[i]
		// 1. Advance.
		m.advance(t)
		r.NowBits, r.Speed = m.now, m.speed
		// 2. Receive every packet that has arrived.
		first := next
		for next < len(c.Packets) && ns(c.Packets[next].Arrive) <= t {
			m.receive(uint32(c.Packets[next].Tick))
			next++
		}
		r.RemoteEstimateBits = m.estimate()
		// 3. Pongs.
		for _, p := range c.Packets[first:next] {
			if p.Pong != nil {
				used := m.pong(uint16(p.Pong.ID), p.Pong.HoldNs, t)
				r.Pongs = append(r.Pongs, pongRow{uint16(p.Pong.ID), used, m.rtt, m.jit, m.samples})
			}
		}
		// 4. Replication.
		for _, p := range c.Packets[first:next] {
			if p.Pos != nil {
				k := h.insert(uint32(p.Tick), 0)
				h.put(k, 0, vec3{float32(p.Pos[0]), float32(p.Pos[1]), float32(p.Pos[2])}, id)
			}
		}
		// 5. Update: drain, then sample.
		cur, over := m.cursor()
		h.drain(cur)
		r.T, r.Tick, r.Overstep, r.HistoryLen, r.Synced = f, cur, over, h.len(), m.synced
		r.Start, r.End = -1, -1
		if k := h.find(cur); k >= 0 {
			p := h.val[h.explicit(k, 0)]
			r.Start = int64(h.ticks[k])
			if k+1 < h.len() {
				p = lerp(&p, &h.val[h.explicit(k+1, 0)], h.frac(k, cur, over))
				r.End = int64(h.ticks[k+1])
			}
			r.P, r.Drawn = p, true
			r.Pos = geom.Vec3{float64(p[0]), float64(p[1]), float64(p[2])}
		}
		// 6. Sync; 7. ping.
		r.Sync = m.sync()
		m.ping(t)
	}
	return rows, nil
}
