package report

import (
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	"interplab/cmd/lab/internal/export"
	"interplab/cmd/lab/internal/store"
	"interplab/cmd/lab/internal/traceio"
	"interplab/engine"
	"interplab/engine/netsim"
	"interplab/engine/study"
)

// Metrics prints one row per metric and one column per technique,
// in the units a designer reads, marking the best value of each row.
func Metrics(w io.Writer, res engine.Result) error {
	s := res.Settings
	fmt.Fprintf(w, "%d entities, %g s at %g Hz send / %g Hz render, seed %d, motion %s\n\n",
		s.Entities, s.Duration, s.SendRate, s.RenderRate, s.Seed, s.Motion)
	return MetricsTable(w, res)
}

// MetricsTable is Metrics without its first line, which describes a
// synthetic run's scenario.
func MetricsTable(w io.Writer, res engine.Result) error {
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
		// Every metric is best at 0. Only the added latency can go below
		// it (a display that leads the truth): overshoot, never best. The
		// underrun of a technique that draws ahead by design is 100% and
		// never ranked either (marked †), nor is idle, which is no fault.
		unranked := func(k int) bool {
			return f.Name == "idle" || f.Name == "addedLatency" && values[k][i] < 0 ||
				f.Name == "underrun" && engine.UnderrunByDesign(res.Techniques[k].Name)
		}
		best, ranked, worst := -1, 0, 0.0
		for k := range values {
			if unranked(k) {
				continue
			}
			ranked++
			worst = max(worst, math.Abs(values[k][i]))
			if best < 0 || math.Abs(values[k][i]) < math.Abs(values[best][i]) {
				best = k
			}
		}
		if best >= 0 && math.Abs(values[best][i]) == worst {
			best = -1 // a tie for all is no news
		}
		for k := range values {
			mark := " "
			switch {
			case f.Name == "underrun" && unranked(k):
				mark = "†"
			case k == best && ranked > 1:
				mark = "*"
			}
			fmt.Fprintf(tw, "%s%s\t", Number(values[k][i]*f.Scale), mark)
		}
		fmt.Fprintln(tw)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, t := range res.Techniques {
		if engine.UnderrunByDesign(t.Name) {
			_, err := fmt.Fprintln(w, "† epic and epicfix draw ahead of their newest packet by design: their underrun is always 100%; their starved figure is frozen.")
			return err
		}
	}
	return nil
}

