package main

import (
	"fmt"
	"io"
	"strings"

	"interplab/cmd/lab/internal/cli"
	"interplab/cmd/lab/internal/report"
	"interplab/engine"
	"interplab/engine/netsim"
)

const simUsage = `usage: lab sim [-preset NAME] [-scenario NAME|FILE] [-set name=value ...] [-netsim NAME] [-json]

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

With -netsim mirror, unity or unreal it runs the settings twice, over the
lab's own network and over a model of that engine's own network simulator
playing the network's export (-format NAME-network), and prints every
technique's metrics for both and their difference: what QA will get with
the export. (-set netSim=NAME runs the simulator alone.)

flags:
`

// runSim is `lab sim`.
func runSim(args []string, stdout, stderr io.Writer) int {
	c := cli.New("sim", simUsage, stdout, stderr)
	sf := c.SettingsFlags()
	asJSON := c.Flags.Bool("json", false, "print JSON instead of a table")
	netSim := c.Flags.String("netsim", "", "compare the lab's network with this engine's simulator playing its export: `NAME` (mirror, unity, unreal)")
	if code, ok := c.Parse(args, 0); !ok {
		return code
	}
	s, err := sf.Settings()
	if err != nil {
		return c.Bad(err)
	}
	if *netSim != "" {
		return simNetSim(c, s, *netSim, *asJSON)
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

// simNetSim is lab sim -netsim NAME: the settings over the lab's network and
// over NAME's simulator, side by side.
func simNetSim(c *cli.Command, s engine.Settings, name string, asJSON bool) int {
	if err := s.SetText("netSim", name); err != nil || name == netsim.Lab {
		return c.Bad(fmt.Errorf("-netsim = %q is not allowed: want one of %s", name, strings.Join(netsim.Simulators[1:], ", ")))
	}
	lab, sim := s, s
	lab.NetSim = netsim.Lab
	a, err := engine.Run(lab)
	if err != nil {
		return c.Fail(err)
	}
	b, err := engine.Run(sim)
	if err != nil {
		return c.Fail(err)
	}
	if asJSON {
		return c.JSON(map[string]engine.Result{"lab": a, name: b})
	}
	return c.Exit(report.NetSimDiff(c.Stdout, name, a, b))
}
