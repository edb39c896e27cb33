package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"interplab/cmd/lab/internal/export"
	"interplab/cmd/lab/internal/report"
	"interplab/cmd/lab/internal/server"
	"interplab/cmd/lab/internal/store"
	"interplab/cmd/lab/internal/traceio"
	"interplab/engine"
	"interplab/presets"
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

const traceImportDoc = `
Formats (detected from the content unless -format is given):
  csv    a header naming the columns, then one row per entity per packet:
         entity,seq,sent,arrive,x,y,z,vx,vy,vz[,qx,qy,qz,qw | ,yaw]
         sent, arrive (or delay), x..vz are required; an empty arrive is a loss
  jsonl  one object per line with the same keys (or pos, vel, rot arrays)
  seed   the seed EPIC driver's "x,y,z / x,y,z / t" lines (arrive = t)
A malformed file is refused with its line number, and nothing is stored.
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

// traceFlags parses args with fs, allowing flags both before and after
// the positional arguments, and returns those (want of them, or none if
// want is 0).
func traceFlags(fs *flag.FlagSet, args []string, want int) ([]string, bool) {
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
		fmt.Fprintf(fs.Output(), "lab trace %s: want %d argument(s), got %d\n", fs.Name(), want, len(pos))
		fs.Usage()
		return nil, false
	}
	return pos, true
}

func newTraceFlagSet(name, usage string, stderr io.Writer) (*flag.FlagSet, *string) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: lab trace %s\n\nflags:\n", usage)
		fs.PrintDefaults()
	}
	data := fs.String("data", "./data", "the lab's data `dir` (as lab serve -data)")
	return fs, data
}

func openTraceStore(dir string, stderr io.Writer, cmd string) (*store.SQLite, bool) {
	st, err := store.Open(dir, time.Now())
	if err != nil {
		fmt.Fprintf(stderr, "lab trace %s: %v\n", cmd, err)
		return nil, false
	}
	return st, true
}

func runTraceImport(args []string, stdout, stderr io.Writer) int {
	fs, data := newTraceFlagSet("import", "import FILE [-name N] [-format csv|jsonl|seed] [-data DIR]", stderr)
	usage := fs.Usage
	fs.Usage = func() { usage(); fmt.Fprint(stderr, traceImportDoc) }
	name := fs.String("name", "", "store it as `name` (default: the file's name)")
	format := fs.String("format", "", "read the file as `format`: csv, jsonl or seed (default: detected)")
	pos, ok := traceFlags(fs, args, 1)
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
	f, err := os.Open(file)
	if err != nil {
		fmt.Fprintf(stderr, "lab trace import: %v\n", err)
		return 1
	}
	content, err := io.ReadAll(io.LimitReader(f, traceio.MaxBytes+1))
	f.Close()
	if err != nil {
		fmt.Fprintf(stderr, "lab trace import: %v\n", err)
		return 1
	}
	tr, got, err := traceio.Parse(content, *format, *name)
	if err != nil {
		fmt.Fprintf(stderr, "lab trace import: %s: %v\n", file, err)
		return 1
	}
	st, ok := openTraceStore(*data, stderr, "import")
	if !ok {
		return 1
	}
	defer st.Close()
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
		info.Name, info.Format, info.Packets, info.Entities, formatTraceNumber(info.Span))
	return 0
}

func runTraceList(args []string, stdout, stderr io.Writer) int {
	fs, data := newTraceFlagSet("ls", "ls [-data DIR]", stderr)
	if _, ok := traceFlags(fs, args, 0); !ok {
		return 2
	}
	st, ok := openTraceStore(*data, stderr, "ls")
	if !ok {
		return 1
	}
	defer st.Close()
	list, err := st.ListTraces()
	if err != nil {
		fmt.Fprintf(stderr, "lab trace ls: %v\n", err)
		return 1
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "name\tformat\tpackets\tentities\tspan (s)\tcreated")
	for _, t := range list {
		created := "built in"
		if !t.Sample {
			created = t.Created.Local().Format("2006-01-02 15:04")
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\t%s\n", t.Name, t.Format, t.Packets, t.Entities, formatTraceNumber(t.Span), created)
	}
	if err := tw.Flush(); err != nil {
		fmt.Fprintf(stderr, "lab trace ls: %v\n", err)
		return 1
	}
	return 0
}

// loadTraceArg opens the store in dir and loads the named trace.
func loadTraceArg(dir, name string, stderr io.Writer, cmd string) (store.TraceInfo, *engine.Trace, bool) {
	st, ok := openTraceStore(dir, stderr, cmd)
	if !ok {
		return store.TraceInfo{}, nil, false
	}
	defer st.Close()
	info, tr, err := st.LoadTrace(name)
	if errors.Is(err, store.ErrTraceNotFound) {
		fmt.Fprintf(stderr, "lab trace %s: no trace named %q (see lab trace ls)\n", cmd, name)
		return store.TraceInfo{}, nil, false
	}
	if err != nil {
		fmt.Fprintf(stderr, "lab trace %s: %v\n", cmd, err)
		return store.TraceInfo{}, nil, false
	}
	return info, tr, true
}

func runTraceShow(args []string, stdout, stderr io.Writer) int {
	fs, data := newTraceFlagSet("show", "show NAME [-data DIR] [-json]", stderr)
	asJSON := fs.Bool("json", false, "print the trace as GET /api/traces/NAME does")
	pos, ok := traceFlags(fs, args, 1)
	if !ok {
		return 2
	}
	info, tr, ok := loadTraceArg(*data, pos[0], stderr, "show")
	if !ok {
		return 1
	}
	out := server.DescribeTrace(info, tr)
	if *asJSON {
		if err := printJSON(stdout, out); err != nil {
			fmt.Fprintf(stderr, "lab trace show: %v\n", err)
			return 1
		}
		return 0
	}
	e := out.Network
	fmt.Fprintf(stdout, "%s (%s): %d packets, %d entities, %s s; top recorded speed %s m/s\n",
		info.Name, info.Format, info.Packets, info.Entities, formatTraceNumber(info.Span), formatTraceNumber(out.MaxSpeed))
	fmt.Fprintf(stdout, "measured: %d sends, %d delivered, %d delays, %d loss runs",
		e.Sends, e.Delivered, e.Delays, e.LossRuns)
	if e.JitterDist != "" {
		fmt.Fprintf(stdout, "; jitter fit (Kolmogorov–Smirnov distance):")
		for i, d := range engine.JitterDists {
			fmt.Fprintf(stdout, " %s %.3f", d, e.DistFit[i])
		}
	}
	fmt.Fprintf(stdout, "\n\nderived settings, as flags for lab sim or lab trace sim:\n")
	var flags []string
	for _, name := range out.Set {
		flags = append(flags, "-set "+name+"="+out.Settings.Text(name))
	}
	fmt.Fprintf(stdout, "  %s\n\nas a preset file (presets/%s.json):\n", strings.Join(flags, " \\\n  "), info.Name)
	stdout.Write(export.PresetFile(info.Name, out.Settings, out.Set))
	return 0
}

func runTraceSim(args []string, stdout, stderr io.Writer) int {
	fs, data := newTraceFlagSet("sim", "sim NAME [-data DIR] [-preset P] [-set name=value ...] [-json]", stderr)
	usage := fs.Usage
	fs.Usage = func() {
		usage()
		fmt.Fprint(stderr, `
