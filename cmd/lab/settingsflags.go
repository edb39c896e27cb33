package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"interplab/engine"
	"interplab/presets"
)

// settingsFlags registers -preset NAME and the repeatable -set name=value on
// fs, and returns a function that builds the settings once fs is parsed: the
// named preset (engine.Defaults when -preset is not given), then every -set in
// command-line order through engine.Settings.SetText, then Validate. Its
// errors name the preset or the field and the allowed range; they are usage
// errors (exit status 2).
//
// A -set with no "=" or an unknown name is rejected while parsing, so
// flag.Parse reports it with the usage.
func settingsFlags(fs *flag.FlagSet) func() (engine.Settings, error) {
	preset := fs.String("preset", "", "start from the named `preset` (see /api/presets); default: the parameter table's defaults")
	var sets [][2]string
	fs.Func("set", "set one parameter, `name=value` in the vocabulary (e.g. loss=0.02, jitterDist=pareto); repeatable", func(arg string) error {
		name, value, err := parseSetArg(arg)
		if err == nil {
			sets = append(sets, [2]string{name, value})
		}
		return err
	})
	return func() (engine.Settings, error) {
		s := engine.Defaults()
		if *preset != "" {
			p, err := presets.Get(*preset)
			if err != nil {
				return engine.Settings{}, fmt.Errorf("-preset: %w", err)
			}
			s = p.Settings
		}
		for _, kv := range sets {
			if err := s.SetText(kv[0], kv[1]); err != nil {
				return engine.Settings{}, fmt.Errorf("-set %s=%s: %w", kv[0], kv[1], err)
			}
		}
		if err := s.Validate(); err != nil {
			return engine.Settings{}, err
		}
		return s, nil
	}
}

// parseSetArg splits a -set argument, name=value, and checks the name
// against the parameter table; the value is checked when it is applied.
func parseSetArg(arg string) (name, value string, err error) {
	name, value, ok := strings.Cut(arg, "=")
	name = strings.TrimSpace(name)
	if !ok {
		return "", "", fmt.Errorf("want name=value, got %q", arg)
	}
	if _, known := engine.Lookup(name); !known {
		return "", "", fmt.Errorf("unknown parameter %q", name)
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
