package engine

import (
	"math"
	"strconv"

	"interplab/engine/geom"
	"interplab/engine/motion"
	"interplab/engine/netsim"
	"interplab/engine/param"
)

// TracePacket is one entity's state in one recorded packet: what a game's
// server sent and when its client received it. A packet that carried several
// entities is one TracePacket per entity, with the same Sent and Arrive; a
// packet delivered twice is two TracePackets with the same Entity, Seq and
// Sent and their own Arrive.
type TracePacket struct {
	Entity int       // entity index, in [0, Trace.Entities)
	Seq    int       // the entity's send number: consecutive sends have consecutive numbers, so a gap is a loss
	Sent   float64   // server time the packet was sent, which is also the time of the state it carries, s
	Arrive float64   // arrival time on the same clock as Sent, s; NaN if the packet was lost
	Pos    geom.Vec3 // position, m
	Vel    geom.Vec3 // velocity, m/s
	Rot    geom.Quat // orientation, a unit quaternion; ignored unless HasRot
	HasRot bool      // the trace recorded an orientation
}

// Trace is a recording of real packets, to replay through every technique
// (see NewReplay) and to derive a network preset from (see Trace.Network).
//
// Sent and Arrive are on one clock, in seconds; any origin will do (a replay
// starts at the first Sent). When the two ends of a real capture have
// unsynchronised clocks, the one-way delays are off by the clocks' offset:
// the derived latency is off by as much, the jitter and loss are not.
type Trace struct {
	Name     string        // a name for people; not checked by Validate
	Entities int           // entities recorded, each with at least one packet
	Packets  []TracePacket // sorted by Sent
}

// Limits of a trace, checked by Validate.
const (
	TraceMaxPackets  = 2000000 // packets (one per entity per packet copy): a whole match a game captured (docs/capture-protocol.md)
	TraceMaxEntities = 10000   // as the entities parameter
	TraceMaxTime     = 1e10    // largest |Sent|, s: Unix time in seconds fits, milliseconds do not
	TraceMaxSpan     = 86400   // largest last Sent − first Sent, s
	TraceMaxDelay    = 10      // largest Arrive − Sent, s
	TraceMaxCoord    = 1e7     // largest |component| of a position (m) or velocity (m/s)
	TraceMaxSeq      = 1 << 40
)

// traceRotTol is how far a recorded orientation's squared norm may be from 1.
const traceRotTol = 1e-6

// TraceError reports a trace that is not allowed: the packet at Index (−1
// for the trace as a whole), the field at fault, named as a CSV column
// (entity, seq, sent, arrive, x, y, z, vx, vy, vz, qx, qy, qz, qw), and why.
type TraceError struct {
	Index int
	Field string
	Msg   string
}

func (e *TraceError) Error() string {
	s := ""
	if e.Index >= 0 {
		s = "packet " + strconv.Itoa(e.Index) + ": "
	}
	if e.Field != "" {
		s += e.Field + ": "
	}
	return s + e.Msg
}

