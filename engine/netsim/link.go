package netsim

import (
	"strconv"
	"unsafe"

	"interplab/engine/geom"
)

// Link is the deterministic network path from the server to the client. It
// decides, packet by packet, whether a packet is lost, when it arrives and
// whether it arrives twice. Reordering is not a separate knob: it emerges
// when a packet's extra delay exceeds the next one's by more than the gap
// between them.
//
// A Link reads its settings through the *NetworkSettings it was made with on every
// call, so sliders may move between packets. It draws from three separate
// random streams (loss, delay, duplication) a fixed number of times per
// packet, whatever happens to the packet, so changing one setting changes
// only what that setting governs: raising the loss removes packets but leaves
// the delays of the survivors as they were, and switching the jitter
// distribution keeps the same packets lost.
//
// Every arrival is sent + s.Latency + an extra delay drawn from
// s.JitterDist, whose mean is s.Jitter so that the distributions are
// comparable at the same setting (jitter 0 gives exactly the latency):
//   - uniform: uniform on [0, 2·jitter]; median jitter.
//   - normal: half-normal |N(0, σ²)| with σ = jitter·√(π/2); median
//     ≈ 0.85·jitter.
//   - pareto: Lomax (Pareto type II) with shape α = 2.5 and scale
//     λ = 1.5·jitter: P(extra > x) = (1 + x/λ)^−α. Right-skewed with a heavy
//     tail (finite variance, infinite third moment): median ≈ 0.48·jitter,
//     one packet in 163 exceeds 10·jitter.
//   - lognormal: jitter·e^(σZ − σ²/2) with Z standard normal and σ = 1;
//     median ≈ 0.61·jitter.
//
// Each extra delay is the distribution's inverse CDF at one uniform draw, so
// a draw that is slow under one distribution is slow under all of them.
//
// A Link is not safe for concurrent use.
type Link struct {
	s       *Settings
	loss    packetStream // one draw per packet: the loss decision or burst transition
	delay   *geom.RNG    // two draws per packet: the packet's delay, its duplicate's
	draws   delayDraws   // the delay stream's draws for the next packets
	dist    kindCache    // the kind of s.JitterDist
	dup     packetStream // one draw per packet: whether it is duplicated
	reorder packetStream // one draw per packet: whether it is sent ahead (netem reorder)
	bad     bool         // Gilbert–Elliott state: inside a loss burst

	// lossName is the s.LossModel lossKind was found for, so that a send
	// compares the name with the models' only when it has changed.
	lossName string
	lossKind lossKind

	// burst caches linkBurstProbs(loss, length): enter and leave.
	burst struct{ loss, length, enter, leave float64 }

	scen             *Scenario    // the scenario in force; nil for none
	game             netSimulator // the game engine's simulator s.NetSim chooses; nil for the lab's link
	scenName, scText string       // the settings it was made from

	queue      []float64 // departure times of the packets in the bottleneck queue, oldest first
	sinceReord int       // packets delayed since the last reordered one (netem's counter)

	// Counters, for tests and telemetry.
	tailDrops int // packets dropped at a full queue
	reordered int // packets sent ahead
	passed    int // packets that reached the reorder decision
}

// Shapes of the heavy-tailed jitter distributions.
const (
	// linkParetoShape is the shape α of the pareto extra delay (Lomax,
	// Pareto type II): the tail falls as x^−α, so the variance is finite
	// but the third moment is not.
	linkParetoShape = 2.5
	// linkLognormalSigma is σ of the logarithm of the lognormal extra delay.
	linkLognormalSigma = 1.0
)

// Random stream numbers under a seed. The link's and the clock's streams
// differ, so the clock's pings never consume the packets' numbers.
const (
	linkStreamLoss = 1 + iota
	linkStreamDelay
	linkStreamDup
	clockStreamPing
	clockStreamOffset
	linkStreamReorder
)

// NewLink returns the link for the settings s and the seed. duration points
// to the run's length in seconds, over which a game engine's simulator
// (s.NetSim) plays the network's plan (see Plan); like s, it is read
// on every send, so a slider moved between sends takes effect at once.
func NewLink(s *Settings, duration *float64, seed uint64) *Link {
	return &Link{
		s:       s,
		loss:    packetStream{r: geom.NewRNG(seed, linkStreamLoss)},
		delay:   geom.NewRNG(seed, linkStreamDelay),
		draws:   newDelayDraws(1),
		dist:    newKindCache(),
		dup:     packetStream{r: geom.NewRNG(seed, linkStreamDup)},
		reorder: packetStream{r: geom.NewRNG(seed, linkStreamReorder)},
		game:    newNetSimulator(s, duration, seed),
	}
}

