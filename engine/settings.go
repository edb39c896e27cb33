package engine

import (
	"interplab/engine/technique/buffer"
	"interplab/engine/technique/epic"
	"interplab/engine/technique/geckos"
	"interplab/engine/technique/mirror"
	"interplab/engine/technique/ngo"
	"interplab/engine/technique/source"
	"interplab/engine/technique/unreal"
)

// Settings is every knob of a lab run. Its JSON keys are the vocabulary names
// of the parameter table (see Params); the same names are the URL query
// parameters, CLI flags, slider names and export keys. Times are in seconds,
// fractions in [0, 1].
//
// A Settings is plain data: Validate checks it against the table, and
// Defaults returns the table's defaults.
type Settings struct {
	EPICSettings // EPIC, the seed's interpolator: calcAhead, displayBehind, slopTime

	// Network: the link between server and client.
	Latency     float64 `json:"latency"`     // base one-way latency, s
	Jitter      float64 `json:"jitter"`      // mean extra one-way delay, s
	JitterDist  string  `json:"jitterDist"`  // distribution of the extra delay
	Loss        float64 `json:"loss"`        // long-run share of packets lost, in [0, 1]
	LossModel   string  `json:"lossModel"`   // random or burst (Gilbert–Elliott)
	BurstLength float64 `json:"burstLength"` // mean length of a loss burst, packets
	Duplicate   float64 `json:"duplicate"`   // share of packets delivered twice, in [0, 1]
	TickRate    float64 `json:"tickRate"`    // server simulation rate, Hz
	SendRate    float64 `json:"sendRate"`    // server snapshot send rate, Hz
	RenderRate  float64 `json:"renderRate"`  // client render rate, Hz
	ClockDrift  float64 `json:"clockDrift"`  // client clock rate error, fraction
	Bandwidth   float64 `json:"bandwidth"`   // bottleneck rate, bit/s; 0 is unlimited
	PacketSize  int     `json:"packetSize"`  // bytes of one snapshot packet on the wire
	QueueLimit  int     `json:"queueLimit"`  // packets the bottleneck queue holds before tail drop
	Reorder     float64 `json:"reorder"`     // share of candidate packets sent ahead of the queue (netem reorder)
	ReorderGap  int     `json:"reorderGap"`  // packets delayed after each reordered one (netem gap)
	UplinkRatio float64 `json:"uplinkRatio"` // client→server latency as a multiple of latency
	Scenario    string  `json:"scenario"`    // none, a built-in scenario, or custom
	Ideal       bool    `json:"ideal"`       // impairments off: every packet once, after exactly latency
	NetSim      string  `json:"netSim"`      // lab, or a game engine's simulator playing the network export (NetSims)

	// ScenarioText is the text of the custom scenario (see Scenario), used
	// when Scenario is "custom". It is not a parameter: no slider or URL
	// carries it; the API and the CLI do.
	ScenarioText string `json:"scenarioText,omitempty"`

	BufferSettings // snapshot interpolation: buffer and hermite

	// Scenario: what is simulated and for how long.
	Motion     string   `json:"motion"`     // motion script of the ground truth
	Entities   int      `json:"entities"`   // remote entities simulated
	MaxSpeed   float64  `json:"maxSpeed"`   // the entities' top speed, m/s
	Seed       int      `json:"seed"`       // seed of every random choice
	Duration   float64  `json:"duration"`   // length of a whole run, s
	Round      float64  `json:"round"`      // length of a round for per-round underruns, s
	Techniques []string `json:"techniques"` // techniques compared on the same packets

	// Library techniques' own knobs, with the libraries' names.
	MirrorSettings
	GeckosSettings
	NGOSettings
	UnrealSettings
	SourceSettings
}

// The settings of the techniques, each group's struct as its package
// declares it: embedded in Settings, their fields are its fields and their
// keys its JSON keys.
type (
	EPICSettings   = epic.Settings[float64] // epic and epicfix
	BufferSettings = buffer.Settings        // buffer and hermite
	MirrorSettings = mirror.Settings        // mirror
	NGOSettings    = ngo.Settings           // ngo
	GeckosSettings = geckos.Settings        // geckos
	UnrealSettings = unreal.Settings        // unreal-cmc
	SourceSettings = source.Settings        // source
)

// Defaults returns the parameter table's default settings.
func Defaults() Settings {
	var s Settings
	for i := range params {
		params[i].Write(&s, params[i].Default)
	}
	return s
}

// Validate checks every field of s against the parameter table and the
// constraints between fields. The error is a *FieldError naming the first
// offending field, its value and the allowed range.
func (s *Settings) Validate() error {
	for _, t := range s.Techniques {
		if techniqueIndex(t) < 0 {
			return &FieldError{Field: "techniques", Value: t, Allowed: techParam().Allowed()}
		}
	}
	for i := range params {
		p := &params[i]
		if p.Kind == Enum && p.Choice(s) < 0 {
			return &FieldError{Field: p.Name, Value: p.EnumValue(s), Allowed: p.Allowed()}
		}
		if p.Kind == Set && len(s.Techniques) == 0 {
			return &FieldError{Field: p.Name, Value: "", Allowed: p.Allowed()}
		}
		if err := p.Check(p.Read(s)); err != nil {
			return err
		}
	}
	if s.SendRate > s.TickRate {
		p, _ := Lookup("sendRate")
		q := p.Quantity()
		return &FieldError{Field: "sendRate", Value: p.Format(s.SendRate),
			Allowed: "[" + q.Shown(p.Min) + ", tickRate = " + q.Shown(s.TickRate) + "]: the server sends at most once a tick"}
	}
	for i := range techDefs {
		if d := &techDefs[i]; d.check != nil {
			if err := d.check(s); err != nil {
				return err
			}
		}
	}
	if _, err := ScenarioOf(s); err != nil {
		return err
	}
	return nil
}
