package netsim

import (
	"errors"
	"math"
	"slices"
	"strconv"
	"strings"

	"interplab/engine/param"
)

// Scenario is a timeline of network conditions over a run: the link's
// latency, jitter, loss and bandwidth set, stepped and ramped, and
// impairments laid on top of them (spikes, outages, periodic hiccups). It
// is plain data; the link reads it through Conditions and Outage, which
// depend on the time alone, so the same seed and scenario give the same
// packets.
//
// Its text form is one event per line, a kind and key=value fields; '#'
// starts a comment:
//
//	title 2 s outage
//	set latency=40ms                    # the conditions from time 0
//	step at=20 latency=120ms            # from 20 s on
//	step at=20 for=5 jitter=30ms        # for 5 s, then back
//	ramp at=10 for=40 latency=180ms     # linearly from the value at 10 s
//	spike at=20 for=500ms delay=300ms   # packets sent in the window wait 300 ms more
//	outage at=20 for=2 backlog=burst    # nothing arrives for 2 s; then the backlog (or drop)
//	hiccup at=10 until=50 every=8 for=250ms delay=150ms loss=30%
//
// A plain number is in the unit the lab shows the quantity in: times on the
// run's timeline (at, for, until, every) in seconds; latency, jitter and a
// spike's or hiccup's delay in ms; loss in %; bandwidth in kbit/s (0 is
// unlimited). Any may carry a unit instead: 500ms, 0.3s, 2%, 256kbit/s,
// 2Mbit, 64000bit/s. step, ramp and set take any of latency, jitter, loss
// and bandwidth.
type Scenario struct {
	Title  string          // what the designer reads; may be ""
	Events []ScenarioEvent // in time order (by At; ParseScenario sorts them)
}

// EventKind is what a ScenarioEvent does.
type EventKind uint8

const (
	EventSet    EventKind = iota // conditions from time 0, not a disturbance
	EventStep                    // fields jump to their values at At (back after For, if For > 0)
	EventRamp                    // fields move linearly to their values over [At, At+For)
	EventSpike                   // packets sent in [At, At+For) are Delay late
	EventOutage                  // nothing arrives in [At, At+For)
	EventHiccup                  // a spike (with loss) of For every Every s in [At, Until)
)

var eventKinds = [...]string{"set", "step", "ramp", "spike", "outage", "hiccup"}

func (k EventKind) String() string { return eventKinds[k] }

// Condition fields a set, step or ramp may change.
const (
	condLatency = iota
	condJitter
	condLoss
	condBandwidth
	numConds
)

// condNames are the condition fields' vocabulary names (their parameters).
var condNames = [numConds]string{"latency", "jitter", "loss", "bandwidth"}

// ScenarioEvent is one line of a scenario. Times are in seconds.
type ScenarioEvent struct {
	Line  int // 1-based line of the text it came from; 0 when built in code
	Kind  EventKind
	At    float64 // start, s
	For   float64 // length, s: of a ramp, a temporary step, a spike, an outage, each hiccup
	Until float64 // end of a hiccup series, s
	Every float64 // period of hiccups, s

	// Set, step, ramp: the fields given (Has) and their values, in the
	// units of their parameters (s, fraction, bit/s).
	Has   [numConds]bool
	Value [numConds]float64

	Delay float64 // extra delay of a spike or hiccup, s
	Loss  float64 // share of packets lost in a hiccup, in [0, 1]
	Drop  bool    // an outage drops its backlog instead of delivering it as a burst
}

// Start returns the time the event starts disturbing the link, s.
func (e *ScenarioEvent) Start() float64 { return e.At }

// End returns the time the event stops changing anything, s: the end of a
// ramp, a temporary step, a spike or an outage, the last hiccup's end, and
// At for a lasting step.
func (e *ScenarioEvent) End() float64 {
	switch e.Kind {
	case EventSet:
		return 0
	case EventHiccup:
		return e.Until
	}
	return e.At + e.For
}

// Span returns the window in which the scenario disturbs the link: from the
// first event's start to the last one's end, sets excluded. ok is false for
// a scenario with nothing but sets.
func (sc *Scenario) Span() (start, end float64, ok bool) {
	start, end = math.Inf(1), math.Inf(-1)
	for i := range sc.Events {
		e := &sc.Events[i]
		if e.Kind == EventSet {
			continue
		}
		start, end, ok = min(start, e.Start()), max(end, e.End()), true
	}
	if !ok {
		return 0, 0, false
	}
	return start, end, true
}

