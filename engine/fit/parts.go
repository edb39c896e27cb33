package fit

import (
	"math"
	"slices"
	"strconv"

	"interplab/engine/netsim"
	"interplab/engine/param"
)

// fitDelays fits the latency and jitter: every copy's delay less the drift
// and the level shifts, spikes and held backlogs left out, and the copies
// that skipped the latency (sent ahead, far below the floor: netem-style
// reordering) counted apart. The distribution with the highest likelihood
// wins.
func (l *Link) fitDelays(s *stream, ex []bool, tl *timeline) error {
	x := make([]float64, 0, len(s.delay))
	for i, d := range s.delay {
		k := s.of[i]
		if ex[k] {
			continue
		}
		x = append(x, d-tl.drift*s.sent[k]-tl.shift(s.sent[k]))
	}
	if len(x) < MinDelays {
		return &Error{Part: "latency", Msg: strconv.Itoa(len(x)) + " packets arrived outside outages and spikes: want at least " +
			strconv.Itoa(MinDelays) + " to fit the latency and jitter"}
	}
	cut := cutAhead(x)
	kept := x[:0]
	ahead := 0
	for _, v := range x {
		if v < cut {
			ahead++
			continue
		}
		kept = append(kept, v)
	}
	l.Reorder = round(float64(ahead)/float64(len(x)), 1e-4)
	slices.Sort(kept)
	if kept[len(kept)-1]-kept[0] < 1e-6 {
		l.Latency, l.Jitter = round(kept[0], 1e-6), 0
		l.warn("jitterDist", "every delay is the same: no jitter to fit a distribution to")
		return nil
	}
	l.Dists = fitDists(kept)
	best := 0
	for i, f := range l.Dists {
		if f.LogLik > l.Dists[best].LogLik {
			best = i
		}
	}
	f := l.Dists[best]
	l.Latency, l.Jitter, l.JitterDist = round(f.Latency, 1e-6), round(f.Jitter, 1e-6), f.Dist
	l.Goodness.JitterKS = round(f.KS, 1e-4)
	l.Goodness.JitterKSCritical = round(1.36/math.Sqrt(float64(len(kept))), 1e-4)
	for i := range l.Dists {
		d := &l.Dists[i]
		d.Latency, d.Jitter, d.LogLik, d.KS = round(d.Latency, 1e-6), round(d.Jitter, 1e-6), round(d.LogLik, 1e-4), round(d.KS, 1e-4)
	}
	return nil
}

// scale turns the timeline's levels into events now that the latency is
// known: a step's latency is the fitted latency plus its level above the
// first, a spike's delay its level above the one before it; a held
// outage starts a typical delay after its first held send.
func (tl *timeline) scale(l *Link) {
	typical := l.Latency + l.Jitter
	for i := range l.Events {
		e := &l.Events[i]
		if e.Kind == "outage" && !e.Drop {
			start := e.At + typical + tl.drift*e.At + tl.shift(e.At)
			e.At, e.For = round(start, 1e-3), round(max(e.For-start, 0.001), 1e-3)
		}
	}
	for i := 1; i < len(tl.segs); i++ {
		sg := tl.segs[i]
		if sg.spike {
			prev := tl.segs[i-1].level
			l.Events = append(l.Events, Event{Kind: "spike", At: round(sg.from, 1e-3), For: round(sg.to-sg.from, 1e-3),
				Delay: round(sg.level-prev, 1e-3)})
			continue
		}
		if tl.segs[i-1].spike {
			continue // back from a spike to its level
		}
		l.Events = append(l.Events, Event{Kind: "step", At: round(sg.from, 1e-3),
			Latency: round(max(0, l.Latency+sg.floor-tl.base), 1e-4)})
	}
}

// findDropped finds outages that dropped their backlog: runs of lost
// sends too long for the loss around them (under a geometric law of runs,
// fewer than one in a thousand traces would show one) and spanning at
// least outageMinSpan. It marks them in ex.
func (l *Link) findDropped(s *stream, ex []bool, tl *timeline) {
	type run struct{ from, to int } // sends [from, to)
	var runs []run
	for k := 0; k < len(s.sent); {
		if s.copies[k] > 0 || ex[k] {
			k++
			continue
		}
		j := k
		for j < len(s.sent) && s.copies[j] == 0 {
			j++
		}
		runs = append(runs, run{k, j})
		k = j
	}
	if len(runs) == 0 || s.span() < MinChangeSpan {
		return
	}
	// The chance a loss run goes on one more send, from the mean run.
	lost := 0
	for _, r := range runs {
		lost += r.to - r.from
	}
	stay := 1 - float64(len(runs))/float64(lost)
	typical := l.Latency + l.Jitter
	interval := 1 / max(l.SendRate, 1e-9)
	for _, r := range runs {
		n := r.to - r.from
		span := s.sent[r.to-1] - s.sent[r.from] + interval
		if span < outageMinSpan || float64(len(runs))*math.Pow(stay, float64(n-1)) > 1e-3 {
			continue
		}
		for k := r.from; k < r.to; k++ {
			ex[k] = true
		}
		t := s.sent[r.from]
		at := t + typical + tl.drift*t + tl.shift(t)
		l.Events = append(l.Events, Event{Kind: "outage", At: round(at, 1e-3), For: round(span, 1e-3), Drop: true})
	}
}

