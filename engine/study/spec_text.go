package study

import (
	"strconv"
	"strings"

	"interplab/engine"
	"interplab/engine/param"
)

// The text forms of the specs of sweeps and tunings, as the command line
// takes them (lab sweep -x, lab tune -w and -max). Errors are *FieldError
// naming the part at fault.

// ParseAxis reads an axis: name=min:max:steps, name=min:max (a whole-number
// parameter, every value) or name (a Bool or Enum, every value). min and
// max go through the parameter's Parse: plain numbers in the display unit
// (delay=20:200:10 is 20 ms to 200 ms), numbers with a unit, enum names and
// true/false.
// The steps and the order of min and max are left to SweepSpec.Validate.
func ParseAxis(text string) (Axis, error) {
	name, rest, hasRange := strings.Cut(text, "=")
	name = strings.TrimSpace(name)
	p, ok := engine.Lookup(name)
	if !ok {
		return Axis{}, &engine.FieldError{Field: "name", Value: name, Allowed: "a parameter name (see Params): unknown parameter " + strconv.Quote(name)}
	}
	if p.Kind == engine.Set {
		return Axis{}, &engine.FieldError{Field: "name", Value: name, Allowed: "a number, Bool or Enum parameter: " + name + " cannot be swept"}
	}
	a := Axis{Name: name, Min: p.Min, Max: p.Max}
	whole := p.Kind != engine.Float
	form := &engine.FieldError{Field: name, Value: text, Allowed: name + "=min:max:steps"}
	if !hasRange {
		if p.Kind != engine.Bool && p.Kind != engine.Enum {
			return a, form
		}
		a.Steps = int(a.Max-a.Min) + 1
		return a, nil
	}
	parts := strings.Split(rest, ":")
	if len(parts) != 3 && !(whole && len(parts) == 2) {
		return a, form
	}
	var err error
	if a.Min, err = p.Parse(parts[0]); err != nil {
		return a, err
	}
	if a.Max, err = p.Parse(parts[1]); err != nil {
		return a, err
	}
	if len(parts) == 2 {
		a.Steps = int(a.Max-a.Min) + 1
		return a, nil
	}
	if a.Steps, err = strconv.Atoi(strings.TrimSpace(parts[2])); err != nil {
		return a, &engine.FieldError{Field: "steps", Value: parts[2], Allowed: "a whole number of steps"}
	}
	return a, nil
}

// ParseTuneWeights sets in w the weights named in "name=value,...".
func ParseTuneWeights(text string, w *TuneWeights) error {
	for _, kv := range strings.Split(text, ",") {
		name, num, ok := strings.Cut(kv, "=")
		name = strings.TrimSpace(name)
		if !ok {
			return &engine.FieldError{Field: "weights", Value: kv, Allowed: "name=value"}
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
		if err != nil {
			return &engine.FieldError{Field: "weights." + name, Value: num, Allowed: "a number"}
		}
		switch name {
		case "errP95":
			w.ErrP95 = v
		case "addedLatency":
			w.AddedLatency = v
		case "snaps":
			w.Snaps = v
		case "underrun":
			w.Underrun = v
		default:
			return &engine.FieldError{Field: "weights", Value: name, Allowed: "errP95, addedLatency, snaps or underrun"}
		}
	}
	return nil
}

// ParseConstraints reads "metric=max,...": names of MetricFields,
// extraLatency (ExtraLatencyField), recovery (RecoveryField, for a tuning
// over a scenario), or of
// PopulationMetricFields for a tuning over a population (TuneSpec.Validate
// checks which); max a plain number in the metric's display unit, as lab
// sim shows it (addedLatency=150 is 150 ms, underrun=5 is 5 %), or with a
// unit (addedLatency=0.15s, underrun=5%, errP95=20cm).
func ParseConstraints(text string) ([]Constraint, error) {
	var cs []Constraint
	for _, kv := range strings.Split(text, ",") {
		name, num, ok := strings.Cut(kv, "=")
		name = strings.TrimSpace(name)
		if !ok {
			return cs, &engine.FieldError{Field: "constraints", Value: kv, Allowed: "metric=value"}
		}
		if _, tuner := tuneField(name); metricIndex(name) < 0 && populationMetricIndex(name) < 0 && !tuner {
			return cs, &engine.FieldError{Field: "constraints", Value: name, Allowed: "a metric name: " + metricNames() +
				"; extraLatency (the delay beyond the network); recovery, with a scenario; or, tuning over a population, " + populationMetricNames()}
		}
		v, err := ParseMetric(name, num)
		if err != nil {
			return cs, &engine.FieldError{Field: "constraints." + name, Value: strings.TrimSpace(num), Allowed: param.Allowed(err) + ", the metric's largest value"}
		}
		cs = append(cs, Constraint{Metric: name, Max: v})
	}
	return cs, nil
}

func metricNames() string {
	names := make([]string, len(engine.MetricFields))
	for i, f := range engine.MetricFields {
		names[i] = f.Name
	}
	return strings.Join(names, ", ")
}
