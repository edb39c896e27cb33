package main

import (
	"io"

	"interplab/cmd/lab/internal/cli"
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

flags:
`

// runSim is `lab sim`.
func runSim(args []string, stdout, stderr io.Writer) int {
	c := cli.New("sim", simUsage, stdout, stderr)
	sf := c.SettingsFlags()
	asJSON := c.Flags.Bool("json", false, "print JSON instead of a table")
	if code, ok := c.Parse(args, 0); !ok {
		return code
	}
	s, err := sf.Settings()
	if err != nil {
		return c.Bad(err)
	}
	res, err := engine.RunPhases(s)
	if err != nil {
		return c.Fail(err)
	}
	if *asJSON {
		return c.JSON(res)
	}
	err = report.Metrics(stdout, res)
	if err == nil {
		err = report.Phases(stdout, res)
	}
	return c.Exit(err)
}