// Conditions are the link's conditions at one instant: the settings'
// latency, jitter, loss and bandwidth as the scenario changed them, and the
// impairment in force.
type Conditions struct {
	Latency   float64 // base one-way latency, s
	Jitter    float64 // mean extra delay, s
	Loss      float64 // long-run share lost, in [0, 1]
	Bandwidth float64 // bit/s; 0 is unlimited
	Extra     float64 // a spike's or hiccup's extra delay, s
	Drop      float64 // a hiccup's share of packets lost, in [0, 1]
}

// Conditions returns the conditions at time t, in seconds, over the base
// settings s. A nil scenario gives the settings themselves.
func (sc *Scenario) Conditions(s *Settings, t float64) Conditions {
	if sc == nil {
		// The common case, and a population's on every packet: small
		// enough to be inlined.
		return Conditions{Latency: s.Latency, Jitter: s.Jitter, Loss: s.Loss, Bandwidth: s.Bandwidth}
	}
	return sc.conditions(s, t)
}

// conditions is Conditions with a scenario.
func (sc *Scenario) conditions(s *Settings, t float64) Conditions {
	v := [numConds]float64{s.Latency, s.Jitter, s.Loss, s.Bandwidth}
	var c Conditions
	for i := range sc.Events {
		e := &sc.Events[i]
		switch e.Kind {
		case EventSet, EventStep, EventRamp:
			if t < e.At && e.Kind != EventSet {
				continue
			}
			for f := range numConds {
				if !e.Has[f] {
					continue
				}
				switch {
				case e.Kind == EventSet, e.Kind == EventStep && (e.For == 0 || t < e.At+e.For):
					v[f] = e.Value[f]
				case e.Kind == EventRamp && t >= e.At+e.For:
					v[f] = e.Value[f]
				case e.Kind == EventRamp:
					// Events of a field never overlap (Validate),
					// so v[f] here is its value when the ramp began.
					v[f] += float64((e.Value[f] - v[f]) * ((t - e.At) / e.For))
				}
			}
		case EventSpike:
			if t >= e.At && t < e.At+e.For {
				c.Extra = e.Delay
			}
		case EventHiccup:
			if e.hiccupAt(t) {
				c.Extra, c.Drop = e.Delay, e.Loss
			}
		}
	}
	c.Latency, c.Jitter, c.Loss, c.Bandwidth = v[condLatency], v[condJitter], v[condLoss], v[condBandwidth]
	return c
}

// hiccupAt tells whether t falls in one of the hiccups of e.
func (e *ScenarioEvent) hiccupAt(t float64) bool {
	if t < e.At || t >= e.Until {
		return false
	}
	k := math.Floor((t - e.At) / e.Every)
	return t-(e.At+float64(k*e.Every)) < e.For
}

// Outage returns the outage whose window [At, At+For) holds t, if any.
func (sc *Scenario) Outage(t float64) (e *ScenarioEvent, ok bool) {
	if sc == nil {
		return nil, false
	}
	for i := range sc.Events {
		e := &sc.Events[i]
		if e.Kind == EventOutage && t >= e.At && t < e.At+e.For {
			return e, true
		}
	}
	return nil, false
}

// ScenarioError reports a scenario that cannot be used: the line (1-based;
// 0 when the problem is not one line's) and the field it is about, what is
// wrong and, when it is not obvious, how to fix it.
type ScenarioError struct {
	Line  int
	Field string
	Msg   string
}

func (e *ScenarioError) Error() string {
	var b strings.Builder
	b.WriteString("scenario")
	if e.Line > 0 {
		b.WriteString(" line " + strconv.Itoa(e.Line))
	}
	if e.Field != "" {
		b.WriteString(", field " + e.Field)
	}
	b.WriteString(": " + e.Msg)
	return b.String()
}

// Limits of a scenario.
const (
	// scenarioMinEvery is the shortest hiccup period, s: shorter is a
	// condition, better written as a step.
	scenarioMinEvery = 0.1
	// scenarioMaxEvents bounds a scenario's lines of events.
	scenarioMaxEvents = 256
)

