package cli

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"interplab/engine"
	"interplab/engine/netsim"
	"interplab/engine/study"
	"interplab/presets"
)

// Settings are a command's -preset NAME, -scenario NAME|FILE and repeatable
// -set name=value: settings start from the named preset (engine.Defaults
// without one), then take the scenario, then every -set in command-line
// order through engine.Settings.SetText: a plain number is in the unit lab
// params shows (latency=120 is 120 ms, loss=2 is 2 %, bandwidth=256 is
// 256 kbit/s) and a number may carry a unit (latency=0.12s, bandwidth=2Mbit).
// A -set with no "=", an unknown name or a name in
// Refused is not a flag syntax error: it is kept and reported by Base as one
// line (the key and the closest names), without the whole usage.
type Settings struct {
	Preset   string
	Scenario string // a built-in scenario's name, none, or a file of a custom one
	// Refused are the names -set may not give, and why ("comes from the
	// trace in a replay").
	Refused map[string]string

	sets [][2]string
	err  error // the first bad -set
}

// SettingsFlags registers -preset, -scenario and -set on the command.
func (c *Command) SettingsFlags() *Settings {
	f := &Settings{}
	fs := c.Flags
	fs.StringVar(&f.Preset, "preset", "", "start from the named `preset` (lab presets lists them); default: the parameter table's defaults")
	fs.StringVar(&f.Scenario, "scenario", "", "run the network through a `scenario`: a built-in one ("+
		strings.Join(netsim.Scenarios[:len(netsim.Scenarios)-1], ", ")+") or a file in the scenario text form; same as -set scenario=NAME")
	fs.Func("set", "set one parameter, `name=value` (lab params lists them): a plain number in the unit lab params shows, or with a unit: latency=120ms, loss=2%, bandwidth=256kbit/s, jitterDist=pareto; repeatable", func(arg string) error {
		name, value, err := parseSet(arg)
		if why, ok := f.Refused[name]; ok && err == nil {
			err = fmt.Errorf("-set %s: %s %s", name, name, why)
		}
		if err == nil {
			f.sets = append(f.sets, [2]string{name, value})
		} else if f.err == nil {
			f.err = err
		}
		return nil
	})
	return f
}

// Given tells whether -preset, -scenario or any -set was given.
func (f *Settings) Given() bool {
	return f.Preset != "" || f.Scenario != "" || len(f.sets) > 0 || f.err != nil
}

// Base returns the settings of the preset, or engine.Defaults; its error is
// a bad -set or an unknown preset, with the valid names.
func (f *Settings) Base() (engine.Settings, error) {
	if f.err != nil {
		return engine.Settings{}, f.err
	}
	if f.Preset == "" {
		return engine.Defaults(), nil
	}
	p, err := presets.Get(f.Preset)
	if err != nil {
		return engine.Settings{}, fmt.Errorf("-preset: %w", err)
	}
	return p.Settings, nil
}

// Apply applies -scenario, then every -set, in order, to s. A -set of the
// library's rate knob (mirror.sendRate=60; engine Settings.GameRate) with
// no -set of sendRate or tickRate moves those with it, as on the page: in
// the game they are one setting.
func (f *Settings) Apply(s *engine.Settings) error {
	if f.Scenario != "" {
		if err := applyScenario(s, f.Scenario); err != nil {
			return fmt.Errorf("-scenario %s: %w", f.Scenario, err)
		}
	}
	rate, lab := false, false
	for _, kv := range f.sets {
		if err := s.SetText(kv[0], kv[1]); err != nil {
			return fmt.Errorf("-set %s=%s: %w", kv[0], kv[1], err)
		}
		lab = lab || kv[0] == "sendRate" || kv[0] == "tickRate"
		if g, ok := s.GameRate(); ok && g.Knob == kv[0] {
			rate = true
		}
	}
	if rate && !lab {
		s.FollowGameRate()
	}
	return nil
}

// Settings returns the base with -scenario and every -set applied, and
// validated. Its errors name the preset or the field and the allowed range;
// they are usage errors (exit status 2).
func (f *Settings) Settings() (engine.Settings, error) {
	s, err := f.Base()
	if err == nil {
		err = f.Apply(&s)
	}
	if err == nil {
		err = s.Validate()
	}
	return s, err
}

