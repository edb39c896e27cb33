package report

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"interplab/engine"
)

// Param is one parameter as GET /api/params and lab params -json give it:
// min, max, step and default in the stored unit, as the JSON of sessions and
// presets holds values; display is the unit a person reads and types a
// plain number in (shown = stored × scale), units the units a typed number
// may carry, and range and defaultText what lab params prints.
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
	Display string   `json:"display"` // the unit a designer reads, and a plain typed number's unit
	Scale   float64  `json:"scale"`   // shown = value × scale
	Restart bool     `json:"restart"`
	Units   []string `json:"units"` // units a typed value may carry (120ms, 0.12s, 2%); a plain number is in display
	// Range is the allowed values in the display unit ("[0, 1000] ms"), in
	// words for the other kinds; DefaultText the default as Param.Format
	// writes it ("50ms"), as links and -set take it.
	Range       string `json:"range"`
	DefaultText string `json:"defaultText"`
	// Value and ValueText are the parameter's value in given settings (lab
	// params -preset/-set), stored and as Param.Format writes it.
	Value     *float64 `json:"value,omitempty"`
	ValueText string   `json:"valueText,omitempty"`
}

// Params returns list's rows for the JSON of the API and the CLI.
func Params(list []engine.Param) []Param {
	out := make([]Param, len(list))
	for i, p := range list {
		out[i] = Param{
			Name: p.Name, Group: p.Group, Kind: p.Kind.String(), Unit: p.Unit,
			Min: p.Min, Max: p.Max, Step: p.Step, Default: p.Default, Choices: p.Choices,
			Doc: p.Doc, Restart: p.Restart, Units: p.Units(), Range: p.Range(), DefaultText: p.Format(p.Default),
		}
		if p.Kind == engine.Float || p.Kind == engine.Int {
			out[i].Display, out[i].Scale = p.DisplayUnit()
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

// ParamValues is Params with each parameter's value in s.
func ParamValues(list []engine.Param, s *engine.Settings) []Param {
	out := Params(list)
	for i := range list {
		v := list[i].Get(s)
		out[i].Value, out[i].ValueText = &v, s.Text(list[i].Name)
	}
	return out
}

// ParamTable writes list as lab params prints it: name, group, the unit a
// plain number is in, range and default in that unit, the value in s when
// s is not nil, the units a number may carry instead, the unit the JSON
// stores, and the doc.
func ParamTable(w io.Writer, list []engine.Param, s *engine.Settings) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	value := ""
	if s != nil {
		value = "VALUE\t"
	}
	fmt.Fprintln(tw, "NAME\tGROUP\tUNIT\tRANGE\tDEFAULT\t"+value+"TYPED UNITS\tJSON\tDOC")
	for _, p := range list {
		unit, rng := "-", ""
		switch p.Kind {
		case engine.Bool:
			rng = "true|false"
		case engine.Enum:
			rng = strings.Join(p.Choices, "|")
		case engine.Set:
			rng = "any of " + strings.Join(p.Choices, ",")
		default:
			if u, _ := p.DisplayUnit(); u != "" {
				unit = u
			}
			rng = p.Range()
		}
		if s != nil {
			value = p.Show(p.Get(s)) + "\t"
		}
		units := strings.Join(p.Units(), ", ")
		if units == "" {
			units = "-"
		}
		stored := p.Unit
		if stored == "" {
			stored = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s%s\t%s\t%s\n", p.Name, p.Group, unit, rng, p.Show(p.Default), value, units, stored, p.Doc)
	}
	return tw.Flush()
}
