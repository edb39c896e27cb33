package cli

import (
	"fmt"
	"io"
)

// Sub is one command of a Group: one of lab's commands, or of lab trace's.
type Sub struct {
	Name     string
	Synopsis string // its arguments, for the group's usage; "" to show only the summary
	Summary  string
	Run      func(args []string, stdin io.Reader, stdout, stderr io.Writer) int
}

// Group is a command made of commands: lab, lab trace.
type Group struct {
	Name  string // "lab", "lab trace"
	Intro string // the usage's first paragraph
	Subs  []Sub
}

// Run runs the command args[0] names with the rest of args. -h, -help,
// --help and help print the usage (status 0); no command or an unknown one
// is bad usage (status 2).
func (g *Group) Run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		g.Usage(stderr)
		return 2
	}
	if IsHelp(args[0]) || args[0] == "help" {
		g.Usage(stdout)
		return 0
	}
	for _, s := range g.Subs {
		if s.Name == args[0] {
			return s.Run(args[1:], stdin, stdout, stderr)
		}
	}
	fmt.Fprintf(stderr, "%s: unknown command %q\n\n", g.Name, args[0])
	g.Usage(stderr)
	return 2
}

// Usage writes the group's usage: its intro, and a line per command (two
// with a synopsis).
func (g *Group) Usage(w io.Writer) {
	fmt.Fprintf(w, "%s\n\nusage: %s COMMAND [flags]\n\ncommands:\n", g.Intro, g.Name)
	for _, s := range g.Subs {
		if s.Synopsis == "" {
			fmt.Fprintf(w, "  %-10s %s\n", s.Name, s.Summary)
		} else {
			fmt.Fprintf(w, "  %s %s\n        %s\n", s.Name, s.Synopsis, s.Summary)
		}
	}
	fmt.Fprintf(w, "\nRun \"%s COMMAND -h\" for a command's flags.\n", g.Name)
}

// SubUsage is the start of the usage of the group's command name: its
// synopsis, and the flags' heading.
func (g *Group) SubUsage(name string) string {
	for _, s := range g.Subs {
		if s.Name == name {
			return "usage: " + g.Name + " " + name + " " + s.Synopsis + "\n\nflags:\n"
		}
	}
	return "usage: " + g.Name + " " + name + "\n\nflags:\n"
}

// NoStdin adapts a command that does not read standard input to Sub.Run.
func NoStdin(run func(args []string, stdout, stderr io.Writer) int) func([]string, io.Reader, io.Writer, io.Writer) int {
	return func(args []string, _ io.Reader, stdout, stderr io.Writer) int { return run(args, stdout, stderr) }
}
