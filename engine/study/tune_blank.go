package study

import "interplab/engine"

// A blank display. Metrics count only the frames a technique drew something
// (Mode Empty is left out), so a candidate that draws nothing at all has no
// error, no latency, no snaps: by the metrics alone it is perfect, and a
// tuner that trusted them would recommend it (geckos.io with an
// interpolationBuffer below its send interval never finds two snapshots
// around its render time). Tune therefore bounds every candidate's blank
// share, always, whatever the designer's constraints.

// BlankMetric is the name of the tuner's blank share.
const BlankMetric = "blank"

// BlankField describes the blank metric, which only the tuner reads: it is
// not a field of Metrics.
var BlankField = engine.MetricField{Name: BlankMetric, Unit: "fraction", Display: "%", Scale: 100,
	Doc: "Share of entity-frames the technique drew nothing (before its first pose, or never): every tuning bounds it at 50%, so a setting that shows no entity cannot look perfect."}

// maxBlank is the blank share above which a candidate never meets the
// bounds: a technique that waits before its first pose (the buffer's delay,
// a second or so of a run) is far below it.
const maxBlank = 0.5

// blankShare is the share of the entity-frames of runs of s that drew
// nothing, given the frames m counted over those runs; in [0, 1].
func blankShare(m engine.Metrics, s *engine.Settings, runs int) float64 {
	want := float64(runs) * float64(s.Entities) * s.Duration * s.RenderRate
	if want <= 0 {
		return 0
	}
	return min(1, max(0, 1-float64(m.Frames)/want))
}
