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

const paramsUsage = `usage: lab params [-group G] [-json]

Lists the parameters -set takes (and the API, links and forms): name,
group, the units a value may be typed in, the stored unit, the range and
the default in the unit a designer reads, and one line of help. A plain
number is in the stored unit (latency=0.02 is 20 ms); a number with a unit
is converted (latency=20ms, latency=0.02s, loss=2%, clockDrift=150ppm).
Exports and saved sessions keep the stored units.

flags:
`

// runParams is `lab params`.
func runParams(args []string, stdout, stderr io.Writer) int {
	c := cli.New("params", paramsUsage, stdout, stderr)
	group := c.Flags.String("group", "", "only the parameters of `group` (epic, network, buffer, scenario or a library technique's)")
	asJSON := c.Flags.Bool("json", false, "print JSON, values in the stored unit")
	if code, ok := c.Parse(args, 0); !ok {
		return code
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
		return c.JSON(report.Params(list))
	}
	return c.Exit(report.ParamTable(stdout, list))
}