Replays the trace through every technique for its span (or the settings'
duration, if shorter) and prints the metrics as lab sim does. The settings
start from the preset (or the engine defaults), then take the network
derived from the trace (so the client clock's pings see the trace's
network) and its top recorded speed as maxSpeed, then every -set in order.
entities and sendRate come from the trace.
`)
	}
	preset := fs.String("preset", "", "start from the named `preset`")
	var sets [][2]string
	fs.Func("set", "set one parameter, `name=value` in the vocabulary; repeatable", func(arg string) error {
		name, value, err := parseSetArg(arg)
		if err != nil {
			return err
		}
		if name == "entities" || name == "sendRate" {
			return fmt.Errorf("%s comes from the trace in a replay", name)
		}
		sets = append(sets, [2]string{name, value})
		return nil
	})
	asJSON := fs.Bool("json", false, "print JSON instead of a table")
	pos, ok := traceFlags(fs, args, 1)
	if !ok {
		return 2
	}
	base := engine.Defaults()
	if *preset != "" {
		p, err := presets.Get(*preset)
		if err != nil {
			fmt.Fprintf(stderr, "lab trace sim: -preset: %v\n", err)
			return 2
		}
		base = p.Settings
	}
	info, tr, ok := loadTraceArg(*data, pos[0], stderr, "sim")
	if !ok {
		return 1
	}
	s, _ := traceio.Settings(tr, base)
	for _, kv := range sets {
		if err := s.SetText(kv[0], kv[1]); err != nil {
			fmt.Fprintf(stderr, "lab trace sim: -set %s=%s: %v\n", kv[0], kv[1], err)
			return 2
		}
	}
	res, err := engine.RunTrace(tr, s)
	if err != nil {
		fmt.Fprintf(stderr, "lab trace sim: %v\n", err)
		return 1
	}
	if *asJSON {
		if err := printJSON(stdout, res); err != nil {
			fmt.Fprintf(stderr, "lab trace sim: %v\n", err)
			return 1
		}
		return 0
	}
	// writeMetricsTable's first line describes a synthetic scenario: say
	// what was replayed instead.
	var table bytes.Buffer
	if err := report.Metrics(&table, res); err != nil {
		fmt.Fprintf(stderr, "lab trace sim: %v\n", err)
		return 1
	}
	_, rest, _ := bytes.Cut(table.Bytes(), []byte("\n"))
	r := res.Settings
	fmt.Fprintf(stdout, "trace %s: %d entities, %s s replayed at %g Hz render (sends at %g Hz, from the trace)\n",
		info.Name, r.Entities, formatTraceNumber(r.Duration), r.RenderRate, r.SendRate)
	stdout.Write(rest)
	return 0
}

func runTraceRemove(args []string, stdout, stderr io.Writer) int {
	fs, data := newTraceFlagSet("rm", "rm NAME [-data DIR]", stderr)
	pos, ok := traceFlags(fs, args, 1)
	if !ok {
		return 2
	}
	st, ok := openTraceStore(*data, stderr, "rm")
	if !ok {
		return 1
	}
	defer st.Close()
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
}

// formatTraceNumber shows a number with at most three significant digits
// after the point, whole numbers as they are.
func formatTraceNumber(v float64) string {
	if v == float64(int64(v)) {
		return strconv.FormatInt(int64(v), 10)
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}
