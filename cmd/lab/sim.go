package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"text/tabwriter"

	"interplab/engine"
)

const simUsage = `usage: lab sim [-preset NAME] [-set name=value ...] [-json]

Runs the simulation headless for the settings' duration and prints every
technique's metrics: a table with the best value of each row marked *, or
JSON with -json. The best value is the one nearest 0. Settings start from the preset (or the engine defaults)
and each -set overrides one parameter by its vocabulary name.
`

// runSim is `lab sim`.
func runSim(args []string, stdout, stderr io.Writer) int {
	fs := labFlags("sim", simUsage+"\nflags:\n", stderr)
	settings := settingsFlags(fs)
	asJSON := fs.Bool("json", false, "print JSON instead of a table")
	if code, ok := parseLabFlags(fs, args, 0, stderr); !ok {
		return code
	}
	s, err := settings()
	if err != nil {
		fmt.Fprintf(stderr, "lab sim: %v\n", err)
		return 2
	}
	res, err := engine.Run(s)
	if err != nil {
		fmt.Fprintf(stderr, "lab sim: %v\n", err)
		return 1
	}
	if *asJSON {
		if err := printJSON(stdout, res); err != nil {
			fmt.Fprintf(stderr, "lab sim: %v\n", err)
			return 1
		}
		return 0
	}
	if err := writeMetricsTable(stdout, res); err != nil {
		fmt.Fprintf(stderr, "lab sim: %v\n", err)
		return 1
	}
	return 0
}

// writeMetricsTable prints one row per metric and one column per technique,
// in the units a designer reads, marking the best value of each row.
func writeMetricsTable(w io.Writer, res engine.Result) error {
	s := res.Settings
	fmt.Fprintf(w, "%d entities, %g s at %g Hz send / %g Hz render, seed %d, motion %s\n\n",
		s.Entities, s.Duration, s.SendRate, s.RenderRate, s.Seed, s.Motion)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "metric\tunit\t")
	for _, t := range res.Techniques {
		fmt.Fprintf(tw, "%s\t", t.Name)
	}
	fmt.Fprintln(tw)
	values := make([][]float64, len(res.Techniques))
	for k, t := range res.Techniques {
		values[k] = t.Metrics.Values(nil)
	}
	for i, f := range engine.MetricFields {
		fmt.Fprintf(tw, "%s\t%s\t", f.Name, f.Display)
		// Every metric is best at 0; only the added latency can go below
		// it (a display that leads the truth), so compare magnitudes.
		best := 0
		for k := range values {
			if math.Abs(values[k][i]) < math.Abs(values[best][i]) {
				best = k
			}
		}
		for k := range values {
			mark := " "
			if k == best && len(values) > 1 {
				mark = "*"
			}
			fmt.Fprintf(tw, "%s%s\t", formatMetric(values[k][i]*f.Scale), mark)
		}
		fmt.Fprintln(tw)
	}
	return tw.Flush()
}

// formatMetric shows three significant digits, whole numbers as they are.
func formatMetric(v float64) string {
	if v == float64(int64(v)) && v < 1e9 && v > -1e9 {
		return strconv.FormatInt(int64(v), 10)
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

// printJSON writes v to w as indented JSON, as every -json flag does.
func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
