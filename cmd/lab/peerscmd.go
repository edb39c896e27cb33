package main

import (
	"io"
	"math"

	"interplab/cmd/lab/internal/cli"
	"interplab/cmd/lab/internal/peers"
)

const peersUsage = `Usage: lab peers check [-tol METRES] [-tol-time SECONDS] FILE_OR_DIR...

Replays each case (JSON, or gzip-compressed JSON, in the golden/peers format) through
the technique its "library" field names and prints, per case, the frames compared,
the largest position error and the first frame that differs. A network simulator's
case (golden/netsim format: "sends" and "delivered") is replayed through the lab's
model of that simulator (mirror-latencysim: Mirror's LatencySimulation): the same
messages delivered in the same order and frames, the same drops, times within
-tol-time. Exits 1 when a case differs by more than the tolerance or cannot be read.

Flags:
`

// peersCommands is lab peers.
var peersCommands = &cli.Group{Name: "lab peers", Intro: "The library techniques against frames the real libraries drew.", Subs: []cli.Sub{
	{Name: "check", Synopsis: "[-tol METRES] [-tol-time SECONDS] FILE_OR_DIR...", Summary: "replay each case and compare its frames (or a simulator's deliveries)", Run: cli.NoStdin(runPeersCheck)},
}}

// runPeersCheck is `lab peers check`.
func runPeersCheck(args []string, stdout, stderr io.Writer) int {
	c := cli.New("peers check", peersUsage, stdout, stderr)
	tol := c.Flags.Float64("tol", peers.Tolerance, "largest position error that still reproduces a frame, `metres`")
	timeTol := c.Flags.Float64("tol-time", peers.TimeTolerance, "largest delivery time error that still reproduces a network simulator's message, `seconds`")
	if code, ok := c.Parse(args, math.MaxInt); !ok {
		return code
	}
	if c.Flags.NArg() == 0 {
		c.Printf("name at least one case file or directory")
		return 2
	}
	if !(*tol > 0 && *tol <= 1) {
		c.Printf("-tol = %g is not allowed: want (0, 1] metres", *tol)
		return 2
	}
	if !(*timeTol > 0 && *timeTol <= 1) {
		c.Printf("-tol-time = %g is not allowed: want (0, 1] seconds", *timeTol)
		return 2
	}
	files, err := peers.Files(c.Flags.Args())
	if err != nil {
		return c.Fail(err)
	}
	ch := peers.Checker{Runners: peers.Runners(), NetSimRunners: peers.NetSimRunners(), Tol: *tol, TimeTol: *timeTol}
	results := make([]peers.Result, len(files))
	for i, f := range files {
		results[i] = ch.Check(f)
	}
	if !peers.Print(stdout, results, *tol, *timeTol) {
		return 1
	}
	return 0
}
