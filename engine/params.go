package engine

import (
	"slices"

	"interplab/engine/param"
)

// Param is one row of the parameter table: a setting's vocabulary name, its
// unit and range, its default and a one-line doc (see param.Param), over
// Settings. Sliders, validation, URL parsing, CLI flags and exports are all
// generated from the table returned by Params.
type Param = param.Param[*Settings]

// Kind tells how a parameter's value is read and written (see param.Kind).
type Kind = param.Kind

// The kinds of parameters.
const (
	Float = param.Float // a real number
	Int   = param.Int   // a whole number
	Bool  = param.Bool  // 0 or 1; true or false as text
	Enum  = param.Enum  // an index into Choices; the choice's name as text
	Set   = param.Set   // a bit mask over Choices; comma-separated names as text
)

// FieldError reports a setting that is not allowed (see param.FieldError):
// every error of Validate, Set and Parse is one.
type FieldError = param.FieldError

// Params returns the parameter table, in display order. The slice is shared;
// do not modify it.
func Params() []Param { return params }

// Lookup returns the parameter with the given vocabulary name.
func Lookup(name string) (*Param, bool) { return param.Find(params, name) }

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
	p.Write(s, v)
	return nil
}

// Text returns the text form of the named parameter's value in s, or "" for
// an unknown name.
func (s *Settings) Text(name string) string {
	p, ok := Lookup(name)
	if !ok {
		return ""
	}
	return p.Text(s)
}

// Choices of the Enum parameters.
var (
	JitterDists = []string{"uniform", "normal", "pareto", "lognormal"}
	LossModels  = []string{"random", "burst"}
	Motions     = []string{"strafe", "turn", "stopgo", "circle", "zigzag", "jump", "mix"}
)

func techParam() *Param { p, _ := Lookup("techniques"); return p }

const (
	ms  = 1000
	pct = 100
)

// params is the parameter table: the lab's own parameters (EPIC's, the
// link's, the buffer's, the run's), then each library technique's, as its
// package declares them, in the technique list's order.
var params = slices.Concat(techniqueDef(TechEPIC).params, networkParams, techniqueDef(TechBuffer).params, runParams,
	libraryParams())

// libraryParams returns the rows of the library techniques, in the
// technique list's order.
func libraryParams() []Param {
	var rows []Param
	for i := range techDefs[labTechniques:] {
		rows = append(rows, techDefs[labTechniques+i].params...)
	}
	return rows
}

