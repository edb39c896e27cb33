package engine

import "math"

// Sim is a running lab simulation: a server moving Entities() entities by
// their motion scripts, sending snapshots over one seeded link, and a client
// displaying every entity with each technique in Techniques(), all fed the
// same packets. Time only moves when Step or StepFrames is called; metrics
// are taken at fixed client frames (every 1/renderRate of simulated time),
// so the same settings and seed give the same numbers whatever steps reach a
// given time.
type Sim struct {
	set   Settings // read through &set by the link, clock and techniques
	techs []string
	n     int
	focus int

	movers  []Mover
	link    *Link
	clock   *ClientClock
	batches []batch     // technique k for every entity
	stream  []bool      // technique k renders on the stream clock (see streamClock)
	snaps   []Snapshot  // one packet's snapshots, by entity
	out     []Sample    // one chunk of a technique's frame, by entity
	rec     FrameRecord // the frame being rendered, for the timeline
	transit streamClock

	// Sends happen at sendBase + sendK/sendRate, frames at
	// frameBase + frameK/renderRate; a rate change moves the base.
	sendBase, frameBase float64
	sendK, frameK       int
	lastSend            float64
	seq                 int
	target              float64 // simulated time reached by Step
	t, dt               float64 // time of the latest frame, and the frame's period
	frames              int
	arrivals            arrivalHeap
	sendBuf             []float64

	poses []float32

	accs     []acc
	shown    [3][]Vec3 // displayed positions of the last three frames, [frame%3][k*n + e]
	valid    []uint8   // how many of prev1, prev2 hold a displayed frame
	under    []bool    // underran in the current round, [k*n + e]
	truth    []Vec3    // truth this frame
	truth1   []Vec3    // and one and two frames ago
	truth2   []Vec3
	truthAcc []Vec3 // truth's second difference this frame
	round    int

	lag      lagGrid
	lagN     int // entities sampled for the added latency
	lagTruth []Vec3
	lagDisp  []Vec3 // NaN where the technique showed nothing

	series *seriesAcc // nil unless RunSeries asked for it

	packets  recordRing[PacketRecord]
	frameLog recordRing[FrameRecord]

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
	Sent   float64 // server send time, s
	Tick   float64 // server time of the state it carries, s
	Arrive float64 // first arrival, on the server's time base, s; NaN if lost
	Dup    bool    // delivered twice
	Pos    Vec3    // the focus entity's true position in it
}

// FrameTech is one technique's display of the focus entity in one frame.
type FrameTech struct {
	RenderTime float64 // Sample.Time, s
	Newest     float64 // Sample.Newest, s
	Depth      int
	Delay      float64 // s
	Mode       Mode
	Snap       bool    // the frame's step was a snap
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
func NewSim(s Settings) (*Sim, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	m := &Sim{set: s}
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
		return false, &FieldError{Field: name, Value: formatNumber(v), Allowed: "a parameter name (see Params)"}
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
		m.Restart()
		return true, nil
	case name == "sendRate" && m.seq > 0:
		m.sendBase, m.sendK = m.lastSend, 1
	case name == "renderRate":
		m.frameBase, m.frameK = m.t, 1
	}
	m.set = next
	return false, nil
}