// Sweep prints the metric over the grid in display units.
func Sweep(w io.Writer, spec study.SweepSpec, points []study.SweepPoint, mi int) error {
	s, f := spec.Base, engine.MetricFields[mi]
	fmt.Fprintf(w, "%s, %s%s: %d entities × %g s, seed %d, motion %s\n\n",
		spec.Technique, f.Name, unit(f.Display), s.Entities, s.Duration, s.Seed, s.Motion)
	px, _ := engine.Lookup(spec.X.Name)
	xs := spec.X.Values()
	cell := func(p study.SweepPoint) string {
		if p.Err != "" {
			return "-"
		}
		return Number(p.Metrics.Values(nil)[mi] * f.Scale)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	if spec.Y == nil {
		fmt.Fprintf(tw, "%s%s\t%s%s\t\n", px.Name, unit(px.Display), f.Name, unit(f.Display))
		for _, p := range points {
			fmt.Fprintf(tw, "%s\t%s\t\n", value(px, p.X), cell(p))
		}
	} else {
		py, _ := engine.Lookup(spec.Y.Name)
		fmt.Fprintf(tw, "%s%s \\ %s%s\t", py.Name, unit(py.Display), px.Name, unit(px.Display))
		for _, x := range xs {
			fmt.Fprintf(tw, "%s\t", value(px, x))
		}
		fmt.Fprintln(tw)
		for k, p := range points {
			if p.I == 0 {
				fmt.Fprintf(tw, "%s\t", value(py, p.Y))
			}
			fmt.Fprintf(tw, "%s\t", cell(p))
			if k%len(xs) == len(xs)-1 {
				fmt.Fprintln(tw)
			}
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, p := range points {
		if p.Err != "" {
			at := px.Name + "=" + px.Format(p.X)
			if spec.Y != nil {
				py, _ := engine.Lookup(spec.Y.Name)
				at += " " + py.Name + "=" + py.Format(p.Y)
			}
			fmt.Fprintf(w, "%s: %s\n", at, p.Err)
		}
	}
	return nil
}

// Trace prints what the recorded trace tr, called name and read from a
// file in format, measures: its size and top speed, the network derived
// from it, and those settings as -set flags and as a preset file.
func Trace(w io.Writer, name, format string, tr *engine.Trace) error {
	s, set := traceio.Settings(tr, engine.Defaults())
	e := tr.Network()
	fmt.Fprintf(w, "%s (%s): %d packets, %d entities, %s s; top recorded speed %s m/s\n",
		name, format, len(tr.Packets), tr.Entities, Short(tr.Span()), Short(tr.MaxSpeed()))
	fmt.Fprintf(w, "measured: %d sends, %d delivered, %d delays, %d loss runs",
		e.Sends, e.Delivered, e.Delays, e.LossRuns)
	if e.JitterDist != "" {
		fmt.Fprintf(w, "; jitter fit (Kolmogorov–Smirnov distance):")
		for i, d := range netsim.JitterDists {
			fmt.Fprintf(w, " %s %.3f", d, e.DistFit[i])
		}
	}
	fmt.Fprintf(w, "\n\nderived settings, as flags for lab sim or lab trace sim:\n")
	var flags []string
	for _, n := range set {
		flags = append(flags, "-set "+n+"="+s.Text(n))
	}
	fmt.Fprintf(w, "  %s\n\nas a preset file (presets/%s.json):\n", strings.Join(flags, " \\\n  "), name)
	_, err := w.Write(export.PresetFile(name, s, set))
	return err
}

// Traces writes the list of traces as lab trace ls prints it: one line
// each, with its format, size, span and when it was stored.
func Traces(w io.Writer, list []store.TraceInfo) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "name\tformat\tpackets\tentities\tspan (s)\tcreated")
	for _, t := range list {
		created := "built in"
		if !t.Sample {
			created = t.Created.Local().Format("2006-01-02 15:04")
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\t%s\n", t.Name, t.Format, t.Packets, t.Entities, Short(t.Span), created)
	}
	return tw.Flush()
}

// Phases prints, after a run through a scenario, each technique's error
// and added latency before, during and after the scenario, its snaps during
// and after it, its underruns during it, and its recovery time. It prints nothing for a run
// without a scenario.
func Phases(w io.Writer, res engine.Result) error {
	sc := res.Scenario
	if sc == nil {
		return nil
	}
	title := sc.Title
	if title == "" {
		title = sc.Name
	}
	fmt.Fprintf(w, "\nscenario %s (%s): conditions change from %s s to %s s\n\n", sc.Name, title, Number(sc.Start), Number(sc.End))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "technique\terrRMS cm before\tduring\tafter\taddedLatency ms before\tduring\tafter\tsnaps during\tafter\tunderrun % during\trecovery ms\t\n")
	for _, t := range res.Techniques {
		p := t.Phases
		if p == nil {
			continue
		}
		rec := "not recovered"
		if p.Recovered {
			rec = Number(p.Recovery * 1000)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t%d\t%s\t%s\t\n", t.Name,
			Number(p.Before.ErrRMS*100), Number(p.During.ErrRMS*100), Number(p.After.ErrRMS*100),
			Number(p.Before.AddedLatency*1000), Number(p.During.AddedLatency*1000), Number(p.After.AddedLatency*1000),
			p.During.Snaps, p.After.Snaps, Number(p.During.Underrun*100), rec)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintln(w, "\nrecovery: time after the scenario's end until error and delay stay within 10% (+5 mm, +5 ms)\n"+
		"of the same run without the scenario, in 1 s windows every 0.1 s, up to 30 s.")
	return err
}

// RecoveryText is a tuning's recovery time in ms, or "> T" when a run did
// not recover within the T ms it was watched.
func RecoveryText(r study.TuneRecovery) string {
	if !r.Recovered {
		return "> " + Number(r.Time*study.RecoveryField.Scale)
	}
	return Number(r.Time * study.RecoveryField.Scale)
}
