package engine

import (
	"math"
	"slices"
	"strconv"
	"strings"
)

// Kind tells how a parameter's value is read and written.
type Kind uint8

const (
	Float Kind = iota // a real number
	Int               // a whole number
	Bool              // 0 or 1; true or false as text
	Enum              // an index into Choices; the choice's name as text
	Set               // a bit mask over Choices; comma-separated names as text
)

var kindNames = [...]string{"float", "int", "bool", "enum", "set"}

// String names the kind as GET /api/params and lab params -json give it.
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "kind(" + formatNumber(float64(k)) + ")"
}

// Param describes one setting: its vocabulary name, its unit and range, its
// default and a one-line doc. Sliders, validation, URL parsing, CLI flags and
// exports are all generated from the table returned by Params.
//
// Every value crosses the table as a float64: an index for an Enum, 0 or 1 for
// a Bool, a bit mask for a Set.
type Param struct {
	Name    string   // vocabulary name: JSON key, query parameter, flag, slider name
	Group   string   // "epic", "network", "buffer" or "scenario"
	Kind    Kind     // how the value is read
	Unit    string   // SI unit of the stored value: "s", "Hz", "m/s", "fraction", "packets"...
	Min     float64  // smallest allowed value
	Max     float64  // largest allowed value
	Step    float64  // slider step, in the stored unit
	Default float64  // default value
	Choices []string // names of an Enum's or a Set's values
	Doc     string   // one line of help
	Restart bool     // changing it restarts a running simulation

	// Display is the unit a designer thinks in, and Scale converts to it:
	// shown = value × Scale (seconds shown as ms, fractions as %). A plain
	// number a person types is in Display (Unit when Display is "").
	Display string
	Scale   float64

	get func(*Settings) float64
	set func(*Settings, float64)
	// str is an Enum's string field in Settings.
	str func(*Settings) *string
}

// Params returns the parameter table, in display order. The slice is shared;
// do not modify it.
func Params() []Param { return params }

// Lookup returns the parameter with the given vocabulary name.
func Lookup(name string) (*Param, bool) {
	for i := range params {
		if params[i].Name == name {
			return &params[i], true
		}
	}
	return nil, false
}

// Get returns the parameter's value in s.
func (p *Param) Get(s *Settings) float64 { return p.get(s) }

// Set validates v and stores it in s. On error s is unchanged.
func (p *Param) Set(s *Settings, v float64) error {
	if err := p.check(v); err != nil {
		return err
	}
	p.set(s, v)
	return nil
}

// Parse converts text (a number, an enum choice, true or false, or a
// comma-separated list of choices for a Set) to the parameter's value, in
// the stored unit, and checks its range. A plain number is in the display
// unit, the unit shown beside the parameter's box (latency "120" is 120 ms,
// loss "2" is 2 %, bandwidth "256" is 256 kbit/s); a number may carry a
// unit instead (0.12s, 2%, 256kbit/s, 150ppm; see Units). A range error
// gives the range in the display unit.
func (p *Param) Parse(text string) (float64, error) {
	text = strings.TrimSpace(text)
	bad := func() (float64, error) {
		return 0, &FieldError{Field: p.Name, Value: text, Allowed: p.allowed()}
	}
	var v float64
	switch p.Kind {
	case Bool:
		switch text {
		case "true", "1":
			v = 1
		case "false", "0":
			v = 0
		default:
			return bad()
		}
	case Enum:
		i := indexOf(p.Choices, text)
		if i < 0 {
			return bad()
		}
		v = float64(i)
	case Set:
		for _, name := range strings.Split(text, ",") {
			i := indexOf(p.Choices, strings.TrimSpace(name))
			if i < 0 {
				return bad()
			}
			v = float64(uint64(v) | 1<<i)
		}
	default:
		return p.parseNumber(text)
	}
	if err := p.check(v); err != nil {
		return 0, err
	}
	return v, nil
}

