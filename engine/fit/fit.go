// Package fit estimates the lab's network model from a recorded trace (a
// playtest capture, an uploaded CSV or JSON lines): one link per capture
// (Fit), and a population from many (PopulationOf), so that studies, the
// tuner and the network exports run on the players' measured network
// rather than on a typed guess.
//
// A trace's Sent and Arrive come from two clocks. Their offset adds to every
// one-way delay and cannot be told apart from the latency from one-way
// timing alone; the lab's model has no offset either (see engine.Trace):
// the fitted latency is the delay floor at the trace's first send, offset
// included. Their drift makes the delays grow or shrink linearly with time:
// the fit measures it as a slope and removes it before it looks at jitter.
package fit

import (
	"cmp"
	"math"
	"slices"
	"strconv"

	"interplab/engine"
	"interplab/engine/netsim"
	"interplab/engine/param"
)

// Minimums of a fit: below them the part named cannot be estimated.
const (
	// MinSends is the fewest sends of the fitted entity a fit takes.
	MinSends = 50
	// MinDelays is the fewest arrived copies the latency and jitter are
	// fitted from.
	MinDelays = 20
	// MinDriftSpan is the shortest trace whose clock drift is measured, s.
	MinDriftSpan = 20.0
	// MinLossRuns is the fewest runs of lost sends that tell bursty loss
	// from random loss.
	MinLossRuns = 5
	// MinChangeSpan is the shortest trace searched for latency steps,
	// spikes and outages, s.
	MinChangeSpan = 10.0
)

// Options choose what a fit reads.
type Options struct {
	Entity int // the entity whose packets are fitted, in [0, Trace.Entities)
}

// Link is a fitted link: the lab's network parameters (vocabulary JSON
// keys), the changes over time as scenario text, and how well each part
// fits.
type Link struct {
	Name   string  `json:"name"`   // the trace's name
	Entity int     `json:"entity"` // the entity fitted
	Span   float64 `json:"span"`   // first to last send, s

	Latency     float64 `json:"latency"`     // delay floor at the first send, s (clock offset included)
	Jitter      float64 `json:"jitter"`      // mean extra delay above the floor, s
	JitterDist  string  `json:"jitterDist"`  // the most likely of netsim.JitterDists; "" without jitter
	Loss        float64 `json:"loss"`        // share of sends lost outside outages, in [0, 1]
	LossModel   string  `json:"lossModel"`   // random or burst
	BurstLength float64 `json:"burstLength"` // mean run of lost sends, packets
	Duplicate   float64 `json:"duplicate"`   // extra copies per delivered send
	Reorder     float64 `json:"reorder"`     // share of copies that skipped the latency (sent ahead)
	ClockDrift  float64 `json:"clockDrift"`  // growth of the one-way delay per second, fraction (the client clock's rate error)
	SendRate    float64 `json:"sendRate"`    // the dominant send rate, Hz

	Rates        []Rate  `json:"rates"`        // every send rate seen, with its share of the time
	Events       []Event `json:"events"`       // steps, spikes and outages located
	ScenarioText string  `json:"scenarioText"` // Events as the lab's scenario text; "" when none

	Sends      int     `json:"sends"`      // sends of the entity, sequence gaps counted
	Delivered  int     `json:"delivered"`  // sends that arrived at least once
	Inversions float64 `json:"inversions"` // share of delivered sends that arrived before an earlier send

	Dists    []DistFit `json:"dists"`    // every jitter distribution's fit, in netsim.JitterDists order
	Goodness Goodness  `json:"goodness"` // per part
	Warnings []Warning `json:"warnings"` // parts estimated with a caveat or not at all
}

// Rate is one send rate of a trace with mixed rates.
type Rate struct {
	Rate  float64 `json:"rate"`  // Hz
	Share float64 `json:"share"` // of the trace's time, in [0, 1]
	From  float64 `json:"from"`  // first seen, s from the first send
	To    float64 `json:"to"`    // last seen, s
}

// Event is one change of the link located in the trace, on the fit's
// timeline (seconds from the first send).
type Event struct {
	Kind    string  `json:"kind"`    // step, spike or outage
	At      float64 `json:"at"`      // s
	For     float64 `json:"for"`     // s (spike, outage)
	Latency float64 `json:"latency"` // the latency from At on (step), s
	Delay   float64 `json:"delay"`   // extra delay (spike), s
	Drop    bool    `json:"drop"`    // an outage that dropped its backlog
}

