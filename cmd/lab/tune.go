package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"strings"

	"interplab/cmd/lab/internal/report"
	"interplab/engine"
	"interplab/presets"
)

const tuneUsage = `usage: lab tune -technique T [-preset NAME] [-set name=value ...] [-motions strafe,turn]
                [-w errP95=1,addedLatency=0.5,...] [-max addedLatency=0.15 ...]
                [-budget N] [-seed N] [-workers N] [-json] [-v]

Searches the technique's own settings (buffer, hermite: delay, adaptive,
margin, delayCap, extrapolateCap, speedClamp; epic, epicfix: calcAhead,
displayBehind, slopTime) for the least weighted cost on the settings'
network, each candidate run on every motion of -motions. It prints the
recommendation as -set lines ready to paste into lab sim or lab export, its
metrics against the starting settings', and the Pareto front of added
latency against the aligned error (errAligned); or JSON with -json.

The cost is the sum of weight × metric / reference over errP95 (0.1 m),
addedLatency (0.1 s), snaps (1 per entity per minute) and underrun (10% of
frames): with every weight 1 each reference costs the same. -w sets some
weights and keeps the others at 1. -max bounds any metric of lab sim, a plain number in
its SI unit (s, m, fraction, count) or with a unit (addedLatency=150ms,
underrun=5%, errP95=20cm); a candidate that breaks a bound is not
recommended unless none meets them all, which the output then says. Added
latency counts by its magnitude: a display that leads the truth is out of
step too. The same -seed gives the same result on any number of cores.
Interrupt to stop early.

With -population every candidate runs over a player base instead, each
entity on its own link, and the cost and -max read its figures: the cost
weighs errP95P95 (the p95 across entities of error p95), addedLatencyP90,
snapRounds and underrunRounds; the guide's question "good for 95% of our
players" is -w errP95=1,addedLatency=0,snaps=0,underrun=0
-max underrunRounds=0.05,addedLatencyP90=0.15.
`

// runTune is `lab tune`.
func runTune(args []string, stdout, stderr io.Writer) int {
	fs := labFlags("tune", tuneUsage+"\nflags:\n", stderr)
	sf := settingsFlags(fs)
	technique := fs.String("technique", "", "the `technique` to tune: buffer, hermite, epic or epicfix")
	motions := fs.String("motions", "", "comma-separated motion `scripts` to evaluate on (default: the settings' motion): "+
		strings.Join(engine.Motions, ", "))
	weights := engine.DefaultTuneWeights()
	fs.Func("w", "cost weights, `name=value,...` over errP95, addedLatency, snaps, underrun; repeatable", func(arg string) error {
		return engine.ParseTuneWeights(arg, &weights)
	})
	var constraints []engine.Constraint
	fs.Func("max", "upper bounds, `metric=value,...` in the metric's SI unit or with a unit (addedLatency=150ms); repeatable", func(arg string) error {
		cs, err := engine.ParseConstraints(arg)
		constraints = append(constraints, cs...)
		return err
	})
	popName := fs.String("population", "", "evaluate every candidate over this `population` preset ("+populationNames()+
		"); -max then bounds its figures (underrunRounds=0.05,addedLatencyP90=0.15)")
	entities := fs.Int("entities", 0, "with -population: `N` entities instead of the population's")
	rounds := fs.Int("rounds", 0, "with -population: `N` rounds per entity instead of the population's")
	round := fs.Float64("round", 0, "with -population: rounds of `S` seconds instead of the population's")
	budget := fs.Int("budget", engine.DefaultTuneBudget, "evaluate `N` candidates, the starting settings included")
	seed := fs.Uint64("seed", 1, "`seed` of the search")
	workers := fs.Int("workers", 0, "run on `N` goroutines; 0 for every core")
	asJSON := fs.Bool("json", false, "print JSON: the spec, the changes and every candidate")
	verbose := fs.Bool("v", false, "print progress to standard error")
	if code, ok := parseLabFlags(fs, args, 0, stderr); !ok {
		return code
	}
	if *technique == "" {
		fmt.Fprintln(stderr, "lab tune: -technique is required")
		fs.Usage()
		return 2
	}
	base, err := sf.settings()
	if err != nil {
		fmt.Fprintf(stderr, "lab tune: %v\n", err)
		return 2
	}
	spec := engine.TuneSpec{Base: base, Technique: *technique, Weights: weights, Constraints: constraints,
		Budget: *budget, Seed: *seed}
	if *popName != "" {
		pp, err := presets.GetPopulation(*popName)
		if err != nil {
			fmt.Fprintf(stderr, "lab tune: -population: %v\n", err)
			return 2
		}
		pop := pp.Population.With(*entities, *rounds, *round)
		spec.Population = &pop
	}
	if *motions != "" {
		for _, m := range strings.Split(*motions, ",") {
			spec.Motions = append(spec.Motions, strings.TrimSpace(m))
		}
	}
	if err := spec.Validate(); err != nil {
		fmt.Fprintf(stderr, "lab tune: %s%v\n", sweepFlagFor(err), err)
		return 2
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	var progress func(engine.Candidate, int, int)
	if *verbose {
		best := math.Inf(1)
		progress = func(c engine.Candidate, done, total int) {
			if c.Feasible {
				best = min(best, c.Cost)
			}
			if done*10/total != (done-1)*10/total || done == total {
				fmt.Fprintf(stderr, "lab tune: %d/%d candidates, least feasible cost %.4g\n", done, total, best)
			}
		}
	}
	res, err := engine.Tune(ctx, spec, *workers, progress)
	if err != nil {
		fmt.Fprintf(stderr, "lab tune: stopped after %d of %d candidates: %v\n", len(res.Candidates), spec.Budget, err)
		return 1
	}
	changes := engine.Diff(spec.Base, res.Best.Settings)
	if *asJSON {
		return exit(stderr, "tune", printJSON(stdout, tuneJSON{Spec: spec, Changes: changes, Result: res}))
	}
	return exit(stderr, "tune", report.Tune(stdout, spec, res, changes))
}

// tuneJSON is the output of lab tune -json.
type tuneJSON struct {
	Spec    engine.TuneSpec   `json:"spec"`
	Changes []engine.Change   `json:"changes"` // the recommendation's settings that differ from the base
	Result  engine.TuneResult `json:"result"`
}
