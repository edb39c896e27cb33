package engine

import (
	"math"
	"slices"

	"interplab/engine/geom"
	"interplab/engine/motion"
	"interplab/engine/param"
	"interplab/engine/technique"
)

// replay is a Sim's packet source when it replays a recorded trace instead
// of running its link and motion scripts (see NewReplay). Times are shifted
// so that the trace's first send is at 0.
type replay struct {
	entities int
	sendRate float64 // measured, Hz
	span     float64 // last send, s

	// Packet copies in send order: rows[g.first:g.end] are the entities it
	// carried. A lost send is a copy with Arrive NaN.
	copies []replayCopy
	rows   []replayRow
	next   int // the next copy to send

	// The truth: each entity's distinct sent states, in time order,
	// states[start[e]:start[e+1]]; cur[e] is the state at or before the
	// latest frame.
	states []replayState
	start  []int
	cur    []int
}

type replayCopy struct {
	sent, arrive float64 // s; arrive NaN if lost
	first, end   int     // its rows
}

type replayRow struct {
	entity int
	state  int  // index into states
	record bool // the first row of its send: the one a PacketRecord comes from
}

type replayState struct {
	technique.Snapshot
	yaw    float64
	seq    int
	arrive float64 // the first copy's arrival, s; NaN if every copy was lost
	copies int     // copies that arrived
}

// newReplay prepares the valid trace t for replay.
func newReplay(t *Trace) *replay {
	t0 := t.Packets[0].Sent
	r := &replay{entities: t.Entities, span: t.Span()}
	if sr := t.sendRate(); sr > 0 {
		r.sendRate = sr
	}

	// The truth: distinct sends per entity. A copy shares the state of the
	// send it copies (Validate puts it right after, for its entity).
	count := make([]int, t.Entities+1)
	last := make([]int, t.Entities)
	for i := range last {
		last[i] = -1
	}
	isNew := make([]bool, len(t.Packets))
	for i := range t.Packets {
		p := &t.Packets[i]
		if last[p.Entity] < 0 || p.Seq != last[p.Entity] {
			isNew[i] = true
			count[p.Entity+1]++
			last[p.Entity] = p.Seq
		}
	}
	r.start = make([]int, t.Entities+1)
	for e := range t.Entities {
		r.start[e+1] = r.start[e] + count[e+1]
	}
	r.states = make([]replayState, r.start[t.Entities])
	fill := slices.Clone(r.start[:t.Entities])
	stateOf := make([]int, len(t.Packets))
	for i := range t.Packets {
		p := &t.Packets[i]
		if isNew[i] {
			rot := geom.QuatIdentity
			if p.HasRot {
				rot = p.Rot
			}
			r.states[fill[p.Entity]] = replayState{
				Snapshot: technique.Snapshot{Time: p.Sent - t0, Pos: p.Pos, Vel: p.Vel, Rot: rot},
				yaw:      rot.Yaw(), seq: p.Seq, arrive: math.NaN(),
			}
			fill[p.Entity]++
		}
		k := fill[p.Entity] - 1
		stateOf[i] = k
		if a := p.Arrive - t0; !math.IsNaN(a) {
			st := &r.states[k]
			st.copies++
			if !(a >= st.arrive) {
				st.arrive = a
			}
		}
	}

	// The copies: within a block of rows sent at one instant, the rows
	// with the same arrival time travelled together. Lost rows go last.
	order := make([]int, 0, 16)
	for i := 0; i < len(t.Packets); {
		j := i
		for j < len(t.Packets) && t.Packets[j].Sent == t.Packets[i].Sent {
			j++
		}
		order = order[:0]
		for k := i; k < j; k++ {
			order = append(order, k)
		}
		slices.SortStableFunc(order, func(a, b int) int {
			x, y := t.Packets[a].Arrive, t.Packets[b].Arrive
			switch {
			case x == y || math.IsNaN(x) && math.IsNaN(y):
				return 0
			case math.IsNaN(x) || x > y:
				return 1
			}
			return -1
		})
		for g := 0; g < len(order); {
			h := g
			a := t.Packets[order[g]].Arrive
			for h < len(order) && (t.Packets[order[h]].Arrive == a || math.IsNaN(a) && math.IsNaN(t.Packets[order[h]].Arrive)) {
				h++
			}
			c := replayCopy{sent: t.Packets[i].Sent - t0, arrive: a - t0, first: len(r.rows)}
			for _, k := range order[g:h] {
				r.rows = append(r.rows, replayRow{entity: t.Packets[k].Entity, state: stateOf[k], record: isNew[k]})
			}
			c.end = len(r.rows)
			r.copies = append(r.copies, c)
			g = h
		}
		i = j
	}
	r.cur = make([]int, t.Entities)
	r.restart()
	return r
}

