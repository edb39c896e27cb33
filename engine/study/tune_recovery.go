package study

import (
	"strconv"

	"interplab/engine"
)

// Tuning for recovery: with a scenario as the network, a constraint on
// RecoveryField ("recovers from a 2 s outage in under 500 ms":
// recovery ≤ 0.5) runs every candidate through RunPhases, which costs a
// second run without the scenario, and bounds the technique's recovery
// time, the worst over the motion mix.

// RecoveryMetric is the name of the tuner's recovery metric.
const RecoveryMetric = "recovery"

// RecoveryField describes the recovery metric, which only the tuner reads:
// it is not a field of Metrics.
var RecoveryField = engine.MetricField{Name: RecoveryMetric, Unit: "s", Display: "ms", Scale: 1000,
	Doc: "Time after the scenario's end until the technique's error and delay are back within 10% of their steady state and stay there (see RunPhases); tuning over a scenario only."}

// TuneRecovery is a candidate's recovery time over the motion mix: the
// longest of its runs. When a run did not recover, Recovered is false and
// Time is how long it was watched after the scenario's end (the run's rest,
// at most 30 s): the recovery takes longer than that.
type TuneRecovery struct {
	Time      float64 `json:"time"` // s
	Recovered bool    `json:"recovered"`
}

// hasRecoveryConstraint tells whether the spec bounds the recovery time.
func (spec *TuneSpec) hasRecoveryConstraint() bool {
	for _, c := range spec.Constraints {
		if c.Metric == RecoveryMetric {
			return true
		}
	}
	return false
}

// validateRecovery checks that constraint i, on recovery, has a scenario
// to recover from in base.
func validateRecovery(i int, base *engine.Settings) error {
	field := "constraints[" + strconv.Itoa(i) + "].metric"
	if base.Ideal {
		return &engine.FieldError{Field: field, Value: RecoveryMetric, Allowed: "a metric of lab sim: recovery needs the network on (ideal = false)"}
	}
	sc, err := engine.ScenarioOf(base)
	if err != nil {
		return err
	}
	if sc == nil {
		return &engine.FieldError{Field: field, Value: RecoveryMetric,
			Allowed: "a metric of lab sim: recovery needs a scenario to recover from (scenario = outage-2s, spike-300ms, ... or custom)"}
	}
	if _, _, ok := sc.Span(); !ok {
		return &engine.FieldError{Field: field, Value: RecoveryMetric,
			Allowed: "a metric of lab sim: recovery needs a scenario that disturbs the link, not only set lines"}
	}
	return nil
}

// recoveryOf reads technique 0's recovery from a RunPhases result of s.
func recoveryOf(res *engine.Result, s *engine.Settings) TuneRecovery {
	if len(res.Techniques) == 0 || res.Techniques[0].Phases == nil || res.Scenario == nil {
		return TuneRecovery{Recovered: true}
	}
	ph := res.Techniques[0].Phases
	if ph.Recovered {
		return TuneRecovery{Time: ph.Recovery, Recovered: true}
	}
	return TuneRecovery{Time: max(0, min(engine.RecoveryHorizon, s.Duration-res.Scenario.End))}
}

// worstRecovery combines the recoveries of a candidate's runs.
func worstRecovery(rs []TuneRecovery) TuneRecovery {
	w := TuneRecovery{Recovered: true}
	for _, r := range rs {
		w.Time = max(w.Time, r.Time)
		w.Recovered = w.Recovered && r.Recovered
	}
	return w
}
