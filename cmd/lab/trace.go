package main

import (
	"errors"
	"fmt"
	"io"
	"time"

	"interplab/cmd/lab/internal/cli"
	"interplab/cmd/lab/internal/report"
	"interplab/cmd/lab/internal/store"
	"interplab/cmd/lab/internal/traceio"
	"interplab/engine"
)

// traceCommands returns lab trace.
func traceCommands() *cli.Group {
	return &cli.Group{Name: "lab trace", Intro: `Recorded traces: real packets to replay through every technique and to
derive a network preset from. They are kept in the lab's database (the
same -data directory as lab serve); two samples are built in.`, Subs: []cli.Sub{
		{Name: "import", Synopsis: "FILE [-name N] [-format csv|jsonl|seed] [-data DIR]", Summary: "store a trace file (see the formats in \"lab trace import -h\")", Run: cli.NoStdin(runTraceImport)},
		{Name: "ls", Synopsis: "[-data DIR]", Summary: "list the traces", Run: cli.NoStdin(runTraceList)},
		{Name: "show", Synopsis: "NAME [-data DIR] [-json]", Summary: "print a trace's derived network as -set flags and as a preset file", Run: cli.NoStdin(runTraceShow)},
		{Name: "sim", Synopsis: "NAME [-data DIR] [-preset P] [-set name=value ...] [-json]", Summary: "replay a trace through every technique and print the metrics", Run: cli.NoStdin(runTraceSim)},
		{Name: "rm", Synopsis: "NAME [-data DIR]", Summary: "delete a stored trace", Run: cli.NoStdin(runTraceRemove)},
	}}
}

// traceCommand returns the command lab trace name, with -data; its usage
// starts with the synopsis traceCommands gives it.
func traceCommand(name string, stdout, stderr io.Writer) (*cli.Command, *string) {
	c := cli.New("trace "+name, traceCommands().SubUsage(name), stdout, stderr)
	return c, c.DataFlag()
}

// loadTrace loads the named trace from st, reporting a failure as c's.
func loadTrace(c *cli.Command, st *store.SQLite, name string) (store.TraceInfo, *engine.Trace, bool) {
	info, tr, err := st.LoadTrace(name)
	if errors.Is(err, store.ErrTraceNotFound) {
		c.Printf("no trace named %q (see lab trace ls)", name)
		return info, nil, false
	}
	if err != nil {
		c.Fail(err)
		return info, nil, false
	}
	return info, tr, true
}

func runTraceImport(args []string, stdout, stderr io.Writer) int {
	c, data := traceCommand("import", stdout, stderr)
	usage := c.Flags.Usage
	c.Flags.Usage = func() { usage(); fmt.Fprint(stderr, "\n"+traceio.FormatsDoc) }
	name := c.Flags.String("name", "", "store it as `name` (default: the file's name)")
	format := c.Flags.String("format", "", "read the file as `format`: csv, jsonl or seed (default: detected)")
	pos, code, ok := c.Args(args, 1)
	if !ok {
		return code
	}
	file := pos[0]
	if *name == "" {
		*name = traceio.NameFrom(file)
	}
	if err := traceio.CheckName(*name); err != nil {
		return c.Bad(fmt.Errorf("-name: %w", err))
	}
	tr, got, err := traceio.ReadFile(file, *format, *name)
	if err != nil {
		return c.Fail(err)
	}
	return c.WithStore(*data, func(st *store.SQLite) int {
		info, err := st.SaveTrace(tr, got, time.Now())
		if errors.Is(err, store.ErrTraceExists) {
			return c.Fail(fmt.Errorf("a trace named %q exists: choose another -name or lab trace rm it", *name))
		}
		if err != nil {
			return c.Fail(err)
		}
		fmt.Fprintf(stdout, "imported %s (%s): %d packets, %d entities, %s s\n",
			info.Name, info.Format, info.Packets, info.Entities, report.Short(info.Span))
		return 0
	})
}

func runTraceList(args []string, stdout, stderr io.Writer) int {
	c, data := traceCommand("ls", stdout, stderr)
	if _, code, ok := c.Args(args, 0); !ok {
		return code
	}
	return c.WithStore(*data, func(st *store.SQLite) int {
		list, err := st.ListTraces()
		if err != nil {
			return c.Fail(err)
		}
		return c.Exit(report.Traces(stdout, list))
	})
}

func runTraceShow(args []string, stdout, stderr io.Writer) int {
	c, data := traceCommand("show", stdout, stderr)
	asJSON := c.Flags.Bool("json", false, "print the trace as GET /api/traces/NAME does")
	pos, code, ok := c.Args(args, 1)
	if !ok {
		return code
	}
	return c.WithStore(*data, func(st *store.SQLite) int {
		info, tr, ok := loadTrace(c, st, pos[0])
		if !ok {
			return 1
		}
		if *asJSON {
			return c.JSON(report.DescribeTrace(info, tr))
		}
		return c.Exit(report.Trace(stdout, info.Name, info.Format, tr))
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
	c, data := traceCommand("sim", stdout, stderr)
	usage := c.Flags.Usage
	c.Flags.Usage = func() { usage(); fmt.Fprint(stderr, traceSimDoc) }
	sf := c.SettingsFlags()
	sf.Refused = map[string]string{"entities": "comes from the trace in a replay", "sendRate": "comes from the trace in a replay"}
	asJSON := c.Flags.Bool("json", false, "print JSON instead of a table")
	pos, code, ok := c.Args(args, 1)
	if !ok {
		return code
	}
	base, err := sf.Base()
	if err != nil {
		return c.Bad(err)
	}
	return c.WithStore(*data, func(st *store.SQLite) int {
		info, tr, ok := loadTrace(c, st, pos[0])
		if !ok {
			return 1
		}
		s, _ := traceio.Settings(tr, base)
		if err := sf.Apply(&s); err != nil {
			return c.Bad(err)
		}
		res, err := engine.RunTrace(tr, s)
		if err != nil {
			return c.Fail(err)
		}
		if *asJSON {
			return c.JSON(res)
		}
		return c.Exit(report.TraceReplay(stdout, info.Name, res))
	})
}

func runTraceRemove(args []string, stdout, stderr io.Writer) int {
	c, data := traceCommand("rm", stdout, stderr)
	pos, code, ok := c.Args(args, 1)
	if !ok {
		return code
	}
	return c.WithStore(*data, func(st *store.SQLite) int {
		switch err := st.DeleteTrace(pos[0]); {
		case errors.Is(err, store.ErrTraceNotFound):
			return c.Fail(fmt.Errorf("no trace named %q", pos[0]))
		case errors.Is(err, store.ErrTraceSample):
			return c.Fail(fmt.Errorf("%s is a built-in sample", pos[0]))
		case err != nil:
			return c.Fail(err)
		}
		fmt.Fprintf(stdout, "deleted %s\n", pos[0])
		return 0
	})
}