// networkParams are the parameters of the link.
var networkParams = []Param{
	// Network
	{Name: "latency", Group: "network", Unit: "s", Min: 0, Max: 1, Step: 0.001, Default: 0.05, Display: "ms", Scale: ms,
		Doc:   "Base one-way latency from server to client (half the ping).",
		Read:  func(s *Settings) float64 { return s.Latency },
		Write: func(s *Settings, v float64) { s.Latency = v }},
	{Name: "jitter", Group: "network", Unit: "s", Min: 0, Max: 0.5, Step: 0.001, Default: 0.01, Display: "ms", Scale: ms,
		Doc:   "Mean extra one-way delay on top of the latency; reordering emerges from it.",
		Read:  func(s *Settings) float64 { return s.Jitter },
		Write: func(s *Settings, v float64) { s.Jitter = v }},
	param.EnumOf(Param{Name: "jitterDist", Group: "network", Default: 1, Choices: JitterDists,
		Doc: "Distribution of the extra delay: pareto and lognormal have long right tails."},
		func(s *Settings) *string { return &s.JitterDist }),
	{Name: "loss", Group: "network", Unit: "fraction", Min: 0, Max: 0.9, Step: 0.001, Default: 0, Display: "%", Scale: pct,
		Doc:   "Long-run share of packets lost.",
		Read:  func(s *Settings) float64 { return s.Loss },
		Write: func(s *Settings, v float64) { s.Loss = v }},
	param.EnumOf(Param{Name: "lossModel", Group: "network", Default: 0, Choices: LossModels,
		Doc: "random loses packets independently; burst loses them in runs (Gilbert–Elliott)."},
		func(s *Settings) *string { return &s.LossModel }),
	{Name: "burstLength", Group: "network", Unit: "packets", Min: 1, Max: 50, Step: 0.5, Default: 3, Display: "packets", Scale: 1,
		Doc:   "Mean number of packets in a loss burst (burst loss model only).",
		Read:  func(s *Settings) float64 { return s.BurstLength },
		Write: func(s *Settings, v float64) { s.BurstLength = v }},
	{Name: "duplicate", Group: "network", Unit: "fraction", Min: 0, Max: 0.5, Step: 0.001, Default: 0, Display: "%", Scale: pct,
		Doc:   "Share of packets delivered twice.",
		Read:  func(s *Settings) float64 { return s.Duplicate },
		Write: func(s *Settings, v float64) { s.Duplicate = v }},
	{Name: "tickRate", Group: "network", Unit: "Hz", Min: 1, Max: 128, Step: 1, Default: 60, Display: "Hz", Scale: 1,
		Doc:   "Server simulation rate; snapshots carry the state of the latest tick.",
		Read:  func(s *Settings) float64 { return s.TickRate },
		Write: func(s *Settings, v float64) { s.TickRate = v }},
	{Name: "sendRate", Group: "network", Unit: "Hz", Min: 1, Max: 128, Step: 1, Default: 20, Display: "Hz", Scale: 1,
		Doc:   "Snapshots the server sends per second; at most the tick rate.",
		Read:  func(s *Settings) float64 { return s.SendRate },
		Write: func(s *Settings, v float64) { s.SendRate = v }},
	{Name: "renderRate", Group: "network", Unit: "Hz", Min: 10, Max: 240, Step: 1, Default: 60, Display: "Hz", Scale: 1,
		Doc:   "Frames the client renders per second; metrics are taken once a frame.",
		Read:  func(s *Settings) float64 { return s.RenderRate },
		Write: func(s *Settings, v float64) { s.RenderRate = v }},
	{Name: "clockDrift", Group: "network", Unit: "fraction", Min: -0.01, Max: 0.01, Step: 0.0001, Default: 0, Display: "ppm", Scale: 1e6,
		Doc:   "How much faster the client's clock runs than the server's, in parts per million (1000 ppm = 0.1% = 1 ms a second).",
		Read:  func(s *Settings) float64 { return s.ClockDrift },
		Write: func(s *Settings, v float64) { s.ClockDrift = v }},
	{Name: "bandwidth", Group: "network", Unit: "bit/s", Min: 0, Max: 1e8, Step: 1000, Default: 0, Display: "kbit/s", Scale: 0.001,
		Doc:   "Bottleneck rate the snapshots queue for (serialization, queueing, tail drop); 0 is unlimited.",
		Read:  func(s *Settings) float64 { return s.Bandwidth },
		Write: func(s *Settings, v float64) { s.Bandwidth = v }},
	{Name: "packetSize", Group: "network", Kind: Int, Unit: "bytes", Min: 20, Max: 65535, Step: 1, Default: 200, Display: "bytes", Scale: 1,
		Doc:   "Bytes of one snapshot packet on the wire, headers included; sets its serialization time at the bandwidth.",
		Read:  func(s *Settings) float64 { return float64(s.PacketSize) },
		Write: func(s *Settings, v float64) { s.PacketSize = int(v) }},
	{Name: "queueLimit", Group: "network", Kind: Int, Unit: "packets", Min: 1, Max: 10000, Step: 1, Default: 1000, Display: "packets", Scale: 1,
		Doc:   "Packets the bottleneck queue holds; one more is dropped (tail drop). netem's default is 1000.",
		Read:  func(s *Settings) float64 { return float64(s.QueueLimit) },
		Write: func(s *Settings, v float64) { s.QueueLimit = int(v) }},
	{Name: "reorder", Group: "network", Unit: "fraction", Min: 0, Max: 0.5, Step: 0.001, Default: 0, Display: "%", Scale: pct,
		Doc:   "Share of candidate packets sent at once, skipping latency and jitter, so they overtake those in flight (netem reorder).",
		Read:  func(s *Settings) float64 { return s.Reorder },
		Write: func(s *Settings, v float64) { s.Reorder = v }},
	{Name: "reorderGap", Group: "network", Kind: Int, Unit: "packets", Min: 1, Max: 100, Step: 1, Default: 1, Display: "packets", Scale: 1,
		Doc:   "Every reorderGap-th packet after a reordered one is a candidate (netem gap; 1 makes every packet one).",
		Read:  func(s *Settings) float64 { return float64(s.ReorderGap) },
		Write: func(s *Settings, v float64) { s.ReorderGap = int(v) }},
	{Name: "uplinkRatio", Group: "network", Unit: "ratio", Min: 0.1, Max: 10, Step: 0.05, Default: 1, Display: "×", Scale: 1,
		Doc:   "Client→server latency as a multiple of latency; ≠ 1 biases round-trip clock sync by half the difference.",
		Read:  func(s *Settings) float64 { return s.UplinkRatio },
		Write: func(s *Settings, v float64) { s.UplinkRatio = v }},
	{Name: "ideal", Group: "network", Kind: Bool, Max: 1, Step: 1, Default: 0,
		Doc:   "Impairments off: the same sends, each arriving once after exactly latency (no jitter, loss, queue or scenario), for an A/B.",
		Read:  func(s *Settings) float64 { return param.FromBool(s.Ideal) },
		Write: func(s *Settings, v float64) { s.Ideal = v != 0 }},
	param.EnumOf(Param{Name: "scenario", Group: "network", Default: 0, Choices: Scenarios, Restart: true,
		Doc: "Conditions that change over the run (spikes, outages, ramps); custom reads scenarioText."},
		func(s *Settings) *string { return &s.Scenario }),
	param.EnumOf(Param{Name: "netSim", Group: "network", Default: 0, Choices: NetSims, Restart: true,
		Doc: "The link: the lab's own, or a model of the game engine's network simulator playing this network's export (what QA will get)."},
		func(s *Settings) *string { return &s.NetSim }),
}

