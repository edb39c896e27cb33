package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
)

// runExport implements lab export: it prints the settings built from
// -preset and -set in the -format's file form.
func runExport(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("lab export", flag.ContinueOnError)
	fs.SetOutput(stderr)
	format := fs.String("format", "json", "export `format`: "+exportFormatNames())
	settings := settingsFlags(fs)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: lab export [-format F] [-preset NAME] [-set name=value]...\n\n"+
			"Prints the settings as a file a game team pastes as is.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "lab export: unexpected argument %q\n", fs.Arg(0))
		fs.Usage()
		return 2
	}
	s, err := settings()
	if err != nil {
		fmt.Fprintf(stderr, "lab export: %v\n", err)
		return 2
	}
	body, _, _, err := export(*format, fs.Lookup("preset").Value.String(), s)
	if err != nil {
		fmt.Fprintf(stderr, "lab export: %v\n", err)
		return 2
	}
	if _, err := stdout.Write(body); err != nil {
		fmt.Fprintf(stderr, "lab export: %v\n", err)
		return 1
	}
	return 0
}
