package report

import (
	"fmt"
	"io"
	"reflect"
	"strings"
	"text/tabwriter"

	"interplab/engine"
	"interplab/engine/study"
)

// Quantity is a metric's value in its display unit, with the unit:
// "254 ms", "2.5 %", "12" for a count.
func Quantity(v float64, f engine.MetricField) string {
	if f.Display == "" {
		return Number(v * f.Scale)
	}
	return Number(v*f.Scale) + " " + f.Display
}

// Breach says what one broken bound is, in the metric's display unit:
// "addedLatency 254 ms > 120 ms bound, by 134 ms".
func Breach(b study.TuneBreach) string {
	f, ok := study.TuneMetric(b.Metric)
	if !ok {
		f = engine.MetricField{Name: b.Metric, Scale: 1}
	}
	if b.Beyond {
		return fmt.Sprintf("%s over %s (not recovered) > %s bound", b.Metric, Quantity(b.Value, f), Quantity(b.Max, f))
	}
	return fmt.Sprintf("%s %s > %s bound, by %s", b.Metric, Quantity(b.Value, f), Quantity(b.Max, f), Quantity(b.Over, f))
}

// Breaches says what a candidate breaks: each bound, in units, "; " apart.
func Breaches(bs []study.TuneBreach) string {
	parts := make([]string, len(bs))
	for i, b := range bs {
		parts[i] = Breach(b)
	}
	return strings.Join(parts, "; ")
}

// SettingsChanged lists what candidate settings s change from base, as
// name=value.
func SettingsChanged(base, s engine.Settings) string {
	var set []string
	for _, ch := range engine.Diff(base, s) {
		set = append(set, ch.Name+"="+ch.Value)
	}
	if len(set) == 0 {
		return "(none: your settings)"
	}
	return strings.Join(set, " ")
}

// SeedSet names a tuning's run seeds: "run seeds 2–6", or listed when
// they do not run on.
func SeedSet(seeds []int) string {
	if len(seeds) == 0 {
		return "the search's run seed"
	}
	runs := true
	for i := 1; i < len(seeds); i++ {
		runs = runs && seeds[i] == seeds[i-1]+1
	}
	if runs && len(seeds) > 2 {
		return fmt.Sprintf("run seeds %d–%d", seeds[0], seeds[len(seeds)-1])
	}
	parts := make([]string, len(seeds))
	for i, s := range seeds {
		parts[i] = fmt.Sprint(s)
	}
	return "run seeds " + strings.Join(parts, ", ")
}

// SeedGain says how candidate c of res fared against the base over the
// seed set: "cost 12.5 against your settings' 33.4 over run seeds 2–6,
// less on 5 of 5 seeds, by 20.9 ± 1.14 (mean ± standard error)"; without
// the gain when the base breaks the constraints (c then meets them, which
// is what counts).
func SeedGain(res *study.TuneResult, c study.Candidate) string {
	t := fmt.Sprintf("cost %s against your settings' %s over %s", Number(c.Cost), Number(res.Base.Cost), SeedSet(res.Seeds))
	if cf := c.Confirm; cf != nil && res.Base.Feasible {
		t += fmt.Sprintf(", less on %d of %d seeds, by %s ± %s (mean ± standard error)", cf.Wins, len(res.Seeds), Number(cf.Gain), Number(cf.GainSE))
	}
	return t
}

// Worse says which headline metrics a finalist worsens beyond noise:
// "errAligned 0.813 → 1.13 cm, underrun 3.28 → 3.76 %"; "" for none.
func Worse(ws []study.TuneWorse) string {
	parts := make([]string, len(ws))
	for i, w := range ws {
		f, ok := study.TuneMetric(w.Metric)
		if !ok {
			f = engine.MetricField{Name: w.Metric, Scale: 1}
		}
		parts[i] = w.Metric + " " + Number(w.Base*f.Scale) + " → " + Quantity(w.Value, f)
	}
	return strings.Join(parts, ", ")
}