// Restart returns the run to time 0 with the current settings.
func (m *Sim) Restart() {
	s := &m.set
	if m.rp != nil {
		m.rp.fix(s)
		m.rp.restart()
	}
	m.techs = techList(uint64(techMask(s.Techniques)))
	m.set.Techniques = m.techs
	n, nt := s.Entities, len(m.techs)
	m.n = n
	if m.focus >= n {
		m.focus = 0
	}
	seed := uint64(s.Seed)
	m.link = NewLink(s, seed)
	m.clock = NewClientClock(s, seed^0x9e3779b97f4a7c15)
	m.movers = nil
	if m.rp == nil {
		m.movers = make([]Mover, n)
		for e := range m.movers {
			m.movers[e] = NewMover(s.Motion, e, s.MaxSpeed, seed)
		}
	}
	m.batches = make([]batch, nt)
	m.stream = make([]bool, nt)
	m.transit = streamClock{}
	for k, name := range m.techs {
		m.stream[k] = name == TechBuffer || name == TechHermite
		if m.rp != nil {
			// A trace's entities need not share their packets: one
			// technique each.
			m.batches[k] = newPerEntity(name, s, n)
		} else {
			m.batches[k] = newBatch(name, s, n)
		}
	}
	m.snaps, m.out = make([]Snapshot, n), make([]Sample, min(n, fillChunk))
	m.sendBase, m.frameBase, m.sendK, m.frameK = 0, 0, 0, 1
	m.lastSend, m.seq, m.target, m.t, m.frames, m.round = 0, 0, 0, 0, 0, 0
	m.dt = 1 / s.RenderRate
	m.arrivals = m.arrivals[:0]
	m.poses = make([]float32, (1+nt)*n*PoseStride)
	m.accs = make([]acc, nt)
	m.shown = [3][]Vec3{make([]Vec3, nt*n), make([]Vec3, nt*n), make([]Vec3, nt*n)}
	m.valid, m.under = make([]uint8, nt*n), make([]bool, nt*n)
	m.truth, m.truth1, m.truth2, m.truthAcc = make([]Vec3, n), make([]Vec3, n), make([]Vec3, n), make([]Vec3, n)
	m.lagN = min(n, latencyEntities)
	m.resetLag()
	m.packets = newRecordRing[PacketRecord](recordCap)
	m.frameLog = newRecordRing[FrameRecord](recordCap)
}

// batch displays every entity of a run with one technique. Entities that
// share their packets share their timing, so a batch does the work that
// depends only on time once per frame (frame), then writes the entities in
// chunks (fill) that the metrics read while they are still in cache.
type batch interface {
	// receive hands over one packet: snaps[e] is entity e's snapshot of
	// the server tick at time tick, arrived at now.
	receive(tick, now float64, snaps []Snapshot)
	// frame prepares the display at now.
	frame(now float64)
	// fill writes what entities lo, lo+1, ... display into out.
	fill(lo int, out []Sample)
}

// perEntity is a batch of one Technique per entity, for any Technique.
type perEntity struct {
	techs []Technique
	now   float64
}

func (p *perEntity) receive(_, now float64, snaps []Snapshot) {
	for e, t := range p.techs {
		t.Receive(snaps[e], now)
	}
}

func (p *perEntity) frame(now float64) { p.now = now }

func (p *perEntity) fill(lo int, out []Sample) {
	for e, t := range p.techs[lo : lo+len(out)] {
		out[e] = t.Sample(p.now)
	}
}

// epicBatch and snapBatch hold their techniques by value, so the calls in
// their loops are static and inline: an interface call per entity and frame
// is dear in WebAssembly.
type epicBatch struct {
	techs []epicTechnique
	now   float64
}

func (b *epicBatch) receive(_, now float64, snaps []Snapshot) {
	for e := range b.techs {
		b.techs[e].Receive(snaps[e], now)
	}
}

func (b *epicBatch) frame(now float64) { b.now = now }

func (b *epicBatch) fill(lo int, out []Sample) {
	for e := range out {
		b.techs[lo+e].sample(b.now, &out[e])
	}
}

type snapBatch []snapTech

func (b snapBatch) receive(_, now float64, snaps []Snapshot) {
	for e := range b {
		b[e].Receive(snaps[e], now)
	}
}

func (b snapBatch) frame(float64) {}

func (b snapBatch) fill(lo int, out []Sample) {
	for e := range out {
		b[lo+e].sample(&out[e])
	}
}

// newBatch returns the named technique for n entities.
func newBatch(name string, s *Settings, n int) batch {
	switch name {
	case TechBuffer, TechHermite:
		return newBufBatch(s, name == TechHermite, n)
	case TechEPIC, TechEPICFix:
		b := &epicBatch{techs: make([]epicTechnique, n)}
		for e := range b.techs {
			b.techs[e] = *newEPICTechnique(s, name == TechEPICFix).(*epicTechnique)
		}
		return b
	case TechSnap:
		return make(snapBatch, n)
	}
	return newPerEntity(name, s, n)
}

