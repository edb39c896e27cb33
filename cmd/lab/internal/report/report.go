// Package report shows results as a designer reads them: numbers in
// display units and to a readable precision, and the text tables of lab
// sim, lab sweep and lab tune.
package report

import (
	"strconv"
	"strings"

	"interplab/engine"
	"interplab/engine/param"
	"interplab/engine/study"
)

// Number shows three significant digits, whole numbers as they are, never
// with an exponent (engine.Readable): 0.123, 1235, 2761734960, 0.0000186.
func Number(v float64) string { return param.Readable(v, 3) }

// Short shows v with at most four significant digits, whole numbers as
// they are: a span or a speed in a line of text.
func Short(v float64) string { return param.Readable(v, 4) }

// Round rounds v to digits significant digits.
func Round(v float64, digits int) float64 {
	r, err := strconv.ParseFloat(strconv.FormatFloat(v, 'g', digits, 64), 64)
	if err != nil {
		return v
	}
	return r
}

// Value is a metric value in its display unit, to a precision a
// table reader can compare: whole counts, three significant digits or so.
func Value(v float64, f engine.MetricField) string {
	if f.Unit == "count" {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	x := v * f.Scale
	switch a := max(x, -x); {
	case a >= 100:
		return strconv.FormatFloat(x, 'f', 0, 64)
	case a >= 10:
		return strconv.FormatFloat(x, 'f', 1, 64)
	}
	return strconv.FormatFloat(x, 'f', 2, 64)
}

// AxisName is a metric's name with the unit a designer reads.
func AxisName(f engine.MetricField) string {
	if f.Display == "" {
		return f.Name
	}
	return f.Name + " (" + f.Display + ")"
}

// value shows a parameter's value as a designer reads it: names for a
// Bool or Enum, display units (ms, %) for a number.
func value(p *engine.Param, v float64) string {
	if p.Kind == engine.Bool || p.Kind == engine.Enum {
		return p.Format(v)
	}
	if p.Scale != 0 {
		v *= p.Scale
	}
	return Number(v)
}

// unit is a display unit as a table heading shows it: " (ms)", or nothing.
func unit(display string) string {
	if display == "" {
		return ""
	}
	return " (" + display + ")"
}

// MetricIndex is the index of the metric called name in
// engine.MetricFields and in Metrics.Values, or -1 when there is none.
func MetricIndex(name string) int { return fieldIndex(engine.MetricFields, name) }

// MetricNames lists every metric's name, for a message.
func MetricNames() string { return fieldNames(engine.MetricFields) }

// PopulationMetricIndex is the index of the population figure called name
// in engine.PopulationMetricFields and in PopulationMetrics.Values, or -1.
func PopulationMetricIndex(name string) int { return fieldIndex(study.PopulationMetricFields, name) }

// PopulationMetricNames lists every population figure's name, for a message.
func PopulationMetricNames() string { return fieldNames(study.PopulationMetricFields) }

func fieldIndex(fields []engine.MetricField, name string) int {
	for i, f := range fields {
		if f.Name == name {
			return i
		}
	}
	return -1
}

func fieldNames(fields []engine.MetricField) string {
	names := make([]string, len(fields))
	for i, f := range fields {
		names[i] = f.Name
	}
	return strings.Join(names, ", ")
}