// Goodness tells how well each part of the model fits the trace.
type Goodness struct {
	// JitterKS is the Kolmogorov–Smirnov distance between the delays and
	// the chosen distribution, and JitterKSCritical its 5% critical value
	// 1.36/√n: a distance below it does not reject the distribution.
	JitterKS         float64 `json:"jitterKS"`
	JitterKSCritical float64 `json:"jitterKSCritical"`
	// LossLR is the likelihood ratio 2·(log L(Gilbert–Elliott) − log
	// L(Bernoulli)) of the loss sequence: above 10.83 (χ², 1 degree of
	// freedom, 0.1%) the loss is called bursty.
	LossLR float64 `json:"lossLR"`
	// LossRunsChi2 is Pearson's χ² of the lengths of the loss runs (1, 2,
	// 3, 4, 5 or more) against the chosen model's geometric law, with
	// LossRunsDoF degrees of freedom (0 when too few runs).
	LossRunsChi2 float64 `json:"lossRunsChi2"`
	LossRunsDoF  int     `json:"lossRunsDoF"`
	// DriftRMS is the RMS residual of the delay floor about the fitted
	// drift line and steps, s.
	DriftRMS float64 `json:"driftRMS"`
}

// Warning is a part of the model that could not be estimated, or only
// with a caveat: Part is its vocabulary name.
type Warning struct {
	Part string `json:"part"`
	Msg  string `json:"msg"`
}

// Error is a trace that cannot be fitted: the part that cannot be
// estimated and why.
type Error struct {
	Part string
	Msg  string
}

func (e *Error) Error() string { return "fit " + e.Part + ": " + e.Msg }

// Thresholds of the fit.
const (
	lossLRBurst   = 10.83 // χ²₁ at 0.1%
	heldTol       = 1e-3  // arrivals of one held backlog lie within this, s
	heldMinSends  = 3     // sends one held backlog holds at least
	heldMinSpan   = 0.15  // s of sends a held backlog spans at least
	outageMinSpan = 0.3   // s of sends a dropped outage spans at least
	spikeMaxFor   = 3.0   // s: a raised stretch no longer than this, back to its level, is a spike
)

// Fit estimates the lab's link from the packets of one entity of t (see
// Options). It fails with an *Error when the trace is too short or too
// sparse for the latency and jitter; parts that need more (drift, the loss
// model, changes over time) are left at their defaults with a Warning.
func Fit(t *engine.Trace, opt Options) (*Link, error) {
	if err := t.Validate(); err != nil {
		return nil, err
	}
	if opt.Entity < 0 || opt.Entity >= t.Entities {
		return nil, &Error{Part: "entity", Msg: strconv.Itoa(opt.Entity) + ": want 0 to " + strconv.Itoa(t.Entities-1)}
	}
	s := newStream(t, opt.Entity)
	l := &Link{Name: t.Name, Entity: opt.Entity, Span: s.span(), Sends: len(s.sent), LossModel: "random"}
	if len(s.sent) < MinSends {
		return nil, &Error{Part: "sendRate", Msg: strconv.Itoa(len(s.sent)) + " sends of entity " + strconv.Itoa(opt.Entity) +
			": want at least " + strconv.Itoa(MinSends) + " to fit a link"}
	}
	for _, c := range s.copies {
		if c > 0 {
			l.Delivered++
		}
	}
	if len(s.delay) < MinDelays {
		return nil, &Error{Part: "latency", Msg: strconv.Itoa(len(s.delay)) + " packets arrived: want at least " +
			strconv.Itoa(MinDelays) + " to fit the latency and jitter"}
	}
	l.fitRates(s)
	ex := make([]bool, len(s.sent)) // sends the delay fit leaves out (held, spiked)
	l.findHeld(s, ex)
	tl := l.fitTimeline(s, ex)
	if err := l.fitDelays(s, ex, tl); err != nil {
		return nil, err
	}
	tl.scale(l)
	l.findDropped(s, ex, tl)
	l.fitLoss(s, ex)
	l.fitDuplicates(s)
	l.inversions(s)
	l.writeScenario()
	return l, nil
}

func (l *Link) warn(part, msg string) { l.Warnings = append(l.Warnings, Warning{Part: part, Msg: msg}) }