// newPerEntity returns the named technique as one Technique per entity.
func newPerEntity(name string, s *Settings, n int) *perEntity {
	p := &perEntity{techs: make([]Technique, n)}
	for e := range p.techs {
		p.techs[e] = newTechnique(name, s)
	}
	return p
}

func newTechnique(name string, s *Settings) Technique {
	switch name {
	case TechEPIC:
		return newEPICTechnique(s, false)
	case TechEPICFix:
		return newEPICTechnique(s, true)
	case TechSnap:
		return newSnap(s)
	case TechBuffer:
		return newBuffer(s, false)
	case TechHermite:
		return newBuffer(s, true)
	}
	panic("engine: unknown technique " + name)
}

// resetLag clears the added-latency history, as when the frame period changes.
func (m *Sim) resetLag() {
	m.lag = newLagGrid(m.set.RenderRate)
	size, nt := m.lag.size(), len(m.techs)
	m.lagTruth = make([]Vec3, size*m.lagN)
	m.lagDisp = make([]Vec3, nt*size*m.lagN)
	for k := range m.accs {
		m.accs[k].lagSSE = make([]float64, size)
		m.accs[k].lagFrames = 0
	}
}

// SetFocus chooses the entity whose packets and frames Drain records.
func (m *Sim) SetFocus(entity int) {
	if entity >= 0 && entity < m.n {
		m.focus = entity
	}
}

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
		dst = append(dst, m.accs[k].metrics(openRounds, open, m.lag))
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
	for {
		ts, tf, ta := m.nextSend(), m.nextFrame(), math.Inf(1)
		if len(m.arrivals) > 0 {
			ta = m.arrivals[0].t
		}
		switch {
		case ts <= ta && ts <= tf && ts <= limit:
			m.send(ts)
		case ta <= tf && ta <= limit:
			m.arrive(m.arrivals.pop())
		case tf <= limit:
			m.frameK++
			m.frame(tf, m.nextFrame() > limit)
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
	rec := PacketRecord{Seq: m.seq, Sent: ts, Tick: tick, Arrive: math.NaN(), Dup: len(m.sendBuf) > 1,
		Pos: m.movers[m.focus].At(tick).Pos}
	for _, a := range m.sendBuf {
		m.arrivals.push(arrival{t: a, tick: tick, seq: m.seq})
		if !(a >= rec.Arrive) {
			rec.Arrive = a
		}
	}
	m.packets.push(rec)
	m.seq++
	m.sendK++
	m.lastSend = ts
}

func (m *Sim) arrive(a arrival) {
	m.clock.Advance(a.t)
	now := m.clock.Estimate(a.t)
	m.transit.arrive(now, a.tick)
	streamNow := now - m.transit.lag
	if m.rp != nil {
		m.replayDeliver(a.seq, now, streamNow)
		return
	}
	for e := range m.movers {
		st := m.movers[e].At(a.tick)
		m.snaps[e] = Snapshot{Time: a.tick, Pos: st.Pos, Vel: st.Vel, Rot: QuatFromYaw(st.Yaw)}
	}
	for k, b := range m.batches {
		if m.stream[k] {
			b.receive(a.tick, streamNow, m.snaps)
		} else {
			b.receive(a.tick, now, m.snaps)
		}
	}
}

// frame renders one client frame at true server time t: every technique
// samples every entity, the metrics take the frame in, and on the last frame
// of a step the poses are written.
func (m *Sim) frame(t float64, last bool) {
	m.dt = t - m.t
	if m.frames == 0 {
		m.dt = 1 / m.set.RenderRate
	}
	m.t = t
	m.clock.Advance(t)
	now := m.clock.Estimate(t)
	m.transit.advance(now)
	streamNow := now - m.transit.lag
	n, dt := m.n, m.dt

	if r := int((t - float64(0.5*dt)) / m.set.Round); r != m.round {
		m.closeRound()
		m.round = r
	}
	if newLagGrid(m.set.RenderRate) != m.lag {
		m.resetLag()
	}

	for e := range n {
		var st State
		if m.rp == nil {
			st = m.movers[e].At(t)
		} else {
			st = m.rp.at(e, t)
		}
		m.truth[e] = st.Pos
		if m.frames >= 2 {
			p, p1, p2 := &st.Pos, &m.truth1[e], &m.truth2[e]
			m.truthAcc[e] = Vec3{p[0] - float64(2*p1[0]) + p2[0], p[1] - float64(2*p1[1]) + p2[1], p[2] - float64(2*p1[2]) + p2[2]}
		}
		if last {
			m.writePose(0, e, st.Pos, QuatFromYaw(st.Yaw), Interpolate)
		}
	}
	slot := m.frames % m.lag.size()
	for e := 0; e < m.lagN; e++ {
		m.lagTruth[slot*m.lagN+e] = m.truth[e]
	}

	rec := &m.rec
	*rec = FrameRecord{Time: t, Est: now}
	for k, b := range m.batches {
		if m.stream[k] {
			b.frame(streamNow)
		} else {
			b.frame(now)
		}
	}
	snapStep := snapFactor * m.set.MaxSpeed * dt
	fm := frameMeasure{slot: slot, last: last, snapSq: snapStep * snapStep, inv4: 1 / (dt * dt * dt * dt),
		cur: m.frames % 3, prev1: (m.frames + 2) % 3, prev2: (m.frames + 1) % 3}
	for lo := 0; lo < n; lo += fillChunk {
		out := m.out[:min(fillChunk, n-lo)]
		for k, b := range m.batches {
			b.fill(lo, out)
			m.measure(k, lo, out, &fm)
		}
	}
	m.frames++
	if m.series != nil {
		m.series.frame(m, t)
	}
	m.accumulateLag()
	m.truth, m.truth1, m.truth2 = m.truth2, m.truth, m.truth1
	m.frameLog.push(*rec)
}

// fillChunk is how many entities a technique writes before the metrics
// read them: few enough that they are still in cache.
const fillChunk = 256

// frameMeasure holds what measure needs of the frame being rendered.
type frameMeasure struct {
	slot   int     // the frame's slot in the added-latency history
	last   bool    // write the poses
	snapSq float64 // squared step above which a step is a snap, m²
	inv4   float64 // 1/dt⁴, to turn second differences into accelerations

	cur, prev1, prev2 int // indices in Sim.shown of this frame and the two before
}

// measure takes technique k's display of entities lo, lo+1, ... (out) into
// the metrics, the timeline and, on the last frame of a step, the poses.
func (m *Sim) measure(k, lo int, out []Sample, fm *frameMeasure) {
	a, n := &m.accs[k], m.n
	// This loop runs for every entity and technique each frame: no calls,
	// no builtin max on floats (a runtime call in WebAssembly), and the
	// per-entity state resliced to the chunk so that one bounds check
	// covers it.
	off := k*n + lo
	valid, under := m.valid[off:off+len(out)], m.under[off:off+len(out)]
	cur, prev1, prev2 := m.shown[fm.cur][off:off+len(out)], m.shown[fm.prev1][off:off+len(out)], m.shown[fm.prev2][off:off+len(out)]
	truth, truthAcc := m.truth[lo:lo+len(out)], m.truthAcc[lo:lo+len(out)]
	// The sums live in locals for the loop and go back to a at the end.
	frames, errSqSum, errMaxSq := a.frames, a.errSq, a.errMaxSq
	snaps, snapMaxSq, underrun := a.snaps, a.snapMaxSq, a.underrun
	extrapolated, frozen := a.extrapolated, a.frozen
	accelSq, accelFrames := a.accelSq, a.accelFrames
	var poses []float32
	if fm.last {
		poses = m.poses[((k+1)*n+lo)*PoseStride:][:len(out)*PoseStride]
	}
	for j := range out {
		smp := &out[j]
		e := lo + j
		if fm.last {
			hx, hy := smp.Rot.heading()
			pp := poses[j*PoseStride : j*PoseStride+PoseStride]
			pp[0], pp[1], pp[2] = float32(smp.Pos[0]), float32(smp.Pos[1]), float32(smp.Pos[2])
			pp[3], pp[4], pp[5] = float32(hx), float32(hy), float32(smp.Mode)
		}
		if e < m.lagN {
			d := smp.Pos
			if smp.Mode == Empty {
				d = Vec3{math.NaN()}
			}
			m.lagDisp[(k*m.lag.size()+fm.slot)*m.lagN+e] = d
		}
		if smp.Mode == Empty {
			valid[j] = 0
			continue
		}
		px, py, pz := smp.Pos[0], smp.Pos[1], smp.Pos[2]
		tr := &truth[j]
		dx, dy, dz := px-tr[0], py-tr[1], pz-tr[2]
		errSq := sq3(dx, dy, dz)
		frames++
		errSqSum += errSq
		if errSq > errMaxSq {
			errMaxSq = errSq
		}
		a.hist[histBin(errSq)]++
		switch smp.Mode {
		case Extrapolate:
			extrapolated++
		case Freeze:
			frozen++
		}
		if smp.Time > smp.Newest {
			underrun++
			under[j] = true
		}
		snapped := false
		v := valid[j]
		if v >= 1 {
			p1 := &prev1[j]
			sx, sy, sz := px-p1[0], py-p1[1], pz-p1[2]
			if step := sq3(sx, sy, sz); step > fm.snapSq {
				snapped = true
				snaps++
				if step > snapMaxSq {
					snapMaxSq = step
				}
			}
			if v >= 2 && m.frames >= 2 {
				p2, ta := &prev2[j], &truthAcc[j]
				ax := px - float64(2*p1[0]) + p2[0] - ta[0]
				ay := py - float64(2*p1[1]) + p2[1] - ta[1]
				az := pz - float64(2*p1[2]) + p2[2] - ta[2]
				accelSq += float64(sq3(ax, ay, az) * fm.inv4)
				accelFrames++
			}
		}
		cur[j] = smp.Pos
		if v < 2 {
			valid[j] = v + 1
		}
		if e == m.focus {
			m.rec.Tech[k] = FrameTech{RenderTime: smp.Time, Newest: smp.Newest, Depth: smp.Depth,
				Delay: smp.Delay, Mode: smp.Mode, Snap: snapped, Err: math.Sqrt(errSq)}
		}
	}
	a.frames, a.errSq, a.errMaxSq = frames, errSqSum, errMaxSq
	a.snaps, a.snapMaxSq, a.underrun = snaps, snapMaxSq, underrun
	a.extrapolated, a.frozen = extrapolated, frozen
	a.accelSq, a.accelFrames = accelSq, accelFrames
}

func (m *Sim) writePose(row, e int, p Vec3, q Quat, mode Mode) {
	o := (row*m.n + e) * PoseStride
	hx, hy := q.heading()
	m.poses[o] = float32(p[0])
	m.poses[o+1] = float32(p[1])
	m.poses[o+2] = float32(p[2])
	m.poses[o+3] = float32(hx)
	m.poses[o+4] = float32(hy)
	m.poses[o+5] = float32(mode)
}

// closeRound counts the entity-rounds that just ended.
func (m *Sim) closeRound() {
	if m.frames == 0 {
		return
	}
	for k := range m.accs {
		a := &m.accs[k]
		a.rounds += m.n
		for e := 0; e < m.n; e++ {
			if m.under[k*m.n+e] {
				a.roundsUnder++
				m.under[k*m.n+e] = false
			}
		}
	}
}

// accumulateLag compares the display of lag.ahead frames ago with the truth
// at every candidate delay, once the history spans the whole grid.
func (m *Sim) accumulateLag() {
	size := m.lag.size()
	if m.frames < size {
		return
	}
	f := m.frames - 1 // the frame just rendered
	ds := (f - m.lag.ahead) % size
	for k := range m.accs {
		a := &m.accs[k]
		for e := 0; e < m.lagN; e++ {
			d := m.lagDisp[(k*size+ds)*m.lagN+e]
			if math.IsNaN(d[0]) {
				continue
			}
			a.lagFrames++
			// Candidate delay (j − ahead) frames compares with the truth
			// of frame f − j, in ring slot (f − j) mod size: the slots
			// from f's down to 0, then from size − 1 down.
			fs := f % size
			for j := 0; j <= fs; j++ {
				a.lagSSE[j] += distSq(d, m.lagTruth[(fs-j)*m.lagN+e])
			}
			for j := fs + 1; j < size; j++ {
				a.lagSSE[j] += distSq(d, m.lagTruth[(fs-j+size)*m.lagN+e])
			}
		}
	}
}

// Run simulates s.Duration seconds of s and returns every technique's metrics.
func Run(s Settings) (Result, error) { return RunSeries(s, 0) }

// RunSeries is Run that also records, for every technique, the RMS position
// error over each window of step seconds (the last window may be shorter),
// for charts of error over time. A step of 0 records none.
func RunSeries(s Settings, step float64) (Result, error) {
	if !(step >= 0) || step > s.Duration {
		return Result{}, &FieldError{Field: "step", Value: formatNumber(step),
			Allowed: "[0, duration = " + formatNumber(s.Duration) + "] s"}
	}
	m, err := NewSim(s)
	if err != nil {
		return Result{}, err
	}
	return m.runFor(step), nil
}

// runFor runs m, at time 0, for its settings' duration, recording series of
// step seconds (none for 0; the caller checked it), and returns the result.
func (m *Sim) runFor(step float64) Result {
	s := &m.set
	if step > 0 {
		m.series = &seriesAcc{step: step, sq: make([]float64, len(m.techs)), n: make([]int, len(m.techs)),
			out: make([][]float64, len(m.techs))}
	}
	m.StepFrames(int(math.Round(s.Duration * s.RenderRate)))
	r := Result{Settings: m.Settings(), SeriesStep: step}
	if m.series != nil {
		m.series.flush()
	}
	for k, mt := range m.Metrics(nil) {
		tr := TechniqueResult{Name: m.techs[k], Metrics: mt}
		if m.series != nil {
			tr.Series = m.series.out[k]
		}
		r.Techniques = append(r.Techniques, tr)
	}
	return r
}

// seriesAcc gathers the RMS error of each technique per window of step
// seconds, from the frame just taken in. A window
// in which a technique displayed nothing records 0, keeping JSON valid.
type seriesAcc struct {
	step   float64
	window int
	sq     []float64
	n      []int
	out    [][]float64
}

func (a *seriesAcc) frame(m *Sim, t float64) {
	if w := int((t - float64(0.5*m.dt)) / a.step); w != a.window {
		a.flush()
		a.window = w
	}
	shown := m.shown[(m.frames-1)%3] // frame has counted this frame
	for k := range a.sq {
		for e := 0; e < m.n; e++ {
			i := k*m.n + e
			if m.valid[i] == 0 {
				continue
			}
			a.sq[k] += distSq(shown[i], m.truth[e])
			a.n[k]++
		}
	}
}

func (a *seriesAcc) flush() {
	for k := range a.sq {
		v := 0.0
		if a.n[k] > 0 {
			v = math.Sqrt(a.sq[k] / float64(a.n[k]))
		}
		a.out[k] = append(a.out[k], v)
		a.sq[k], a.n[k] = 0, 0
	}
}

// Result is the outcome of a whole run.
type Result struct {
	Settings   Settings          `json:"settings"`
	SeriesStep float64           `json:"seriesStep,omitempty"` // s, when RunSeries recorded series
	Techniques []TechniqueResult `json:"techniques"`
}

// TechniqueResult is one technique's metrics in a Result.
type TechniqueResult struct {
	Name    string    `json:"name"`
	Metrics Metrics   `json:"metrics"`
	Series  []float64 `json:"series,omitempty"` // RMS error per SeriesStep window, m
}

// distSq returns |a−b|², written out: it is in the per-entity loop.
func distSq(a, b Vec3) float64 { return sq3(a[0]-b[0], a[1]-b[1], a[2]-b[2]) }

// sq3 returns x² + y² + z² with every product rounded on its own: where the
// compiler may fuse multiply-adds (arm64, amd64 v3) the metrics must still
// come out as in WebAssembly, which never fuses.
func sq3(x, y, z float64) float64 { return float64(x*x) + float64(y*y) + float64(z*z) }