// parseSet splits a -set argument, name=value, and checks the name
// against the parameter table; the value is checked when it is applied.
func parseSet(arg string) (name, value string, err error) {
	name, value, ok := strings.Cut(arg, "=")
	name = strings.TrimSpace(name)
	if !ok {
		return "", "", fmt.Errorf("-set %s: want name=value (e.g. -set latency=20ms)", arg)
	}
	if _, known := engine.Lookup(name); !known {
		msg := fmt.Sprintf("-set %s: unknown parameter %q", arg, name)
		if close := engine.SuggestParams(name, 3); len(close) > 0 {
			msg += "; closest: " + strings.Join(close, ", ")
		}
		return "", "", errors.New(msg + " (lab params lists them all)")
	}
	return name, value, nil
}

// applyScenario selects the scenario arg names in s: a built-in one or
// none by name, else the custom scenario in the file arg. The text is
// checked when the settings are validated.
func applyScenario(s *engine.Settings, arg string) error {
	if slices.Contains(netsim.Scenarios, arg) && arg != netsim.ScenarioCustom {
		s.Scenario, s.ScenarioText = arg, ""
		return nil
	}
	text, err := os.ReadFile(arg)
	if err != nil {
		return fmt.Errorf("not a built-in scenario (%s) nor a readable file: %w",
			strings.Join(netsim.Scenarios[:len(netsim.Scenarios)-1], ", "), err)
	}
	s.Scenario, s.ScenarioText = netsim.ScenarioCustom, string(text)
	return nil
}

// SpecFlag names the flag behind a sweep's, a tuning's or a population
// run's FieldError, as a prefix of its message: "-x: ", "-max: ",
// "-entities: ", "-population: ", "-preset/-set: ".
func SpecFlag(err error) string {
	fe, ok := errors.AsType[*engine.FieldError](err)
	if !ok {
		return ""
	}
	switch fe.Field {
	case "population.entities", "population.rounds", "population.round", "population.seed":
		return "-" + strings.TrimPrefix(fe.Field, "population.") + ": "
	}
	field, _, _ := strings.Cut(fe.Field, ".")
	field, _, _ = strings.Cut(field, "[")
	switch field {
	case "x", "y", "technique", "budget", "seeds":
		return "-" + field + ": "
	case "points":
		return "-x, -y: "
	case "motions":
		return "-motions: "
	case "weights":
		return "-w: "
	case "constraints":
		return "-max: "
	case "population":
		return "-population: "
	}
	return "-preset/-set: "
}

// ParamFlag registers a flag named for the parameter name that sets it in
// s (a plain number in the display unit, or with a unit, as -set does), its
// help the parameter's doc and range.
func (c *Command) ParamFlag(s *engine.Settings, name string) {
	p, _ := engine.Lookup(name)
	unit, _ := p.DisplayUnit()
	c.Flags.Var(paramFlag{s, name}, name, fmt.Sprintf("%s\na plain number in `%s`, or with a unit (%s): %s",
		p.Doc, unit, strings.Join(p.Units(), ", "), p.Range()))
}

// paramFlag is the flag.Value of ParamFlag.
type paramFlag struct {
	s    *engine.Settings
	name string
}

func (f paramFlag) String() string {
	if f.s == nil { // the zero value flag.PrintDefaults makes
		return ""
	}
	return f.s.Text(f.name)
}

func (f paramFlag) Set(text string) error { return f.s.SetText(f.name, text) }

// Population are -population, -entities, -rounds and -round: a population
// preset, and the sizes that replace its own.
type Population struct {
	Name             string
	entities, rounds int
	round            float64
}

// PopulationFlags registers them: def is -population's default ("" for
// none), doc what it does, and sizes a prefix of the size flags' help.
func (c *Command) PopulationFlags(def, doc, sizes string) *Population {
	p := &Population{}
	c.Flags.StringVar(&p.Name, "population", def, doc+" (one of "+presets.PopulationNames()+", or a population FILE.json)")
	c.Flags.IntVar(&p.entities, "entities", 0, sizes+"`N` entities instead of the population's")
	c.Flags.IntVar(&p.rounds, "rounds", 0, sizes+"`N` rounds per entity instead of the population's")
	c.Flags.Float64Var(&p.round, "round", 0, sizes+"rounds of `S` seconds instead of the population's")
	return p
}

// Get returns the named population preset and its population with the
// sizes the flags give.
func (p *Population) Get() (presets.PopulationPreset, study.Population, error) {
	get := presets.GetPopulation
	if strings.HasSuffix(p.Name, ".json") {
		get = presets.ReadPopulationFile // a custom population, as lab fit writes
	}
	pp, err := get(p.Name)
	if err != nil {
		return pp, study.Population{}, fmt.Errorf("-population: %w", err)
	}
	return pp, pp.Population.With(p.entities, p.rounds, p.round), nil
}
