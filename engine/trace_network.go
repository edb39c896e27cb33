package engine

import (
	"math"
	"slices"

	"interplab/engine/netsim"
)

// NetworkEstimate is the network a trace's packets went through, described
// with the link model's parameters (see Link), so that a synthetic run can
// reproduce it. The first fields carry vocabulary JSON keys; the rest tell
// what they were measured from.
type NetworkEstimate struct {
	Latency     float64 `json:"latency"`     // base one-way delay, s
	Jitter      float64 `json:"jitter"`      // mean extra delay above it, s
	JitterDist  string  `json:"jitterDist"`  // best fit of JitterDists; "" when not measured
	Loss        float64 `json:"loss"`        // share of sends lost, in [0, 1]
	LossModel   string  `json:"lossModel"`   // random or burst; "" when nothing was lost
	BurstLength float64 `json:"burstLength"` // mean loss run, packets
	Duplicate   float64 `json:"duplicate"`   // extra copies per delivered send
	SendRate    float64 `json:"sendRate"`    // sends per second per entity, Hz

	Sends     int        `json:"sends"`     // distinct sends, all entities, sequence gaps counted as lost
	Delivered int        `json:"delivered"` // sends that arrived at least once
	Delays    int        `json:"delays"`    // one-way delays measured: packet copies that arrived
	LossRuns  int        `json:"lossRuns"`  // runs of consecutive lost sends
	DistFit   [4]float64 `json:"distFit"`   // Kolmogorov–Smirnov distance of the delays to each of JitterDists, fitted; 0 when not measured
	Fields    []string   `json:"fields"`    // the vocabulary names measured, in table order
}

// Parameters of the estimate.
const (
	// netLowQuantile is the quantile of the delays that anchors the
	// latency: low enough to sit near the bottom of the distribution,
	// high enough that a stray early packet does not set it.
	netLowQuantile = 0.01
	// netMinFit is the fewest delays worth fitting a distribution to.
	netMinFit = 20
	// netGrid is the number of quantiles a fitted distribution's CDF is
	// read from.
	netGrid = 1024
	// netBurstRatio: loss is called bursty when the mean loss run exceeds
	// what independent losses give, 1/(1 − loss), by this factor.
	netBurstRatio = 1.3
)

// Network derives a network preset from the trace's measured delays, losses
// and duplicates. t must be valid (see Validate).
//
//   - Delays: one per packet copy that arrived (rows of several entities
//     with the same Sent and Arrive are one copy). For each of the link's
//     jitter distributions, with X its extra delay at mean 1 and Q its
//     quantile function, the latency L and jitter J solve
//     L + J·Q(u) = d₍ₖ₎ and L + J = mean delay, where d₍ₖ₎ is the k-th
//     smallest delay, k = ⌈0.01·n⌉ and u = k/(n+1): J is the mean extra
//     delay above the latency, as the link's jitter is. The distribution
//     whose fitted CDF is nearest the delays' in Kolmogorov–Smirnov
//     distance wins; its L and J are the estimate. Under netMinFit delays
//     no distribution is fitted: the latency is the smallest delay and the
//     jitter the mean above it.
//   - Loss: per entity, sends are the distinct sequence numbers from its
//     first to its last, gaps included; a send is lost when no copy arrived.
//     The mean run of consecutive lost sends B against 1/(1 − loss), its
//     value for independent losses, picks the loss model: burst (with
//     burstLength B) when B·(1 − loss) > 1.3, else random.
//   - Duplicate: arrivals beyond the first, per delivered send.
//   - Send rate: 1 / the median of (Δsent / Δseq) between an entity's
//     consecutive sends, rounded to 0.001 Hz.
//
// Every value is rounded (times to 1 µs, fractions to 1e-4, burstLength to
// 0.01) and clamped to the parameter's range by Apply.
func (t *Trace) Network() NetworkEstimate {
	var e NetworkEstimate
	delays := t.netDelays()
	e.Delays = len(delays)
	if len(delays) > 0 {
		e.netFitDelays(delays)
	}

	// Per entity, in order: sends, losses, copies, send intervals.
	type ent struct {
		seq      int
		sent     float64
		arrived  int  // copies of the current send that arrived
		seen     bool // the entity has had a packet
		lastLost bool // its last closed send was lost
	}
	st := make([]ent, t.Entities)
	var lost, dupes int
	closeSend := func(s *ent) {
		e.Sends++
		if s.arrived == 0 {
			lost++
			if !s.lastLost {
				e.LossRuns++
			}
			s.lastLost = true
		} else {
			e.Delivered++
			dupes += s.arrived - 1
			s.lastLost = false
		}
	}
	for i := range t.Packets {
		p := &t.Packets[i]
		s := &st[p.Entity]
		if s.seen && p.Seq == s.seq {
			if !math.IsNaN(p.Arrive) {
				s.arrived++
			}
			continue
		}
		if s.seen {
			closeSend(s)
			if gap := p.Seq - s.seq - 1; gap > 0 {
				// Sends that left no row: lost.
				e.Sends += gap
				lost += gap
				if !s.lastLost {
					e.LossRuns++
				}
				s.lastLost = true
			}
		}
		s.seen, s.seq, s.sent, s.arrived = true, p.Seq, p.Sent, 0
		if !math.IsNaN(p.Arrive) {
			s.arrived = 1
		}
	}
	for i := range st {
		if st[i].seen {
			closeSend(&st[i])
		}
	}

	e.Fields = append(e.Fields, "loss")
	e.Loss = netRound(float64(lost)/float64(e.Sends), 1e-4)
	if lost > 0 {
		run := float64(lost) / float64(e.LossRuns)
		e.LossModel = "random"
		if run*(1-float64(lost)/float64(e.Sends)) > netBurstRatio {
			e.LossModel = "burst"
			e.BurstLength = netRound(run, 0.01)
			e.Fields = append(e.Fields, "lossModel", "burstLength")
		} else {
			e.Fields = append(e.Fields, "lossModel")
		}
	}
	if e.Delivered > 0 {
		e.Duplicate = netRound(float64(dupes)/float64(e.Delivered), 1e-4)
		e.Fields = append(e.Fields, "duplicate")
	}
	if e.SendRate = t.sendRate(); e.SendRate > 0 {
		e.Fields = append(e.Fields, "sendRate")
	}
	e.Fields = netTableOrder(e.Fields)
	return e
}

