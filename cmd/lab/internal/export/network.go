package export

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"interplab/engine"
)

// netStep is a span of a run over which the network exports hold one set of
// conditions: a scenario becomes a sequence of them.
type netStep struct {
	at, end float64           // s
	c       engine.Conditions // the conditions over the step (a ramp's: at its middle)
	outage  bool              // nothing arrives during the step
	burst   bool              // and what was sent arrives at its end (else it is dropped)
	note    string            // what the step is, for a comment
}

// Ramps become steps of rampStep seconds, at most rampSteps of them.
const (
	rampStep  = 1.0
	rampSteps = 100
)

// netTimeline returns the conditions of s over its run as steps, in time
// order, and the scenario (nil without one). s must be valid.
//
// The steps change wherever the scenario does: at each event's start and
// end, at each hiccup, and every rampStep seconds along a ramp, whose
// step takes the value at its middle. Outages act on arrival times in the
// lab; the exports apply them to the span itself, which moves their edges by
// the one-way delay.
func netTimeline(s engine.Settings) ([]netStep, *engine.Scenario) {
	sc, _ := engine.ScenarioOf(&s)
	times := []float64{0, s.Duration}
	notes := map[float64]string{0: "start"}
	if sc != nil {
		for _, e := range sc.Events {
			line := fmt.Sprintf(" (line %d)", e.Line)
			switch e.Kind {
			case engine.EventSet:
				notes[0] = "start, with the scenario's set" + line
			case engine.EventHiccup:
				for t, k := e.At, 1; t < e.Until; t, k = e.At+float64(k)*e.Every, k+1 {
					times = append(times, t, min(t+e.For, e.Until))
					notes[t] = fmt.Sprintf("hiccup %d%s", k, line)
					notes[min(t+e.For, e.Until)] = "hiccup over"
				}
			case engine.EventRamp:
				n := min(rampSteps, max(1, int(math.Ceil(e.For/rampStep))))
				for k := range n {
					t := e.At + e.For*float64(k)/float64(n)
					times = append(times, t)
					notes[t] = fmt.Sprintf("ramp%s, step %d of %d", line, k+1, n)
				}
				times = append(times, e.End())
				notes[e.End()] = "ramp over"
			default:
				times = append(times, e.At, e.End())
				notes[e.At] = e.Kind.String() + line
				if e.End() > e.At {
					notes[e.End()] = e.Kind.String() + " over"
				}
			}
		}
	}
	slices.Sort(times)
	times = slices.Compact(times)
	var steps []netStep
	for i := 0; i+1 < len(times) && times[i] < s.Duration; i++ {
		at, end := times[i], min(times[i+1], s.Duration)
		mid := (at + end) / 2
		st := netStep{at: at, end: end, c: sc.Conditions(&s, mid), note: notes[at]}
		if o, ok := sc.Outage(mid); ok {
			st.outage, st.burst = true, !o.Drop
		}
		if n := len(steps); n > 0 && steps[n-1].c == st.c && steps[n-1].outage == st.outage && steps[n-1].burst == st.burst {
			steps[n-1].end = end // nothing changed
			continue
		}
		if st.note == "" {
			st.note = "conditions change"
		}
		steps = append(steps, st)
	}
	return steps, sc
}

// netFeatures lists what the settings' network uses that a target may not
// express: the names below, in this order.
func netFeatures(s engine.Settings, steps []netStep) []string {
	var used []string
	add := func(ok bool, what string) {
		if ok {
			used = append(used, what)
		}
	}
	var bw, burstOutage, dropOutage, hiccupLoss bool
	for _, st := range steps {
		bw = bw || st.c.Bandwidth > 0
		burstOutage = burstOutage || st.outage && st.burst
		dropOutage = dropOutage || st.outage && !st.burst
		hiccupLoss = hiccupLoss || st.c.Drop > 0
	}
	add(s.Jitter > 0 && s.JitterDist != "uniform", "jitterDist "+s.JitterDist+" (the lab's extra delay is one-sided with mean jitter)")
	add(s.Loss > 0 && s.LossModel == "burst", "burst loss (Gilbert-Elliott, burstLength "+num(s.BurstLength)+")")
	add(s.Duplicate > 0, "duplicate "+pct(s.Duplicate)+"%")
	add(s.Reorder > 0, "reorder "+pct(s.Reorder)+"% with gap "+num(float64(s.ReorderGap)))
	add(bw, "bandwidth with packetSize "+num(float64(s.PacketSize))+" bytes and queueLimit "+num(float64(s.QueueLimit))+" packets")
	add(burstOutage, "an outage's backlog delivered as a burst at its end")
	add(dropOutage, "an outage (nothing delivered)")
	add(hiccupLoss, "a hiccup's loss on top of the base loss")
	add(s.UplinkRatio != 1, "uplinkRatio "+num(s.UplinkRatio)+" (client-to-server latency "+ms(s.Latency*s.UplinkRatio)+" ms)")
	return used
}

// cannot writes, as one comment line starting with prefix, what of the
// settings' network the target cannot express (those of netFeatures that
// start with a key of how) and what the file does instead (its value).
func cannot(b *strings.Builder, prefix, target string, s engine.Settings, steps []netStep, how map[string]string) {
	var items []string
	for _, f := range netFeatures(s, steps) {
		for word, instead := range how {
			if strings.HasPrefix(f, word) {
				items = append(items, f+" -> "+instead)
			}
		}
	}
	if len(items) == 0 {
		fmt.Fprintf(b, "%sEverything these settings use, %s expresses.\n", prefix, target)
		return
	}
	fmt.Fprintf(b, "%sNot expressible in %s: %s.\n", prefix, target, strings.Join(items, "; "))
}

// stepLoss returns the share of packets a step loses: the outage's all,
// else the base loss or a hiccup's, whichever is larger (the lab draws
// both from one number).
func stepLoss(st netStep) float64 {
	if st.outage {
		return 1
	}
	return max(st.c.Loss, st.c.Drop)
}

// scenarioLabel describes the scenario of s for a header line.
func scenarioLabel(s engine.Settings, sc *engine.Scenario) string {
	if sc == nil {
		return "no scenario: the same conditions for the whole run"
	}
	title := sc.Title
	if title == "" {
		title = s.Scenario
	}
	return fmt.Sprintf("scenario %q (%s) over a %s s run", s.Scenario, title, num(s.Duration))
}
