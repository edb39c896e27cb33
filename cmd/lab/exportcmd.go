package main

import (
	"fmt"
	"io"

	"interplab/cmd/lab/internal/export"
)

// runExport implements lab export: it prints the settings built from
// -preset and -set in the -format's file form.
func runExport(args []string, stdout, stderr io.Writer) int {
	fs := labFlags("export", "Usage: lab export [-format F] [-preset NAME] [-set name=value]...\n\n"+
		"Prints the settings as a file a game team pastes as is.\n\nFlags:\n", stderr)
	format := fs.String("format", "json", "export `format`: "+export.Names())
	sf := settingsFlags(fs)
	if code, ok := parseLabFlags(fs, args, 0, stderr); !ok {
		return code
	}
	s, err := sf.settings()
	if err != nil {
		fmt.Fprintf(stderr, "lab export: %v\n", err)
		return 2
	}
	file, err := export.Render(*format, sf.preset, s)
	if err != nil {
		fmt.Fprintf(stderr, "lab export: %v\n", err)
		return 2
	}
	_, err = stdout.Write(file.Body)
	return exit(stderr, "export", err)
}