// restart rewinds the replay to time 0.
func (r *replay) restart() {
	r.next = 0
	copy(r.cur, r.start[:r.entities])
}

// fix sets the settings a replay takes from its trace: the entities, and
// the send rate (raising tickRate to it if need be), which only sizes the
// buffers' rings here since the sends are the trace's.
func (r *replay) fix(s *Settings) {
	s.Entities = r.entities
	if r.sendRate > 0 {
		p, _ := Lookup("sendRate")
		s.SendRate = max(p.Min, min(p.Max, r.sendRate))
		s.TickRate = max(s.TickRate, math.Ceil(s.SendRate))
	}
}

// nextSend returns the time of the next copy to send; +Inf after the last.
func (r *replay) nextSend() float64 {
	if r.next < len(r.copies) {
		return r.copies[r.next].sent
	}
	return math.Inf(1)
}

// replaySend sends the next copy: it schedules its arrival, if it has one, with
// the copy's index as the arrival's seq, and records the focus entity's send.
func (m *Sim) replaySend() {
	r := m.rp
	i := r.next
	r.next++
	c := &r.copies[i]
	if !math.IsNaN(c.arrive) {
		m.arrivals.push(arrival{t: c.arrive, tick: c.sent, seq: i})
	}
	for _, row := range r.rows[c.first:c.end] {
		if row.entity == m.focus && row.record {
			st := &r.states[row.state]
			m.packets.push(PacketRecord{Seq: st.seq, Sent: st.Time, Tick: st.Time, Arrive: st.arrive,
				Dup: st.copies > 1, Pos: st.Pos})
		}
	}
}

// replayDeliver hands the states of copy i to every technique of the
// entities it carried.
func (m *Sim) replayDeliver(i int, times [3]float64) {
	r := m.rp
	c := &r.copies[i]
	for _, row := range r.rows[c.first:c.end] {
		snap := r.states[row.state].Snapshot
		for k, b := range m.batches {
			t := b.(*technique.PerEntity).Techs[row.entity] // a replay runs per entity: see Restart
			t.Receive(snap, times[m.base[k]])
		}
	}
}

// at returns entity e's true state at t: the recorded states, joined by a
// cubic Hermite curve through their positions and velocities, held before
// the first and after the last. The yaw turns linearly, the short way,
// between recorded orientations. Calls for an entity must not go back in
// time (until restart).
func (r *replay) at(e int, t float64) motion.State {
	c, end := r.cur[e], r.start[e+1]
	for c+1 < end && r.states[c+1].Time <= t {
		c++
	}
	r.cur[e] = c
	s0 := &r.states[c]
	switch {
	case t == s0.Time:
		return motion.State{Pos: s0.Pos, Vel: s0.Vel, Yaw: s0.yaw}
	case t < s0.Time || c+1 == end:
		return motion.State{Pos: s0.Pos, Yaw: s0.yaw} // held, standing still
	}
	s1 := &r.states[c+1]
	dt := s1.Time - s0.Time
	a := (t - s0.Time) / dt
	h01, h10, h11 := geom.HermiteBasis(a, dt)
	// The derivatives of the weights, per second.
	d01 := float64(6*a-float64(6*float64(a*a))) / dt
	d10 := float64(3*float64(a*a)) - float64(4*a) + 1
	d11 := float64(3*float64(a*a)) - float64(2*a)
	var st motion.State
	for k := range 3 {
		p0, v0, p1, v1 := s0.Pos[k], s0.Vel[k], s1.Pos[k], s1.Vel[k]
		st.Pos[k] = geom.Hermite1(p0, v0, p1, v1, h01, h10, h11)
		st.Vel[k] = float64((p1-p0)*d01) + float64(v0*d10) + float64(v1*d11)
	}
	dy := s1.yaw - s0.yaw
	if dy > math.Pi {
		dy -= 2 * math.Pi
	} else if dy < -math.Pi {
		dy += 2 * math.Pi
	}
	st.Yaw = s0.yaw + float64(dy*a)
	if st.Yaw > math.Pi {
		st.Yaw -= 2 * math.Pi
	} else if st.Yaw <= -math.Pi {
		st.Yaw += 2 * math.Pi
	}
	return st
}

