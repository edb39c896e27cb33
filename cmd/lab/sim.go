package main

import (
	"fmt"
	"io"

	"interplab/cmd/lab/internal/report"
	"interplab/engine"
)

const simUsage = `usage: lab sim [-preset NAME] [-scenario NAME|FILE] [-set name=value ...] [-json]

Runs the simulation headless for the settings' duration and prints every
technique's metrics: a table with the best value of each row marked *, or
JSON with -json. The best value is the one nearest 0; a tie for all marks
none, a negative addedLatency (a display that leads the truth) is never
best, and epic's and epicfix's underrun, 100% by design, is marked † and
not ranked. Settings start from the preset (or the engine defaults)
and each -set overrides one parameter by its vocabulary name.

With a scenario (-scenario, or -set scenario=NAME) it also prints every
technique's error and delay before, during and after the scenario and its
recovery time, measured against a second run without the scenario.
`

// runSim is `lab sim`.
func runSim(args []string, stdout, stderr io.Writer) int {
	fs := labFlags("sim", simUsage+"\nflags:\n", stderr)
	sf := settingsFlags(fs)
	asJSON := fs.Bool("json", false, "print JSON instead of a table")
	if code, ok := parseLabFlags(fs, args, 0, stderr); !ok {
		return code
	}
	s, err := sf.settings()
	if err != nil {
		fmt.Fprintf(stderr, "lab sim: %v\n", err)
		return 2
	}
	res, err := engine.RunPhases(s)
	if err != nil {
		fmt.Fprintf(stderr, "lab sim: %v\n", err)
		return 1
	}
	if *asJSON {
		return exit(stderr, "sim", printJSON(stdout, res))
	}
	err = report.Metrics(stdout, res)
	if err == nil {
		err = report.Phases(stdout, res)
	}
	return exit(stderr, "sim", err)
}