// Format returns the text form of the parameter's value v, the inverse of
// Parse (Parse(Format(v)) == v): a number in the display unit, with the
// unit when it is a unit of measure (120ms, 2%, 256kbit/s), so the text
// reads the same whatever rule its reader takes plain numbers by; names for
// a Bool, an Enum or a Set. Links and -set lines are written with it.
func (p *Param) Format(v float64) string {
	switch p.Kind {
	case Bool:
		return strconv.FormatBool(v != 0)
	case Enum:
		if i := int(v); i >= 0 && i < len(p.Choices) && float64(i) == v {
			return p.Choices[i]
		}
	case Set:
		var names []string
		for i, c := range p.Choices {
			if uint64(v)&(1<<i) != 0 {
				names = append(names, c)
			}
		}
		return strings.Join(names, ",")
	case Float, Int:
		return p.formatValue(v)
	}
	return formatNumber(v)
}

// SetText parses text as the value of the named parameter and stores it in s.
func (s *Settings) SetText(name, text string) error {
	p, ok := Lookup(name)
	if !ok {
		return UnknownParamError(name, text)
	}
	v, err := p.Parse(text)
	if err != nil {
		return err
	}
	p.set(s, v)
	return nil
}

// Text returns the text form of the named parameter's value in s, or "" for
// an unknown name.
func (s *Settings) Text(name string) string {
	p, ok := Lookup(name)
	if !ok {
		return ""
	}
	return p.text(s)
}

func (p *Param) text(s *Settings) string {
	if p.Kind == Enum {
		// An out-of-table enum string has no index; show it as it is.
		if i := p.choice(s); i < 0 {
			return p.enumField(s)
		}
	}
	return p.Format(p.get(s))
}

// check tells whether v is allowed: finite, in [Min, Max], whole for Int,
// Bool, Enum and Set.
func (p *Param) check(v float64) error {
	ok := !math.IsNaN(v) && !math.IsInf(v, 0) && v >= p.Min && v <= p.Max
	if ok && p.Kind != Float {
		ok = v == math.Trunc(v)
	}
	if !ok {
		return &FieldError{Field: p.Name, Value: p.valueText(v), Allowed: p.allowed()}
	}
	return nil
}

// valueText is v as an error quotes a stored value: Format's text, or the
// number when Format has no name for it (an Enum index out of range).
func (p *Param) valueText(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return formatNumber(v)
	}
	return p.Format(v)
}

// allowed describes the allowed values in words, for error messages.
func (p *Param) allowed() string {
	switch p.Kind {
	case Bool:
		return "true or false"
	case Enum:
		return "one of " + strings.Join(p.Choices, ", ")
	case Set:
		return "one or more of " + strings.Join(p.Choices, ", ")
	}
	r := p.Range()
	if p.Kind == Int {
		r = "a whole number in " + r
	}
	return r
}

func (p *Param) choice(s *Settings) int { return indexOf(p.Choices, p.enumField(s)) }

// enumField returns the string field behind an Enum parameter.
func (p *Param) enumField(s *Settings) string {
	if p.str == nil {
		panic("engine: no enum field for parameter " + p.Name)
	}
	return *p.str(s)
}

// enumParam fills in an Enum parameter's accessors from its string field.
func enumParam(p Param, field func(*Settings) *string) Param {
	p.Kind, p.Step, p.Max, p.str = Enum, 1, float64(len(p.Choices)-1), field
	p.get = func(s *Settings) float64 { return enum(p.Choices, *field(s)) }
	p.set = func(s *Settings, v float64) { *field(s) = choiceAt(p.Choices, v) }
	return p
}

// FieldError reports a setting that is not allowed. Field is the vocabulary
// name, Value the offending value as text, Allowed the allowed range in words.
type FieldError struct {
	Field   string
	Value   string
	Allowed string
}

func (e *FieldError) Error() string {
	return e.Field + " = " + strconv.Quote(e.Value) + " is not allowed: want " + e.Allowed
}

