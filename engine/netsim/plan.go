package netsim

import (
	"math"
	"slices"
	"strconv"
)

// The engines' own network simulators (Mirror's LatencySimulation, Unity
// Transport's simulator, Unreal's packet simulation, Source's fake lag)
// hold one set of conditions until a script changes it. The lab's network
// exports write the settings' network as such a script, and the netSim
// setting runs the lab's techniques over a model of what the script does:
// both read the same plan, so the preview is what QA will get.

// Step is a span of a run over which a simulator script holds one set
// of conditions: a scenario becomes a sequence of them.
type Step struct {
	At, End float64    // s
	C       Conditions // the conditions over the step (a ramp's: at its middle)
	Outage  bool       // nothing arrives during the step
	Burst   bool       // and what was sent arrives at its end (else it is dropped)
	Note    string     // what the step is, for a comment: "start", "spike (line 3)"
}

// Loss returns the share of packets the step loses: the outage's all, else
// the base loss or a hiccup's, whichever is larger (the lab draws both from
// one number).
func (st *Step) Loss() float64 {
	if st.Outage {
		return 1
	}
	return max(st.C.Loss, st.C.Drop)
}

// Delay returns the step's mean one-way delay, s: latency + jitter (the mean
// of the lab's extra delay) + a spike's or hiccup's delay.
func (st *Step) Delay() float64 { return st.C.Latency + st.C.Jitter + st.C.Extra }

// Ramps become steps of RampStep seconds, at most RampSteps of
// them.
const (
	RampStep  = 1.0
	RampSteps = 100
)

// Plan returns the conditions of s over a run of duration seconds as
// steps, in time order, and the scenario (nil without one). s must be
// valid.
//
// The steps change wherever the scenario does: at each event's start and
// end, at each hiccup, and every RampStep seconds along a ramp, whose
// step takes the value at its middle. Outages act on arrival times in the
// lab; the plan applies them to the span itself, which moves their edges by
// the one-way delay.
func Plan(s *Settings, duration float64) ([]Step, *Scenario) {
	sc, _ := ScenarioOf(s, duration)
	return netSimPlan(s, sc, duration), sc
}

// netSimPlan is Plan with the scenario parsed.
func netSimPlan(s *Settings, sc *Scenario, duration float64) []Step {
	times := []float64{0, duration}
	notes := map[float64]string{0: "start"}
	if sc != nil {
		for _, e := range sc.Events {
			line := " (line " + strconv.Itoa(e.Line) + ")"
			switch e.Kind {
			case EventSet:
				notes[0] = "start, with the scenario's set" + line
			case EventHiccup:
				for t, k := e.At, 1; t < e.Until; t, k = e.At+float64(k)*e.Every, k+1 {
					times = append(times, t, min(t+e.For, e.Until))
					notes[t] = "hiccup " + strconv.Itoa(k) + line
					notes[min(t+e.For, e.Until)] = "hiccup over"
				}
			case EventRamp:
				n := min(RampSteps, max(1, int(math.Ceil(e.For/RampStep))))
				for k := range n {
					t := e.At + e.For*float64(k)/float64(n)
					times = append(times, t)
					notes[t] = "ramp" + line + ", step " + strconv.Itoa(k+1) + " of " + strconv.Itoa(n)
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
	var steps []Step
	for i := 0; i+1 < len(times) && times[i] < duration; i++ {
		at, end := times[i], min(times[i+1], duration)
		mid := (at + end) / 2
		st := Step{At: at, End: end, C: sc.Conditions(s, mid), Note: notes[at]}
		if o, ok := sc.Outage(mid); ok {
			st.Outage, st.Burst = true, !o.Drop
		}
		if n := len(steps); n > 0 && steps[n-1].C == st.C && steps[n-1].Outage == st.Outage && steps[n-1].Burst == st.Burst {
			steps[n-1].End = end // nothing changed
			continue
		}
		if st.Note == "" {
			st.Note = "conditions change"
		}
		steps = append(steps, st)
	}
	return steps
}

// netSimPlanKey is what of the settings a plan depends on, so a model can
// tell when a slider has moved and make the plan anew.
type netSimPlanKey struct {
	latency, jitter, loss, bandwidth, reorder, duplicate, duration float64
	scenario, text                                                 string
}

func netSimKeyOf(s *Settings, duration float64) netSimPlanKey {
	return netSimPlanKey{s.Latency, s.Jitter, s.Loss, s.Bandwidth, s.Reorder, s.Duplicate, duration, s.Scenario, s.ScenarioText}
}

// netSimSchedule is a plan a model reads at each send: the step in force
// at a time, made anew when the settings it depends on (the run's length
// among them) change.
type netSimSchedule struct {
	s        *Settings
	duration *float64 // the run's length, s
	key      netSimPlanKey
	steps    []Step
	made     bool
}

// at returns the step in force at time t (the last one after the run's end,
// the first before 0).
func (p *netSimSchedule) at(t float64) *Step {
	if k := netSimKeyOf(p.s, *p.duration); !p.made || k != p.key {
		p.steps, _ = Plan(p.s, *p.duration)
		p.key, p.made = k, true
	}
	i, _ := slices.BinarySearchFunc(p.steps, t, func(st Step, t float64) int {
		switch {
		case st.End <= t:
			return -1
		case st.At > t:
			return 1
		}
		return 0
	})
	return &p.steps[min(i, len(p.steps)-1)]
}

// nextFrame returns the first time of the frame grid k/rate at or after t,
// s: when a simulator that releases packets once a frame hands on one due at
// t.
func nextFrame(t, rate float64) float64 {
	k := math.Ceil(t * rate)
	if f := (k - 1) / rate; f >= t {
		return f
	}
	if f := k / rate; f >= t {
		return f
	}
	return (k + 1) / rate
}
