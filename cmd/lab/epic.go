package main

import (
	"flag"
	"fmt"
	"io"

	"interplab/cmd/lab/internal/seeddriver"
	"interplab/engine"
)

// epicFlags are the settings `lab epic` takes, in the seed's order.
var epicFlags = []string{"calcAhead", "displayBehind", "slopTime"}

// runEpic is `lab epic`: the seed's EPIC driver program (package
// seeddriver) on stdin, with the EPIC settings of its flags. It returns the
// exit status: 2 for bad usage.
func runEpic(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	settings := engine.Defaults()
	fs := flag.NewFlagSet("lab epic", flag.ContinueOnError)
	fs.SetOutput(stderr)
	for _, name := range epicFlags {
		p, _ := engine.Lookup(name)
		fs.Var(epicFlag{&settings, name}, name,
			fmt.Sprintf("%s\n`seconds` in [%s, %s]", p.Doc, p.Format(p.Min), p.Format(p.Max)))
	}
	fs.Usage = func() {
		fmt.Fprint(stderr, "usage: lab epic [-calcAhead seconds] [-displayBehind seconds] [-slopTime seconds] < packets\n\n"+
			"Runs the seed's EPIC driver program: reads lines \"x,y,z / x,y,z / t\" (position,\n"+
			"velocity, time) until 'q' or the end of input, and prints what the interpolator\n"+
			"shows every 0.05 s, exactly as the seed does.\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "lab epic: unexpected argument %q\n", fs.Arg(0))
		fs.Usage()
		return 2
	}

	if err := seeddriver.Run(settings, stdin, stdout, stderr); err != nil {
		fmt.Fprintf(stderr, "lab epic: %v\n", err)
		return 1
	}
	return 0
}

// epicFlag is a flag.Value that sets one EPIC parameter through the
// engine's parameter table, which checks its range.
type epicFlag struct {
	s    *engine.Settings
	name string
}

func (f epicFlag) String() string {
	if f.s == nil { // the zero value flag.PrintDefaults makes
		return ""
	}
	return f.s.Text(f.name)
}

func (f epicFlag) Set(text string) error {
	return f.s.SetText(f.name, text)
}