// formatNumber formats v exactly, without an exponent: 2761734960, 0.0002.
func formatNumber(v float64) string { return decimal(v, 1) }

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// enum reads an Enum field as its index (−1 when not a choice).
func enum(choices []string, s string) float64 { return float64(indexOf(choices, s)) }

// choiceAt returns the choice for an index written by Param.Set (checked) or
// by Defaults.
func choiceAt(choices []string, v float64) string { return choices[int(v)] }

// Choices of the Enum parameters.
var (
	JitterDists = []string{"uniform", "normal", "pareto", "lognormal"}
	LossModels  = []string{"random", "burst"}
	Rotations   = []string{"slerp", "euler"}
	Motions     = []string{"strafe", "turn", "stopgo", "circle", "zigzag", "jump", "mix"}
)

func techParam() *Param { p, _ := Lookup("techniques"); return p }

const (
	ms  = 1000
	pct = 100
)

// params is the parameter table: the lab's own parameters, then each
// library technique's (declared in its file).
var params = slices.Concat(labParams, mirrorParams, geckosParams, ngoParams, unrealParams, sourceParams)

// labParams are the parameters of the link, the scenario and the lab's own
// techniques.
var labParams = []Param{
	// EPIC
	{Name: "calcAhead", Group: "epic", Unit: "s", Min: 0, Max: 1, Step: 0.001, Default: 0.2, Display: "ms", Scale: ms,
		Doc: "How far forward EPIC extrapolates each packet; set it near the latency.",
		get: func(s *Settings) float64 { return s.CalcAhead },
		set: func(s *Settings, v float64) { s.CalcAhead = v }},
	{Name: "displayBehind", Group: "epic", Unit: "s", Min: 0, Max: 1, Step: 0.001, Default: 0.2, Display: "ms", Scale: ms,
		Doc: "How long EPIC takes to converge on each new extrapolated line; below 0.1 ms it snaps.",
		get: func(s *Settings) float64 { return s.DisplayBehind },
		set: func(s *Settings, v float64) { s.DisplayBehind = v }},
	{Name: "slopTime", Group: "epic", Unit: "s", Min: 0, Max: 5, Step: 0.01, Default: 0.5, Display: "ms", Scale: ms,
		Doc: "How long EPIC keeps extrapolating without updates before it freezes.",
		get: func(s *Settings) float64 { return s.SlopTime },
		set: func(s *Settings, v float64) { s.SlopTime = v }},

	// Network
	{Name: "latency", Group: "network", Unit: "s", Min: 0, Max: 1, Step: 0.001, Default: 0.05, Display: "ms", Scale: ms,
		Doc: "Base one-way latency from server to client (half the ping).",
		get: func(s *Settings) float64 { return s.Latency },
		set: func(s *Settings, v float64) { s.Latency = v }},
	{Name: "jitter", Group: "network", Unit: "s", Min: 0, Max: 0.5, Step: 0.001, Default: 0.01, Display: "ms", Scale: ms,
		Doc: "Mean extra one-way delay on top of the latency; reordering emerges from it.",
		get: func(s *Settings) float64 { return s.Jitter },
		set: func(s *Settings, v float64) { s.Jitter = v }},
	enumParam(Param{Name: "jitterDist", Group: "network", Default: 1, Choices: JitterDists,
		Doc: "Distribution of the extra delay: pareto and lognormal have long right tails."},
		func(s *Settings) *string { return &s.JitterDist }),
	{Name: "loss", Group: "network", Unit: "fraction", Min: 0, Max: 0.9, Step: 0.001, Default: 0, Display: "%", Scale: pct,
		Doc: "Long-run share of packets lost.",
		get: func(s *Settings) float64 { return s.Loss },
		set: func(s *Settings, v float64) { s.Loss = v }},
	enumParam(Param{Name: "lossModel", Group: "network", Default: 0, Choices: LossModels,
		Doc: "random loses packets independently; burst loses them in runs (Gilbert–Elliott)."},
		func(s *Settings) *string { return &s.LossModel }),
	{Name: "burstLength", Group: "network", Unit: "packets", Min: 1, Max: 50, Step: 0.5, Default: 3, Display: "packets", Scale: 1,
		Doc: "Mean number of packets in a loss burst (burst loss model only).",
		get: func(s *Settings) float64 { return s.BurstLength },
		set: func(s *Settings, v float64) { s.BurstLength = v }},
	{Name: "duplicate", Group: "network", Unit: "fraction", Min: 0, Max: 0.5, Step: 0.001, Default: 0, Display: "%", Scale: pct,
		Doc: "Share of packets delivered twice.",
		get: func(s *Settings) float64 { return s.Duplicate },
		set: func(s *Settings, v float64) { s.Duplicate = v }},
	{Name: "tickRate", Group: "network", Unit: "Hz", Min: 1, Max: 128, Step: 1, Default: 60, Display: "Hz", Scale: 1,
		Doc: "Server simulation rate; snapshots carry the state of the latest tick.",
		get: func(s *Settings) float64 { return s.TickRate },
		set: func(s *Settings, v float64) { s.TickRate = v }},
	{Name: "sendRate", Group: "network", Unit: "Hz", Min: 1, Max: 128, Step: 1, Default: 20, Display: "Hz", Scale: 1,
		Doc: "Snapshots the server sends per second; at most the tick rate.",
		get: func(s *Settings) float64 { return s.SendRate },
		set: func(s *Settings, v float64) { s.SendRate = v }},
	{Name: "renderRate", Group: "network", Unit: "Hz", Min: 10, Max: 240, Step: 1, Default: 60, Display: "Hz", Scale: 1,
		Doc: "Frames the client renders per second; metrics are taken once a frame.",
		get: func(s *Settings) float64 { return s.RenderRate },
		set: func(s *Settings, v float64) { s.RenderRate = v }},
	{Name: "clockDrift", Group: "network", Unit: "fraction", Min: -0.01, Max: 0.01, Step: 0.0001, Default: 0, Display: "ppm", Scale: 1e6,
		Doc: "How much faster the client's clock runs than the server's, in parts per million (1000 ppm = 0.1% = 1 ms a second).",
		get: func(s *Settings) float64 { return s.ClockDrift },
		set: func(s *Settings, v float64) { s.ClockDrift = v }},
	{Name: "bandwidth", Group: "network", Unit: "bit/s", Min: 0, Max: 1e8, Step: 1000, Default: 0, Display: "kbit/s", Scale: 0.001,
		Doc: "Bottleneck rate the snapshots queue for (serialization, queueing, tail drop); 0 is unlimited.",
		get: func(s *Settings) float64 { return s.Bandwidth },
		set: func(s *Settings, v float64) { s.Bandwidth = v }},
	{Name: "packetSize", Group: "network", Kind: Int, Unit: "bytes", Min: 20, Max: 65535, Step: 1, Default: 200, Display: "bytes", Scale: 1,
		Doc: "Bytes of one snapshot packet on the wire, headers included; sets its serialization time at the bandwidth.",
		get: func(s *Settings) float64 { return float64(s.PacketSize) },
		set: func(s *Settings, v float64) { s.PacketSize = int(v) }},
	{Name: "queueLimit", Group: "network", Kind: Int, Unit: "packets", Min: 1, Max: 10000, Step: 1, Default: 1000, Display: "packets", Scale: 1,
		Doc: "Packets the bottleneck queue holds; one more is dropped (tail drop). netem's default is 1000.",
		get: func(s *Settings) float64 { return float64(s.QueueLimit) },
		set: func(s *Settings, v float64) { s.QueueLimit = int(v) }},
	{Name: "reorder", Group: "network", Unit: "fraction", Min: 0, Max: 0.5, Step: 0.001, Default: 0, Display: "%", Scale: pct,
		Doc: "Share of candidate packets sent at once, skipping latency and jitter, so they overtake those in flight (netem reorder).",
		get: func(s *Settings) float64 { return s.Reorder },
		set: func(s *Settings, v float64) { s.Reorder = v }},
	{Name: "reorderGap", Group: "network", Kind: Int, Unit: "packets", Min: 1, Max: 100, Step: 1, Default: 1, Display: "packets", Scale: 1,
		Doc: "Every reorderGap-th packet after a reordered one is a candidate (netem gap; 1 makes every packet one).",
		get: func(s *Settings) float64 { return float64(s.ReorderGap) },
		set: func(s *Settings, v float64) { s.ReorderGap = int(v) }},
	{Name: "uplinkRatio", Group: "network", Unit: "ratio", Min: 0.1, Max: 10, Step: 0.05, Default: 1, Display: "×", Scale: 1,
		Doc: "Client→server latency as a multiple of latency; ≠ 1 biases round-trip clock sync by half the difference.",
		get: func(s *Settings) float64 { return s.UplinkRatio },
		set: func(s *Settings, v float64) { s.UplinkRatio = v }},
	{Name: "ideal", Group: "network", Kind: Bool, Max: 1, Step: 1, Default: 0,
		Doc: "Impairments off: the same sends, each arriving once after exactly latency (no jitter, loss, queue or scenario), for an A/B.",
		get: func(s *Settings) float64 { return b2f(s.Ideal) },
		set: func(s *Settings, v float64) { s.Ideal = v != 0 }},
	enumParam(Param{Name: "scenario", Group: "network", Default: 0, Choices: Scenarios, Restart: true,
		Doc: "Conditions that change over the run (spikes, outages, ramps); custom reads scenarioText."},
		func(s *Settings) *string { return &s.Scenario }),
	enumParam(Param{Name: "netSim", Group: "network", Default: 0, Choices: NetSims, Restart: true,
		Doc: "The link: the lab's own, or a model of the game engine's network simulator playing this network's export (what QA will get)."},
		func(s *Settings) *string { return &s.NetSim }),

	// Buffer
	{Name: "delay", Group: "buffer", Unit: "s", Min: 0, Max: 0.5, Step: 0.001, Default: 0.1, Display: "ms", Scale: ms,
		Doc: "Interpolation delay behind the snapshot stream: render time = stream time (server-time estimate less the freshest snapshots' transit) − delay.",
		get: func(s *Settings) float64 { return s.Delay },
		set: func(s *Settings, v float64) { s.Delay = v }},
	{Name: "adaptive", Group: "buffer", Kind: Bool, Max: 1, Step: 1, Default: 0,
		Doc: "Adapt the delay: max(delay, rolling p95 inter-arrival + margin), capped.",
		get: func(s *Settings) float64 { return b2f(s.Adaptive) },
		set: func(s *Settings, v float64) { s.Adaptive = v != 0 }},
	{Name: "margin", Group: "buffer", Unit: "s", Min: 0, Max: 0.2, Step: 0.001, Default: 0.025, Display: "ms", Scale: ms,
		Doc: "Safety margin added to the p95 inter-arrival time by the adaptive delay.",
		get: func(s *Settings) float64 { return s.Margin },
		set: func(s *Settings, v float64) { s.Margin = v }},
	{Name: "delayCap", Group: "buffer", Unit: "s", Min: 0, Max: 1, Step: 0.001, Default: 0.2, Display: "ms", Scale: ms,
		Doc: "Largest delay the adaptive delay may reach.",
		get: func(s *Settings) float64 { return s.DelayCap },
		set: func(s *Settings, v float64) { s.DelayCap = v }},
	{Name: "adaptWindow", Group: "buffer", Kind: Int, Unit: "packets", Min: 4, Max: 256, Step: 1, Default: 40, Display: "packets", Scale: 1,
		Doc: "Inter-arrival times in the adaptive delay's rolling p95.",
		get: func(s *Settings) float64 { return float64(s.AdaptWindow) },
		set: func(s *Settings, v float64) { s.AdaptWindow = int(v) }},
	{Name: "extrapolateCap", Group: "buffer", Unit: "s", Min: 0, Max: 1, Step: 0.001, Default: 0.15, Display: "ms", Scale: ms,
		Doc: "Longest dead reckoning when the buffer runs dry; then the entity freezes.",
		get: func(s *Settings) float64 { return s.ExtrapolateCap },
		set: func(s *Settings, v float64) { s.ExtrapolateCap = v }},
	{Name: "speedClamp", Group: "buffer", Kind: Bool, Max: 1, Step: 1, Default: 1,
		Doc: "Clamp dead-reckoning speed to maxSpeed, so bogus velocities cannot fling entities.",
		get: func(s *Settings) float64 { return b2f(s.SpeedClamp) },
		set: func(s *Settings, v float64) { s.SpeedClamp = v != 0 }},
	enumParam(Param{Name: "rotation", Group: "buffer", Default: 0, Choices: Rotations,
		Doc: "slerp quaternions, or lerp Euler angles to see the pitfall on 180° turns."},
		func(s *Settings) *string { return &s.Rotation }),

	// Scenario
	enumParam(Param{Name: "motion", Group: "scenario", Default: 6, Choices: Motions, Restart: true,
		Doc: "Ground-truth motion script; mix gives each entity a different one."},
		func(s *Settings) *string { return &s.Motion }),
	{Name: "entities", Group: "scenario", Kind: Int, Unit: "entities", Min: 1, Max: 10000, Step: 1, Default: 6, Scale: 1, Restart: true,
		Doc: "Remote entities simulated, all on the same link.",
		get: func(s *Settings) float64 { return float64(s.Entities) },
		set: func(s *Settings, v float64) { s.Entities = int(v) }},
	{Name: "maxSpeed", Group: "scenario", Unit: "m/s", Min: 0.5, Max: 50, Step: 0.1, Default: 7, Display: "m/s", Scale: 1, Restart: true,
		Doc: "The entities' top speed; a displayed step faster than this counts as a snap.",
		get: func(s *Settings) float64 { return s.MaxSpeed },
		set: func(s *Settings, v float64) { s.MaxSpeed = v }},
	{Name: "seed", Group: "scenario", Kind: Int, Min: 0, Max: 1<<32 - 1, Step: 1, Default: 1, Restart: true,
		Doc: "Seed of every random choice; the same seed gives the same packets.",
		get: func(s *Settings) float64 { return float64(s.Seed) },
		set: func(s *Settings, v float64) { s.Seed = int(v) }},
	{Name: "duration", Group: "scenario", Unit: "s", Min: 1, Max: 3600, Step: 1, Default: 60, Display: "s", Scale: 1,
		Doc: "Simulated length of a whole run (lab sim, charts).",
		get: func(s *Settings) float64 { return s.Duration },
		set: func(s *Settings, v float64) { s.Duration = v }},
	{Name: "round", Group: "scenario", Unit: "s", Min: 1, Max: 3600, Step: 1, Default: 60, Display: "s", Scale: 1, Restart: true,
		Doc: "Length of a game round, for the share of entities that underrun per round.",
		get: func(s *Settings) float64 { return s.Round },
		set: func(s *Settings, v float64) { s.Round = v }},
	{Name: "techniques", Group: "scenario", Kind: Set, Min: 1, Max: 1<<numTechniques - 1, Step: 1, Default: 1<<labTechniques - 1,
		Choices: TechniqueNames, Restart: true,
		Doc: "Techniques compared side by side on the same packets; by default the lab's own.",
		get: func(s *Settings) float64 { return techMask(s.Techniques) },
		set: func(s *Settings, v float64) { s.Techniques = techList(uint64(v)) }},
}

func techMask(names []string) float64 {
	var m uint64
	for _, n := range names {
		if i := techniqueIndex(n); i >= 0 {
			m |= 1 << i
		}
	}
	return float64(m)
}

// techList returns the techniques in mask m, in display order.
func techList(m uint64) []string {
	var list []string
	for i, n := range TechniqueNames {
		if m&(1<<i) != 0 {
			list = append(list, n)
		}
	}
	return list
}
