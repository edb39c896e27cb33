package engine

import (
	"math"

	"interplab/engine/geom"
	"interplab/engine/motion"
	"interplab/engine/netsim"
	"interplab/engine/param"
	"interplab/engine/technique"
)

// Sim is a running lab simulation: a server moving Entities() entities by
// their motion scripts, sending snapshots over one seeded link, and a client
// displaying every entity with each technique in Techniques(), all fed the
// same packets. Time only moves when Step or StepFrames is called; metrics
// are taken at fixed client frames (every 1/renderRate of simulated time),
// so the same settings and seed give the same numbers whatever steps reach a
// given time.
type Sim struct {
	set   Settings      // read through &set by the link, clock and techniques
	env   technique.Env // what the techniques know of the run: envOf(&set)
	techs []string
	n     int
	focus int

	movers  []motion.Mover
	link    *netsim.Link
	clock   *netsim.ClientClock
	batches []technique.Batch      // technique k for every entity
	framers []technique.LeanFramer // batch k as a LeanFramer, or nil: frameLean's way to it
	// leanTechs is frameLean's view of technique k (setLeanTechs).
	leanTechs []leanTech
	base      []technique.TimeBase // the clock technique k reads
	snaps     []technique.Snapshot // one packet's snapshots, by entity
	out       []technique.Sample   // one chunk of a technique's frame, by entity
	rec       FrameRecord          // the frame being rendered, for the timeline
	transit   netsim.StreamClock

	// Sends happen at sendBase + sendK/sendRate, frames at
	// frameBase + frameK/renderRate; a rate change moves the base.
	sendBase, frameBase float64
	sendK, frameK       int
	lastSend            float64
	seq                 int
	target              float64 // simulated time reached by Step
	t, dt               float64 // time of the latest frame, and the frame's period
	inv4Dt, inv4        float64 // 1/dt⁴ for the frame period inv4Dt
	frames              int
	arrivals            arrivalQueue
	sendBuf             []float64

	poses []float32

	accs     []acc
	shown    [3][]geom.Vec3 // displayed positions of the last three frames, [frame%3][k*n + e]
	valid    []uint8        // how many of prev1, prev2 hold a displayed frame
	under    []bool         // underran in the current round, [k*n + e]
	truth    []geom.Vec3    // truth this frame
	truth1   []geom.Vec3    // and one and two frames ago
	truth2   []geom.Vec3
	truthAcc []geom.Vec3 // truth's second difference this frame
	round    int
	// The frame times x = t − dt/2 known to fall in round (x/Round to the
	// bit): [roundLo, roundHi) under Round = roundOf, NaN until worked
	// out. A frame inside needs no division to find its round.
	roundLo, roundHi, roundOf float64

	lag      lagGrid
	lagN     int // entities sampled for the added latency
	lagStart int // the frame the latency history starts at (its last reset)
	// lagStride > 1 takes only every lagStride-th frame into the added
	// latency: population runs, whose entities are each alone in a Sim
	// for hours, would otherwise spend most of their time on it.
	lagStride int
	// The next frame's slot in the history, (frames − lagStart) mod
	// lag.size(), and its phase in the stride, mod lagStride: counted
	// rather than divided for, two integer divisions a frame.
	lagSlot, lagPhase int
	// lagZ is the frame (Frames() − 1 as it was rendered) of the latest
	// latency truth of one entity off the ground (z not 0), far in the
	// past when none: accumulateLag1 leaves z out of a window without one.
	lagZ int

	lagTruth []geom.Vec3 // [slot*lagN + e]; nil with one entity, which keeps the next three
	// With one entity, the truths by coordinate, each twice over in
	// reverse slot order (putLagTruth1).
	lagX, lagY, lagZs []float64
	lagDisp           []geom.Vec3 // NaN where the technique showed nothing

	// The latest frame that wrote the poses (the last of a step): per
	// technique, the sum of Sample.Delay over the entities it drew and
	// their number, for LiveDelays.
	live    []liveKind
	liveSum []float64
	liveN   []int

	series *seriesAcc    // nil unless RunSeries asked for it
	phases *phaseTracker // nil without a scenario that disturbs the link

	// quiet Sims only measure: they keep no packet or frame records for
	// Drain (runs, sweeps, population entities, which never drain).
	quiet      bool
	noHeadings bool // Poses without headings (SetHeadings)
	// lean Sims (NewLeanSim) measure only what a population reads: no
	// smoothness, poses, live delays or phases, and a Sim of one entity
	// takes its frames by frameLean.
	lean bool
	// noSnapRot: the snapshots carry no rotation (identity), as nothing
	// reads it: a lean Sim whose every batch skips rotations.
	noSnapRot bool
	cur       int // this frame's index in shown: frames mod 3, counted
	packets   recordRing[PacketRecord]
	frameLog  recordRing[FrameRecord]

	rp *replay // the recorded trace replayed instead of link and movers; nil for a synthetic run
}