// sendRate is the trace's send rate as Network estimates it: 1 / the median
// of (Δsent / Δseq) between an entity's consecutive sends, rounded to
// 0.001 Hz; 0 when no entity sent twice. A replay needs it alone, without
// the rest of the estimate.
func (t *Trace) sendRate() float64 {
	type ent struct {
		seq  int
		sent float64
		seen bool
	}
	st := make([]ent, t.Entities)
	var intervals []float64
	for i := range t.Packets {
		p := &t.Packets[i]
		s := &st[p.Entity]
		if s.seen && p.Seq == s.seq {
			continue // a copy of the send before
		}
		if s.seen {
			intervals = append(intervals, (p.Sent-s.sent)/float64(p.Seq-s.seq))
		}
		s.seen, s.seq, s.sent = true, p.Seq, p.Sent
	}
	if len(intervals) == 0 {
		return 0
	}
	slices.Sort(intervals)
	if m := netMedian(intervals); m > 0 {
		return netRound(1/m, 1e-3)
	}
	return 0
}

// netDelays returns the one-way delay of every packet copy that arrived,
// counting the rows of one copy (same Sent and Arrive) once, sorted.
func (t *Trace) netDelays() []float64 {
	var d []float64
	for i := 0; i < len(t.Packets); {
		// A block of rows sent at the same instant: its copies are its
		// distinct arrival times.
		j := i
		for j < len(t.Packets) && t.Packets[j].Sent == t.Packets[i].Sent {
			j++
		}
		start := len(d)
		for _, p := range t.Packets[i:j] {
			if !math.IsNaN(p.Arrive) {
				d = append(d, p.Arrive)
			}
		}
		blk := d[start:]
		slices.Sort(blk)
		blk = slices.Compact(blk)
		d = d[:start+len(blk)]
		for k := range blk {
			d[start+k] = blk[k] - t.Packets[i].Sent
		}
		i = j
	}
	slices.Sort(d)
	return d
}

