package export

import (
	"fmt"
	"math"
	"strings"

	"interplab/engine"
	"interplab/engine/netsim"
)

// The network exports (netem and one per game engine's own simulator) write
// the plan of the lab's network (engine.NetSimPlan: a scenario as steps of
// steady conditions) in their target's settings. Each says exactly what it
// cannot express: every value it rounds or drops is listed with the lab's
// value and the one written (a netGap), and an export that loses more than
// lossyShare of the lab's network says so in its first lines.

// lossyShare is the relative error of a step's loss beyond which an export
// is marked lossy: a loss written 25% above or below the lab's.
const lossyShare = 0.25

// netGap is one value of the lab's network an export does not write as it
// is.
type netGap struct {
	at   float64 // the step's start, s; < 0 for the whole run
	what string  // the target's setting or the lab's feature: "PktLoss", "jitterDist"
	lab  string  // the lab's value: "0.5%"
	out  string  // what the export writes instead: "1 (whole percent)", "left out"
}

// netReport collects an export's gaps and why it is lossy.
type netReport struct {
	gaps  []netGap
	lossy []string
}

// gap lists a value the export writes otherwise than the lab's.
func (r *netReport) gap(at float64, what, lab, out string) {
	r.gaps = append(r.gaps, netGap{at, what, lab, out})
}

// whole lists a feature of the run the export cannot express.
func (r *netReport) whole(what, lab, out string) { r.gap(-1, what, lab, out) }

// lose marks the export lossy, saying why.
func (r *netReport) lose(why string) {
	for _, w := range r.lossy {
		if w == why {
			return
		}
	}
	r.lossy = append(r.lossy, why)
}

// lossGap lists a step's loss written as out (a share) for the lab's want,
// with the target's setting and text, and marks the export lossy when it is
// off by more than lossyShare.
func (r *netReport) lossGap(st *netsim.Step, setting string, want, out float64, outText string) {
	if math.Abs(out-want) <= 1e-9 {
		return
	}
	r.gap(st.At, setting, pct(want)+"%", outText)
	if want == 0 || math.Abs(out-want)/want > lossyShare {
		r.lose(fmt.Sprintf("the loss at %s s is written as %s for the lab's %s%%, off by more than %s%%", num(st.At), outText, pct(want), num(lossyShare*100)))
	}
}

// msGap lists a time written rounded to whole milliseconds.
func (r *netReport) msGap(st *netsim.Step, setting string, want float64, out int) {
	if math.Abs(float64(out)-want*1000) > 1e-6 {
		r.gap(st.At, setting, ms(want)+" ms", fmt.Sprintf("%d ms (whole milliseconds)", out))
	}
}

// features lists what the lab's network uses that a target may not express,
// with how the target stands in for it (instead, by feature: "jitterDist",
// "burst loss", "duplicate", "reorder", "bandwidth", "burst outage",
// "drop outage", "hiccup loss", "uplinkRatio"; a feature without an entry is
// expressed). A bandwidth the target leaves out, or an outage's burst it
// drops, makes the export lossy.
func (r *netReport) features(s engine.Settings, steps []netsim.Step, instead map[string]string) {
	var bw, burstOutage, dropOutage, hiccupLoss bool
	for _, st := range steps {
		bw = bw || st.C.Bandwidth > 0
		burstOutage = burstOutage || st.Outage && st.Burst
		dropOutage = dropOutage || st.Outage && !st.Burst
		hiccupLoss = hiccupLoss || st.C.Drop > 0 && st.C.Loss > 0
	}
	add := func(used bool, feature, lab string) {
		if how, ok := instead[feature]; used && ok {
			r.whole(feature, lab, how)
		}
	}
	add(s.Jitter > 0 && s.JitterDist != "uniform", "jitterDist", s.JitterDist+" (one-sided, mean jitter)")
	add(s.Loss > 0 && s.LossModel == "burst", "burst loss", "Gilbert-Elliott, burstLength "+num(s.BurstLength))
	add(s.Duplicate > 0, "duplicate", pct(s.Duplicate)+"%")
	add(s.Reorder > 0, "reorder", pct(s.Reorder)+"% with gap "+num(float64(s.ReorderGap)))
	add(bw, "bandwidth", "a bottleneck of packetSize "+num(float64(s.PacketSize))+" bytes, queueLimit "+num(float64(s.QueueLimit))+" packets")
	add(burstOutage, "burst outage", "an outage's backlog delivered as a burst at its end")
	add(dropOutage, "drop outage", "an outage (nothing delivered)")
	add(hiccupLoss, "hiccup loss", "a hiccup's loss on top of the base loss")
	add(s.UplinkRatio != 1, "uplinkRatio", num(s.UplinkRatio)+" (client-to-server latency "+ms(s.Latency*s.UplinkRatio)+" ms)")
	if _, ok := instead["bandwidth"]; ok && bw {
		r.lose("the bandwidth limit (its queueing delay and tail drops) is left out")
	}
	if _, ok := instead["burst outage"]; ok && burstOutage {
		r.lose("an outage's backlog is dropped, not delivered as a burst at its end")
	}
}

// header returns the lossy warning for the top of the file, as comment lines
// starting with prefix; "" when the export is not lossy.
func (r *netReport) header(prefix, target string) string {
	if len(r.lossy) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%sLOSSY: %s cannot reproduce more than %s%% of this network:\n", prefix, target, num(lossyShare*100))
	for _, w := range r.lossy {
		fmt.Fprintf(&b, "%s  - %s\n", prefix, w)
	}
	fmt.Fprintf(&b, "%sEvery value not written as the lab ran it is listed under \"Not expressed\" below.\n%s\n", prefix, strings.TrimSpace(prefix))
	return b.String()
}

// list writes the gaps as comment lines starting with prefix, one a line:
// "  - at 20 s: PktLoss: lab 0.5% -> 1 (whole percent)", or without "at"
// for the whole run.
func (r *netReport) list(prefix, target string) string {
	var b strings.Builder
	if len(r.gaps) == 0 {
		fmt.Fprintf(&b, "%sNot expressed: nothing; %s writes every value these settings use as the lab ran it.\n", prefix, target)
		return b.String()
	}
	fmt.Fprintf(&b, "%sNot expressed (the lab's value -> what %s gets instead):\n", prefix, target)
	for _, g := range r.gaps {
		at := ""
		if g.at >= 0 {
			at = "at " + num(g.at) + " s: "
		}
		fmt.Fprintf(&b, "%s  - %s%s: lab %s -> %s\n", prefix, at, g.what, g.lab, g.out)
	}
	return b.String()
}

// scenarioLabel describes the scenario of s for a header line.
func scenarioLabel(s engine.Settings, sc *netsim.Scenario) string {
	if sc == nil {
		return "no scenario: the same conditions for the whole run"
	}
	title := sc.Title
	if title == "" {
		title = s.Scenario
	}
	return fmt.Sprintf("scenario %q (%s) over a %s s run", s.Scenario, title, num(s.Duration))
}
