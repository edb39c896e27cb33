package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"interplab/cmd/lab/internal/report"
	"interplab/engine"
	"interplab/presets"
)

const presetsUsage = `usage: lab presets [-json]

Lists the presets -preset takes: name, title and one line on what each
models and where its numbers come from.
`

// runPresets is `lab presets`.
func runPresets(args []string, stdout, stderr io.Writer) int {
	fs := labFlags("presets", presetsUsage+"\nflags:\n", stderr)
	asJSON := fs.Bool("json", false, "print JSON: name, title, doc and every setting")
	if code, ok := parseLabFlags(fs, args, 0, stderr); !ok {
		return code
	}
	list, err := presets.All()
	if err != nil {
		return exit(stderr, "presets", err)
	}
	if *asJSON {
		type preset struct {
			Name     string          `json:"name"`
			Title    string          `json:"title"`
			Doc      string          `json:"doc"`
			Settings engine.Settings `json:"settings"`
		}
		out := make([]preset, len(list))
		for i, p := range list {
			out[i] = preset{p.Name, p.Title, p.Doc, p.Settings}
		}
		return exit(stderr, "presets", printJSON(stdout, out))
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tTITLE\tDOC")
	for _, p := range list {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", p.Name, p.Title, p.Doc)
	}
	return exit(stderr, "presets", tw.Flush())
}

const paramsUsage = `usage: lab params [-group G] [-json]

Lists the parameters -set takes (and the API, links and forms): name,
group, the units a value may be typed in, the stored unit, the range and
the default in the unit a designer reads, and one line of help. A plain
number is in the stored unit (latency=0.02 is 20 ms); a number with a unit
is converted (latency=20ms, latency=0.02s, loss=2%, clockDrift=150ppm).
Exports and saved sessions keep the stored units.
`

// runParams is `lab params`.
func runParams(args []string, stdout, stderr io.Writer) int {
	fs := labFlags("params", paramsUsage+"\nflags:\n", stderr)
	group := fs.String("group", "", "only the parameters of `group` (epic, network, buffer, scenario or a library technique's)")
	asJSON := fs.Bool("json", false, "print JSON, values in the stored unit")
	if code, ok := parseLabFlags(fs, args, 0, stderr); !ok {
		return code
	}
	var list []engine.Param
	var groups []string
	for _, p := range engine.Params() {
		if !strings.Contains(","+strings.Join(groups, ",")+",", ","+p.Group+",") {
			groups = append(groups, p.Group)
		}
		if *group == "" || p.Group == *group {
			list = append(list, p)
		}
	}
	if len(list) == 0 {
		fmt.Fprintf(stderr, "lab params: -group: unknown group %q: want one of %s\n", *group, strings.Join(groups, ", "))
		return 2
	}
	if *asJSON {
		return exit(stderr, "params", printJSON(stdout, report.Params(list)))
	}
	return exit(stderr, "params", report.ParamTable(stdout, list))
}