// runParams are the parameters of what is simulated and for how long.
var runParams = []Param{
	// Scenario
	param.EnumOf(Param{Name: "motion", Group: "scenario", Default: 6, Choices: Motions, Restart: true,
		Doc: "Ground-truth motion script; mix gives each entity a different one."},
		func(s *Settings) *string { return &s.Motion }),
	{Name: "entities", Group: "scenario", Kind: Int, Unit: "entities", Min: 1, Max: 10000, Step: 1, Default: 6, Scale: 1, Restart: true,
		Doc:   "Remote entities simulated, all on the same link.",
		Read:  func(s *Settings) float64 { return float64(s.Entities) },
		Write: func(s *Settings, v float64) { s.Entities = int(v) }},
	{Name: "maxSpeed", Group: "scenario", Unit: "m/s", Min: 0.5, Max: 50, Step: 0.1, Default: 7, Display: "m/s", Scale: 1, Restart: true,
		Doc:   "The entities' top speed; a displayed step faster than this counts as a snap.",
		Read:  func(s *Settings) float64 { return s.MaxSpeed },
		Write: func(s *Settings, v float64) { s.MaxSpeed = v }},
	{Name: "seed", Group: "scenario", Kind: Int, Min: 0, Max: 1<<32 - 1, Step: 1, Default: 1, Restart: true,
		Doc:   "Seed of every random choice; the same seed gives the same packets.",
		Read:  func(s *Settings) float64 { return float64(s.Seed) },
		Write: func(s *Settings, v float64) { s.Seed = int(v) }},
	{Name: "duration", Group: "scenario", Unit: "s", Min: 1, Max: 3600, Step: 1, Default: 60, Display: "s", Scale: 1,
		Doc:   "Simulated length of a whole run (lab sim, charts).",
		Read:  func(s *Settings) float64 { return s.Duration },
		Write: func(s *Settings, v float64) { s.Duration = v }},
	{Name: "round", Group: "scenario", Unit: "s", Min: 1, Max: 3600, Step: 1, Default: 60, Display: "s", Scale: 1, Restart: true,
		Doc:   "Length of a game round, for the share of entities that underrun per round.",
		Read:  func(s *Settings) float64 { return s.Round },
		Write: func(s *Settings, v float64) { s.Round = v }},
	{Name: "techniques", Group: "scenario", Kind: Set, Min: 1, Max: 1<<numTechniques - 1, Step: 1, Default: 1<<labTechniques - 1,
		Choices: TechniqueNames, Restart: true,
		Doc:   "Techniques compared side by side on the same packets; by default the lab's own.",
		Read:  func(s *Settings) float64 { return techMask(s.Techniques) },
		Write: func(s *Settings, v float64) { s.Techniques = techList(uint64(v)) }},
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
