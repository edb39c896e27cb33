package netsim

import (
	"math"
	"strconv"
	"strings"

	"interplab/engine/param"
)

// UpgradeScenarioText rewrites a scenario text written when a plain number
// in it was in the stored unit (seconds for latency, jitter and a spike's or
// hiccup's delay, a fraction for loss, bit/s for bandwidth) into one that
// reads the same now that a plain number is in the display unit (ms, %,
// kbit/s): each such plain number gets its old unit written out
// (latency=0.04 → latency=0.04s, loss=0.02 → loss=2%, bandwidth=256000 →
// bandwidth=256000bit/s). Values with a unit, the timeline's times (at, for,
// until, every: seconds then and now), comments and layout are kept as they
// are; a text with nothing to rewrite comes back unchanged. Saved sessions
// and custom presets go through it once, when the store is upgraded.
func UpgradeScenarioText(text string) string {
	lines := strings.Split(text, "\n")
	for i, line := range lines {
		body, comment, hasComment := strings.Cut(line, "#")
		fields := strings.Fields(body)
		changed := false
		for j, f := range fields {
			key, val, ok := strings.Cut(f, "=")
			if !ok {
				continue
			}
			v, err := strconv.ParseFloat(val, 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				continue // has a unit, or is not a number: read as it is
			}
			var unit string
			switch key {
			case "latency", "jitter", "delay":
				unit = "s"
			case "bandwidth":
				unit = "bit/s"
			case "loss":
				val, unit = param.FormatIn(v, 100), "%"
			default:
				continue
			}
			fields[j] = key + "=" + val + unit
			changed = true
		}
		if !changed {
			continue
		}
		lead := body[:len(body)-len(strings.TrimLeft(body, " \t"))]
		line = lead + strings.Join(fields, " ")
		if hasComment {
			line += "  #" + comment
		}
		lines[i] = line
	}
	return strings.Join(lines, "\n")
}
