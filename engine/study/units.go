package study

import (
	"interplab/engine"
	"interplab/engine/param"
)

// The units of metrics. A metric's value is typed and written by the same
// rule as a parameter's (see param.Quantity): a plain number is in the
// metric's display unit (ms, cm, %), and any number may carry a unit of
// its kind.

// metricQuantity is the quantity of a metric field.
func metricQuantity(f engine.MetricField) param.Quantity {
	return param.NewQuantity(f.Unit, f.Display, f.Scale)
}

// ParseMetric reads a value of the named metric, as lab tune -max and the
// tune form take it: a plain number in the metric's display unit (ms, cm,
// %), or with a unit (150ms, 0.15s, 5%, 20cm); names of MetricFields,
// PopulationMetricFields and the tuner's own extraLatency and recovery.
func ParseMetric(name, text string) (float64, error) {
	f, ok := metricField(name)
	if !ok {
		return 0, &engine.FieldError{Field: name, Value: text, Allowed: "a metric name: " + metricNames() +
			"; or, over a population, " + populationMetricNames()}
	}
	q := metricQuantity(f)
	v, ok := q.Parse(text)
	if !ok {
		return 0, &engine.FieldError{Field: name, Value: text, Allowed: q.TypedHint()}
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
func metricField(name string) (engine.MetricField, bool) {
	if i := metricIndex(name); i >= 0 {
		return engine.MetricFields[i], true
	}
	if i := populationMetricIndex(name); i >= 0 {
		return PopulationMetricFields[i], true
	}
	return tuneField(name)
}
