package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"interplab/cmd/lab/internal/report"
	"interplab/cmd/lab/internal/store"
	"interplab/cmd/lab/internal/traceio"
	"interplab/engine"
)

const traceUsage = `usage: lab trace COMMAND [flags]

Recorded traces: real packets to replay through every technique and to
derive a network preset from. They are kept in the lab's database (the
same -data directory as lab serve); two samples are built in.

  lab trace import FILE [-name N] [-format csv|jsonl|seed] [-data DIR]
        store a trace file (see the formats in "lab trace import -h")
  lab trace ls [-data DIR]
        list the traces
  lab trace show NAME [-data DIR] [-json]
        print a trace's derived network as -set flags and as a preset file
  lab trace sim NAME [-data DIR] [-preset P] [-set name=value ...] [-json]
        replay a trace through every technique and print the metrics
  lab trace rm NAME [-data DIR]
        delete a stored trace
`

// runTrace is `lab trace`.
func runTrace(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 || isHelpFlag(args[0]) || args[0] == "help" {
		w := stderr
		if len(args) > 0 {
			w = stdout
		}
		fmt.Fprint(w, traceUsage)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	cmds := map[string]func([]string, io.Writer, io.Writer) int{
		"import": runTraceImport, "ls": runTraceList, "show": runTraceShow, "sim": runTraceSim, "rm": runTraceRemove,
	}
	run, ok := cmds[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "lab trace: unknown command %q\n\n%s", args[0], traceUsage)
		return 2
	}
	return run(args[1:], stdout, stderr)
}

// traceFlags returns the flag set of lab trace name, with -data: usage is
// the command's synopsis after "lab trace".
func traceFlags(name, usage string, stderr io.Writer) (*flag.FlagSet, *string) {
	fs := labFlags("trace "+name, "usage: lab trace "+usage+"\n\nflags:\n", stderr)
	return fs, fs.String("data", "./data", "the lab's data `dir` (as lab serve -data)")
}

// traceArgs parses args with fs, allowing flags both before and after the
// positional arguments, and returns those: want of them.
func traceArgs(fs *flag.FlagSet, args []string, want int) ([]string, bool) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, false
		}
		if fs.NArg() == 0 {
			break
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if len(pos) != want {
		fmt.Fprintf(fs.Output(), "%s: want %d argument(s), got %d\n", fs.Name(), want, len(pos))
		fs.Usage()
		return nil, false
	}
	return pos, true
}

// withStore runs do on the store in dir, and closes it; an error opening
// it is reported as lab trace cmd's, with exit status 1.
func withStore(dir, cmd string, stderr io.Writer, do func(st *store.SQLite) int) int {
	st, err := store.Open(dir, time.Now())
	if err != nil {
		fmt.Fprintf(stderr, "lab trace %s: %v\n", cmd, err)
		return 1
	}
	defer st.Close()
	return do(st)
}

// loadTrace loads the named trace from st, reporting a failure as lab
// trace cmd's.
func loadTrace(st *store.SQLite, name, cmd string, stderr io.Writer) (store.TraceInfo, *engine.Trace, bool) {
	info, tr, err := st.LoadTrace(name)
	if errors.Is(err, store.ErrTraceNotFound) {
		fmt.Fprintf(stderr, "lab trace %s: no trace named %q (see lab trace ls)\n", cmd, name)
		return info, nil, false
	}
	if err != nil {
		fmt.Fprintf(stderr, "lab trace %s: %v\n", cmd, err)
		return info, nil, false
	}
	return info, tr, true
}

func runTraceImport(args []string, stdout, stderr io.Writer) int {
	fs, data := traceFlags("import", "import FILE [-name N] [-format csv|jsonl|seed] [-data DIR]", stderr)
	usage := fs.Usage
	fs.Usage = func() { usage(); fmt.Fprint(stderr, "\n"+traceio.FormatsDoc) }
	name := fs.String("name", "", "store it as `name` (default: the file's name)")
	format := fs.String("format", "", "read the file as `format`: csv, jsonl or seed (default: detected)")
	pos, ok := traceArgs(fs, args, 1)
	if !ok {
		return 2
	}
	file := pos[0]
	if *name == "" {
		*name = traceio.NameFrom(file)
	}
	if err := traceio.CheckName(*name); err != nil {
		fmt.Fprintf(stderr, "lab trace import: -name: %v\n", err)
		return 2
	}
	tr, got, err := traceio.ReadFile(file, *format, *name)
	if err != nil {
		fmt.Fprintf(stderr, "lab trace import: %v\n", err)
		return 1
	}
	return withStore(*data, "import", stderr, func(st *store.SQLite) int {
		info, err := st.SaveTrace(tr, got, time.Now())
		if errors.Is(err, store.ErrTraceExists) {
			fmt.Fprintf(stderr, "lab trace import: a trace named %q exists: choose another -name or lab trace rm it\n", *name)
			return 1
		}
		if err != nil {
			fmt.Fprintf(stderr, "lab trace import: %v\n", err)
			return 1
		}
		fmt.Fprintf(stdout, "imported %s (%s): %d packets, %d entities, %s s\n",
			info.Name, info.Format, info.Packets, info.Entities, report.Short(info.Span))
		return 0
	})
}