// NewReplay validates t and s and returns a simulation at time 0 that
// replays t's packets through every technique of s instead of running the
// link and the motion scripts:
//
//   - Each recorded packet copy is sent at its Sent and arrives at its
//     Arrive (times shifted so that the trace's first send is at 0); the
//     rows of several entities with the same Sent and Arrive arrive as one
//     packet. A lost packet (Arrive NaN) is only recorded.
//   - The ground truth the metrics measure against is the recorded states
//     themselves, lost ones included: between an entity's consecutive
//     sends, the cubic Hermite curve through their positions and
//     velocities; before its first send and after its last, the first and
//     last state held. The truth's yaw is the recorded orientation's
//     (facing +X when the trace has none), turning linearly between sends.
//   - The scenario comes from the trace: entities is the trace's, and
//     sendRate its measured send rate (tickRate is raised to it if below),
//     which here only sizes the buffers. motion is unused. The network
//     parameters (latency, jitter, jitterDist, loss, lossModel,
//     burstLength, duplicate) and seed shape only the client clock's ping
//     exchanges (see ClientClock); start from t.Network() to give the pings
//     the trace's own network. Everything else (the techniques' settings,
//     renderRate, clockDrift, maxSpeed, round) acts as in any run.
//
// Set refuses to change entities or sendRate.
func NewReplay(t *Trace, s Settings) (*Sim, error) {
	if err := t.Validate(); err != nil {
		return nil, err
	}
	r := newReplay(t)
	r.fix(&s)
	if err := s.Validate(); err != nil {
		return nil, err
	}
	m := &Sim{set: s, rp: r}
	m.set.Techniques = append([]string(nil), s.Techniques...)
	m.Restart()
	return m, nil
}

// Replaying reports whether m replays a recorded trace (see NewReplay).
func (m *Sim) Replaying() bool { return m.rp != nil }

// replayFixed refuses a change to a parameter a replay takes from its trace.
func (m *Sim) replayFixed(name string, v float64) error {
	var cur float64
	switch name {
	case "entities":
		cur = float64(m.set.Entities)
	case "sendRate":
		cur = m.set.SendRate
	default:
		return nil
	}
	if v == cur {
		return nil
	}
	return &FieldError{Field: name, Value: param.FormatNumber(v), Allowed: param.FormatNumber(cur) + ": a replay takes it from its trace"}
}

// RunTrace replays t through every technique of s (see NewReplay) for
// s.Duration or the trace's span, whichever is shorter, and returns every
// technique's metrics. The result's settings say what ran.
func RunTrace(t *Trace, s Settings) (Result, error) { return RunTraceSeries(t, s, 0) }

// RunTraceSeries is RunTrace that also records the RMS error per window of
// step seconds, as RunSeries does.
func RunTraceSeries(t *Trace, s Settings, step float64) (Result, error) {
	m, err := NewReplay(t, s)
	if err != nil {
		return Result{}, err
	}
	m.set.Duration = min(m.set.Duration, m.rp.span)
	if !(step >= 0) || step > m.set.Duration {
		return Result{}, &FieldError{Field: "step", Value: param.FormatNumber(step),
			Allowed: "[0, duration = " + param.FormatNumber(m.set.Duration) + "] s"}
	}
	return m.runFor(step), nil
}
