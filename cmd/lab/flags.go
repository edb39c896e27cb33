package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"interplab/engine"
	"interplab/presets"
)

// settingsFlag is a command's -preset NAME and repeatable -set
// name=value: settings start from the named preset (engine.Defaults
// without one), then every -set applies in command-line order through
// engine.Settings.SetText, so values take units (latency=20ms, loss=2%).
// A -set with no "=", an unknown name or a name in refused is not a flag
// syntax error: it is kept and reported by base as one line (the key and
// the closest names), without the whole usage.
type settingsFlag struct {
	preset   string
	scenario string // -scenario: a built-in scenario's name, none, or a file of a custom one
	sets     [][2]string
	refused  map[string]string // name → why -set may not give it
	err      error             // the first bad -set
}

// settingsFlags registers -preset and -set on fs.
func settingsFlags(fs *flag.FlagSet) *settingsFlag {
	f := &settingsFlag{}
	fs.StringVar(&f.preset, "preset", "", "start from the named `preset` (lab presets lists them); default: the parameter table's defaults")
	fs.StringVar(&f.scenario, "scenario", "", "run the network through a `scenario`: a built-in one ("+
		strings.Join(engine.Scenarios[:len(engine.Scenarios)-1], ", ")+") or a file in the scenario text form; same as -set scenario=NAME")
	fs.Func("set", "set one parameter, `name=value` (lab params lists them), with a unit where natural: latency=20ms, loss=2%, jitterDist=pareto; repeatable", func(arg string) error {
		name, value, err := parseSetArg(arg)
		if why, ok := f.refused[name]; ok && err == nil {
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

// base returns the settings of the preset, or engine.Defaults; its error is
// a bad -set or an unknown preset, with the valid names.
func (f *settingsFlag) base() (engine.Settings, error) {
	if f.err != nil {
		return engine.Settings{}, f.err
	}
	if f.preset == "" {
		return engine.Defaults(), nil
	}
	p, err := presets.Get(f.preset)
	if err != nil {
		return engine.Settings{}, fmt.Errorf("-preset: %w", err)
	}
	return p.Settings, nil
}

// apply applies -scenario, then every -set, in order, to s.
func (f *settingsFlag) apply(s *engine.Settings) error {
	if f.scenario != "" {
		if err := applyScenario(s, f.scenario); err != nil {
			return fmt.Errorf("-scenario %s: %w", f.scenario, err)
		}
	}
	for _, kv := range f.sets {
		if err := s.SetText(kv[0], kv[1]); err != nil {
			return fmt.Errorf("-set %s=%s: %w", kv[0], kv[1], err)
		}
	}
	return nil
}

// settings returns the base with every -set applied, validated. Its errors
// name the preset or the field and the allowed range; they are usage
// errors (exit status 2).
func (f *settingsFlag) settings() (engine.Settings, error) {
	s, err := f.base()
	if err == nil {
		err = f.apply(&s)
	}
	if err == nil {
		err = s.Validate()
	}
	return s, err
}

// parseSetArg splits a -set argument, name=value, and checks the name
// against the parameter table; the value is checked when it is applied.
func parseSetArg(arg string) (name, value string, err error) {
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

// labFlags returns the flag set of `lab name`: errors go to stderr, and -h
// prints usage (the command's text, ending with its flags heading) and then
// the flags.
func labFlags(name, usage string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("lab "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, usage)
		fs.PrintDefaults()
	}
	return fs
}

// parseLabFlags parses args, allowing at most maxArgs arguments after the
// flags. When ok is false the command must exit with code: 0 after -h, 2 for
// bad usage (the usage has been printed).
func parseLabFlags(fs *flag.FlagSet, args []string, maxArgs int, stderr io.Writer) (code int, ok bool) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0, false
		}
		return 2, false
	}
	if fs.NArg() > maxArgs {
		fmt.Fprintf(stderr, "%s: unexpected argument %q\n", fs.Name(), fs.Arg(maxArgs))
		fs.Usage()
		return 2, false
	}
	return 0, true
}

// exit reports err, if any, as lab cmd's failure and returns the exit
// status: 0 without an error, 1 with one.
func exit(stderr io.Writer, cmd string, err error) int {
	if err != nil {
		fmt.Fprintf(stderr, "lab %s: %v\n", cmd, err)
		return 1
	}
	return 0
}

// printJSON writes v to w as indented JSON, as every -json flag does.
func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// applyScenario selects the scenario arg names in s: a built-in one or
// none by name, else the custom scenario in the file arg. The text is
// checked when the settings are validated.
func applyScenario(s *engine.Settings, arg string) error {
	if slices.Contains(engine.Scenarios, arg) && arg != engine.ScenarioCustom {
		s.Scenario, s.ScenarioText = arg, ""
		return nil
	}
	text, err := os.ReadFile(arg)
	if err != nil {
		return fmt.Errorf("not a built-in scenario (%s) nor a readable file: %w",
			strings.Join(engine.Scenarios[:len(engine.Scenarios)-1], ", "), err)
	}
	s.Scenario, s.ScenarioText = engine.ScenarioCustom, string(text)
	return nil
}
