package main

// This file is built both natively and for GOOS=js: the native test
// (golden_test.go) runs the cases on the engine directly and pins the result
// in testdata/golden.txt; the WebAssembly test (lab_js_test.go) runs the same
// cases through the interplab JavaScript API and must produce the same file,
// bit for bit.

import (
	"fmt"
	"hash/fnv"
	"math"
	"strings"

	"interplab/engine"
)

const goldenFile = "testdata/golden.txt"

// goldenCases are runs that exercise every technique, jitter distribution,
// loss model and clock drift, with regular and irregular frame steps.
var goldenCases = []struct {
	name    string
	set     map[string]string // vocabulary name → text, over the defaults
	seconds float64           // simulated time to run
	dts     []float64         // step sizes, repeated
}{
	{
		name:    "defaults",
		seconds: 10,
		dts:     []float64{1.0 / 60},
	},
	{
		name: "wifi-adaptive",
		set: map[string]string{
			"jitter": "30ms", "jitterDist": "pareto", "loss": "2%", "duplicate": "1%",
			"adaptive": "true", "margin": "20ms", "clockDrift": "500ppm",
			"entities": "20", "motion": "mix", "seed": "7",
		},
		seconds: 15,
		dts:     []float64{0.013, 0.021, 1.0 / 60, 0.05, 0.004},
	},
	{
		name: "4g-burst",
		set: map[string]string{
			"latency": "80ms", "jitter": "40ms", "jitterDist": "lognormal",
			"loss": "10%", "lossModel": "burst", "burstLength": "5",
			"rotation": "euler", "speedClamp": "false", "sendRate": "10", "renderRate": "144",
			"entities": "8", "motion": "turn", "seed": "42", "round": "4",
		},
		seconds: 12,
		dts:     []float64{1.0 / 30},
	},
	{
		name: "crowd",
		set: map[string]string{
			"jitterDist": "uniform", "jitter": "20ms", "entities": "300", "seed": "3",
			"techniques": "epicfix,snap,hermite", "calcAhead": "70ms", "displayBehind": "100ms",
		},
		seconds: 3,
		dts:     []float64{1.0 / 60},
	},
}

// goldenSettings returns the settings of case i.
func goldenSettings(i int) (engine.Settings, error) {
	s := engine.Defaults()
	for name, text := range goldenCases[i].set {
		if err := s.SetText(name, text); err != nil {
			return s, fmt.Errorf("case %s: %w", goldenCases[i].name, err)
		}
	}
	return s, nil
}

// goldenRun is what a case produced, as the report compares it.
type goldenRun struct {
	techniques []string
	metrics    []float64 // per technique, Metrics.Values
	poses      []float32 // the last frame's poses
	frames     int
	time       float64
}

// report writes r as text: every number in hexadecimal bits, so that the
// comparison is exact, and in decimal, so that a reader can follow it.
func (r goldenRun) report(b *strings.Builder, name string) {
	fmt.Fprintf(b, "case %s frames %d time %x (%g)\n", name, r.frames, math.Float64bits(r.time), r.time)
	nf := len(engine.MetricFields)
	for i, t := range r.techniques {
		for j, f := range engine.MetricFields {
			v := r.metrics[i*nf+j]
			fmt.Fprintf(b, "  %s %s %016x (%g)\n", t, f.Name, math.Float64bits(v), v)
		}
	}
	h := fnv.New64a()
	var buf [4]byte
	for _, p := range r.poses {
		u := math.Float32bits(p)
		buf[0], buf[1], buf[2], buf[3] = byte(u), byte(u>>8), byte(u>>16), byte(u>>24)
		h.Write(buf[:])
	}
	fmt.Fprintf(b, "  poses %d floats fnv64a %016x\n", len(r.poses), h.Sum64())
}

// stepCase advances a run through case i's step sequence, calling step for
// each dt, until the case's simulated time is reached.
func stepCase(i int, step func(dt float64)) {
	c := goldenCases[i]
	var t float64
	for k := 0; t < c.seconds; k++ {
		dt := c.dts[k%len(c.dts)]
		step(dt)
		t += dt
	}
}

// firstDiff returns the first line where got and want differ, with both.
func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < len(g) || i < len(w); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return fmt.Sprintf("line %d:\n got  %s\n want %s", i+1, gl, wl)
		}
	}
	return "(no difference)"
}