// ParseScenario reads a scenario's text form (see Scenario) and checks it
// (see Validate, without a run length). Errors are *ScenarioError.
func ParseScenario(text string) (*Scenario, error) {
	sc := &Scenario{}
	for n, line := range strings.Split(text, "\n") {
		n++
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		words := strings.Fields(line)
		if len(words) == 0 {
			continue
		}
		if words[0] == "title" {
			sc.Title = strings.Join(words[1:], " ")
			continue
		}
		kind := slices.Index(eventKinds[:], words[0])
		if kind < 0 {
			return nil, &ScenarioError{Line: n, Field: words[0],
				Msg: "unknown line kind: want title, " + strings.Join(eventKinds[:], ", ")}
		}
		if len(sc.Events) == scenarioMaxEvents {
			return nil, &ScenarioError{Line: n, Msg: "more than " + strconv.Itoa(scenarioMaxEvents) + " events"}
		}
		e := ScenarioEvent{Line: n, Kind: EventKind(kind)}
		seen := map[string]bool{}
		for _, w := range words[1:] {
			key, val, ok := strings.Cut(w, "=")
			if !ok || key == "" {
				return nil, &ScenarioError{Line: n, Field: w, Msg: "want key=value"}
			}
			if seen[key] {
				return nil, &ScenarioError{Line: n, Field: key, Msg: "given twice"}
			}
			seen[key] = true
			if err := e.setField(key, val); err != nil {
				err.Line = n
				return nil, err
			}
		}
		sc.Events = append(sc.Events, e)
	}
	if err := sc.Validate(0); err != nil {
		return nil, err
	}
	sortByStart(sc.Events)
	return sc, nil
}

// sortByStart puts events in order of start, those that start together in
// text order: an insertion sort, as a scenario has a few lines.
func sortByStart(events []ScenarioEvent) {
	for i := 1; i < len(events); i++ {
		for j := i; j > 0 && cmpFloat(events[j].At, events[j-1].At) < 0; j-- {
			events[j], events[j-1] = events[j-1], events[j]
		}
	}
}

// setField stores one key=value of the event's line.
func (e *ScenarioEvent) setField(key, val string) *ScenarioError {
	bad := func(want string) *ScenarioError {
		return &ScenarioError{Field: key, Msg: strconv.Quote(val) + " is not " + want}
	}
	allowed := map[EventKind][]string{
		EventSet:    condNames[:],
		EventStep:   append([]string{"at", "for"}, condNames[:]...),
		EventRamp:   append([]string{"at", "for"}, condNames[:]...),
		EventSpike:  {"at", "for", "delay"},
		EventOutage: {"at", "for", "backlog"},
		EventHiccup: {"at", "until", "every", "for", "delay", "loss"},
	}[e.Kind]
	if !slices.Contains(allowed, key) {
		return &ScenarioError{Field: key, Msg: "not a field of " + e.Kind.String() + ": want " + strings.Join(allowed, ", ")}
	}
	if e.Kind == EventOutage && key == "backlog" {
		switch val {
		case "burst":
		case "drop":
			e.Drop = true
		default:
			return bad("burst or drop")
		}
		return nil
	}
	if e.Kind == EventHiccup && key == "loss" {
		v, err := parseIn(hiccupLoss, val, 1)
		if err != nil {
			return &ScenarioError{Field: key, Msg: err.Error()}
		}
		e.Loss = v
		return nil
	}
	if f := slices.Index(condNames[:], key); f >= 0 {
		p, _ := param.Find(Params, key)
		v, err := p.Parse(val)
		if err != nil {
			return &ScenarioError{Field: key, Msg: strconv.Quote(val) + " is not allowed: want " + param.Allowed(err)}
		}
		e.Has[f], e.Value[f] = true, v
		return nil
	}
	q := timelineTime
	if key == "delay" {
		q = extraDelay
	}
	v, err := parseIn(q, val, math.Inf(1))
	if err != nil {
		return &ScenarioError{Field: key, Msg: err.Error()}
	}
	switch key {
	case "at":
		e.At = v
	case "for":
		e.For = v
	case "until":
		e.Until = v
	case "every":
		e.Every = v
	case "delay":
		e.Delay = v
	}
	return nil
}

