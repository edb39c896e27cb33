package main

// Built natively and for GOOS=js, like golden_cases_test.go: the native test
// (replay_golden_test.go) replays the cases with engine.RunTrace and pins the
// metrics in testdata/replay.txt; the WebAssembly test (replay_js_test.go)
// replays the same traces through interplab.createReplay and must produce the
// same file, bit for bit.

import (
	"fmt"
	"math"
	"strings"

	"interplab/engine"
)

const replayGoldenFile = "testdata/replay.txt"

// replayCases are traces and the settings to replay them with. A trace is
// engine.SyntheticTrace of its record settings: "sample-4g" is made as the
// built-in sample of that name is (the 4g preset's network, two entities,
// mix motion, seed 5, 15 s; see cmd/lab TestSampleTraces), without the
// rounding of its CSV file.
var replayCases = []struct {
	name   string
	record map[string]string // the trace's settings over the defaults
	replay map[string]string // the replay's settings over the defaults
}{
	{
		name: "sample-4g",
		record: map[string]string{
			"latency": "30ms", "jitter": "15ms", "jitterDist": "lognormal",
			"loss": "2%", "lossModel": "burst", "burstLength": "4",
			"entities": "2", "seed": "5", "motion": "mix", "duration": "15",
		},
	},
	{
		name: "wifi-dups-adaptive",
		record: map[string]string{
			"latency": "20ms", "jitter": "30ms", "jitterDist": "pareto", "loss": "5%", "duplicate": "5%",
			"entities": "5", "seed": "9", "motion": "turn", "duration": "8", "sendRate": "30",
		},
		replay: map[string]string{
			"adaptive": "true", "margin": "20ms", "clockDrift": "500ppm", "renderRate": "144",
			"techniques": "epic,epicfix,snap,buffer,hermite", "seed": "3",
		},
	},
}

// replayCase returns case i's trace and replay settings.
func replayCase(i int) (*engine.Trace, engine.Settings, error) {
	c := replayCases[i]
	rec, set := engine.Defaults(), engine.Defaults()
	for _, kv := range []struct {
		s *engine.Settings
		m map[string]string
	}{{&rec, c.record}, {&set, c.replay}} {
		for name, text := range kv.m {
			if err := kv.s.SetText(name, text); err != nil {
				return nil, set, fmt.Errorf("case %s: %w", c.name, err)
			}
		}
	}
	tr, err := engine.SyntheticTrace(rec)
	if err != nil {
		return nil, set, fmt.Errorf("case %s: %w", c.name, err)
	}
	tr.Name = c.name
	return tr, set, nil
}

// replayReport writes a replay's metrics as text, every number in
// hexadecimal bits and in decimal.
func replayReport(b *strings.Builder, name string, frames int, techniques []string, metrics []float64) {
	fmt.Fprintf(b, "replay %s frames %d\n", name, frames)
	nf := len(engine.MetricFields)
	for i, t := range techniques {
		for j, f := range engine.MetricFields {
			v := metrics[i*nf+j]
			fmt.Fprintf(b, "  %s %s %016x (%g)\n", t, f.Name, math.Float64bits(v), v)
		}
	}
}