func runTraceList(args []string, stdout, stderr io.Writer) int {
	fs, data := traceFlags("ls", "ls [-data DIR]", stderr)
	if _, ok := traceArgs(fs, args, 0); !ok {
		return 2
	}
	return withStore(*data, "ls", stderr, func(st *store.SQLite) int {
		list, err := st.ListTraces()
		if err != nil {
			fmt.Fprintf(stderr, "lab trace ls: %v\n", err)
			return 1
		}
		return exit(stderr, "trace ls", report.Traces(stdout, list))
	})
}

func runTraceShow(args []string, stdout, stderr io.Writer) int {
	fs, data := traceFlags("show", "show NAME [-data DIR] [-json]", stderr)
	asJSON := fs.Bool("json", false, "print the trace as GET /api/traces/NAME does")
	pos, ok := traceArgs(fs, args, 1)
	if !ok {
		return 2
	}
	return withStore(*data, "show", stderr, func(st *store.SQLite) int {
		info, tr, ok := loadTrace(st, pos[0], "show", stderr)
		if !ok {
			return 1
		}
		if *asJSON {
			return exit(stderr, "trace show", printJSON(stdout, report.DescribeTrace(info, tr)))
		}
		return exit(stderr, "trace show", report.Trace(stdout, info.Name, info.Format, tr))
	})
}

const traceSimDoc = `
Replays the trace through every technique for its span (or the settings'
duration, if shorter) and prints the metrics as lab sim does. The settings
start from the preset (or the engine defaults), then take the network
derived from the trace (so the client clock's pings see the trace's
network) and its top recorded speed as maxSpeed, then every -set in order.
entities and sendRate come from the trace. The network parameters
(latency, jitter, jitterDist, loss, lossModel, burstLength, duplicate) and
seed do not change the replayed packets: they only shape the client
clock's pings; motion is unused.
`

func runTraceSim(args []string, stdout, stderr io.Writer) int {
	fs, data := traceFlags("sim", "sim NAME [-data DIR] [-preset P] [-set name=value ...] [-json]", stderr)
	usage := fs.Usage
	fs.Usage = func() { usage(); fmt.Fprint(stderr, traceSimDoc) }
	sf := settingsFlags(fs)
	sf.refused = map[string]string{"entities": "comes from the trace in a replay", "sendRate": "comes from the trace in a replay"}
	asJSON := fs.Bool("json", false, "print JSON instead of a table")
	pos, ok := traceArgs(fs, args, 1)
	if !ok {
		return 2
	}
	base, err := sf.base()
	if err != nil {
		fmt.Fprintf(stderr, "lab trace sim: %v\n", err)
		return 2
	}
	return withStore(*data, "sim", stderr, func(st *store.SQLite) int {
		info, tr, ok := loadTrace(st, pos[0], "sim", stderr)
		if !ok {
			return 1
		}
		s, _ := traceio.Settings(tr, base)
		if err := sf.apply(&s); err != nil {
			fmt.Fprintf(stderr, "lab trace sim: %v\n", err)
			return 2
		}
		res, err := engine.RunTrace(tr, s)
		if err == nil && *asJSON {
			err = printJSON(stdout, res)
		} else if err == nil {
			r := res.Settings
			fmt.Fprintf(stdout, "trace %s: %d entities, %s s replayed at %g Hz render (sends at %g Hz, from the trace)\n",
				info.Name, r.Entities, report.Short(r.Duration), r.RenderRate, r.SendRate)
			fmt.Fprintf(stdout, "ignored for the packets (they shape only the clock's pings): %s; unused: %s\n\n",
				strings.Join(engine.ReplayPingOnly, ", "), strings.Join(engine.ReplayUnused, ", "))
			err = report.MetricsTable(stdout, res)
		}
		return exit(stderr, "trace sim", err)
	})
}

func runTraceRemove(args []string, stdout, stderr io.Writer) int {
	fs, data := traceFlags("rm", "rm NAME [-data DIR]", stderr)
	pos, ok := traceArgs(fs, args, 1)
	if !ok {
		return 2
	}
	return withStore(*data, "rm", stderr, func(st *store.SQLite) int {
		switch err := st.DeleteTrace(pos[0]); {
		case errors.Is(err, store.ErrTraceNotFound):
			fmt.Fprintf(stderr, "lab trace rm: no trace named %q\n", pos[0])
			return 1
		case errors.Is(err, store.ErrTraceSample):
			fmt.Fprintf(stderr, "lab trace rm: %s is a built-in sample\n", pos[0])
			return 1
		case err != nil:
			fmt.Fprintf(stderr, "lab trace rm: %v\n", err)
			return 1
		}
		fmt.Fprintf(stdout, "deleted %s\n", pos[0])
		return 0
	})
}