// The quantities of a scenario line that are not parameters: times on the
// run's timeline (at, for, until, every) in seconds, as duration is; the
// extra delay of a spike or hiccup in ms, as latency is; a hiccup's loss in
// %, as loss is.
var (
	timelineTime = param.NewQuantity("s", "s", 1)
	extraDelay   = param.NewQuantity("s", "ms", ms)
	hiccupLoss   = param.NewQuantity("fraction", "%", pct)
)

// parseIn reads a value of q in [0, max] (max +Inf for a time).
func parseIn(q param.Quantity, val string, max float64) (float64, error) {
	want := "a time ≥ 0 " + q.Display
	if !math.IsInf(max, 1) {
		want = q.RangeText(0, max)
	}
	v, ok := q.Parse(val)
	if !ok {
		return 0, errors.New(strconv.Quote(val) + " is not allowed: want " + want + " (" + q.TypedHint() + ")")
	}
	if v < 0 || v > max {
		return 0, errors.New(strconv.Quote(val) + " is not allowed: want " + want)
	}
	return v, nil
}

// Validate checks the scenario: every event's fields present and
// consistent, no two events on the same condition field overlapping, no two
// impairments (spikes, outages, hiccup series) overlapping, and, when run is
// positive, nothing ending after the run's length in seconds. Errors are
// *ScenarioError naming the line and field, with what to change.
func (sc *Scenario) Validate(run float64) error {
	for i := range sc.Events {
		if err := sc.Events[i].check(); err != nil {
			return err
		}
	}
	// Overlaps, between events in the order written; the message names
	// the later line and the earlier one it collides with.
	for i := range sc.Events {
		a := &sc.Events[i]
		for j := range i {
			b := &sc.Events[j]
			if f, ok := conditionOverlap(a, b); ok {
				return &ScenarioError{Line: a.Line, Field: condNames[f],
					Msg: a.Kind.String() + " of " + condNames[f] + " over [" + secs(a.At) + ", " + secs(a.End()) + "] s overlaps the " +
						b.Kind.String() + " on line " + strconv.Itoa(b.Line) + " over [" + secs(b.At) + ", " + secs(b.End()) +
						"] s: start it after " + secs(b.End()) + " s, or end the other before " + secs(a.At) + " s"}
			}
			if a.impairment() && b.impairment() && a.At < b.End() && b.At < a.End() {
				return &ScenarioError{Line: a.Line, Field: "at",
					Msg: a.Kind.String() + " over [" + secs(a.At) + ", " + secs(a.End()) + ") s overlaps the " + b.Kind.String() +
						" on line " + strconv.Itoa(b.Line) + " over [" + secs(b.At) + ", " + secs(b.End()) +
						") s: impairments take turns; move one, or merge them into one line"}
			}
		}
	}
	if run > 0 {
		for i := range sc.Events {
			e := &sc.Events[i]
			if end := e.End(); end > run {
				field := "for"
				if e.Kind == EventHiccup {
					field = "until"
				} else if e.For == 0 {
					field = "at"
				}
				msg := e.Kind.String() + " ends at " + secs(end) + " s, after the run's end (duration = " + secs(run) + " s)"
				if math.Ceil(end) > MaxDuration {
					// No duration holds it: name the bound, not a raise to it.
					msg += ", which is at most " + secs(MaxDuration) + " s: end the " + e.Kind.String() + " by " + secs(run) + " s"
				} else {
					msg += ": raise duration to " + secs(math.Ceil(end)) + " or more, or end the " + e.Kind.String() + " by " + secs(run) + " s"
				}
				return &ScenarioError{Line: e.Line, Field: field, Msg: msg}
			}
		}
	}
	return nil
}

// impairment tells whether e is a spike, an outage or a hiccup series.
func (e *ScenarioEvent) impairment() bool {
	return e.Kind == EventSpike || e.Kind == EventOutage || e.Kind == EventHiccup
}