// Validate checks t against the limits above: at least one packet and at
// most TraceMaxPackets; Entities in [1, TraceMaxEntities], each with a
// packet; finite, bounded numbers; unit orientations where recorded;
// Sent non-decreasing through Packets; Arrive NaN or in [Sent, Sent +
// TraceMaxDelay]; and for each entity, every packet either a copy of the
// previous one (same Seq, Sent and state) or a later send (larger Seq and
// Sent).
// The error is a *TraceError naming the first offending packet.
func (t *Trace) Validate() error {
	bad := func(i int, field, msg string) error { return &TraceError{Index: i, Field: field, Msg: msg} }
	if len(t.Packets) == 0 {
		return bad(-1, "", "no packets")
	}
	if len(t.Packets) > TraceMaxPackets {
		return bad(-1, "", strconv.Itoa(len(t.Packets))+" packets: want at most "+strconv.Itoa(TraceMaxPackets))
	}
	if t.Entities < 1 || t.Entities > TraceMaxEntities {
		return bad(-1, "entity", strconv.Itoa(t.Entities)+" entities: want 1 to "+strconv.Itoa(TraceMaxEntities))
	}
	type last struct {
		seq   int
		sent  float64
		index int // of the packet
		seen  bool
	}
	prev := make([]last, t.Entities)
	first := t.Packets[0].Sent
	for i := range t.Packets {
		p := &t.Packets[i]
		if p.Entity < 0 || p.Entity >= t.Entities {
			return bad(i, "entity", strconv.Itoa(p.Entity)+": want 0 to "+strconv.Itoa(t.Entities-1))
		}
		if p.Seq < 0 || p.Seq > TraceMaxSeq {
			return bad(i, "seq", strconv.Itoa(p.Seq)+": want 0 to 2^40")
		}
		if !geom.Finite(p.Sent) || math.Abs(p.Sent) > TraceMaxTime {
			return bad(i, "sent", param.FormatNumber(p.Sent)+": want a finite time within ±1e10 s")
		}
		if i > 0 && p.Sent < t.Packets[i-1].Sent {
			return bad(i, "sent", param.FormatNumber(p.Sent)+" is before the previous packet's "+
				param.FormatNumber(t.Packets[i-1].Sent)+": packets must be sorted by send time")
		}
		if p.Sent-first > TraceMaxSpan {
			return bad(i, "sent", "the trace spans more than "+param.FormatNumber(TraceMaxSpan)+" s")
		}
		if !math.IsNaN(p.Arrive) {
			d := p.Arrive - p.Sent
			if !geom.Finite(p.Arrive) || !(d >= 0) || d > TraceMaxDelay {
				return bad(i, "arrive", param.FormatNumber(p.Arrive)+": want NaN (lost) or from sent to sent + "+
					param.FormatNumber(TraceMaxDelay)+" s")
			}
		}
		for k, name := range [...]string{"x", "y", "z"} {
			if !traceCoordOK(p.Pos[k]) {
				return bad(i, name, param.FormatNumber(p.Pos[k])+": want a finite position within ±1e7 m")
			}
		}
		for k, name := range [...]string{"vx", "vy", "vz"} {
			if !traceCoordOK(p.Vel[k]) {
				return bad(i, name, param.FormatNumber(p.Vel[k])+": want a finite velocity within ±1e7 m/s")
			}
		}
		if p.HasRot {
			q := p.Rot
			n := float64(q[0]*q[0]) + float64(q[1]*q[1]) + float64(q[2]*q[2]) + float64(q[3]*q[3])
			if !(math.Abs(n-1) <= traceRotTol) {
				return bad(i, "qw", "orientation ("+param.FormatNumber(q[0])+", "+param.FormatNumber(q[1])+", "+
					param.FormatNumber(q[2])+", "+param.FormatNumber(q[3])+") is not a unit quaternion")
			}
		}
		l := &prev[p.Entity]
		switch {
		case !l.seen:
		case p.Seq == l.seq:
			if p.Sent != l.sent {
				return bad(i, "sent", "a copy of send "+strconv.Itoa(p.Seq)+" of entity "+strconv.Itoa(p.Entity)+
					" sent at "+param.FormatNumber(p.Sent)+", not at its "+param.FormatNumber(l.sent))
			}
			if f := tracePacketDiff(&t.Packets[l.index], p); f != "" {
				return bad(i, f, "a copy of send "+strconv.Itoa(p.Seq)+" of entity "+strconv.Itoa(p.Entity)+
					" with another state: a copy carries the same state")
			}
		case p.Seq < l.seq:
			return bad(i, "seq", strconv.Itoa(p.Seq)+" after "+strconv.Itoa(l.seq)+
				" for entity "+strconv.Itoa(p.Entity)+": sequence numbers must grow with the send time")
		case !(p.Sent > l.sent):
			return bad(i, "sent", "send "+strconv.Itoa(p.Seq)+" of entity "+strconv.Itoa(p.Entity)+
				" at the same time as its send "+strconv.Itoa(l.seq)+": one state per entity per instant")
		}
		*l = last{seq: p.Seq, sent: p.Sent, index: i, seen: true}
	}
	for e, l := range prev {
		if !l.seen {
			return bad(-1, "entity", "entity "+strconv.Itoa(e)+" has no packet: entities must be numbered 0 to "+
				strconv.Itoa(t.Entities-1))
		}
	}
	return nil
}