// netFitDelays sets the latency, jitter and distribution from the sorted
// delays d (see Network).
func (e *NetworkEstimate) netFitDelays(d []float64) {
	n := len(d)
	var sum float64
	for _, x := range d {
		sum += x
	}
	mean := sum / float64(n)
	e.Fields = append(e.Fields, "latency", "jitter")
	if n < netMinFit {
		e.Latency = netRound(d[0], 1e-6)
		e.Jitter = netRound(max(mean-d[0], 0), 1e-6)
		return
	}
	k := int(math.Ceil(netLowQuantile * float64(n)))
	low, u := d[k-1], float64(k)/float64(n+1)
	best := -1
	var bestL, bestJ float64
	for i, dist := range netsim.JitterDists {
		c := netsim.ExtraDelay(dist, 1, u)
		lat := (low - c*mean) / (1 - c)
		jit := max(mean-lat, 0)
		e.DistFit[i] = netKS(d, dist, lat, jit)
		if best < 0 || e.DistFit[i] < e.DistFit[best] {
			best, bestL, bestJ = i, lat, jit
		}
	}
	e.Latency, e.Jitter = netRound(bestL, 1e-6), netRound(bestJ, 1e-6)
	if bestJ > 0 {
		e.JitterDist = netsim.JitterDists[best]
		e.Fields = append(e.Fields, "jitterDist")
	} else {
		e.DistFit = [4]float64{}
	}
}

// netKS returns the Kolmogorov–Smirnov distance between the sorted sample d
// and the delay latency + the extra delay of dist at mean jitter, whose CDF
// is read, by linear interpolation, from netGrid quantiles of the link's own
// inverse CDF (accurate to about 1/netGrid).
func netKS(d []float64, dist string, latency, jitter float64) float64 {
	if jitter <= 0 {
		return 1
	}
	var grid [netGrid]float64
	for j := range grid {
		grid[j] = latency + netsim.ExtraDelay(dist, jitter, (float64(j)+0.5)/netGrid)
	}
	cdf := func(x float64, j int) float64 { // grid[j-1] <= x < grid[j]
		switch {
		case j == 0:
			if x <= latency {
				return 0
			}
			return 0.5 / netGrid * (x - latency) / (grid[0] - latency)
		case j == netGrid:
			return (netGrid - 0.5) / netGrid // the tail beyond the last quantile
		}
		lo, hi := grid[j-1], grid[j]
		u := (float64(j) - 0.5) / netGrid
		if hi > lo {
			u += (x - lo) / (hi - lo) / netGrid
		}
		return u
	}
	n := float64(len(d))
	worst, j := 0.0, 0
	for i, x := range d {
		for j < netGrid && grid[j] <= x {
			j++
		}
		f := cdf(x, j)
		worst = max(worst, math.Abs(f-float64(i)/n), math.Abs(f-float64(i+1)/n))
	}
	return worst
}

// Apply returns s with the measured network parameters replaced, each
// clamped to its parameter's range, and tickRate raised to the send rate if
// it was below; and the vocabulary names it replaced, in table order.
func (e *NetworkEstimate) Apply(s Settings) (Settings, []string) {
	var names []string
	for _, name := range e.Fields {
		p, ok := Lookup(name)
		if !ok {
			continue
		}
		var v float64
		switch name {
		case "latency":
			v = e.Latency
		case "jitter":
			v = e.Jitter
		case "jitterDist":
			v = float64(slices.Index(netsim.JitterDists, e.JitterDist))
		case "loss":
			v = e.Loss
		case "lossModel":
			v = float64(slices.Index(netsim.LossModels, e.LossModel))
		case "burstLength":
			v = e.BurstLength
		case "duplicate":
			v = e.Duplicate
		case "sendRate":
			v = e.SendRate
			if s.TickRate < v {
				tick, _ := Lookup("tickRate")
				s.TickRate = min(math.Ceil(v), tick.Max)
				names = append(names, "tickRate")
			}
		default:
			continue
		}
		p.Write(&s, max(p.Min, min(p.Max, v)))
		names = append(names, name)
	}
	return s, netTableOrder(names)
}

// netTableOrder sorts vocabulary names into parameter table order.
func netTableOrder(names []string) []string {
	var out []string
	for _, p := range params {
		if slices.Contains(names, p.Name) {
			out = append(out, p.Name)
		}
	}
	return out
}

// netRound rounds x to a multiple of unit, a negative power of ten: the
// result is the double nearest the decimal, so it prints short.
func netRound(x, unit float64) float64 {
	inv := math.Round(1 / unit)
	return math.Round(x*inv) / inv
}

// netMedian returns the median of sorted x (not empty).
func netMedian(x []float64) float64 {
	n := len(x)
	if n%2 == 1 {
		return x[n/2]
	}
	return (x[n/2-1] + x[n/2]) / 2
}
