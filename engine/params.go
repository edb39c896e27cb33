package engine

import (
	"slices"

	"interplab/engine/motion"
	"interplab/engine/netsim"
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
// every error of Set and Parse is one, and every error of Validate but a
// scenario's.
type FieldError = param.FieldError

// ScenarioError reports a scenario that is not allowed, naming its line and
// field (see netsim.ScenarioError): Validate's error for the scenario and
// its text.
type ScenarioError = netsim.ScenarioError

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

func techParam() *Param { p, _ := Lookup("techniques"); return p }

// params is the parameter table: the lab's own parameters (EPIC's, the
// link's, the buffer's, the run's), then each library technique's, as its
// package declares them, in the technique list's order.
var params = slices.Concat(techniqueDef(TechEPIC).params, param.Lift(netsim.Params, networkSettings), techniqueDef(TechBuffer).params, runParams,
	libraryParams())

// networkSettings is the network group of Settings.
func networkSettings(s *Settings) *netsim.Settings { return &s.NetworkSettings }

// libraryParams returns the rows of the library techniques, in the
// technique list's order.
func libraryParams() []Param {
	var rows []Param
	for i := range techDefs[labTechniques:] {
		rows = append(rows, techDefs[labTechniques+i].params...)
	}
	return rows
}

// runParams are the parameters of what is simulated and for how long.
var runParams = []Param{
	// Scenario
	param.EnumOf(Param{Name: "motion", Group: "scenario", Default: 6, Choices: motion.Names, Restart: true,
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
	{Name: "duration", Group: "scenario", Unit: "s", Min: 1, Max: netsim.MaxDuration, Step: 1, Default: 60, Display: "s", Scale: 1,
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

// SuggestParams returns up to n parameter names closest to name: those that
// differ only in case, then those it is a prefix or part of, then those
// within a small edit distance, nearest first.
func SuggestParams(name string, n int) []string { return param.Suggest(params, name, n) }

// UnknownParamError is the error for a name that is not in the parameter
// table, with the closest names.
func UnknownParamError(name, value string) *FieldError { return param.Unknown(params, name, value) }

// Inert returns why the named parameter has no effect in s (its row's
// param.Inert rule that holds), or "" when it acts or is unknown: Mirror's
// bufferTimeMultiplier while dynamicAdjustment is on, the adaptive delay's
// margin while it is off.
func (s *Settings) Inert(name string) string {
	p, ok := Lookup(name)
	if !ok {
		return ""
	}
	return p.InertIn(params, s)
}
