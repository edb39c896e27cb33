package report

import (
	"interplab/engine"
	"interplab/engine/study"
)

// SweepJSON is the output of lab sweep -json.
type SweepJSON struct {
	Technique string             `json:"technique"`
	Metric    string             `json:"metric"`
	X         study.Axis         `json:"x"`
	XValues   []float64          `json:"xValues"`
	Y         *study.Axis        `json:"y,omitempty"`
	YValues   []float64          `json:"yValues,omitempty"`
	Base      engine.Settings    `json:"base"`
	Points    []study.SweepPoint `json:"points"` // in grid order: x varies fastest
}

// NewSweepJSON is the JSON of the sweep spec's points, metric the one the
// table would print.
func NewSweepJSON(spec study.SweepSpec, metric string, points []study.SweepPoint) SweepJSON {
	out := SweepJSON{Technique: spec.Technique, Metric: metric, X: spec.X, XValues: spec.X.Values(),
		Y: spec.Y, Base: spec.Base, Points: points}
	if spec.Y != nil {
		out.YValues = spec.Y.Values()
	}
	return out
}

// TuneJSON is the output of lab tune -json.
type TuneJSON struct {
	Spec    study.TuneSpec   `json:"spec"`
	Changes []engine.Change  `json:"changes"` // the recommendation's settings that differ from the base; empty when nothing is recommended
	Result  study.TuneResult `json:"result"`
}
