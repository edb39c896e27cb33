package main

import (
	"fmt"
	"io"
	"math"

	"interplab/cmd/lab/internal/peers"
)

// runPeers implements lab peers check: every case file under the given
// files and directories is replayed through the technique its library field
// names and compared with what the library drew.
func runPeers(args []string, stdout, stderr io.Writer) int {
	const usage = "Usage: lab peers check [-tol METRES] FILE_OR_DIR...\n\n" +
		"Replays each case (JSON, or gzip-compressed JSON, in the golden/peers format) through\n" +
		"the technique its \"library\" field names and prints, per case, the frames compared,\n" +
		"the largest position error and the first frame that differs. Exits 1 when a case\n" +
		"differs by more than the tolerance or cannot be read.\n\nFlags:\n"
	if len(args) == 0 || args[0] != "check" {
		if len(args) > 0 && isHelpFlag(args[0]) {
			fmt.Fprint(stdout, usage)
			return 0
		}
		fmt.Fprint(stderr, usage)
		return 2
	}
	fs := labFlags("peers check", usage, stderr)
	tol := fs.Float64("tol", peers.Tolerance, "largest position error that still reproduces a frame, `metres`")
	if code, ok := parseLabFlags(fs, args[1:], math.MaxInt, stderr); !ok {
		return code
	}
	if fs.NArg() == 0 {
		fmt.Fprintf(stderr, "lab peers check: name at least one case file or directory\n")
		return 2
	}
	if !(*tol > 0 && *tol <= 1) {
		fmt.Fprintf(stderr, "lab peers check: -tol = %g is not allowed: want (0, 1] metres\n", *tol)
		return 2
	}
	files, err := peers.Files(fs.Args())
	if err != nil {
		fmt.Fprintf(stderr, "lab peers check: %v\n", err)
		return 1
	}
	c := peers.Checker{Runners: peers.Runners(), Tol: *tol}
	results := make([]peers.Result, len(files))
	for i, f := range files {
		results[i] = c.Check(f)
	}
	if !peers.Print(stdout, results, *tol) {
		return 1
	}
	return 0
}
