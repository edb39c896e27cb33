package main

import (
	"fmt"
	"io"
	"strings"

	"interplab/cmd/lab/internal/cli"
	"interplab/cmd/lab/internal/report"
	"interplab/engine"
	"interplab/engine/study"
)

const sweepUsage = `usage: lab sweep [-technique T] -x name=min:max:steps [-y name=min:max:steps]
                 [-metric errP95] [-preset NAME] [-set name=value ...] [-workers N] [-json] [-v]

Runs one technique over a grid of one parameter (-x) or two (-x and -y),
each point a whole run of the settings' duration, and prints the chosen
metric at every point: a column for one parameter, a table with a row per y
value and a column per x value for two, in the units a designer reads. With
-json it prints every point's metrics.

An axis is name=min:max:steps, min and max plain numbers in the unit lab
params shows (ms, %, kbit/s, Hz: -x delay=20:200:10), numbers with a unit
(-x delay=20ms:0.2s:10, -x loss=0%:5%:6) or, for a Bool or Enum, its names
(motion=strafe:circle); steps may be left out for a whole-number parameter
(every value) and min:max too for a Bool or Enum (-x adaptive). Settings
start from the preset (or the engine defaults) and each -set overrides one
parameter. Points whose settings are not valid (a sendRate above the
tickRate) are shown as "-" and listed. Interrupt to stop early.
`

// runSweep is `lab sweep`.
func runSweep(args []string, stdout, stderr io.Writer) int {
	c := cli.New("sweep", sweepUsage+"\nflags:\n", stdout, stderr)
	sf := c.SettingsFlags()
	technique := c.Flags.String("technique", "", "the `technique` to run (default: the settings' own, their library's or else buffer): "+strings.Join(engine.TechniqueNames, ", "))
	var x, y *study.Axis
	c.Flags.Func("x", "the first swept parameter, `name=min:max:steps`", func(arg string) error {
		a, err := study.ParseAxis(arg)
		x = &a
		return err
	})
	c.Flags.Func("y", "the second swept parameter, `name=min:max:steps` (optional)", func(arg string) error {
		a, err := study.ParseAxis(arg)
		y = &a
		return err
	})
	metric := c.Flags.String("metric", "errP95", "the `metric` to print (see lab sim)")
	rf := c.RunFlags("print JSON: every point's metrics", "print progress to standard error")
	if code, ok := c.Parse(args, 0); !ok {
		return code
	}
	if x == nil {
		return c.Usagef("-x is required")
	}
	mi := report.MetricIndex(*metric)
	if mi < 0 {
		return c.Usagef("-metric: unknown metric %q: want one of %s", *metric, report.MetricNames())
	}
	base, err := sf.Settings()
	if err != nil {
		return c.Bad(err)
	}
	if *technique == "" {
		*technique = base.PrimaryTechnique() // a library preset sweeps its library
	}
	spec := study.SweepSpec{Base: base, Technique: *technique, X: *x, Y: y}
	if err := spec.Validate(); err != nil {
		return c.Bad(fmt.Errorf("%s%w", cli.SpecFlag(err), err))
	}

	ctx, stop := cli.Interrupt()
	defer stop()
	points, err := study.Sweep(ctx, spec, rf.Workers, cli.Progress[study.SweepPoint](c, rf, "points", nil))
	if err != nil {
		return c.Fail(fmt.Errorf("stopped after %d of %d points: %w", len(points), spec.Points(), err))
	}
	if rf.JSON {
		return c.JSON(report.NewSweepJSON(spec, *metric, points))
	}
	return c.Exit(report.Sweep(stdout, spec, points, mi))
}