// PoseStride is the number of float32s per entity in Poses: x, y, z, the
// unit heading in the ground plane (cos yaw, sin yaw; yaw 0 faces +X), and
// the Mode as a number (1 for the truth rows). The heading comes as a
// vector so that drawing needs no arctangent.
const PoseStride = 6

// PacketRecord is one snapshot packet of the focus entity, for the timeline.
type PacketRecord struct {
	Seq    int
	Sent   float64   // server send time, s
	Tick   float64   // server time of the state it carries, s
	Arrive float64   // first arrival, on the server's time base, s; NaN if lost
	Dup    bool      // delivered twice
	Pos    geom.Vec3 // the focus entity's true position in it
	Net    float64   // the link's mean one-way delay at the send time (scenario and spikes included), s
	Down   bool      // an outage of the scenario holds arrivals at the send time
}

// FrameTech is one technique's display of the focus entity in one frame.
type FrameTech struct {
	RenderTime float64 // Sample.Time, s
	Newest     float64 // Sample.Newest, s
	Depth      int
	Delay      float64 // s
	Mode       technique.Mode
	Snap       bool    // the frame's step was a snap
	Idle       bool    // an idle hold: held while the sender deliberately sent nothing (see underrun.go)
	Err        float64 // position error, m
}

// FrameRecord is one client frame of the focus entity, for the timeline.
type FrameRecord struct {
	Time float64 // true server time of the frame, s
	Est  float64 // the client's estimate of it, s
	Tech [numTechniques]FrameTech
}

// recordCap is how many packet and frame records Drain can return at most.
const recordCap = 1024

// NewSim validates s and returns a simulation at time 0.
func NewSim(s Settings) (*Sim, error) { return newSim(s, false) }

// newQuietSim is NewSim for a run that only measures: no records are kept
// for Drain, which saves their allocation and a copy per packet and frame,
// and its Poses carry no headings (as after SetHeadings(false)), which
// saves blending every entity's rotations.
func newQuietSim(s Settings) (*Sim, error) { return newSim(s, true) }

func newSim(s Settings, quiet bool) (*Sim, error) { return makeSim(s, quiet, false) }

func makeSim(s Settings, quiet, lean bool) (*Sim, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	m := &Sim{set: s, quiet: quiet || lean, noHeadings: quiet || lean, lean: lean}
	m.set.Techniques = append([]string(nil), s.Techniques...) // not shared with the caller
	m.Restart()
	return m, nil
}

// Settings returns a copy of the current settings.
func (m *Sim) Settings() Settings {
	s := m.set
	s.Techniques = append([]string(nil), m.set.Techniques...)
	return s
}

// Set changes one parameter by its vocabulary name, with v as in the
// parameter table (an index for an Enum, 0 or 1 for a Bool, a bit mask over
// TechniqueNames for a Set). It validates the result, constraints between
// fields included; on error nothing changes. Parameters marked Restart
// restart the run from time 0, and restarted says so; any other takes effect
// on the next frame.
func (m *Sim) Set(name string, v float64) (restarted bool, err error) {
	p, ok := Lookup(name)
	if !ok {
		return false, &FieldError{Field: name, Value: param.FormatNumber(v), Allowed: "a parameter name (see Params)"}
	}
	next := m.Settings()
	if err := p.Set(&next, v); err != nil {
		return false, err
	}
	if m.rp != nil {
		if err := m.replayFixed(name, v); err != nil {
			return false, err
		}
	}
	if err := next.Validate(); err != nil {
		return false, err
	}
	switch {
	case p.Restart:
		m.set = next
		m.Restart() // refreshes m.env
		return true, nil
	case name == "sendRate" && m.seq > 0:
		m.sendBase, m.sendK = m.lastSend, 1
	case name == "renderRate":
		m.frameBase, m.frameK = m.t, 1
	}
	m.set = next
	m.env = envOf(&m.set)
	if name == "renderRate" && newLagGrid(next.RenderRate) != m.lag {
		m.resetLag() // its candidate delays are whole frames of the old period
	}
	return false, nil
}

