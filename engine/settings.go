package engine

import (
	"interplab/engine/netsim"
	"interplab/engine/param"
	"interplab/engine/technique/buffer"
	"interplab/engine/technique/epic"
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

	NetworkSettings // the link between server and client, and the rates

	BufferSettings // snapshot interpolation: buffer and hermite

	// Scenario: what is simulated and for how long.
	Motion     string   `json:"motion"`     // motion script of the ground truth
	Entities   int      `json:"entities"`   // remote entities simulated
	MaxSpeed   float64  `json:"maxSpeed"`   // the entities' top speed, m/s
	Seed       int      `json:"seed"`       // seed of every random choice
	Duration   float64  `json:"duration"`   // length of a whole run, s
	Round      float64  `json:"round"`      // length of a round for per-round underruns, s
	Techniques []string `json:"techniques"` // techniques compared on the same packets

	Libraries // the library techniques' own knobs, with the libraries' names
}

// The settings of the link and of the lab's own techniques, each group's
// struct as its package declares it: embedded in Settings, their fields are
// its fields and their keys its JSON keys. (The library techniques' are in
// Libraries, beside the technique list.)
type (
	NetworkSettings = netsim.Settings        // the link and the rates
	EPICSettings    = epic.Settings[float64] // epic and epicfix
	BufferSettings  = buffer.Settings        // buffer and hermite
)

// Defaults returns the parameter table's default settings.
func Defaults() Settings {
	// Not param.Defaults(params): its instance for Settings, a struct
	// shape whose name spells out every field, grows lab.wasm by about
	// 1.8 kB; SetDefaults takes a pointer, whose shape every table shares.
	var s Settings
	param.SetDefaults(params, &s)
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
		allowed := "[" + q.Shown(p.Min) + ", tickRate = " + q.Shown(s.TickRate) + "]: the server sends at most once a tick"
		if lib := s.Library(); lib != "" && techniqueDef(lib).rate != "" {
			// On a library the game's rate is one knob: name it.
			allowed += "; in a " + lib + " game both follow " + techniqueDef(lib).rate + ": set it, and the lab's sendRate and tickRate follow"
		}
		return &FieldError{Field: "sendRate", Value: p.Format(s.SendRate), Allowed: allowed}
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