// FollowUnreliableDeltas points the link at NetworkTransform's
// UseUnreliableDeltas (the ngo technique's setting), read on every send like
// the settings: Unity's simulator models (netSim unity, unity-2.6) send over
// the reliable-sequenced pipeline without it, unreliable-sequenced with it.
// Without a call they take NGO's default, reliable.
func (l *Link) FollowUnreliableDeltas(unreliable *bool) {
	if u, ok := l.game.(*unityNetSim); ok {
		u.unreliable = unreliable
	}
}

// scenario returns the scenario the settings select, re-reading it when the
// scenario setting or text has changed. Settings that fail validation
// (the caller's error) give none.
func (l *Link) scenario() *Scenario {
	s := l.s
	if !sameString(s.Scenario, l.scenName) || !sameString(s.ScenarioText, l.scText) {
		l.scenName, l.scText = s.Scenario, s.ScenarioText
		l.scen, _ = ScenarioOf(s, 0) // the caller checked it against the run
	}
	return l.scen
}

// sameBytes reports whether a and b are the same bytes in memory, and so
// equal: a setting read again, unchanged, as the one kept.
func sameBytes(a, b string) bool {
	return len(a) == len(b) && unsafe.StringData(a) == unsafe.StringData(b)
}

// sameString reports whether a == b, without a call when they share their
// bytes, as a setting read again on every send does.
func sameString(a, b string) bool {
	return len(a) == len(b) && (len(a) == 0 || unsafe.StringData(a) == unsafe.StringData(b) || a == b)
}