// fitLoss measures the loss outside outages and chooses between random
// (Bernoulli) and bursty (Gilbert–Elliott) loss by the likelihood ratio of
// the lost/delivered sequence.
func (l *Link) fitLoss(s *stream, ex []bool) {
	var n, lost, runs int
	var tr [2][2]int // transitions from state i (1 = lost) to j
	prev := -1
	var runLens []int
	cur := 0
	for k := range s.sent {
		if ex[k] && s.copies[k] == 0 {
			continue // inside an outage
		}
		st := 0
		if s.copies[k] == 0 {
			st = 1
		}
		n++
		if st == 1 {
			lost++
			cur++
		} else if cur > 0 {
			runLens = append(runLens, cur)
			cur = 0
		}
		if prev >= 0 {
			tr[prev][st]++
		}
		if st == 1 && prev != 1 {
			runs++
		}
		prev = st
	}
	if cur > 0 {
		runLens = append(runLens, cur)
	}
	if n == 0 {
		l.warn("loss", "every send fell in an outage: no loss to measure")
		return
	}
	l.Loss = round(float64(lost)/float64(n), 1e-5)
	if lost == 0 {
		l.warn("loss", "no send of "+strconv.Itoa(n)+" was lost: the loss is below about "+
			param.FormatNumber(round(300/float64(n), 1e-3))+"% (95%)")
		return
	}
	l.BurstLength = round(float64(lost)/float64(runs), 0.01)
	// Log-likelihoods of the transitions under each model.
	xlogy := func(c int, p float64) float64 {
		if c == 0 {
			return 0
		}
		return float64(c) * math.Log(p)
	}
	ll := func(c0, c1 int) float64 { // a two-outcome MLE
		p := float64(c1) / float64(c0+c1)
		return xlogy(c1, p) + xlogy(c0, 1-p)
	}
	llB := ll(tr[0][0]+tr[1][0], tr[0][1]+tr[1][1])
	llGE := ll(tr[0][0], tr[0][1]) + ll(tr[1][0], tr[1][1])
	l.Goodness.LossLR = round(2*(llGE-llB), 1e-3)
	if runs < MinLossRuns {
		l.warn("lossModel", strconv.Itoa(runs)+" runs of lost sends: want at least "+strconv.Itoa(MinLossRuns)+
			" to tell bursty loss from random; random assumed")
	} else if l.Goodness.LossLR > lossLRBurst {
		l.LossModel = "burst"
	}
	// The chosen model's law of run lengths: geometric with the chance a
	// run goes on.
	stay := l.Loss // random: the next send is lost with the loss
	if l.LossModel == "burst" {
		stay = 1 - 1/l.BurstLength
	}
	l.Goodness.LossRunsChi2, l.Goodness.LossRunsDoF = runsChi2(runLens, stay)
}

// runsChi2 is Pearson's χ² of run lengths binned 1, 2, 3, 4, 5+ against
// P(len = j) = stay^(j−1)·(1 − stay), merging bins expected below 5; its
// degrees of freedom are the bins less one less the one fitted parameter
// (0 when fewer than three bins).
func runsChi2(runs []int, stay float64) (float64, int) {
	var obs [5]float64
	for _, r := range runs {
		obs[min(r, 5)-1]++
	}
	n := float64(len(runs))
	var exp [5]float64
	for j := range 4 {
		exp[j] = n * math.Pow(stay, float64(j)) * (1 - stay)
	}
	exp[4] = n * math.Pow(stay, 4)
	var chi float64
	bins := 0
	var o, e float64
	for j := range 5 {
		o += obs[j]
		e += exp[j]
		if e >= 5 || j == 4 {
			if e > 0 {
				chi += (o - e) * (o - e) / e
				bins++
			}
			o, e = 0, 0
		}
	}
	if bins < 3 {
		return 0, 0
	}
	return round(chi, 1e-3), bins - 2
}

// writeScenario sorts the events and writes them as scenario text, which
// the lab's parser reads back; events that would overlap an earlier one
// are left out with a warning.
func (l *Link) writeScenario() {
	slices.SortStableFunc(l.Events, func(a, b Event) int {
		switch {
		case a.At < b.At:
			return -1
		case a.At > b.At:
			return 1
		}
		return 0
	})
	sc := &netsim.Scenario{Title: "fitted to " + strconv.Quote(l.Name)}
	if l.Name == "" {
		sc.Title = "fitted to a trace"
	}
	var kept []Event
	for _, e := range l.Events {
		ev := netsim.ScenarioEvent{At: e.At, For: e.For}
		switch e.Kind {
		case "step":
			ev.Kind, ev.For = netsim.EventStep, 0
			ev.Has[0], ev.Value[0] = true, e.Latency // latency is the first condition
		case "spike":
			ev.Kind, ev.Delay = netsim.EventSpike, e.Delay
		case "outage":
			ev.Kind, ev.Drop = netsim.EventOutage, e.Drop
		}
		try := *sc
		try.Events = append(slices.Clone(sc.Events), ev)
		if err := try.Validate(0); err != nil {
			l.warn("scenario", e.Kind+" at "+param.FormatNumber(e.At)+" s left out: "+err.Error())
			continue
		}
		sc.Events = try.Events
		kept = append(kept, e)
	}
	l.Events = kept
	if len(sc.Events) > 0 {
		l.ScenarioText = sc.Text()
	}
}
