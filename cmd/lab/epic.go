package main

import (
	"io"

	"interplab/cmd/lab/internal/cli"
	"interplab/cmd/lab/internal/seeddriver"
	"interplab/engine"
)

// epicFlags are the settings `lab epic` takes, in the seed's order.
var epicFlags = []string{"calcAhead", "displayBehind", "slopTime"}

const epicUsage = `usage: lab epic [-calcAhead ms] [-displayBehind ms] [-slopTime ms] < packets

Runs the seed's EPIC driver program: reads lines "x,y,z / x,y,z / t" (position,
velocity, time) until 'q' or the end of input, and prints what the interpolator
shows every 0.05 s, exactly as the seed does. A plain number is in ms, as
everywhere in the lab (-calcAhead 100); or give a unit (-calcAhead 0.1s).

`

// runEpic is `lab epic`: the seed's EPIC driver program (package
// seeddriver) on stdin, with the EPIC settings of its flags. It returns the
// exit status: 2 for bad usage.
func runEpic(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	settings := engine.Defaults()
	c := cli.New("epic", epicUsage, stdout, stderr)
	for _, name := range epicFlags {
		c.ParamFlag(&settings, name)
	}
	if _, ok := c.Parse(args, 0); !ok {
		return 2 // -h too, as the seed driver's flags did
	}
	return c.Exit(seeddriver.Run(settings, stdin, stdout, stderr))
}
