// Package cli is what the lab's commands share, so that each command's file
// in cmd/lab is its usage, its flags and the calls into the packages that
// do the work: a Command (the flag set, its usage and exit statuses, errors
// printed as "lab NAME: ...", JSON output, an interrupt that stops a run
// early, progress lines), the settings flags every simulating command takes
// (-preset, -scenario, -set) and the -data directory's store.
//
// Exit statuses: 0 success (and -h), 1 a failure, 2 bad usage.
package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"time"

	"interplab/cmd/lab/internal/store"
)

// Command is one run of a lab command: its name ("sweep", "trace sim"), its
// flags and where it writes.
type Command struct {
	Name           string
	Flags          *flag.FlagSet
	Stdout, Stderr io.Writer
}

// New returns the command `lab name`. Its flag errors go to stderr, and -h
// prints usage (the command's text, ending with its flags heading) and then
// the flags.
func New(name, usage string, stdout, stderr io.Writer) *Command {
	fs := flag.NewFlagSet("lab "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, usage)
		fs.PrintDefaults()
	}
	return &Command{Name: name, Flags: fs, Stdout: stdout, Stderr: stderr}
}

// Parse parses args, allowing at most maxArgs arguments after the flags.
// When ok is false the command must exit with code: 0 after -h, 2 for bad
// usage (the usage has been printed).
func (c *Command) Parse(args []string, maxArgs int) (code int, ok bool) {
	fs := c.Flags
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0, false
		}
		return 2, false
	}
	if fs.NArg() > maxArgs {
		fmt.Fprintf(c.Stderr, "%s: unexpected argument %q\n", fs.Name(), fs.Arg(maxArgs))
		fs.Usage()
		return 2, false
	}
	return 0, true
}

// Args parses args allowing flags both before and after the positional
// arguments, and returns those: exactly want of them. When ok is false the
// command must exit with code, as with Parse.
func (c *Command) Args(args []string, want int) (pos []string, code int, ok bool) {
	fs := c.Flags
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, 0, false
			}
			return nil, 2, false
		}
		if fs.NArg() == 0 {
			break
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if len(pos) != want {
		fmt.Fprintf(c.Stderr, "%s: want %d argument(s), got %d\n", fs.Name(), want, len(pos))
		fs.Usage()
		return nil, 2, false
	}
	return pos, 0, true
}

// Usagef reports a usage error, prints the usage, and returns 2.
func (c *Command) Usagef(format string, a ...any) int {
	c.Printf(format, a...)
	c.Flags.Usage()
	return 2
}

// Bad reports err as bad usage, without the whole usage, and returns 2:
// the error names the field or flag and what it allows.
func (c *Command) Bad(err error) int {
	c.Printf("%v", err)
	return 2
}

// Fail reports err as the command's failure and returns 1.
func (c *Command) Fail(err error) int {
	c.Printf("%v", err)
	return 1
}

// Exit returns 0 without an error, and Fail(err) with one.
func (c *Command) Exit(err error) int {
	if err != nil {
		return c.Fail(err)
	}
	return 0
}

// Printf writes one line to standard error, "lab NAME: " and the message.
func (c *Command) Printf(format string, a ...any) {
	fmt.Fprintf(c.Stderr, "lab "+c.Name+": "+format+"\n", a...)
}

// JSON prints v to standard output as indented JSON, as every -json flag
// does, and returns the exit status.
func (c *Command) JSON(v any) int { return c.Exit(PrintJSON(c.Stdout, v)) }

// PrintJSON writes v to w as indented JSON.
func PrintJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// Interrupt returns a context that ends on an interrupt (Ctrl-C), for
// commands that stop early and print what they have.
func Interrupt() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt)
}

// RunFlags are -workers, -json and -v of the commands that run the engine
// on every core.
type RunFlags struct {
	Workers       int
	JSON, Verbose bool
}

// RunFlags registers them: jsonDoc and vDoc say what -json prints and
// what -v adds.
func (c *Command) RunFlags(jsonDoc, vDoc string) *RunFlags {
	f := &RunFlags{}
	c.Flags.IntVar(&f.Workers, "workers", 0, "run on `N` goroutines; 0 for every core")
	c.Flags.BoolVar(&f.JSON, "json", false, jsonDoc)
	c.Flags.BoolVar(&f.Verbose, "v", false, vDoc)
	return f
}

// Progress returns, with -v, the callback of an engine run that prints
// "lab NAME: done/total unit" to standard error at every tenth of the work
// and at its end, followed by note's text when note is not nil; without
// -v, nil.
func Progress[T any](c *Command, f *RunFlags, unit string, note func(item T) string) func(item T, done, total int) {
	if !f.Verbose {
		return nil
	}
	return func(item T, done, total int) {
		line := fmt.Sprintf("%d/%d %s", done, total, unit)
		if note != nil {
			line += ", " + note(item) // every item, so that note sees them all
		}
		if done*10/total != (done-1)*10/total || done == total {
			c.Printf("%s", line)
		}
	}
}

// DataFlag registers -data, the lab's data directory.
func (c *Command) DataFlag() *string {
	return c.Flags.String("data", "./data", "the lab's data `dir` (as lab serve -data)")
}

// WithStore runs do on the store of the data directory dir and closes it;
// an error opening it is the command's failure.
func (c *Command) WithStore(dir string, do func(st *store.SQLite) int) int {
	st, err := store.Open(dir, time.Now())
	if err != nil {
		return c.Fail(err)
	}
	defer st.Close()
	return do(st)
}

// WriteFile creates path and writes it with write, removing it on failure
// so that no half-written file is left.
func WriteFile(path string, write func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	err = write(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
	}
	return err
}

// IsHelp tells whether arg asks for help: -h, -help or --help.
func IsHelp(arg string) bool {
	switch arg {
	case "-h", "-help", "--help":
		return true
	}
	return false
}
