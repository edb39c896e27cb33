package engine

import (
	"math"
	"strconv"
)

// Link is the deterministic network path from the server to the client. It
// decides, packet by packet, whether a packet is lost, when it arrives and
// whether it arrives twice. Reordering is not a separate knob: it emerges
// when a packet's extra delay exceeds the next one's by more than the gap
// between them.
//
// A Link reads its settings through the *Settings it was made with on every
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
	s     *Settings
	loss  *rng // one draw per packet: the loss decision or burst transition
	delay *rng // two draws per packet: the packet's delay, its duplicate's
	dup   *rng // one draw per packet: whether it is duplicated
	bad   bool // Gilbert–Elliott state: inside a loss burst
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
)

// NewLink returns the link for the settings s and the seed.
func NewLink(s *Settings, seed uint64) *Link {
	return &Link{
		s:     s,
		loss:  newRNG(seed, linkStreamLoss),
		delay: newRNG(seed, linkStreamDelay),
		dup:   newRNG(seed, linkStreamDup),
	}
}

// Send sends a packet at server time sent, in seconds, and appends the times
// at which it arrives, in the same time base, to arrivals: none when it is
// lost, one normally, two when it is duplicated (the copy has its own,
// independent delay, so it may even arrive first). Each arrival is sent +
// latency + an extra delay drawn from the jitter distribution (see Link).
//
// Loss follows s.LossModel:
//   - random: each packet is lost independently with probability s.Loss.
//   - burst: a two-state Gilbert–Elliott chain. In the Good state nothing
//     is lost, in the Bad state everything is. Before each packet the chain
//     moves Bad→Good with probability r = 1/B, where B = s.BurstLength, so
//     bursts last B packets on average (geometrically distributed); and
//     Good→Bad with probability p = L·r/(1−L) = L/(B·(1−L)), L = s.Loss,
//     which makes the stationary share of Bad packets p/(p+r) = L. When
//     L > B/(B+1) that p would exceed 1: it is clamped to 1 (every Good
//     run lasts one packet) and the long-run loss is B/(B+1) instead of L.
//     The chain starts Good. Loss 0 ends any burst at once.
//
// A lost packet has no duplicate; a packet that gets through is duplicated
// with probability s.Duplicate.
func (l *Link) Send(sent float64, arrivals []float64) []float64 {
	s := l.s
	uLoss := l.loss.Float64()
	uDup := l.dup.Float64()
	u1, u2 := l.delay.Open(), l.delay.Open()

	if l.lost(uLoss) {
		return arrivals
	}
	arrivals = append(arrivals, sent+linkDelay(s, u1))
	if uDup < s.Duplicate {
		arrivals = append(arrivals, sent+linkDelay(s, u2))
	}
	return arrivals
}

// lost advances the loss model by one packet, using the uniform u in [0, 1).
func (l *Link) lost(u float64) bool {
	s := l.s
	if s.Loss <= 0 {
		l.bad = false
		return false
	}
	switch s.LossModel {
	case "random":
		return u < s.Loss
	case "burst":
		enter, leave := linkBurstProbs(s.Loss, s.BurstLength)
		if l.bad {
			l.bad = u >= leave
		} else {
			l.bad = u < enter
		}
		return l.bad
	}
	panic("engine: unknown lossModel " + strconv.Quote(s.LossModel))
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

// linkDelay returns the one-way delay, in seconds, of a packet whose draw is
// u in (0, 1): s.Latency plus linkExtra(s.JitterDist, s.Jitter, u). The
// client clock draws its pings' delays through it from its own streams.
func linkDelay(s *Settings, u float64) float64 {
	return s.Latency + linkExtra(s.JitterDist, s.Jitter, u)
}

// linkExtra returns the extra delay, in seconds, at quantile u in (0, 1) of
// the distribution dist with mean jitter (≥ 0, seconds); see Link for the
// distributions. It is non-negative and non-decreasing in u. It panics on an
// unknown distribution when jitter > 0.
func linkExtra(dist string, jitter, u float64) float64 {
	if jitter == 0 {
		return 0
	}
	switch dist {
	case "uniform":
		return float64(2 * jitter * u) // rounded here: the caller adds it to the latency
	case "normal":
		// The upper half of N(0, σ²): Φ⁻¹(1 − (1−u)/2) = −Φ⁻¹((1−u)/2).
		// (1−u)/2 is exact, while 1 − (1−u)/2 may round to 1, whose
		// quantile is infinite.
		sigma := jitter * math.Sqrt(math.Pi/2)
		return float64(sigma * -detNormQuantile((1-u)/2))
	case "pareto":
		const a = linkParetoShape
		lambda := jitter * (a - 1)
		return float64(lambda * (detExp(-detLog(1-u)/a) - 1))
	case "lognormal":
		const sigma = linkLognormalSigma
		z := detNormQuantile(u)
		return float64(jitter * detExp(float64(sigma*z)-sigma*sigma/2))
	}
	panic("engine: unknown jitterDist " + strconv.Quote(dist))
}