// Restart returns the run to time 0 with the current settings.
func (m *Sim) Restart() {
	s := &m.set
	if m.rp != nil {
		m.rp.fix(s)
		m.rp.restart()
	}
	m.env = envOf(s)
	m.techs = techList(uint64(techMask(s.Techniques)))
	m.set.Techniques = m.techs
	n, nt := s.Entities, len(m.techs)
	m.n = n
	if m.focus >= n {
		m.focus = 0
	}
	seed := uint64(s.Seed)
	m.link = netsim.NewLink(&s.NetworkSettings, &s.Duration, seed)
	m.link.FollowUnreliableDeltas(&s.NGOSettings.UseUnreliableDeltas)
	m.clock = netsim.NewClientClockAlong(&s.NetworkSettings, seed^0x9e3779b97f4a7c15, m.link.ConditionsAt)
	m.movers = nil
	if m.rp == nil {
		m.movers = make([]motion.Mover, n)
		for e := range m.movers {
			m.movers[e] = motion.NewMover(s.Motion, e, s.MaxSpeed, seed)
		}
	}
	m.batches = make([]technique.Batch, nt)
	m.base = make([]technique.TimeBase, nt)
	m.transit = netsim.StreamClock{}
	m.liveSum, m.liveN, m.live = make([]float64, nt), make([]int, nt), make([]liveKind, nt)
	for k, name := range m.techs {
		def := techniqueDef(name)
		m.base[k] = def.base
		if m.rp != nil {
			// A trace's entities need not share their packets: one
			// technique each.
			m.batches[k] = newPerEntity(name, s, &m.env, n)
		} else {
			m.batches[k] = newBatch(name, s, &m.env, n)
		}
		switch _, shared := m.batches[k].(technique.DelaySharer); {
		case def.delay == nil:
			m.live[k] = liveNone
		case shared:
			m.live[k] = liveShared
		default:
			m.live[k] = livePerEntity
		}
	}
	m.framers = make([]technique.LeanFramer, nt)
	for k, b := range m.batches {
		m.framers[k], _ = b.(technique.LeanFramer)
	}
	m.skipRotations()
	m.noSnapRot = m.lean
	for _, b := range m.batches {
		if _, ok := b.(technique.RotationSkipper); !ok {
			m.noSnapRot = false
		}
	}
	m.snaps, m.out = make([]technique.Snapshot, n), make([]technique.Sample, min(n, fillChunk))
	m.sendBase, m.frameBase, m.sendK, m.frameK = 0, 0, 0, 1
	m.lastSend, m.seq, m.target, m.t, m.frames, m.round, m.cur = 0, 0, 0, 0, 0, 0, 0
	m.roundOf = math.NaN()
	m.dt = 1 / s.RenderRate
	m.inv4Dt = math.NaN()
	m.arrivals.reset()
	m.poses = make([]float32, (1+nt)*n*PoseStride)
	m.accs = make([]acc, nt)
	m.shown = [3][]geom.Vec3{make([]geom.Vec3, nt*n), make([]geom.Vec3, nt*n), make([]geom.Vec3, nt*n)}
	m.valid, m.under = make([]uint8, nt*n), make([]bool, nt*n)
	m.truth, m.truth1, m.truth2, m.truthAcc = make([]geom.Vec3, n), make([]geom.Vec3, n), make([]geom.Vec3, n), make([]geom.Vec3, n)
	m.lagN = min(n, latencyEntities)
	m.resetLag()
	m.phases = nil
	if sc, _ := ScenarioOf(s); sc != nil && m.rp == nil && !m.lean {
		if start, end, ok := sc.Span(); ok {
			m.phases = newPhaseTracker(start, end)
		}
	}
	if !m.quiet {
		m.packets = newRecordRing[PacketRecord](recordCap)
		m.frameLog = newRecordRing[FrameRecord](recordCap)
	}
}

