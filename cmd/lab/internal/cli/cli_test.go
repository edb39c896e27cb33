package cli

import (
	"bytes"
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"

	"interplab/engine"
)

// TestProgress: -v prints a line at every tenth of the work and at its
// end, with the note of the item that crossed it; without -v there is no
// callback.
func TestProgress(t *testing.T) {
	var errb bytes.Buffer
	c := New("sweep", "", nil, &errb)
	if Progress[int](c, &RunFlags{}, "points", nil) != nil {
		t.Error("Progress without -v is not nil")
	}
	sum := 0
	p := Progress(c, &RunFlags{Verbose: true}, "points", func(item int) string { sum += item; return "sum " + strconv.Itoa(sum) })
	for i := 1; i <= 25; i++ {
		p(1, i, 25)
	}
	lines := strings.Split(strings.TrimSpace(errb.String()), "\n")
	if len(lines) != 10 || lines[0] != "lab sweep: 3/25 points, sum 3" || lines[9] != "lab sweep: 25/25 points, sum 25" {
		t.Errorf("progress lines = %q, want 10 from 3/25 (sum 3) to 25/25 (sum 25)", lines)
	}
}

// TestSpecFlag: a spec's FieldError names the flag that gave the field.
func TestSpecFlag(t *testing.T) {
	for field, want := range map[string]string{
		"x.min": "-x: ", "y": "-y: ", "points": "-x, -y: ", "constraints[1].max": "-max: ", "weights.errP95": "-w: ",
		"population.entities": "-entities: ", "population.stable.jitter": "-population: ", "latency": "-preset/-set: ",
	} {
		if got := SpecFlag(&engine.FieldError{Field: field}); got != want {
			t.Errorf("SpecFlag(%s) = %q, want %q", field, got, want)
		}
	}
	if got := SpecFlag(errors.New("plain")); got != "" {
		t.Errorf("SpecFlag(plain error) = %q, want none", got)
	}
}

// TestGroup: help goes to stdout with status 0, no command and an unknown
// one are bad usage, and a command gets the rest of the arguments.
func TestGroup(t *testing.T) {
	var got []string
	g := &Group{Name: "lab trace", Intro: "Traces.", Subs: []Sub{{Name: "ls", Synopsis: "[-data DIR]", Summary: "list them",
		Run: NoStdin(func(args []string, _, _ io.Writer) int { got = args; return 7 })}}}
	var out, errb bytes.Buffer
	if code := g.Run([]string{"ls", "-data", "d"}, nil, &out, &errb); code != 7 || strings.Join(got, " ") != "-data d" {
		t.Errorf("Run(ls -data d) = %d with %q", code, got)
	}
	if code := g.Run([]string{"-h"}, nil, &out, &errb); code != 0 || !strings.Contains(out.String(), "ls [-data DIR]\n        list them") {
		t.Errorf("Run(-h) = %d, %q", code, out.String())
	}
	for _, args := range [][]string{nil, {"frob"}} {
		if code := g.Run(args, nil, &out, &errb); code != 2 {
			t.Errorf("Run(%q) = %d, want 2", args, code)
		}
	}
	if !strings.Contains(errb.String(), `lab trace: unknown command "frob"`) {
		t.Errorf("stderr %q does not name the unknown command", errb.String())
	}
	if u := g.SubUsage("ls"); u != "usage: lab trace ls [-data DIR]\n\nflags:\n" {
		t.Errorf("SubUsage(ls) = %q", u)
	}
}