// conditionOverlap tells whether a and b change the same condition field
// over overlapping times; a lasting step holds the instant At, so two at
// the same time collide, and one inside a ramp or a temporary step does.
func conditionOverlap(a, b *ScenarioEvent) (field int, ok bool) {
	if a.Kind == EventSet || b.Kind == EventSet || a.impairment() || b.impairment() {
		return 0, false
	}
	for f := range numConds {
		if !a.Has[f] || !b.Has[f] {
			continue
		}
		// Windows [At, End); a lasting step is the instant At, which
		// collides with anything starting then or running over it.
		overlap := max(a.At, b.At) < min(a.End(), b.End()) || a.At == b.At ||
			a.For == 0 && a.At > b.At && a.At < b.End() ||
			b.For == 0 && b.At > a.At && b.At < a.End()
		if overlap {
			return f, true
		}
	}
	return 0, false
}

// check checks one event's own fields.
func (e *ScenarioEvent) check() error {
	need := func(field, msg string) error { return &ScenarioError{Line: e.Line, Field: field, Msg: msg} }
	has := slices.Contains(e.Has[:], true)
	switch e.Kind {
	case EventSet:
		if !has {
			return need("", "set changes nothing: give latency, jitter, loss or bandwidth")
		}
	case EventStep:
		if !has {
			return need("", "step changes nothing: give latency, jitter, loss or bandwidth")
		}
	case EventRamp:
		if !has {
			return need("", "ramp changes nothing: give latency, jitter, loss or bandwidth")
		}
		if e.For <= 0 {
			return need("for", "a ramp needs a length for > 0 (a ramp of 0 s is a step)")
		}
	case EventSpike:
		if e.For <= 0 {
			return need("for", "a spike needs a length for > 0")
		}
		if e.Delay <= 0 || e.Delay > 10 {
			return need("delay", "a spike needs an extra delay in (0, 10] s")
		}
	case EventOutage:
		if e.For <= 0 {
			return need("for", "an outage needs a length for > 0")
		}
	case EventHiccup:
		if e.Every < scenarioMinEvery {
			return need("every", "hiccups need a period every ≥ "+secs(scenarioMinEvery)+" s")
		}
		if e.For <= 0 || e.For >= e.Every {
			return need("for", "each hiccup needs a length for in (0, every = "+secs(e.Every)+") s")
		}
		if e.Until <= e.At {
			return need("until", "hiccups need an end until after at = "+secs(e.At)+" s")
		}
		if e.Delay > 10 {
			return need("delay", "a hiccup's extra delay is at most 10 s")
		}
		if e.Delay == 0 && e.Loss == 0 {
			return need("", "a hiccup changes nothing: give delay, loss or both")
		}
	}
	return nil
}

// secs formats a time in seconds for a message, to the microsecond (a
// time too large for that as it is).
func secs(v float64) string {
	if math.Abs(v) >= 1e12 {
		return param.FormatNumber(v)
	}
	return param.FormatNumber(math.Round(v*1e6) / 1e6)
}

// Text returns the scenario's text form, which ParseScenario reads back to
// the same scenario (line numbers aside).
func (sc *Scenario) Text() string {
	var b strings.Builder
	if sc.Title != "" {
		b.WriteString("title " + sc.Title + "\n")
	}
	for i := range sc.Events {
		e := &sc.Events[i]
		b.WriteString(e.Kind.String())
		if e.Kind != EventSet {
			b.WriteString(" at=" + secs(e.At))
		}
		switch e.Kind {
		case EventHiccup:
			b.WriteString(" until=" + secs(e.Until) + " every=" + secs(e.Every))
		}
		if e.For > 0 {
			b.WriteString(" for=" + secs(e.For))
		}
		for f := range numConds {
			if e.Has[f] {
				p, _ := param.Find(Params, condNames[f])
				b.WriteString(" " + condNames[f] + "=" + p.Format(e.Value[f]))
			}
		}
		if e.Delay > 0 {
			b.WriteString(" delay=" + param.FormatIn(e.Delay, extraDelay.Scale) + extraDelay.Display)
		}
		if e.Loss > 0 {
			b.WriteString(" loss=" + param.FormatIn(e.Loss, hiccupLoss.Scale) + hiccupLoss.Display)
		}
		if e.Kind == EventOutage {
			b.WriteString(" backlog=" + map[bool]string{false: "burst", true: "drop"}[e.Drop])
		}
		b.WriteString("\n")
	}
	return b.String()
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