// resetLag clears the added-latency history, as when the frame period changes.
func (m *Sim) resetLag() {
	m.lag, m.lagStart = newLagGrid(m.set.RenderRate), m.frames
	m.lagSlot, m.lagPhase, m.lagZ = 0, 0, math.MinInt/2
	size, nt := m.lag.size(), len(m.techs)
	m.lagTruth, m.lagX, m.lagY, m.lagZs = nil, nil, nil, nil
	if m.lagN == 1 {
		w := make([]float64, 6*size) // see putLagTruth1
		m.lagX, m.lagY, m.lagZs = w[:2*size:2*size], w[2*size:4*size:4*size], w[4*size:]
	} else {
		m.lagTruth = make([]geom.Vec3, size*m.lagN)
	}
	m.lagDisp = make([]geom.Vec3, nt*size*m.lagN)
	for k := range m.accs {
		m.accs[k].lagSSE = make([]float64, size)
		m.accs[k].lagFrames = 0
	}
	m.setLeanTechs()
}

// SetHeadings says whether Poses carries the entities' headings, as it
// does by default. Without them every heading reads (1, 0), facing +X,
// which saves a sine and a cosine per entity and frame when nothing draws
// them (the page's stress view draws dots), and the techniques that can
// skip blending rotations do. The run is the same either way.
func (m *Sim) SetHeadings(on bool) {
	if m.lean {
		return // it writes no poses
	}
	m.noHeadings = !on
	m.skipRotations()
}

// skipRotations tells the batches whether their rotations are read.
func (m *Sim) skipRotations() {
	for _, b := range m.batches {
		if r, ok := b.(technique.RotationSkipper); ok {
			r.SkipRotations(m.noHeadings)
		}
	}
}

// SetFocus chooses the entity whose packets and frames Drain records.
func (m *Sim) SetFocus(entity int) {
	if entity >= 0 && entity < m.n {
		m.focus = entity
	}
}

// RTT returns the client's latest measured round trip to the server, in
// seconds (see ClientClock.RTT): available to techniques that sync their
// clock over a round trip.
func (m *Sim) RTT() float64 { return m.clock.RTT() }

// Time returns the simulated server time of the latest frame, in seconds.
func (m *Sim) Time() float64 { return m.t }

// Frames returns the number of frames rendered since time 0.
func (m *Sim) Frames() int { return m.frames }

// Techniques returns the running techniques in TechniqueNames order. The
// slice is shared; do not modify it.
func (m *Sim) Techniques() []string { return m.techs }

// Entities returns the number of simulated entities.
func (m *Sim) Entities() int { return m.n }

// Poses returns the latest frame's poses: row 0 is the ground truth, then one
// row per technique in Techniques order; each row holds Entities() entries of
// PoseStride float32s. The slice belongs to the Sim and is overwritten by the
// next Step.
func (m *Sim) Poses() []float32 { return m.poses }

// Metrics appends one Metrics per running technique, in Techniques order.
func (m *Sim) Metrics(dst []Metrics) []Metrics {
	for k := range m.accs {
		open := 0
		if m.frames > 0 {
			for _, u := range m.under[k*m.n : (k+1)*m.n] {
				if u {
					open++
				}
			}
		}
		openRounds := 0
		if m.frames > 0 {
			openRounds = m.n
		}
		mt := m.accs[k].metrics(openRounds, open, m.lag)
		if m.lean && m.n == 1 && m.rp == nil {
			mt.Smoothness = math.NaN() // not measured
		}
		dst = append(dst, mt)
	}
	return dst
}

// liveKind is how a technique's live delay is taken from its samples.
type liveKind uint8

const (
	liveNone      liveKind = iota // the technique has no game delay
	liveShared                    // its batch gives every entity the same Delay: one sample a chunk
	livePerEntity                 // the mean of every entity's
)