// NoGain says why nothing is recommended over a base that meets the
// constraints: the best of the search against the base over the seed set,
// and the rule it fails (see study's tune_seeds.go).
func NoGain(res *study.TuneResult) string {
	c, ok := res.Contender()
	if !ok || c.Confirm == nil {
		return fmt.Sprintf("nothing tried beats them (cost %s)", Number(res.Base.Cost))
	}
	t := "no meaningful improvement: the best of the search, " + SeedGain(res, c)
	if w := Worse(c.Confirm.Worse); w != "" {
		t += "; worse on " + w
	}
	if c.Confirm.Verdict == "gain within noise" {
		t += fmt.Sprintf(" (a gain within %d standard errors is noise)", study.TuneGainSE)
	}
	return t
}

// Tune prints a tuning's outcome: the recommendation as -set lines (only
// when there is one), or why there is none (nothing beats the starting
// settings; or nothing meets the constraints, with the closest candidates
// and what each breaks, in units); then the metrics against the base's, and
// the Pareto front. changes are the recommendation's settings that differ
// from the base (nil when nothing is recommended).
func Tune(w io.Writer, spec study.TuneSpec, res study.TuneResult, changes []engine.Change) error {
	s := spec.Base
	motions := strings.Join(spec.Motions, ",")
	if motions == "" {
		motions = s.Motion
	}
	fields := engine.MetricFields
	if p := spec.Population; p != nil {
		fields = study.PopulationMetricFields
		fmt.Fprintf(w, "%s over a population of %d entities × %d rounds of %g s, seed %d: %d candidates, seed %d\n",
			spec.Technique, p.Entities, p.Rounds, p.Round, p.Seed, len(res.Candidates), spec.Seed)
	} else {
		fmt.Fprintf(w, "%s on %d entities × %g s, motions %s: %d candidates, seed %d\n",
			spec.Technique, s.Entities, s.Duration, motions, len(res.Candidates), spec.Seed)
		fmt.Fprintf(w, "network: mean one-way transit %s ms (extraLatency is |addedLatency| less it)\n", Number(res.Transit*1000))
	}
	if len(spec.Constraints) > 0 {
		var bounds []string
		for _, c := range spec.Constraints {
			f, ok := study.TuneMetric(c.Metric)
			if !ok {
				f = engine.MetricField{Name: c.Metric, Scale: 1}
			}
			bounds = append(bounds, c.Metric+" ≤ "+Quantity(c.Max, f))
		}
		fmt.Fprintf(w, "constraints: %s\n", strings.Join(bounds, ", "))
	}
	fmt.Fprintln(w)
	// When the base breaks a bound, that comes first.
	if len(res.Base.Breaks) > 0 {
		fmt.Fprintf(w, "YOUR SETTINGS BREAK THE CONSTRAINTS: %s (cost %s over %s).\n", Breaches(res.Base.Breaks), Number(res.Base.Cost), SeedSet(res.Seeds))
	}
	switch {
	case res.Recommended && !res.Base.Feasible:
		fmt.Fprintf(w, "the cheapest setting found that meets them: %s\n", SeedGain(&res, res.Best))
		for _, c := range changes {
			fmt.Fprintf(w, "  -set %s=%s\n", c.Name, c.Value)
		}
	case res.Recommended:
		fmt.Fprintf(w, "recommended: %s\n", SeedGain(&res, res.Best))
		for _, c := range changes {
			fmt.Fprintf(w, "  -set %s=%s\n", c.Name, c.Value)
		}
	case res.Feasible:
		fmt.Fprintf(w, "keep your settings, %s.\n", NoGain(&res))
	default:
		fmt.Fprintf(w, "NOTHING MEETS THE CONSTRAINTS: nothing is recommended. The closest of %d candidates, over %s:\n", len(res.Candidates), SeedSet(res.Seeds))
		for i, c := range res.Closest {
			fmt.Fprintf(w, "  %d. %s; cost %s\n     %s\n", i+1, Breaches(c.Breaks), Number(c.Cost), SettingsChanged(s, c.Settings))
		}
		fmt.Fprintln(w, "Loosen the constraints or raise -budget.")
	}
	fmt.Fprintln(w)

	if err := tuneMetrics(w, spec, &res, fields); err != nil {
		return err
	}
	return tuneFront(w, spec, &res)
}

