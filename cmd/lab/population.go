package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"interplab/cmd/lab/internal/cli"
	"interplab/cmd/lab/internal/link"
	"interplab/cmd/lab/internal/report"
	"interplab/engine"
	"interplab/engine/study"
	"interplab/presets"
)

const populationUsage = `usage: lab population [-preset NAME] [-set name=value ...] [-population NAME]
                      [-entities N] [-rounds N] [-round S] [-seed N] [-techniques T,...]
                      [-workers N] [-csv FILE] [-json] [-v]

Runs techniques over a population of players, each entity on the link it
drew, and prints the population figures: the share of entity-rounds with an
underrun (the guide's "buffer underrun per entity per round"), with a snap,
and dry beyond the extrapolation cap, and percentiles across entities of
error p95 and added latency; then the worst entities, each with the query
that opens it in the lab.

The technique settings start from the preset (or the engine defaults) and
each -set overrides one; the link settings come from the population's
draws. -entities, -rounds, -round and -seed override the population's.
With -json it prints one JSON object: {"techniques": [{"name", "metrics":
{"underrunRounds", ...}, "worst": [...]}], ...}. -csv writes every entity's
figures. Interrupt to stop early.
`

// runPopulation is `lab population`.
func runPopulation(args []string, stdout, stderr io.Writer) int {
	c := cli.New("population", populationUsage+"\nflags:\n", stdout, stderr)
	sf := c.SettingsFlags()
	sf.Refused = map[string]string{"techniques": "is chosen by -techniques"}
	pf := c.PopulationFlags(presets.DefaultPopulation, "the `population` preset", "")
	seed := c.Flags.Int("seed", -1, "draw the population from seed `N` instead of its own")
	techniques := c.Flags.String("techniques", "", "the `techniques` to run, comma-separated (default: the settings' own, their library's or else buffer): "+strings.Join(engine.TechniqueNames, ", "))
	csvPath := c.Flags.String("csv", "", "write every entity's figures to `FILE` as CSV")
	rf := c.RunFlags("print one JSON object instead of tables", "print progress and the time taken to standard error")
	if code, ok := c.Parse(args, 0); !ok {
		return code
	}
	pp, pop, err := pf.Get()
	if err != nil {
		return c.Bad(err)
	}
	if *seed >= 0 {
		pop.Seed = *seed
	}
	base, err := sf.Base()
	if err == nil {
		err = sf.Apply(&base)
	}
	if err == nil {
		if *techniques == "" {
			*techniques = base.PrimaryTechnique() // a library preset runs its library
		}
		base.Techniques = strings.Split(*techniques, ",")
		err = base.Validate()
	}
	if err != nil {
		return c.Bad(err)
	}
	spec := study.PopulationSpec{Base: base, Population: pop}
	if err := spec.Validate(); err != nil {
		return c.Bad(fmt.Errorf("%s%w", cli.SpecFlag(err), err))
	}

	ctx, stop := cli.Interrupt()
	defer stop()
	start := time.Now()
	res, err := study.RunPopulation(ctx, spec, rf.Workers, cli.Progress[study.PopulationEntity](c, rf, "entities", nil))
	if err != nil {
		return c.Fail(err)
	}
	if rf.Verbose {
		er := pop.Entities * pop.Rounds
		took := time.Since(start).Seconds()
		c.Printf("%d entity-rounds in %.1f s (%.0f entity-rounds/s)", er, took, float64(er)/took)
	}
	if *csvPath != "" {
		if err := cli.WriteFile(*csvPath, func(w io.Writer) error { return report.PopulationCSV(w, res) }); err != nil {
			return c.Fail(fmt.Errorf("-csv: %w", err))
		}
	}
	url := func(e int) string { return "/?" + link.Query(sf.Preset, pop.EntitySettings(base, e)) }
	if rf.JSON {
		return c.JSON(report.NewPopulationJSON(sf.Preset, pp.Name, res, url))
	}
	title := pp.Title
	if sf.Preset != "" {
		title = sf.Preset + " over " + title
	}
	return c.Exit(report.Population(stdout, title, res, url))
}