// LiveDelays appends, per running technique in Techniques order, its game
// delay as the latest frame has it, in seconds: the mean over the entities
// it drew of Sample.Delay, the display delay behind the newest snapshot
// that the technique's state gives now (Mirror's bufferTime as dynamic
// adjustment moves it, the buffer's adaptive delay, ...), beside the
// steady-state figure of EffectiveDelay. NaN where the technique has no
// game delay (EffectiveDelay is not ok) or drew nothing yet.
func (m *Sim) LiveDelays(dst []float64) []float64 {
	for k := range m.techs {
		d := math.NaN()
		if m.live[k] != liveNone && m.liveN[k] > 0 {
			d = m.liveSum[k] / float64(m.liveN[k])
		}
		dst = append(dst, d)
	}
	return dst
}

// Drain appends the packet and frame records made since the previous Drain
// (at most the last 1024 of each) and returns the slices.
func (m *Sim) Drain(pk []PacketRecord, fr []FrameRecord) ([]PacketRecord, []FrameRecord) {
	return m.packets.drain(pk), m.frameLog.drain(fr)
}

// Step advances simulated time by dt seconds, rendering every frame due in
// that span. A dt that is not positive does nothing; above 1 s it is cut to 1 s.
func (m *Sim) Step(dt float64) {
	if !(dt > 0) {
		return
	}
	m.advance(m.target + min(dt, 1))
}

// StepFrames advances simulated time by exactly n client frames.
func (m *Sim) StepFrames(n int) {
	if n <= 0 {
		return
	}
	// One advance to the n-th frame, so that only it writes the poses.
	m.advance(m.frameBase + float64(m.frameK+n-1)/m.set.RenderRate)
}

func (m *Sim) nextSend() float64 {
	if m.rp != nil {
		return m.rp.nextSend()
	}
	return m.sendBase + float64(m.sendK)/m.set.SendRate
}
func (m *Sim) nextFrame() float64 { return m.frameBase + float64(m.frameK)/m.set.RenderRate }

// timeEps absorbs the rounding of summed steps: thirty steps of 1/60 s
// reach frame 30 although their float sum falls short of 0.5.
const timeEps = 1e-9

// advance runs every event up to target in time order: at equal times a
// send before an arrival before a frame.
func (m *Sim) advance(target float64) {
	m.target = max(m.target, target)
	limit := m.target + timeEps
	// A lean Sim of one entity (each of a population's) takes its frames
	// by frameLean, straight from here.
	lean := m.lean && m.n == 1 && m.rp == nil && m.series == nil
	// The next send, arrival and frame change only when one happens: the
	// send and the frame each cost a division, worked out once rather
	// than on every event.
	ts, ta, tf := m.nextSend(), m.arrivals.next(), m.nextFrame()
	for {
		switch {
		case ts <= ta && ts <= tf && ts <= limit:
			m.send(ts)
			ts, ta = m.nextSend(), m.arrivals.next()
		case ta <= tf && ta <= limit:
			m.arrive(m.arrivals.pop())
			ta = m.arrivals.next()
		case tf <= limit:
			m.frameK++
			next := m.nextFrame()
			if lean {
				m.frameLean(tf)
			} else {
				m.frame(tf, next > limit)
			}
			tf = next
		default:
			return
		}
	}
}

func (m *Sim) send(ts float64) {
	if m.rp != nil {
		m.replaySend()
		return
	}
	tick := math.Floor(ts*m.set.TickRate+1e-9) / m.set.TickRate
	m.sendBuf = m.link.Send(ts, m.sendBuf[:0])
	first := math.NaN() // the first arrival; NaN when lost
	for _, a := range m.sendBuf {
		m.arrivals.push(arrival{t: a, tick: tick, seq: m.seq})
		if !(a >= first) {
			first = a
		}
	}
	if !m.quiet {
		rec := PacketRecord{Seq: m.seq, Sent: ts, Tick: tick, Arrive: first, Dup: len(m.sendBuf) > 1,
			Pos: m.movers[m.focus].At(tick).Pos}
		rec.Net, rec.Down = m.link.State(ts)
		m.packets.push(rec)
	}
	m.seq++
	m.sendK++
	m.lastSend = ts
}

