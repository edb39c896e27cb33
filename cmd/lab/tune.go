package main

import (
	"fmt"
	"io"
	"math"
	"strings"

	"interplab/cmd/lab/internal/cli"
	"interplab/cmd/lab/internal/report"
	"interplab/engine"
	"interplab/engine/motion"
	"interplab/engine/study"
)

const tuneUsage = `usage: lab tune [-technique T] [-preset NAME] [-set name=value ...] [-motions strafe,turn]
                [-w errP95=1,addedLatency=0.5,...] [-max addedLatency=150ms ...]
                [-budget N] [-seed N] [-workers N] [-json] [-v]

Searches the technique's own settings (buffer: delay, adaptive, margin,
delayCap, extrapolateCap, speedClamp; epic: calcAhead, displayBehind,
slopTime; a library's: its client knobs, mirror.bufferTimeMultiplier...)
for the least weighted cost on the settings' network, each candidate run on
every motion of -motions, the starting settings among them. It prints the
recommendation as -set lines ready to paste into lab sim or lab export, its
metrics against the starting settings', and the Pareto front of added
latency against the aligned error (errAligned); or JSON with -json.

Before it recommends, the starting settings and the search's three best run
again on -seeds run seeds after the settings' own (the same seeds for each).
Over starting settings that meet the bounds, a recommendation meets them
over those seeds, gains more than 3 standard errors of its paired gains in
cost, and worsens no headline metric (errAligned, underrun, underrunRounds,
smoothness) beyond noise; otherwise "keep your settings, no meaningful
improvement" with the figures. When the starting settings break a bound,
that is said first and the cheapest setting that meets them is offered.
When nothing meets the bounds no -set line is printed: the closest
candidates are listed instead, each with the bounds it breaks and by how
much.

The cost is the sum of weight × metric / reference over errP95 (0.1 m),
addedLatency (0.1 s), snaps (1 per entity per minute) and underrun (10% of
frames): with every weight 1 each reference costs the same. -w sets some
weights and keeps the others at 1. -max bounds any metric of lab sim, a plain number in
the unit lab sim shows it in (ms, cm, %, count) or with a unit
(addedLatency=150ms, underrun=5%, errP95=20cm, addedLatency=0.15s), and
extraLatency, the delay beyond the network: the added latency less the
link's mean one-way transit (latency + jitter), so extraLatency=60ms means
the same on every link. Added latency includes the network's own: a bound on
it below what the link alone allows (on a 120 ms link, mirror cannot show
less than 123 ms) is refused before the search, naming that floor and what
a search of the technique's settings reaches (mirror: about 178 ms). Added
latency counts by its magnitude: a display that leads the truth is out of
step too. The same -seed gives the same result on any number of cores.
Interrupt to stop early.

With -population every candidate runs over a player base instead, each
entity on its own link, and the cost and -max read its figures: the cost
weighs errP95P95 (the p95 across entities of error p95), addedLatencyP90,
snapRounds and underrunRounds; the guide's question "good for 95% of our
players" is -w errP95=1,addedLatency=0,snaps=0,underrun=0
-max underrunRounds=5%,addedLatencyP90=150ms.

Exit status: 0 with a recommendation, or when nothing tried beats the
starting settings; 1 when the tuning fails or is interrupted; 2 for bad
usage, a bound below the network's floor included; 3 when no candidate
meets the bounds (nothing is recommended).
`

// tuneInfeasible is lab tune's exit status when no candidate meets the
// bounds.
const tuneInfeasible = 3

// runTune is `lab tune`.
func runTune(args []string, stdout, stderr io.Writer) int {
	c := cli.New("tune", tuneUsage+"\nflags:\n", stdout, stderr)
	sf := c.SettingsFlags()
	technique := c.Flags.String("technique", "", "the `technique` to tune (default: the settings' own, their library's or else buffer): "+strings.Join(study.TunableTechniques(), ", "))
	motions := c.Flags.String("motions", "", "comma-separated motion `scripts` to evaluate on (default: the settings' motion): "+
		strings.Join(motion.Names, ", "))
	weights := study.DefaultTuneWeights()
	c.Flags.Func("w", "cost weights, `name=value,...` over errP95, addedLatency, snaps, underrun; repeatable", func(arg string) error {
		return study.ParseTuneWeights(arg, &weights)
	})
	var constraints []study.Constraint
	c.Flags.Func("max", "upper bounds, `metric=value,...`: a plain number in the unit lab sim shows (ms, cm, %), or with a unit (addedLatency=150ms); repeatable", func(arg string) error {
		cs, err := study.ParseConstraints(arg)
		constraints = append(constraints, cs...)
		return err
	})
	pf := c.PopulationFlags("", "evaluate every candidate over this `population` preset; -max then bounds its figures (underrunRounds=5%,addedLatencyP90=150ms)", "with -population: ")
	budget := c.Flags.Int("budget", study.DefaultTuneBudget, "evaluate `N` candidates, the starting settings included")
	seed := c.Flags.Uint64("seed", 1, "`seed` of the search")
	seeds := c.Flags.Int("seeds", study.DefaultTuneSeeds, fmt.Sprintf("confirm the search's best on `N` run seeds after the settings' own, in [%d, %d]", study.MinTuneSeeds, study.MaxTuneSeeds))
	rf := c.RunFlags("print JSON: the spec, the changes and every candidate", "print progress to standard error")
	if code, ok := c.Parse(args, 0); !ok {
		return code
	}
	base, err := sf.Settings()
	if err != nil {
		return c.Bad(err)
	}
	if *technique == "" {
		*technique = base.PrimaryTechnique() // a library preset tunes its library
	}
	spec := study.TuneSpec{Base: base, Technique: *technique, Weights: weights, Constraints: constraints,
		Budget: *budget, Seed: *seed, Seeds: *seeds}
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
	res, err := study.Tune(ctx, spec, rf.Workers, cli.Progress(c, rf, "candidates", func(cand study.Candidate) string {
		if cand.Feasible {
			best = min(best, cand.Cost)
		}
		return fmt.Sprintf("least feasible cost %.4g", best)
	}))
	if err != nil {
		return c.Fail(fmt.Errorf("stopped after %d of %d candidates: %w", len(res.Candidates), spec.Budget, err))
	}
	var changes []engine.Change
	if res.Recommended {
		changes = engine.Diff(spec.Base, res.Best.Settings)
	}
	code := 0
	if rf.JSON {
		code = c.JSON(report.TuneJSON{Spec: spec, Changes: changes, Result: res})
	} else {
		code = c.Exit(report.Tune(stdout, spec, res, changes))
	}
	if code == 0 && !res.Feasible {
		return tuneInfeasible
	}
	return code
}
