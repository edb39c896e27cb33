package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"

	"interplab/cmd/lab/internal/report"
	"interplab/engine"
)

const sweepUsage = `usage: lab sweep -technique T -x name=min:max:steps [-y name=min:max:steps]
                 [-metric errP95] [-preset NAME] [-set name=value ...] [-workers N] [-json] [-v]

Runs one technique over a grid of one parameter (-x) or two (-x and -y),
each point a whole run of the settings' duration, and prints the chosen
metric at every point: a column for one parameter, a table with a row per y
value and a column per x value for two, in the units a designer reads. With
-json it prints every point's metrics.

An axis is name=min:max:steps, min and max plain numbers in the
parameter's stored unit (seconds, fractions, Hz), numbers with a unit
(-x delay=20ms:200ms:10, -x loss=0%:5%:6) or, for a Bool or Enum, its names
(motion=strafe:circle); steps may be left out for a whole-number parameter
(every value) and min:max too for a Bool or Enum (-x adaptive). Settings
start from the preset (or the engine defaults) and each -set overrides one
parameter. Points whose settings are not valid (a sendRate above the
tickRate) are shown as "-" and listed. Interrupt to stop early.
`

// runSweep is `lab sweep`.
func runSweep(args []string, stdout, stderr io.Writer) int {
	fs := labFlags("sweep", sweepUsage+"\nflags:\n", stderr)
	sf := settingsFlags(fs)
	technique := fs.String("technique", "", "the `technique` to run: "+strings.Join(engine.TechniqueNames, ", "))
	var x, y *engine.Axis
	fs.Func("x", "the first swept parameter, `name=min:max:steps`", func(arg string) error {
		a, err := engine.ParseAxis(arg)
		x = &a
		return err
	})
	fs.Func("y", "the second swept parameter, `name=min:max:steps` (optional)", func(arg string) error {
		a, err := engine.ParseAxis(arg)
		y = &a
		return err
	})
	metric := fs.String("metric", "errP95", "the `metric` to print (see lab sim)")
	workers := fs.Int("workers", 0, "run on `N` goroutines; 0 for every core")
	asJSON := fs.Bool("json", false, "print JSON: every point's metrics")
	verbose := fs.Bool("v", false, "print progress to standard error")
	if code, ok := parseLabFlags(fs, args, 0, stderr); !ok {
		return code
	}
	usageErr := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "lab sweep: "+format+"\n", a...)
		fs.Usage()
		return 2
	}
	switch {
	case *technique == "":
		return usageErr("-technique is required")
	case x == nil:
		return usageErr("-x is required")
	}
	mi := report.MetricIndex(*metric)
	if mi < 0 {
		return usageErr("-metric: unknown metric %q: want one of %s", *metric, report.MetricNames())
	}
	base, err := sf.settings()
	if err != nil {
		fmt.Fprintf(stderr, "lab sweep: %v\n", err)
		return 2
	}
	spec := engine.SweepSpec{Base: base, Technique: *technique, X: *x, Y: y}
	if err := spec.Validate(); err != nil {
		fmt.Fprintf(stderr, "lab sweep: %s%v\n", sweepFlagFor(err), err)
		return 2
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	var progress func(engine.SweepPoint, int, int)
	if *verbose {
		progress = func(_ engine.SweepPoint, done, total int) {
			if done*10/total != (done-1)*10/total || done == total {
				fmt.Fprintf(stderr, "lab sweep: %d/%d points\n", done, total)
			}
		}
	}
	points, err := engine.Sweep(ctx, spec, *workers, progress)
	if err != nil {
		fmt.Fprintf(stderr, "lab sweep: stopped after %d of %d points: %v\n", len(points), spec.Points(), err)
		return 1
	}
	if *asJSON {
		out := sweepJSON{Technique: spec.Technique, Metric: *metric, X: spec.X, XValues: spec.X.Values(),
			Y: spec.Y, Base: spec.Base, Points: points}
		if spec.Y != nil {
			out.YValues = spec.Y.Values()
		}
		return exit(stderr, "sweep", printJSON(stdout, out))
	}
	return exit(stderr, "sweep", report.Sweep(stdout, spec, points, mi))
}

// sweepJSON is the output of lab sweep -json.
type sweepJSON struct {
	Technique string              `json:"technique"`
	Metric    string              `json:"metric"`
	X         engine.Axis         `json:"x"`
	XValues   []float64           `json:"xValues"`
	Y         *engine.Axis        `json:"y,omitempty"`
	YValues   []float64           `json:"yValues,omitempty"`
	Base      engine.Settings     `json:"base"`
	Points    []engine.SweepPoint `json:"points"` // in grid order: x varies fastest
}

// sweepFlagFor names the flag behind a spec's FieldError, as a prefix for
// the message ("-x: "); a base settings field comes from -preset or -set.
func sweepFlagFor(err error) string {
	var fe *engine.FieldError
	if !errors.As(err, &fe) {
		return ""
	}
	field, _, _ := strings.Cut(fe.Field, ".")
	field, _, _ = strings.Cut(field, "[")
	switch field {
	case "x", "y", "technique", "budget":
		return "-" + field + ": "
	case "points":
		return "-x, -y: "
	case "motions":
		return "-motions: "
	case "weights":
		return "-w: "
	case "constraints":
		return "-max: "
	}
	return "-preset/-set: "
}