func (m *Sim) arrive(a arrival) {
	now, local := m.clock.Read(a.t)
	m.transit.Arrive(now, a.tick)
	streamNow := now - m.transit.Lag
	if m.rp != nil {
		m.replayDeliver(a.seq, [...]float64{technique.ServerEstimate: now, technique.StreamTime: streamNow, technique.LocalTime: local})
		return
	}
	for e := range m.movers {
		if m.noSnapRot {
			// Nobody reads the facing: the mover skips it and writes the
			// position and velocity into the snapshot in place.
			sn := &m.snaps[e]
			sn.Time = a.tick
			sn.Rot[0], sn.Rot[1], sn.Rot[2], sn.Rot[3] = 0, 0, 0, 1
			m.movers[e].PosVel(a.tick, &sn.Pos, &sn.Vel)
			continue
		}
		// The mover writes the position and velocity into the snapshot in
		// place, element by element, and the rotation is set so too: a
		// State or a vector copied whole is, in Go's WebAssembly, a
		// memory.copy (a call out of the module), and natively it would
		// be read back in 16-byte loads straight after the mover stored
		// it 8 bytes at a time, which the processor cannot forward.
		sn := &m.snaps[e]
		sn.Time = a.tick
		rot := geom.QuatFromYaw(m.movers[e].PosVelYaw(a.tick, &sn.Pos, &sn.Vel))
		sn.Rot[0], sn.Rot[1], sn.Rot[2], sn.Rot[3] = rot[0], rot[1], rot[2], rot[3]
	}
	times := [...]float64{technique.ServerEstimate: now, technique.StreamTime: streamNow, technique.LocalTime: local}
	for k, b := range m.batches {
		b.Receive(a.tick, times[m.base[k]], m.snaps)
	}
}

// frame renders one client frame at true server time t: every technique
// samples every entity, the metrics take the frame in, and on the last frame
// of a step the poses are written.
func (m *Sim) frame(t float64, last bool) {
	now, streamNow, local := m.frameClock(t)
	m.frameAll(t, last, now, streamNow, local)
}

// frameClock starts the frame at true server time t for frame and
// frameLean: the frame's period, the client's clocks read at t (its
// estimate of server time, the stream time and its local time) and the
// round the frame falls in, closing the one before when it ends.
func (m *Sim) frameClock(t float64) (now, streamNow, local float64) {
	m.dt = t - m.t
	if m.frames == 0 {
		m.dt = 1 / m.set.RenderRate
	}
	m.t = t
	now, local = m.clock.Read(t)
	m.transit.Advance(now)
	streamNow = now - m.transit.Lag

	if x := t - float64(0.5*m.dt); !(x >= m.roundLo && x < m.roundHi && m.set.Round == m.roundOf) {
		if r := int(x / m.set.Round); r != m.round {
			m.closeRound()
			m.round = r
		}
		m.roundSpan()
	}
	return now, streamNow, local
}

// roundSpan works out the frame times that fall in the current round for
// frame, with a margin of a billionth either side that covers the rounding
// of the division by far: inside it, int(x / Round) is round.
func (m *Sim) roundSpan() {
	r, R := float64(m.round), m.set.Round
	m.roundOf = R
	m.roundLo, m.roundHi = float64(r*R)*(1+1e-9), float64((r+1)*R)*(1-1e-9)
	if m.round < 0 { // never in a run, whose times are positive: no span
		m.roundLo, m.roundHi = 0, 0
	}
}

// truthFull is frameAll's truth for a replay's frames and for the last
// frame of a step that writes headings: each entity's whole state.
func (m *Sim) truthFull(t float64, last bool) {
	n := m.n
	for e := range n {
		var st motion.State
		if m.rp != nil {
			st = m.rp.at(e, t)
		} else {
			st = m.movers[e].At(t)
		}
		m.truth[e] = st.Pos
		if m.frames >= 2 {
			m.truthAcc[e] = secondDiff(&st.Pos, &m.truth1[e], &m.truth2[e])
		}
		if last {
			q := geom.Quat{0, 0, 0, 1}
			if !m.noHeadings {
				q = geom.QuatFromYaw(st.Yaw)
			}
			m.writePose(0, e, st.Pos, q, technique.Interpolate)
		}
	}
}