func traceCoordOK(x float64) bool { return geom.Finite(x) && math.Abs(x) <= TraceMaxCoord }

// tracePacketDiff names the first field of the state where a and b differ,
// or returns "".
func tracePacketDiff(a, b *TracePacket) string {
	for k, name := range [...]string{"x", "y", "z"} {
		if a.Pos[k] != b.Pos[k] {
			return name
		}
	}
	for k, name := range [...]string{"vx", "vy", "vz"} {
		if a.Vel[k] != b.Vel[k] {
			return name
		}
	}
	if a.HasRot != b.HasRot || a.HasRot && a.Rot != b.Rot {
		return "qw"
	}
	return ""
}

// Span returns the time from the first packet's Sent to the last's, in
// seconds: how long a replay of t has states to show.
func (t *Trace) Span() float64 {
	if len(t.Packets) == 0 {
		return 0
	}
	return t.Packets[len(t.Packets)-1].Sent - t.Packets[0].Sent
}

// MaxSpeed returns the largest recorded speed, in m/s: the entities' top
// speed as far as the trace shows it.
func (t *Trace) MaxSpeed() float64 {
	top := 0.0
	for i := range t.Packets {
		top = max(top, t.Packets[i].Vel.LenSq())
	}
	return math.Sqrt(top)
}

// The flat encoding of a trace: TraceFlatHeader float64s, then
// TraceFlatStride per packet.
//
//	header: version (TraceFlatVersion), entities, packets
//	packet: entity, seq, sent, arrive (NaN if lost), x, y, z, vx, vy, vz,
//	        qx, qy, qz, qw, hasRot (0 or 1)
//
// A packet without an orientation is written with the identity (0, 0, 0, 1).
// The name is not encoded.
const (
	TraceFlatVersion = 1
	TraceFlatHeader  = 3
	TraceFlatStride  = 15
)

// AppendFlat appends t's flat encoding (see TraceFlatStride) to dst.
func (t *Trace) AppendFlat(dst []float64) []float64 {
	dst = append(dst, TraceFlatVersion, float64(t.Entities), float64(len(t.Packets)))
	for i := range t.Packets {
		p := &t.Packets[i]
		q, has := geom.QuatIdentity, 0.0
		if p.HasRot {
			q, has = p.Rot, 1
		}
		dst = append(dst, float64(p.Entity), float64(p.Seq), p.Sent, p.Arrive,
			p.Pos[0], p.Pos[1], p.Pos[2], p.Vel[0], p.Vel[1], p.Vel[2],
			q[0], q[1], q[2], q[3], has)
	}
	return dst
}

