package engine

import "interplab/engine/param"

// The units of metrics. A metric's value is typed and written by the same
// rule as a parameter's (see param.Quantity): a plain number is in the
// metric's display unit (ms, cm, %), and any number may carry a unit of
// its kind.

// metricQuantity is the quantity of a metric field.
func metricQuantity(f MetricField) param.Quantity {
	return param.NewQuantity(f.Unit, f.Display, f.Scale)
}

// ParseMetric reads a value of the named metric, as lab tune -max and the
// tune form take it: a plain number in the metric's display unit (ms, cm,
// %), or with a unit (150ms, 0.15s, 5%, 20cm); names of MetricFields,
// PopulationMetricFields and the tuner's own extraLatency and recovery.
func ParseMetric(name, text string) (float64, error) {
	f, ok := metricField(name)
	if !ok {
		return 0, &FieldError{Field: name, Value: text, Allowed: "a metric name: " + metricNames() +
			"; or, over a population, " + populationMetricNames()}
	}
	q := metricQuantity(f)
	v, ok := q.Parse(text)
	if !ok {
		return 0, &FieldError{Field: name, Value: text, Allowed: q.TypedHint()}
	}
	return v, nil
}

// FormatMetric formats a value of the named metric as ParseMetric reads
// it back: in its display unit, with the unit (150ms, 5%, 20cm).
func FormatMetric(name string, v float64) string {
	f, ok := metricField(name)
	if !ok {
		return param.FormatIn(v, 1)
	}
	return metricQuantity(f).Format(v)
}

// metricField finds a metric by name among MetricFields,
// PopulationMetricFields and RecoveryField.
func metricField(name string) (MetricField, bool) {
	if i := metricIndex(name); i >= 0 {
		return MetricFields[i], true
	}
	if i := populationMetricIndex(name); i >= 0 {
		return PopulationMetricFields[i], true
	}
	return tuneField(name)
}

// SuggestParams returns up to n parameter names closest to name: those that
// differ only in case, then those it is a prefix or part of, then those
// within a small edit distance, nearest first.
func SuggestParams(name string, n int) []string { return param.Suggest(params, name, n) }

// UnknownParamError is the error for a name that is not in the parameter
// table, with the closest names.
func UnknownParamError(name, value string) *FieldError { return param.Unknown(params, name, value) }
