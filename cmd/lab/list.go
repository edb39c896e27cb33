package main

import (
	"io"
	"slices"
	"strings"

	"interplab/cmd/lab/internal/cli"
	"interplab/cmd/lab/internal/report"
	"interplab/engine"
	"interplab/presets"
)

const presetsUsage = `usage: lab presets [-json]

Lists the presets -preset takes: name, title and one line on what each
models and where its numbers come from.

flags:
`

// runPresets is `lab presets`.
func runPresets(args []string, stdout, stderr io.Writer) int {
	c := cli.New("presets", presetsUsage, stdout, stderr)
	asJSON := c.Flags.Bool("json", false, "print JSON: name, title, doc and every setting")
	if code, ok := c.Parse(args, 0); !ok {
		return code
	}
	list, err := presets.All()
	if err != nil {
		return c.Fail(err)
	}
	if *asJSON {
		return c.JSON(report.Presets(list))
	}
	return c.Exit(report.PresetTable(stdout, list))
}

const paramsUsage = `usage: lab params [-group G] [-preset NAME] [-set name=value]... [-json]

Lists the parameters -set takes (and links, the API's text values and the
forms): name, group, the unit a plain number is in (the unit the page
shows beside the parameter's box), the range and the default in that unit,
the other units a number may carry, the unit the JSON stores, and one line
of help. latency=120 is 120 ms, loss=2 is 2 %, bandwidth=256 is 256 kbit/s;
latency=0.12s, loss=20000ppm and bandwidth=0.256Mbit/s say the same with a
unit. Saved sessions, presets, exports' JSON and the API's numbers keep the
stored (JSON) unit. With -preset or -set, a VALUE column shows the
resulting settings.

flags:
`

// runParams is `lab params`.
func runParams(args []string, stdout, stderr io.Writer) int {
	c := cli.New("params", paramsUsage, stdout, stderr)
	group := c.Flags.String("group", "", "only the parameters of `group` (epic, network, buffer, scenario or a library technique's)")
	asJSON := c.Flags.Bool("json", false, "print JSON, values in the stored unit")
	sf := c.SettingsFlags()
	if code, ok := c.Parse(args, 0); !ok {
		return code
	}
	var settings *engine.Settings
	if sf.Given() {
		s, err := sf.Settings()
		if err != nil {
			return c.Bad(err)
		}
		settings = &s
	}
	var list []engine.Param
	var groups []string
	for _, p := range engine.Params() {
		if !slices.Contains(groups, p.Group) {
			groups = append(groups, p.Group)
		}
		if *group == "" || p.Group == *group {
			list = append(list, p)
		}
	}
	if len(list) == 0 {
		c.Printf("-group: unknown group %q: want one of %s", *group, strings.Join(groups, ", "))
		return 2
	}
	if *asJSON {
		if settings != nil {
			return c.JSON(report.ParamValues(list, settings))
		}
		return c.JSON(report.Params(list))
	}
	return c.Exit(report.ParamTable(stdout, list, settings))
}