// Send sends a packet at server time sent, in seconds, and appends the times
// at which it arrives, in the same time base, to arrivals: none when it is
// lost, one normally, two when it is duplicated (the copy has its own,
// independent delay, so it may even arrive first). Each arrival is sent +
// queueing + latency + an extra delay drawn from the jitter distribution
// (see Link), under the conditions of the scenario at the send time.
//
// A packet goes through these stages, in order:
//
//  1. The bottleneck (when the bandwidth is set): a FIFO queue of at most
//     s.QueueLimit packets, the one being serialized included. A packet that
//     finds it full is dropped (tail drop); otherwise it leaves when the
//     packets before it have left plus its serialization time,
//     8·s.PacketSize / bandwidth. A packet's serialization time is fixed
//     when it enters, at the bandwidth then in force. Duplicates are made
//     after the bottleneck and do not queue.
//  2. Loss, on the wire (a lost packet has used the bottleneck), by
//     s.LossModel:
//     - random: each packet is lost independently with probability s.Loss.
//     - burst: a two-state Gilbert–Elliott chain. In the Good state nothing
//     is lost, in the Bad state everything is. Before each packet the chain
//     moves Bad→Good with probability r = 1/B, where B = s.BurstLength, so
//     bursts last B packets on average (geometrically distributed); and
//     Good→Bad with probability p = L·r/(1−L) = L/(B·(1−L)), L = s.Loss,
//     which makes the stationary share of Bad packets p/(p+r) = L. When
//     L > B/(B+1) that p would exceed 1: it is clamped to 1 (every Good
//     run lasts one packet) and the long-run loss is B/(B+1) instead of L.
//     The chain starts Good. Loss 0 ends any burst at once.
//     A hiccup of the scenario also loses its share of packets, with the
//     same draw.
//  3. Delay: latency + extra delay, plus a spike's or hiccup's delay. With
//     s.Reorder > 0, netem's reordering: a packet that comes at least
//     s.ReorderGap − 1 delayed packets after the last reordered one is,
//     with probability s.Reorder, sent at once, skipping latency and jitter
//     (not a spike); so with gap 1 a share s.Reorder of the packets is, and
//     with gap G a share 1/(G − 1 + 1/s.Reorder).
//  4. Outage: a copy that would arrive inside an outage of the scenario is
//     dropped, or with backlog=burst held and delivered at the outage's end.
//
// A packet that gets through is duplicated with probability s.Duplicate.
//
// With s.Ideal, every packet arrives once, after exactly s.Latency: the
// impairments are off, for an A/B against the same sends. Otherwise, with
// s.NetSim other than "lab", the game engine's simulator it names decides
// instead of the stages above (see NetSims).
func (l *Link) Send(sent float64, arrivals []float64) []float64 {
	s := l.s
	// The packet's draws of the loss, duplication and reorder streams are
	// its own whether read or not (see packetStream): owed here, and
	// drawn only where a setting reads them, as a loss, duplicate or
	// reorder share of 0 does not.
	l.loss.owed++
	l.dup.owed++
	l.reorder.owed++
	// The delay draws come delayBatch packets at a time, their units
	// worked out for the distribution in force, unless no delay will be
	// drawn from them (a link that is ideal or a game's simulator, or
	// jitter 0, the scenario's aside: those go the long way).
	dist := l.dist.of(s.JitterDist)
	kind := jitterUnknown
	if !s.Ideal && l.game == nil && s.Jitter != 0 {
		kind = dist
	}
	i := l.draws.take(l.delay, kind)

	if s.Ideal {
		// The draws above are taken all the same, so switched back the
		// link carries on with the numbers it would have drawn.
		return append(arrivals, sent+s.Latency)
	}
	if l.game != nil {
		return l.game.send(sent, arrivals)
	}
	// The conditions, field by field (sc.Conditions, inlined): a
	// Conditions, six floats, lives in memory, and read back whole in
	// 16-byte loads straight after its fields were stored 8 bytes at a
	// time it stalled every send, the processor unable to forward them.
	sc := l.scen
	if !sameBytes(s.Scenario, l.scenName) || !sameBytes(s.ScenarioText, l.scText) {
		sc = l.scenario() // a setting changed, or another string of the same bytes
	}
	lat, jit, loss, bw, extra, drop := s.Latency, s.Jitter, s.Loss, s.Bandwidth, 0.0, 0.0
	if sc != nil {
		c := sc.conditions(s, sent)
		lat, jit, loss, bw, extra, drop = c.Latency, c.Jitter, c.Loss, c.Bandwidth, c.Extra, c.Drop
	}
	// lost(u, loss) || u < drop, with the draw u taken only when a
	// positive loss or drop reads it, and lost's random model inlined.
	lost := false
	switch {
	case loss > 0 && l.lossKind == lossRandom && sameBytes(s.LossModel, l.lossName):
		u := l.loss.at().Float64()
		lost = u < loss || u < drop
	case loss > 0 || loss != loss: // NaN: lost decides, as it would
		u := l.loss.at().Float64()
		lost = l.lost(u, loss) || u < drop
	default:
		l.bad = false // lost(u, loss) with no loss
		if drop > 0 {
			lost = l.loss.at().Float64() < drop
		}
	}
	depart, ok := sent, true
	if len(l.queue) != 0 || bw > 0 { // enqueue's common case, inlined
		depart, ok = l.enqueue(sent, bw)
	}
	if !ok || lost {
		return arrivals
	}
	l.passed++
	reordered := false
	if r := s.Reorder; r > 0 {
		if l.sinceReord >= s.ReorderGap-1 && l.reorder.at().Float64() < r {
			reordered, l.sinceReord = true, 0
			l.reordered++
		} else {
			l.sinceReord++
		}
	}
	first := depart + extra
	if !reordered {
		// The draw's extra delay, kept (inlined) on nearly every send.
		x, ok := l.draws.kept(dist, jit, i, 0)
		if !ok {
			x = l.draws.extra(dist, s.JitterDist, jit, i, 0)
		}
		first += lat + x // the one-way delay
	}
	arrivals = l.deliver(sc, first, arrivals)
	if d := s.Duplicate; d > 0 && l.dup.at().Float64() < d {
		arrivals = l.deliver(sc, depart+extra+(lat+l.draws.extra(dist, s.JitterDist, jit, i, 1)), arrivals)
	}
	return arrivals
}

// packetStream is a random stream of one draw per packet whose draws are
// taken only when read: a Send owes the packet's draw, and at takes the
// owed ones in order, the last for the packet. So the numbers each packet
// sees are those of a draw on every packet, and a setting that leaves them
// unread (a loss, duplicate or reorder share of 0, an ideal link) saves
// the draw without shifting the numbers of the packets after it.
type packetStream struct {
	r    *geom.RNG
	owed int // draws owed, the current packet's last; at most one is read a packet
}

// at returns the stream at the current packet's draw, after taking those
// of the packets before it that were owed: at().Float64() is the packet's
// draw. (Small enough to inline, as a method that drew would not be.)
func (p *packetStream) at() *geom.RNG {
	if p.owed != 1 {
		p.skip()
	}
	p.owed = 0
	return p.r
}

