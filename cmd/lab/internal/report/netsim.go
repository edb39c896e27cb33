package report

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"interplab/engine"
)

// NetSimDiff prints, for the same settings run over the lab's own network
// (lab) and over a game engine's simulator playing the network's export
// (sim, netSim name), one row per metric and, per technique, the lab's
// value, the simulator's and the difference sim − lab, in the units a
// designer reads.
func NetSimDiff(w io.Writer, name string, lab, sim engine.Result) error {
	s := lab.Settings
	title := map[string]string{"mirror": "Mirror's LatencySimulation", "unity": "Unity Transport 2.3-2.5's network simulator",
		"unity-2.6": "Unity Transport 2.6+'s network simulator", "unreal": "Unreal's packet simulation"}[name]
	engineName, _, _ := strings.Cut(name, "-") // unity-2.6 plays the unity-network export
	fmt.Fprintf(w, "netSim %s: the techniques over %s playing the %s-network export, against the lab's own network\n",
		name, title, engineName)
	fmt.Fprintf(w, "%d entities, %g s at %g Hz send / %g Hz render, seed %d, motion %s, scenario %s\n\n",
		s.Entities, s.Duration, s.SendRate, s.RenderRate, s.Seed, s.Motion, s.Scenario)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "metric\tunit\t")
	for _, t := range lab.Techniques {
		fmt.Fprintf(tw, "%s lab\t%s\tΔ\t", t.Name, name)
	}
	fmt.Fprintln(tw)
	a := make([][]float64, len(lab.Techniques))
	b := make([][]float64, len(lab.Techniques))
	for k := range lab.Techniques {
		a[k] = lab.Techniques[k].Metrics.Values(nil)
		b[k] = sim.Techniques[k].Metrics.Values(nil)
	}
	for i, f := range engine.MetricFields {
		fmt.Fprintf(tw, "%s\t%s\t", f.Name, f.Display)
		for k := range a {
			d := Value(b[k][i]-a[k][i], f)
			if b[k][i] >= a[k][i] {
				d = "+" + d
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t", Value(a[k][i], f), Value(b[k][i], f), d)
		}
		fmt.Fprintln(tw)
	}
	return tw.Flush()
}
