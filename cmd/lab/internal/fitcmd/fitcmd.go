// Package fitcmd is `lab fit`: fit the lab's network model to recorded
// traces (playtest captures, CSV or JSON lines files), print each fitted
// link with how well it fits and the techniques' figures on the capture
// against on the model, and summarise several as a population file.
package fitcmd

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"interplab/cmd/lab/internal/cli"
	"interplab/cmd/lab/internal/traceio"
	"interplab/engine"
	"interplab/engine/fit"
	"interplab/engine/study"
	"interplab/presets"
)

const usage = `usage: lab fit TRACE... [-entity N | -each-entity] [-format F] [-json | -scenario] [-compare=false]
               [-techniques a,b] [-population FILE [-name N]]

Fits the lab's link to each trace file (CSV, JSON lines or the seed
driver's lines; see lab trace import -h): latency and the jitter
distribution most likely among the lab's, loss and its burstiness,
reordering, duplicates, clock drift, the send rate, and the latency steps,
spikes and outages it went through as scenario text; with a goodness of fit
per part, and every technique replayed on the capture and on its fitted
model side by side. The latency includes the offset between the two
clocks: one-way timing cannot tell them apart.

-scenario prints only the scenario text (of the first trace). With
-population FILE and several traces (or -each-entity), one link per trace
(or per entity) is summarised as a population (the captures' spread, not their average) and written as a
population file that lab population, lab tune and the server take with
-population FILE.

flags:
`

// Report is what -json prints.
type Report struct {
	Traces     []TraceFit        `json:"traces"`
	Population *study.Population `json:"population,omitempty"`
}

// TraceFit is one trace's fit.
type TraceFit struct {
	File      string          `json:"file"`
	Link      *fit.Link       `json:"link"`
	Set       []string        `json:"set"` // the fitted link as -set flags
	Agreement []fit.Agreement `json:"agreement,omitempty"`
}

// Run is `lab fit`.
func Run(args []string, stdout, stderr io.Writer) int {
	c := cli.New("fit", usage, stdout, stderr)
	entity := c.Flags.Int("entity", 0, "fit the packets of entity `N`")
	each := c.Flags.Bool("each-entity", false, "fit every entity of each trace, one link each (a capture of many players)")
	format := c.Flags.String("format", "", "read the files as `format`: csv, jsonl or seed (default: detected)")
	asJSON := c.Flags.Bool("json", false, "print the fits as JSON")
	scen := c.Flags.Bool("scenario", false, "print only the fitted scenario text")
	compare := c.Flags.Bool("compare", true, "replay every technique on each capture and on its fitted model")
	techs := c.Flags.String("techniques", "", "compare these techniques, `a,b` (default: every one)")
	popFile := c.Flags.String("population", "", "write the traces' population to `FILE` (a population file)")
	popName := c.Flags.String("name", "", "the population's `name` (default: FILE's name)")
	files, code, ok := positional(c, args)
	if !ok {
		return code
	}
	if len(files) == 0 {
		return c.Usagef("want at least one TRACE file")
	}
	if *asJSON && *scen {
		return c.Usagef("-json and -scenario print different things: give one")
	}
	base := engine.Defaults()
	if *techs != "" {
		base.Techniques = strings.Split(*techs, ",")
		if err := base.Validate(); err != nil {
			return c.Bad(fmt.Errorf("-techniques: %w", err))
		}
	}
	var rep Report
	for _, file := range files {
		tr, _, err := traceio.ReadFile(file, *format, traceio.NameFrom(file))
		if err != nil {
			return c.Fail(err)
		}
		entities := []int{*entity}
		if *each {
			entities = entities[:0]
			for e := range tr.Entities {
				entities = append(entities, e)
			}
		}
		for _, e := range entities {
			l, err := fit.Fit(tr, fit.Options{Entity: e})
			if err != nil {
				return c.Fail(fmt.Errorf("%s: %w", file, err))
			}
			tf := TraceFit{File: file, Link: l, Set: SetFlags(l)}
			if *compare && !*scen {
				if tf.Agreement, err = fit.Compare(tr, l, base, 1); err != nil {
					return c.Fail(fmt.Errorf("%s: compare: %w", file, err))
				}
			}
			rep.Traces = append(rep.Traces, tf)
		}
	}
	if *scen {
		fmt.Fprint(stdout, rep.Traces[0].Link.ScenarioText)
		return 0
	}
	if *popFile != "" {
		p, err := writePopulation(*popFile, *popName, rep.Traces)
		if err != nil {
			return c.Fail(err)
		}
		rep.Population = &p
	}
	if *asJSON {
		return c.JSON(rep)
	}
	for i := range rep.Traces {
		WriteText(stdout, &rep.Traces[i])
	}
	if rep.Population != nil {
		fmt.Fprintf(stdout, "population of %d fitted links written to %s\n", len(rep.Traces), *popFile)
	}
	return 0
}