// skip takes the owed draws of the packets before the current one: out of
// line, so that at, with its loop aside, inlines.
//
//go:noinline
func (p *packetStream) skip() {
	for ; p.owed > 1; p.owed-- {
		p.r.Uint64()
	}
}

// conditions returns the link's conditions at time t, the scenario's when
// one is in force.
func (l *Link) ConditionsAt(t float64) Conditions { return l.scenario().Conditions(l.s, t) }

// state returns the one-way delay the link gives a packet sent at t on
// average, s (latency + jitter + a spike's delay, or the latency alone with
// s.Ideal), and whether an outage holds arrivals at t: what the timeline
// draws above the packets.
func (l *Link) State(t float64) (delay float64, down bool) {
	if l.s.Ideal {
		return l.s.Latency, false
	}
	sc := l.scenario()
	c := sc.Conditions(l.s, t)
	_, down = sc.Outage(t)
	return c.Latency + c.Jitter + c.Extra, down
}

// enqueue passes a packet sent at time sent through the bottleneck at the
// bandwidth bw (bit/s; 0 is unlimited) and returns when it leaves it; ok is
// false when the queue was full and it was dropped.
func (l *Link) enqueue(sent, bw float64) (depart float64, ok bool) {
	if len(l.queue) == 0 && bw <= 0 { // the common case, first
		return sent, true
	}
	q := l.queue
	for len(q) > 0 && q[0] <= sent {
		q = q[1:]
	}
	if len(q) == 0 {
		l.queue = l.queue[:0] // reuse the array
		q = l.queue
	}
	if bw <= 0 && len(q) == 0 {
		l.queue = q
		return sent, true
	}
	if len(q) >= l.s.QueueLimit {
		l.queue = q
		l.tailDrops++
		return 0, false
	}
	start := sent
	if len(q) > 0 {
		start = q[len(q)-1]
	}
	depart = start
	if bw > 0 {
		depart += float64(8*l.s.PacketSize) / bw
	}
	l.queue = append(q, depart)
	return depart, true
}

// deliver appends the arrival at t, unless an outage holds or drops it.
func (l *Link) deliver(sc *Scenario, t float64, arrivals []float64) []float64 {
	if o, ok := sc.Outage(t); ok {
		if o.Drop {
			return arrivals
		}
		t = o.At + o.For
	}
	return append(arrivals, t)
}

// lost advances the loss model by one packet at the long-run loss (the
// settings' or the scenario's), using the uniform u in [0, 1).
func (l *Link) lost(u, loss float64) bool {
	s := l.s
	if loss <= 0 {
		l.bad = false
		return false
	}
	if l.lossKind == lossUnset || !sameBytes(s.LossModel, l.lossName) {
		l.lossName, l.lossKind = s.LossModel, lossKindOf(s.LossModel)
	}
	switch l.lossKind {
	case lossRandom:
		return u < loss
	case lossBurst:
		// The transition probabilities cost two divisions: worked out
		// again only when the loss or the burst length has changed.
		if b := &l.burst; loss != b.loss || s.BurstLength != b.length {
			b.enter, b.leave = linkBurstProbs(loss, s.BurstLength)
			b.loss, b.length = loss, s.BurstLength
		}
		enter, leave := l.burst.enter, l.burst.leave
		if l.bad {
			l.bad = u >= leave
		} else {
			l.bad = u < enter
		}
		return l.bad
	}
	panic("engine: unknown lossModel " + strconv.Quote(s.LossModel))
}

// lossKind is a loss model by number (see Link.lost).
type lossKind int8

const (
	lossUnset   lossKind = iota // not yet found
	lossRandom                  // "random"
	lossBurst                   // "burst"
	lossUnknown                 // any other name
)

// lossKindOf returns the kind of the loss model named model.
func lossKindOf(model string) lossKind {
	switch model {
	case "random":
		return lossRandom
	case "burst":
		return lossBurst
	}
	return lossUnknown
}

// linkBurstProbs returns the Gilbert–Elliott transition probabilities for a
// long-run loss in [0, 1) and a mean burst length in packets (taken as 1
// when below 1): enter = P(Good→Bad) = loss/(burst·(1−loss)), clamped to 1,
// and leave = P(Bad→Good) = 1/burst. See Link.Send.
func linkBurstProbs(loss, burst float64) (enter, leave float64) {
	if burst < 1 {
		burst = 1
	}
	leave = 1 / burst
	if loss >= 1 {
		return 1, leave
	}
	enter = loss / (burst * (1 - loss))
	if enter > 1 {
		enter = 1
	}
	return enter, leave
}
