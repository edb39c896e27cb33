// Lab is Interp Lab's command: it serves the lab page (the default command),
// runs the seed's EPIC driver, simulations, sweeps, tunings and population
// runs, exports settings for a game, follows a session's live settings,
// keeps recorded traces, checks the library techniques against the
// libraries' own frames, and backs up and restores the lab's data.
//
// "lab help" lists the commands (labCommands), "lab COMMAND -h" a command's
// flags; each command is a file here that parses its flags and calls the
// packages under internal/ (package cli holds what they share). Exit status
// 2 is bad usage, 1 a failure.
package main

import (
	"io"
	"os"
	"strings"

	"interplab/cmd/lab/internal/cli"
	"interplab/cmd/lab/internal/fitcmd"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// lab is the lab's commands.
var lab = &cli.Group{Name: "lab", Intro: "Interp Lab: tune how remote entities are displayed in a networked game.", Subs: []cli.Sub{
	{Name: "serve", Summary: "serve the lab page (the default command)", Run: cli.NoStdin(runServe)},
	{Name: "worker", Summary: "work the studies a team's labs put on their PostgreSQL queue", Run: cli.NoStdin(runWorker)},
	{Name: "epic", Summary: "run the seed's EPIC driver program on standard input", Run: runEpic},
	{Name: "sim", Summary: "run a simulation and print its metrics", Run: cli.NoStdin(runSim)},
	{Name: "sweep", Summary: "run one technique over a grid of one or two parameters", Run: cli.NoStdin(runSweep)},
	{Name: "population", Summary: "run techniques over a population of players, each on its own link", Run: cli.NoStdin(runPopulation)},
	{Name: "tune", Summary: "search a technique's settings for the least weighted cost", Run: cli.NoStdin(runTune)},
	{Name: "presets", Summary: "list the presets -preset takes", Run: cli.NoStdin(runPresets)},
	{Name: "params", Summary: "list the parameters -set takes: units, ranges, defaults", Run: cli.NoStdin(runParams)},
	{Name: "export", Summary: "print settings as JSON, a technique's own (C++, or its library's: C#, Rust, JS, .cfg), netem or a network simulator's", Run: cli.NoStdin(runExport)},
	{Name: "follow", Summary: "follow a session's live settings, as a game would", Run: cli.NoStdin(runFollow)},
	{Name: "peers", Summary: "check library techniques against frames the real libraries drew", Run: peersCommands.Run},
	{Name: "trace", Summary: "import, list, show and replay recorded packet traces", Run: func(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
		return traceCommands().Run(args, stdin, stdout, stderr)
	}},
	{Name: "fit", Summary: "fit the lab's network model to recorded traces: a link with its goodness of fit each, a population of them", Run: cli.NoStdin(fitcmd.Run)},
	{Name: "backup", Summary: "copy the saved sessions, traces and jobs to a file, even while the lab serves", Run: cli.NoStdin(runBackup)},
	{Name: "restore", Summary: "replace the saved sessions, traces and jobs with a backup", Run: cli.NoStdin(runRestore)},
}}

// run runs the command args name and returns the exit status: lab alone,
// or lab and flags, is lab serve.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") && !cli.IsHelp(args[0]) {
		return runServe(args, stdout, stderr) // lab, lab -addr :9090
	}
	return lab.Run(args, stdin, stdout, stderr)
}
