package main

import (
	"fmt"
	"io"
	"math"
	"strings"

	"interplab/cmd/lab/internal/cli"
	"interplab/cmd/lab/internal/report"
	"interplab/engine"
)

const tuneUsage = `usage: lab tune -technique T [-preset NAME] [-set name=value ...] [-motions strafe,turn]
                [-w errP95=1,addedLatency=0.5,...] [-max addedLatency=150ms ...]
                [-budget N] [-seed N] [-workers N] [-json] [-v]

Searches the technique's own settings (buffer: delay, adaptive, margin,
delayCap, extrapolateCap, speedClamp; epic: calcAhead, displayBehind,
slopTime; a library's: its client knobs, mirror.bufferTimeMultiplier...)
for the least weighted cost on the settings' network, each candidate run on
every motion of -motions. It prints the recommendation as -set lines ready
to paste into lab sim or lab export, its metrics against the base's, and
the Pareto front of added latency against the aligned error (errAligned);
or JSON with -json.

The cost is the sum of weight × metric / reference over errP95 (0.1 m),
addedLatency (0.1 s), snaps (1 per entity per minute) and underrun (10% of
frames): with every weight 1 each reference costs the same. -w sets some
weights and keeps the others at 1. -max bounds any metric of lab sim, a plain number in
the unit lab sim shows it in (ms, cm, %, count) or with a unit (addedLatency=150ms,
underrun=5%, errP95=20cm, addedLatency=0.15s); a candidate that breaks a bound is not
recommended unless none meets them all, which the output then says. Added
latency counts by its magnitude: a display that leads the truth is out of
step too. The same -seed gives the same result on any number of cores.
Interrupt to stop early.

With -population every candidate runs over a player base instead, each
entity on its own link, and the cost and -max read its figures: the cost
weighs errP95P95 (the p95 across entities of error p95), addedLatencyP90,
snapRounds and underrunRounds; the guide's question "good for 95% of our
players" is -w errP95=1,addedLatency=0,snaps=0,underrun=0
-max underrunRounds=5%,addedLatencyP90=150ms.
`

// runTune is `lab tune`.
func runTune(args []string, stdout, stderr io.Writer) int {
	c := cli.New("tune", tuneUsage+"\nflags:\n", stdout, stderr)
	sf := c.SettingsFlags()
	technique := c.Flags.String("technique", "", "the `technique` to tune: "+strings.Join(engine.TunableTechniques(), ", "))
	motions := c.Flags.String("motions", "", "comma-separated motion `scripts` to evaluate on (default: the settings' motion): "+
		strings.Join(engine.Motions, ", "))
	weights := engine.DefaultTuneWeights()
	c.Flags.Func("w", "cost weights, `name=value,...` over errP95, addedLatency, snaps, underrun; repeatable", func(arg string) error {
		return engine.ParseTuneWeights(arg, &weights)
	})
	var constraints []engine.Constraint
	c.Flags.Func("max", "upper bounds, `metric=value,...`: a plain number in the unit lab sim shows (ms, cm, %), or with a unit (addedLatency=150ms); repeatable", func(arg string) error {
		cs, err := engine.ParseConstraints(arg)
		constraints = append(constraints, cs...)
		return err
	})
	pf := c.PopulationFlags("", "evaluate every candidate over this `population` preset; -max then bounds its figures (underrunRounds=5%,addedLatencyP90=150ms)", "with -population: ")
	budget := c.Flags.Int("budget", engine.DefaultTuneBudget, "evaluate `N` candidates, the starting settings included")
	seed := c.Flags.Uint64("seed", 1, "`seed` of the search")
	rf := c.RunFlags("print JSON: the spec, the changes and every candidate", "print progress to standard error")
	if code, ok := c.Parse(args, 0); !ok {
		return code
	}
	if *technique == "" {
		return c.Usagef("-technique is required")
	}
	base, err := sf.Settings()
	if err != nil {
		return c.Bad(err)
	}
	spec := engine.TuneSpec{Base: base, Technique: *technique, Weights: weights, Constraints: constraints,
		Budget: *budget, Seed: *seed}
	if pf.Name != "" {
		_, pop, err := pf.Get()
		if err != nil {
			return c.Bad(err)
		}
		spec.Population = &pop
	}
	if *motions != "" {
		for _, m := range strings.Split(*motions, ",") {
			spec.Motions = append(spec.Motions, strings.TrimSpace(m))
		}
	}
	if err := spec.Validate(); err != nil {
		return c.Bad(fmt.Errorf("%s%w", cli.SpecFlag(err), err))
	}

	ctx, stop := cli.Interrupt()
	defer stop()
	best := math.Inf(1)
	res, err := engine.Tune(ctx, spec, rf.Workers, cli.Progress(c, rf, "candidates", func(cand engine.Candidate) string {
		if cand.Feasible {
			best = min(best, cand.Cost)
		}
		return fmt.Sprintf("least feasible cost %.4g", best)
	}))
	if err != nil {
		return c.Fail(fmt.Errorf("stopped after %d of %d candidates: %w", len(res.Candidates), spec.Budget, err))
	}
	changes := engine.Diff(spec.Base, res.Best.Settings)
	if rf.JSON {
		return c.JSON(report.TuneJSON{Spec: spec, Changes: changes, Result: res})
	}
	return c.Exit(report.Tune(stdout, spec, res, changes))
}