// fitRates finds the send rates: 1/(Δsent) between consecutive sends,
// grouped so that rates within 10% of a group's slowest are one rate (a
// server's own frame jitter), each group's rate its sends per second over
// its time. A capture whose server changed rate keeps every rate (Rates);
// the model takes the one that held longest.
func (l *Link) fitRates(s *stream) {
	type iv struct{ rate, dt, at float64 }
	ivs := make([]iv, 0, len(s.sent))
	var total float64
	for k := 1; k < len(s.sent); k++ {
		if dt := s.sent[k] - s.sent[k-1]; dt > 0 {
			ivs = append(ivs, iv{1 / dt, dt, s.sent[k-1]})
			total += dt
		}
	}
	slices.SortFunc(ivs, func(a, b iv) int { return cmp.Compare(a.rate, b.rate) })
	best := -1.0
	for i := 0; i < len(ivs); {
		j := i
		var t, from, to float64
		from, to = math.Inf(1), math.Inf(-1)
		for j < len(ivs) && ivs[j].rate <= ivs[i].rate*1.1 {
			t += ivs[j].dt
			from, to = min(from, ivs[j].at), max(to, ivs[j].at+ivs[j].dt)
			j++
		}
		share := t / total
		if share >= 0.02 {
			r := Rate{Rate: round(float64(j-i)/t, 1e-3), Share: round(share, 1e-4), From: round(from, 1e-3), To: round(to, 1e-3)}
			l.Rates = append(l.Rates, r)
			if t > best {
				best, l.SendRate = t, r.Rate
			}
		}
		i = j
	}
	slices.SortFunc(l.Rates, func(a, b Rate) int { return cmp.Compare(a.From, b.From) })
	major := 0
	for _, r := range l.Rates {
		if r.Share >= 0.05 {
			major++
		}
	}
	if major > 1 {
		msg := "mixed send rates:"
		for _, r := range l.Rates {
			msg += " " + param.FormatNumber(r.Rate) + " Hz for " + param.FormatNumber(math.Round(r.Share*100)) + "% of the time;"
		}
		l.warn("sendRate", msg+" the link model has one send rate and takes "+param.FormatNumber(l.SendRate)+
			" Hz; loss and bursts are counted per send at every rate")
	}
}

// findHeld finds outages that held their backlog: three or more sends
// spanning at least heldMinSpan whose first copies arrived together, at
// the outage's end. It marks them in ex.
func (l *Link) findHeld(s *stream, ex []bool) {
	n := len(s.sent)
	for k := 0; k < n; {
		if math.IsNaN(s.first[k]) {
			k++
			continue
		}
		arr := s.sent[k] + s.first[k]
		j, last := k+1, k
		for ; j < n; j++ {
			if math.IsNaN(s.first[j]) {
				continue
			}
			if math.Abs(s.sent[j]+s.first[j]-arr) > heldTol {
				break
			}
			last = j
		}
		cnt := 0
		for i := k; i <= last; i++ {
			if !math.IsNaN(s.first[i]) {
				cnt++
			}
		}
		if cnt >= heldMinSends && s.sent[last]-s.sent[k] >= heldMinSpan {
			for i := k; i <= last; i++ {
				ex[i] = true
			}
			// The first held send would have arrived about a typical delay
			// after it left: the outage began then. Scaled in tl.scale.
			l.Events = append(l.Events, Event{Kind: "outage", At: s.sent[k], For: arr})
		}
		k = last + 1
	}
}

// inversions sets the share of delivered sends that arrived before an
// earlier send had: the reordering a receiver sees, whatever its cause.
func (l *Link) inversions(s *stream) {
	late := math.Inf(-1)
	inv := 0
	for k := range s.sent {
		if math.IsNaN(s.first[k]) {
			continue
		}
		a := s.sent[k] + s.first[k]
		if a < late {
			inv++
		}
		late = max(late, a)
	}
	if l.Delivered > 0 {
		l.Inversions = round(float64(inv)/float64(l.Delivered), 1e-4)
	}
}

// fitDuplicates sets the extra copies per delivered send.
func (l *Link) fitDuplicates(s *stream) {
	extra := 0
	for _, c := range s.copies {
		if c > 1 {
			extra += int(c) - 1
		}
	}
	l.Duplicate = round(float64(extra)/float64(l.Delivered), 1e-4)
}

// Settings returns base with the fitted link in place of its network
// parameters, the events as a custom scenario, and a duration that covers
// the trace and its events (at most netsim.MaxDuration). Every value is clamped to its
// parameter's range.
func (l *Link) Settings(base engine.Settings) engine.Settings {
	s := base
	set := func(name string, v float64) {
		p, ok := engine.Lookup(name)
		if ok {
			p.Write(&s, max(p.Min, min(p.Max, v)))
		}
	}
	set("latency", l.Latency)
	set("jitter", l.Jitter)
	if l.JitterDist != "" {
		s.JitterDist = l.JitterDist
	}
	set("loss", l.Loss)
	s.LossModel = l.LossModel
	set("burstLength", max(1, l.BurstLength))
	set("duplicate", l.Duplicate)
	set("reorder", l.Reorder)
	s.ReorderGap = 1
	set("clockDrift", l.ClockDrift)
	if l.SendRate > 0 {
		set("sendRate", math.Round(l.SendRate))
		if s.TickRate < s.SendRate {
			s.TickRate = s.SendRate
		}
	}
	s.Scenario, s.ScenarioText = netsim.ScenarioNone, ""
	if l.ScenarioText != "" {
		s.Scenario, s.ScenarioText = netsim.ScenarioCustom, l.ScenarioText
	}
	end := l.Span
	for _, e := range l.Events {
		end = max(end, e.At+e.For)
	}
	set("duration", math.Ceil(end))
	return s
}

// round rounds x to a multiple of unit, a negative power of ten, so that it
// prints short.
func round(x, unit float64) float64 {
	inv := math.Round(1 / unit)
	return math.Round(x*inv) / inv
}