// secondDiff returns p − 2·p1 + p2, the truth's second difference over
// its last three frames, with 2·p1 rounded on its own (no fused
// multiply-add), as measure's acceleration compares it.
func secondDiff(p, p1, p2 *geom.Vec3) geom.Vec3 {
	return geom.Vec3{p[0] - float64(2*p1[0]) + p2[0], p[1] - float64(2*p1[1]) + p2[1], p[2] - float64(2*p1[2]) + p2[2]}
}

// truthPos is frameAll's truth for most frames of a run that is not a
// replay: the movers' positions alone (no velocity, no yaw), their second
// difference, and on the last frame of a step the truth's poses with no
// heading (setHeadings(false): the stress view's). Each slice is resliced
// to the entities once, and nothing per entity is copied or called but
// the mover: the same numbers as frameAll's general loop, in less work.
func (m *Sim) truthPos(t float64, last bool) {
	n := m.n
	movers, truth := m.movers[:n], m.truth[:n]
	truth1, truth2, truthAcc := m.truth1[:n], m.truth2[:n], m.truthAcc[:n]
	acc := m.frames >= 2
	var poses []float32
	if last {
		poses = m.poses[:n*PoseStride]
	}
	for e := range movers {
		p := movers[e].Pos(t)
		truth[e] = p
		if acc {
			truthAcc[e] = secondDiff(&p, &truth1[e], &truth2[e])
		}
		if last {
			// writePose's numbers for the identity rotation: heading (1, 0).
			pp := poses[e*PoseStride : e*PoseStride+PoseStride]
			pp[0], pp[1], pp[2] = float32(p[0]), float32(p[1]), float32(p[2])
			pp[3], pp[4], pp[5] = 1, 0, float32(technique.Interpolate)
		}
	}
}

// frameAll is the rest of frame for any Sim but a lean one of one entity
// (frameLean): apart, so that the lean frames, a population's every one,
// do not pay for its stack frame and its spills.
func (m *Sim) frameAll(t float64, last bool, now, streamNow, local float64) {
	n, dt := m.n, m.dt
	// The truth's yaw is read only for the poses' headings, and its
	// velocity never: most frames take only its position.
	full := last && !m.noHeadings
	if m.rp == nil && !full {
		m.truthPos(t, last)
	} else {
		m.truthFull(t, last)
	}
	slot := m.lagSlot
	if m.lagSlot++; m.lagSlot == m.lag.size() {
		m.lagSlot = 0
	}
	if m.lagN == 1 {
		tr := &m.truth[0]
		m.putLagTruth1(slot, tr[0], tr[1], tr[2])
	} else {
		for e := 0; e < m.lagN; e++ {
			m.lagTruth[slot*m.lagN+e] = m.truth[e]
		}
	}

	rec := &m.rec
	if !m.quiet {
		*rec = FrameRecord{Time: t, Est: now}
	}
	times := [...]float64{technique.ServerEstimate: now, technique.StreamTime: streamNow, technique.LocalTime: local}
	for k, b := range m.batches {
		b.Frame(times[m.base[k]])
	}
	snapStep := snapFactor * m.set.MaxSpeed * dt
	if last {
		clear(m.liveSum)
		clear(m.liveN)
	}
	if dt != m.inv4Dt { // NaN at the start: a frame's period mostly repeats to the bit
		m.inv4Dt, m.inv4 = dt, 1/(dt*dt*dt*dt)
	}
	// shown's three slots rotate: the previous frame's is the one before
	// this frame's, mod 3.
	fm := frameMeasure{slot: slot, last: last, snapSq: snapStep * snapStep, inv4: m.inv4,
		cur: m.cur, prev1: [3]int{2, 0, 1}[m.cur], prev2: [3]int{1, 2, 0}[m.cur]}
	for lo := 0; lo < n; lo += fillChunk {
		out := m.out[:min(fillChunk, n-lo)]
		for k, b := range m.batches {
			b.Fill(lo, out)
			m.measure(k, lo, out, &fm)
		}
	}
	m.frames++
	if m.cur++; m.cur == 3 {
		m.cur = 0
	}
	if m.series != nil {
		m.series.frame(m, t)
	}
	m.accumulateLag(slot)
	if m.phases != nil {
		m.phases.frame(m, m.nextFrame())
	}
	m.truth, m.truth1, m.truth2 = m.truth2, m.truth, m.truth1
	if !m.quiet {
		m.frameLog.push(*rec)
	}
}
