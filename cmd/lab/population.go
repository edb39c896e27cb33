package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"time"

	"interplab/cmd/lab/internal/link"
	"interplab/cmd/lab/internal/report"
	"interplab/engine"
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
	fs := labFlags("population", populationUsage+"\nflags:\n", stderr)
	sf := settingsFlags(fs)
	sf.refused = map[string]string{"techniques": "is chosen by -techniques"}
	popName := fs.String("population", presets.DefaultPopulation, "the `population` preset: "+populationNames())
	entities := fs.Int("entities", 0, "simulate `N` entities instead of the population's")
	rounds := fs.Int("rounds", 0, "`N` rounds per entity instead of the population's")
	round := fs.Float64("round", 0, "rounds of `S` seconds instead of the population's")
	seed := fs.Int("seed", -1, "draw the population from seed `N` instead of its own")
	techniques := fs.String("techniques", engine.TechBuffer, "the `techniques` to run, comma-separated: "+strings.Join(engine.TechniqueNames, ", "))
	workers := fs.Int("workers", 0, "run on `N` goroutines; 0 for every core")
	csvPath := fs.String("csv", "", "write every entity's figures to `FILE` as CSV")
	asJSON := fs.Bool("json", false, "print one JSON object instead of tables")
	verbose := fs.Bool("v", false, "print progress and the time taken to standard error")
	if code, ok := parseLabFlags(fs, args, 0, stderr); !ok {
		return code
	}
	pp, err := presets.GetPopulation(*popName)
	if err != nil {
		fmt.Fprintf(stderr, "lab population: -population: %v\n", err)
		return 2
	}
	pop := pp.Population.With(*entities, *rounds, *round)
	if *seed >= 0 {
		pop.Seed = *seed
	}
	base, err := sf.base()
	if err == nil {
		err = sf.apply(&base)
	}
	if err == nil {
		base.Techniques = strings.Split(*techniques, ",")
		err = base.Validate()
	}
	if err != nil {
		fmt.Fprintf(stderr, "lab population: %v\n", err)
		return 2
	}
	spec := engine.PopulationSpec{Base: base, Population: pop}
	if err := spec.Validate(); err != nil {
		fmt.Fprintf(stderr, "lab population: %s%v\n", populationFlagFor(err), err)
		return 2
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	var progress func(engine.PopulationEntity, int, int)
	if *verbose {
		progress = func(_ engine.PopulationEntity, done, total int) {
			if done*10/total != (done-1)*10/total {
				fmt.Fprintf(stderr, "lab population: %d/%d entities\n", done, total)
			}
		}
	}
	start := time.Now()
	res, err := engine.RunPopulation(ctx, spec, *workers, progress)
	if err != nil {
		fmt.Fprintf(stderr, "lab population: %v\n", err)
		return 1
	}
	if *verbose {
		er := pop.Entities * pop.Rounds
		took := time.Since(start).Seconds()
		fmt.Fprintf(stderr, "lab population: %d entity-rounds in %.1f s (%.0f entity-rounds/s)\n", er, took, float64(er)/took)
	}
	if *csvPath != "" {
		if err := writeFileWith(*csvPath, func(w io.Writer) error { return report.PopulationCSV(w, res) }); err != nil {
			fmt.Fprintf(stderr, "lab population: -csv: %v\n", err)
			return 1
		}
	}
	url := func(e int) string { return "/?" + link.Query(sf.preset, pop.EntitySettings(base, e)) }
	if *asJSON {
		return exit(stderr, "population", printJSON(stdout, report.NewPopulationJSON(sf.preset, pp.Name, res, url)))
	}
	title := pp.Title
	if sf.preset != "" {
		title = sf.preset + " over " + title
	}
	return exit(stderr, "population", report.Population(stdout, title, res, url))
}

// populationFlagFor names the flag behind a spec's FieldError.
func populationFlagFor(err error) string {
	var fe *engine.FieldError
	if !errors.As(err, &fe) {
		return ""
	}
	switch fe.Field {
	case "population.entities", "population.rounds", "population.round", "population.seed":
		return "-" + strings.TrimPrefix(fe.Field, "population.") + ": "
	}
	if strings.HasPrefix(fe.Field, "population.") {
		return "-population: "
	}
	return "-preset/-set: "
}

func populationNames() string {
	list, _ := presets.Populations()
	names := make([]string, len(list))
	for i, p := range list {
		names[i] = p.Name
	}
	return strings.Join(names, ", ")
}

// writeFileWith creates path and writes it with write, removing it on
// failure so that no half-written file is left.
func writeFileWith(path string, write func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	err = write(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
	}
	return err
}
