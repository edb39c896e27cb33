package main

import (
	"errors"
	"io"
	"slices"
	"strings"

	"interplab/engine"
	"interplab/presets"

	"interplab/cmd/lab/internal/cli"
	"interplab/cmd/lab/internal/export"
)

const exportUsage = `Usage: lab export [-format F] [-preset NAME] [-set name=value]...

Prints the settings as a file a game team pastes as is.

Flags:
`

// runExport is `lab export`.
func runExport(args []string, stdout, stderr io.Writer) int {
	c := cli.New("export", exportUsage, stdout, stderr)
	format := c.Flags.String("format", "json", "export `format`: "+export.Names())
	sf := c.SettingsFlags()
	if code, ok := c.Parse(args, 0); !ok {
		return code
	}
	s, err := sf.Settings()
	if err != nil {
		return c.Bad(err)
	}
	file, err := export.Render(*format, export.Origin{Preset: sf.Preset}, s)
	if te, ok := errors.AsType[*export.TechniqueError](err); ok {
		return c.Bad(errors.New(techniqueHint(te)))
	}
	if err != nil {
		return c.Bad(err)
	}
	_, err = stdout.Write(file.Body)
	return c.Exit(err)
}

// techniqueHint says how to export a technique's settings from settings
// that do not run it: start from its library's preset, or add it to the
// techniques.
func techniqueHint(e *export.TechniqueError) string {
	var with []string
	for _, t := range engine.TechniqueNames {
		if t == e.Technique || slices.Contains(e.Techniques, t) {
			with = append(with, t)
		}
	}
	msg := "-format " + e.Format + " writes the " + e.Technique + " technique's settings, and these settings do not run it (techniques = " +
		strings.Join(e.Techniques, ",") + "). "
	if name := libraryPreset(e.Technique); name != "" {
		msg += "Start from its library's preset, -preset " + name + ", or add it: "
	} else {
		msg += "Add it: "
	}
	return msg + "-set techniques=" + strings.Join(with, ",")
}

// libraryPreset returns the built-in preset that starts a game on library
// technique t at its library's defaults, "" for none.
func libraryPreset(t string) string {
	if !engine.LibraryTechnique(t) {
		return ""
	}
	list, err := presets.All()
	if err != nil {
		return ""
	}
	for _, p := range list {
		if slices.Contains(p.Settings.Techniques, t) {
			return p.Name
		}
	}
	return ""
}
