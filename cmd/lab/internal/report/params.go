package report

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"interplab/engine"
)

// Param is one parameter as GET /api/params and lab params -json give it:
// min, max and default in the stored unit.
type Param struct {
	Name    string   `json:"name"`
	Group   string   `json:"group"`
	Kind    string   `json:"kind"` // float, int, bool, enum or set
	Unit    string   `json:"unit"` // the stored unit
	Min     float64  `json:"min"`
	Max     float64  `json:"max"`
	Step    float64  `json:"step"`
	Default float64  `json:"default"` // an index for an enum, 0 or 1 for a bool, a bit mask for a set
	Choices []string `json:"choices"`
	Doc     string   `json:"doc"`
	Display string   `json:"display"` // the unit a designer reads
	Scale   float64  `json:"scale"`   // shown = value × scale
	Restart bool     `json:"restart"`
	Units   []string `json:"units"` // units a typed value may carry (20ms, 2%); a plain number is in unit
}

// Params returns list's rows for the JSON of the API and the CLI.
func Params(list []engine.Param) []Param {
	out := make([]Param, len(list))
	for i, p := range list {
		out[i] = Param{
			Name: p.Name, Group: p.Group, Kind: p.Kind.String(), Unit: p.Unit,
			Min: p.Min, Max: p.Max, Step: p.Step, Default: p.Default, Choices: p.Choices,
			Doc: p.Doc, Display: p.Display, Scale: p.Scale, Restart: p.Restart, Units: p.Units(),
		}
		if out[i].Choices == nil {
			out[i].Choices = []string{}
		}
		if out[i].Units == nil {
			out[i].Units = []string{}
		}
	}
	return out
}

// ParamTable writes list as lab params prints it: name, group, the units a
// value may be typed in, the stored unit, range and default as a designer
// reads them, and the doc.
func ParamTable(w io.Writer, list []engine.Param) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tGROUP\tTYPE IN\tSTORED\tRANGE\tDEFAULT\tDOC")
	for _, p := range list {
		rng, def := paramRange(&p)
		units := strings.Join(p.Units(), ", ")
		if units == "" {
			units = "-"
		}
		stored := p.Unit
		if stored == "" {
			stored = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", p.Name, p.Group, units, stored, rng, def, p.Doc)
	}
	return tw.Flush()
}

// paramRange gives a parameter's range and default as a designer reads
// them: in the display unit for a number, as names for the others.
func paramRange(p *engine.Param) (rng, def string) {
	switch p.Kind {
	case engine.Bool:
		return "true|false", p.Format(p.Default)
	case engine.Enum:
		return strings.Join(p.Choices, "|"), p.Format(p.Default)
	case engine.Set:
		return "any of " + strings.Join(p.Choices, ","), p.Format(p.Default)
	}
	scale, unit := p.Scale, p.Display
	if scale == 0 || unit == "" {
		scale, unit = 1, p.Unit
	}
	show := func(v float64) string { return engine.FormatIn(v, scale) }
	rng = show(p.Min) + " … " + show(p.Max)
	def = show(p.Default)
	if unit != "" {
		rng += " " + unit
		def += " " + unit
	}
	return rng, def
}