// positional parses args with flags anywhere and returns the arguments.
func positional(c *cli.Command, args []string) ([]string, int, bool) {
	var pos []string
	for {
		if err := c.Flags.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, 0, false
			}
			return nil, 2, false
		}
		if c.Flags.NArg() == 0 {
			return pos, 0, true
		}
		pos = append(pos, c.Flags.Arg(0))
		args = c.Flags.Args()[1:]
	}
}

// writePopulation summarises the fits as a population and writes it as a
// population file (see presets.ReadPopulationFile).
func writePopulation(file, name string, fits []TraceFit) (study.Population, error) {
	if len(fits) < 2 {
		return study.Population{}, errors.New("-population: want at least two links (traces, or entities with -each-entity) to show a spread")
	}
	links := make([]*fit.Link, len(fits))
	for i := range fits {
		links[i] = fits[i].Link
	}
	def, _ := presets.GetPopulation(presets.DefaultPopulation)
	p, err := fit.PopulationOf(links, def.Population)
	if err != nil {
		return p, err
	}
	if name == "" {
		name = strings.TrimSuffix(filepath.Base(file), ".json")
	}
	pp := presets.PopulationPreset{Name: name, Title: "Fitted: " + name, Doc: fit.PopulationDoc(len(links)), Population: p}
	return p, cli.WriteFile(file, func(w io.Writer) error { return presets.WritePopulation(w, pp) })
}

// SetFlags returns the fitted link as the -set flags lab sim, lab tune and
// the others take.
func SetFlags(l *fit.Link) []string {
	s := l.Settings(engine.Defaults())
	var out []string
	for _, name := range []string{"latency", "jitter", "jitterDist", "loss", "lossModel", "burstLength", "duplicate", "reorder", "clockDrift", "sendRate"} {
		p, _ := engine.Lookup(name)
		out = append(out, name+"="+p.Format(p.Get(&s)))
	}
	return out
}

// WriteText writes one trace's fit for a person.
func WriteText(w io.Writer, tf *TraceFit) {
	l := tf.Link
	show := func(name string, v float64) string { p, _ := engine.Lookup(name); return p.Show(v) }
	fmt.Fprintf(w, "%s: entity %d, %.1f s, %d sends, %d delivered\n", tf.File, l.Entity, l.Span, l.Sends, l.Delivered)
	g := l.Goodness
	fmt.Fprintf(w, "  latency     %s (the delay floor at the first send, clock offset included)\n", show("latency", l.Latency))
	if l.JitterDist != "" {
		fmt.Fprintf(w, "  jitter      %s %s: KS %.4f (5%% critical %.4f); log-likelihood per delay", show("jitter", l.Jitter), l.JitterDist, g.JitterKS, g.JitterKSCritical)
		for _, d := range l.Dists {
			fmt.Fprintf(w, " %s %.3f", d.Dist, d.LogLik)
		}
		fmt.Fprintln(w)
	} else {
		fmt.Fprintf(w, "  jitter      0\n")
	}
	fmt.Fprintf(w, "  loss        %s %s", show("loss", l.Loss), l.LossModel)
	if l.LossModel == "burst" {
		fmt.Fprintf(w, ", burstLength %s", show("burstLength", l.BurstLength))
	}
	fmt.Fprintf(w, ": likelihood ratio burst/random %.2f (burst above 10.83)", g.LossLR)
	if g.LossRunsDoF > 0 {
		fmt.Fprintf(w, ", runs χ² %.2f on %d dof", g.LossRunsChi2, g.LossRunsDoF)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "  duplicate   %s\n", show("duplicate", l.Duplicate))
	fmt.Fprintf(w, "  reorder     %s sent ahead; %s of sends arrived before an earlier one\n", show("reorder", l.Reorder), show("reorder", l.Inversions))
	fmt.Fprintf(w, "  clockDrift  %s (floor's RMS about the line %s)\n", show("clockDrift", l.ClockDrift), show("latency", g.DriftRMS))
	fmt.Fprintf(w, "  sendRate    %s", show("sendRate", l.SendRate))
	if len(l.Rates) > 1 {
		for _, r := range l.Rates {
			fmt.Fprintf(w, "; %s for %.0f%% (%.0f–%.0f s)", show("sendRate", r.Rate), r.Share*100, r.From, r.To)
		}
	}
	fmt.Fprintln(w)
	if l.ScenarioText != "" {
		fmt.Fprintf(w, "  scenario:\n")
		for line := range strings.Lines(l.ScenarioText) {
			fmt.Fprintf(w, "    %s", line)
		}
	}
	for _, wn := range l.Warnings {
		fmt.Fprintf(w, "  warning: %s: %s\n", wn.Part, wn.Msg)
	}
	fmt.Fprintf(w, "  -set %s\n", strings.Join(tf.Set, " -set "))
	if len(tf.Agreement) > 0 {
		fmt.Fprintf(w, "  %-12s %22s %22s\n", "technique", "underrun capture/model", "errP95 capture/model")
		for _, a := range tf.Agreement {
			fmt.Fprintf(w, "  %-12s %10.2f%% / %6.2f%% %10.1f cm / %5.1f cm\n", a.Technique, a.CaptureUnder*100, a.ModelUnder*100,
				a.CaptureErrP95*100, a.ModelErrP95*100)
		}
	}
}