// tuneMetrics prints the metrics of the base and of the recommendation, if
// any, in display units.
func tuneMetrics(w io.Writer, spec study.TuneSpec, res *study.TuneResult, fields []engine.MetricField) error {
	rec := res.Recommended
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	if rec && !res.Base.Feasible {
		fmt.Fprint(tw, "metric\tunit\tstart\tmeets them\t\n")
	} else if rec {
		fmt.Fprint(tw, "metric\tunit\tstart\trecommended\t\n")
	} else {
		fmt.Fprint(tw, "metric\tunit\tstart\t\n")
	}
	row := func(name, unit, base, best string) {
		if rec {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t\n", name, unit, base, best)
		} else {
			fmt.Fprintf(tw, "%s\t%s\t%s\t\n", name, unit, base)
		}
	}
	bv, rv := res.Base.Metrics.Values(nil), res.Best.Metrics.Values(nil)
	if spec.Population != nil {
		if res.Base.Population != nil {
			bv = res.Base.Population.Values(nil)
		}
		if res.Best.Population != nil {
			rv = res.Best.Population.Values(nil)
		}
	}
	for i, f := range fields {
		row(f.Name, f.Display, Number(bv[i]*f.Scale), Number(rv[i]*f.Scale))
		if f.Name == "addedLatency" && spec.Population == nil {
			x := study.ExtraLatencyField
			row(x.Name, x.Display, Number(res.ExtraLatency(res.Base.Metrics)*x.Scale), Number(res.ExtraLatency(res.Best.Metrics)*x.Scale))
		}
	}
	if res.Base.Recovery != nil {
		best := ""
		if res.Best.Recovery != nil {
			best = RecoveryText(*res.Best.Recovery)
		}
		row(study.RecoveryMetric, study.RecoveryField.Display, RecoveryText(*res.Base.Recovery), best)
	}
	row("cost", "", Number(res.Base.Cost), Number(res.Best.Cost))
	return tw.Flush()
}

// tuneFront prints the Pareto front of the feasible candidates, the
// recommendation marked *.
func tuneFront(w io.Writer, spec study.TuneSpec, res *study.TuneResult) error {
	fmt.Fprintf(w, "\nPareto front of the feasible candidates (* recommended):\n")
	if len(res.Pareto) == 0 {
		fmt.Fprintln(w, "  none: no candidate is feasible")
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	if spec.Population != nil {
		fmt.Fprint(tw, "addedLatencyP90 (ms)\terrP95P95 (cm)\tcost\tsettings changed\t\n")
	} else {
		fmt.Fprint(tw, "addedLatency (ms)\terrAligned (cm)\tcost\tsettings changed\t\n")
	}
	row := func(c study.Candidate, mark string) {
		fmt.Fprintf(tw, "%s\t%s\t%s%s\t%s\t\n", Number(c.Metrics.AddedLatency*1000), Number(c.Metrics.ErrAligned*100),
			Number(c.Cost), mark, SettingsChanged(spec.Base, c.Settings))
	}
	marked := false
	for _, c := range res.Pareto {
		mark := ""
		if res.Recommended && reflect.DeepEqual(c.Settings, res.Best.Settings) {
			mark, marked = " *", true
		}
		row(c, mark)
	}
	if !marked && res.Recommended {
		// The cost also counts errP95, snaps and underrun, so the least
		// cost need not lie on this two-metric front: show it anyway.
		row(res.Best, " * (off the front)")
	}
	return tw.Flush()
}
