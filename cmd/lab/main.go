// Lab is Interp Lab's command: it serves the lab page, runs the seed's EPIC
// driver, runs simulations and exports settings.
//
// Usage:
//
//	lab [serve] [-addr :8080] [-data ./data]   serve the lab page (the default)
//	lab epic [calcAhead displayBehind slopTime] the seed's EPIC driver on stdin
//	lab sim [-preset NAME] [-set name=value]... run a simulation, print metrics
//	                                           (values take units: -set latency=20ms, -set loss=2%)
//	lab presets [-json]                         list the presets: name, title, doc
//	lab params [-group G] [-json]               list the parameters: units, range, default, doc
//	lab population [-preset NAME] [-population NAME]
//	                                           techniques over a player base, per-entity-per-round figures
//	lab export -format F [-preset NAME] [-set name=value]...
//	                                           print the settings as F
//	lab follow URL                             print a session's live config as JSON lines
//	lab trace import|ls|show|sim|rm ...        recorded packet traces (lab trace -h)
//	lab peers check FILE_OR_DIR...             library techniques against the libraries' own frames
//	lab backup [-data ./data] FILE             copy the data to FILE, even while the lab serves
//	lab restore [-data ./data] FILE            replace the data with a backup (the lab stopped)
//
// Run "lab COMMAND -h" for a command's flags. Exit status 2 is bad usage, 1 a
// failure.
package main

import (
	"fmt"
	"io"
	"os"
	"strings"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// labCommand is one subcommand of lab.
type labCommand struct {
	name, summary string
	run           func(args []string, stdin io.Reader, stdout, stderr io.Writer) int
}

var labCommands = []labCommand{
	{"serve", "serve the lab page (the default command)", noStdin(runServe)},
	{"epic", "run the seed's EPIC driver program on standard input", runEpic},
	{"sim", "run a simulation and print its metrics", noStdin(runSim)},
	{"sweep", "run one technique over a grid of one or two parameters", noStdin(runSweep)},
	{"population", "run techniques over a population of players, each on its own link", noStdin(runPopulation)},
	{"tune", "search a technique's settings for the least weighted cost", noStdin(runTune)},
	{"presets", "list the presets -preset takes", noStdin(runPresets)},
	{"params", "list the parameters -set takes: units, ranges, defaults", noStdin(runParams)},
	{"export", "print settings as JSON, a technique's own (C++, Mirror, NGO, Source, Unreal, geckos.io), netem or a network simulator's", noStdin(runExport)},
	{"follow", "follow a session's live settings, as a game would", noStdin(runFollow)},
	{"peers", "check library techniques against frames the real libraries drew", noStdin(runPeers)},
	{"trace", "import, list, show and replay recorded packet traces", runTrace},
	{"backup", "copy the saved sessions, traces and jobs to a file, even while the lab serves", noStdin(runBackup)},
	{"restore", "replace the saved sessions, traces and jobs with a backup", noStdin(runRestore)},
}

// noStdin adapts a command that does not read standard input.
func noStdin(run func(args []string, stdout, stderr io.Writer) int) func([]string, io.Reader, io.Writer, io.Writer) int {
	return func(args []string, _ io.Reader, stdout, stderr io.Writer) int { return run(args, stdout, stderr) }
}

// run dispatches args to a subcommand and returns the exit status.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") && !isHelpFlag(args[0]) {
		return runServe(args, stdout, stderr) // lab, lab -addr :9090
	}
	if isHelpFlag(args[0]) || args[0] == "help" {
		labUsage(stdout)
		return 0
	}
	for _, c := range labCommands {
		if c.name == args[0] {
			return c.run(args[1:], stdin, stdout, stderr)
		}
	}
	fmt.Fprintf(stderr, "lab: unknown command %q\n", args[0])
	labUsage(stderr)
	return 2
}

func isHelpFlag(arg string) bool {
	switch arg {
	case "-h", "-help", "--help":
		return true
	}
	return false
}

func labUsage(w io.Writer) {
	fmt.Fprintf(w, "Interp Lab: tune how remote entities are displayed in a networked game.\n\n")
	fmt.Fprintf(w, "Usage: lab [command] [flags]\n\nCommands:\n")
	for _, c := range labCommands {
		fmt.Fprintf(w, "  %-10s %s\n", c.name, c.summary)
	}
	fmt.Fprintf(w, "\nRun \"lab COMMAND -h\" for a command's flags.\n")
}