// TraceFromFlat decodes a flat encoding made by AppendFlat and validates
// the trace. The error is a *TraceError.
func TraceFromFlat(f []float64) (*Trace, error) {
	bad := func(i int, field, msg string) (*Trace, error) {
		return nil, &TraceError{Index: i, Field: field, Msg: msg}
	}
	if len(f) < TraceFlatHeader || f[0] != TraceFlatVersion {
		return bad(-1, "", "not a version "+strconv.Itoa(TraceFlatVersion)+" flat trace")
	}
	ent, n := f[1], f[2]
	if !(ent >= 1 && ent <= TraceMaxEntities && ent == math.Trunc(ent)) {
		return bad(-1, "entity", param.FormatNumber(ent)+" entities: want 1 to "+strconv.Itoa(TraceMaxEntities))
	}
	if !(n >= 0 && n <= TraceMaxPackets && n == math.Trunc(n)) {
		return bad(-1, "", param.FormatNumber(n)+" packets: want at most "+strconv.Itoa(TraceMaxPackets))
	}
	if want := TraceFlatHeader + int(n)*TraceFlatStride; len(f) != want {
		return bad(-1, "", strconv.Itoa(len(f))+" numbers: want "+strconv.Itoa(want)+" for "+param.FormatNumber(n)+" packets")
	}
	t := &Trace{Entities: int(ent), Packets: make([]TracePacket, int(n))}
	whole := func(x, hi float64) bool { return x >= 0 && x <= hi && x == math.Trunc(x) }
	for i := range t.Packets {
		r := f[TraceFlatHeader+i*TraceFlatStride:][:TraceFlatStride]
		switch {
		case !whole(r[0], TraceMaxEntities):
			return bad(i, "entity", param.FormatNumber(r[0])+": want a whole number")
		case !whole(r[1], TraceMaxSeq):
			return bad(i, "seq", param.FormatNumber(r[1])+": want a whole number from 0 to 2^40")
		case r[14] != 0 && r[14] != 1:
			return bad(i, "hasRot", param.FormatNumber(r[14])+": want 0 or 1")
		}
		t.Packets[i] = TracePacket{Entity: int(r[0]), Seq: int(r[1]), Sent: r[2], Arrive: r[3],
			Pos: geom.Vec3{r[4], r[5], r[6]}, Vel: geom.Vec3{r[7], r[8], r[9]}, HasRot: r[14] == 1}
		if t.Packets[i].HasRot {
			t.Packets[i].Rot = geom.Quat{r[10], r[11], r[12], r[13]}
		}
	}
	if err := t.Validate(); err != nil {
		return nil, err
	}
	return t, nil
}

// SyntheticTrace returns the packets a synthetic run of s (see Run) sends
// during s.Duration: every entity's true state at each send from the motion
// scripts, with the link's arrivals, lost sends (Arrive NaN) and duplicate
// copies. Sent is the time of the state the packet carries (its server
// tick) and every delay is measured from the send, so when sendRate divides
// tickRate replaying the trace feeds every technique exactly the packets of
// Run(s). It fails if s is not valid or the trace would exceed
// TraceMaxPackets.
func SyntheticTrace(s Settings) (*Trace, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	seed := uint64(s.Seed)
	link := netsim.NewLink(&s.NetworkSettings, &s.Duration, seed)
	link.FollowUnreliableDeltas(&s.NGOSettings.UseUnreliableDeltas)
	movers := make([]motion.Mover, s.Entities)
	for e := range movers {
		movers[e] = motion.NewMover(s.Motion, e, s.MaxSpeed, seed)
	}
	sends := int(math.Floor(s.Duration*s.SendRate+timeEps)) + 1
	if sends*s.Entities > TraceMaxPackets {
		return nil, &TraceError{Index: -1, Msg: strconv.Itoa(sends) + " sends of " + strconv.Itoa(s.Entities) +
			" entities: want at most " + strconv.Itoa(TraceMaxPackets) + " packets"}
	}
	t := &Trace{Entities: s.Entities}
	states := make([]motion.State, s.Entities)
	var arrivals []float64
	for k := range sends {
		// As Sim.send: the k-th send of a run that never changes sendRate.
		ts := float64(k) / s.SendRate
		tick := math.Floor(ts*s.TickRate+1e-9) / s.TickRate
		arrivals = link.Send(ts, arrivals[:0])
		for e := range movers {
			states[e] = movers[e].At(tick)
		}
		copies := arrivals
		if len(copies) == 0 {
			copies = []float64{math.NaN()}
		}
		for _, a := range copies {
			if tick != ts {
				a -= ts - tick
			}
			for e, st := range states {
				if len(t.Packets) == TraceMaxPackets {
					return nil, &TraceError{Index: -1, Msg: "more than " + strconv.Itoa(TraceMaxPackets) + " packets"}
				}
				t.Packets = append(t.Packets, TracePacket{Entity: e, Seq: k, Sent: tick, Arrive: a,
					Pos: st.Pos, Vel: st.Vel, Rot: geom.QuatFromYaw(st.Yaw), HasRot: true})
			}
		}
	}
	return t, nil
}
