package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"

	"interplab/engine"
)

// epicFlags are the settings `lab epic` takes, in the seed's order.
var epicFlags = []string{"calcAhead", "displayBehind", "slopTime"}

// runEpic is `lab epic`: the seed's EPIC driver program. It reads packet
// lines "x,y,z / x,y,z / t" from stdin until end of input or a line
// starting with 'q', feeds each to the seed's interpolator (float32, made
// at the origin at time −1), and after each reads it every 0.05 s from time
// 0 up to 0.15 s past the packet, printing the position, velocity and time.
// Stdout and stderr (banner, prompts, format errors) are the seed program's,
// byte for byte. It returns the exit status: 2 for bad usage.
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

	// The seed's stdout is fully buffered when it is not a terminal;
	// stderr is not buffered, but only the bytes of each stream are
	// compared, not how the two interleave.
	out := bufio.NewWriterSize(stdout, 64<<10)
	errs := bufio.NewWriterSize(stderr, 64<<10)
	epicDrive(settings, stdin, out, errs)
	errsErr := errs.Flush()
	if err := out.Flush(); err != nil {
		fmt.Fprintf(stderr, "lab epic: %v\n", err)
		return 1
	}
	if errsErr != nil {
		return 1
	}
	return 0
}

// epicDrive is the seed's main and read_line.
func epicDrive(s engine.Settings, stdin io.Reader, out, errs *bufio.Writer) {
	terp := engine.NewEPIC(engine.EPICSettings[float32]{
		CalcAhead:     float32(s.CalcAhead),
		DisplayBehind: float32(s.DisplayBehind),
		SlopTime:      float32(s.SlopTime),
	}, [3]float32{}, [3]float32{}, -1)
	var now float32
	errs.WriteString("Input successively reveived data packets. Type 'q' to quit.\n")
	lines := newCLineReader(stdin)
	var f [7]float32
	var pos, vel [3]float32
	buf := make([]byte, 0, 128)
	for {
		errs.WriteString("pos/vel/time> ")
		line := cString(lines.Line())
		if len(line) == 0 || line[0] == 'q' {
			return
		}
		if cScanPacket(line, &f) != 7 {
			errs.WriteString("error: input format x,y,z / x,y,z / t\n")
			continue
		}
		t := f[6]
		terp.Update([3]float32{f[0], f[1], f[2]}, [3]float32{f[3], f[4], f[5]}, t)
		for now < t+0.15 {
			now += 0.05
			terp.Read(now, &pos, &vel)
			buf = append(buf[:0], "pos: "...)
			buf = cAppendFixed3(buf, pos, 2)
			buf = append(buf, "  vel: "...)
			buf = cAppendFixed3(buf, vel, 3)
			buf = append(buf, "  time: "...)
			buf = cAppendFixed(buf, now, 3)
			buf = append(buf, '\n')
			out.Write(buf)
		}
	}
}

// cAppendFixed3 appends v's components as "%.*f,%.*f,%.*f".
func cAppendFixed3(b []byte, v [3]float32, prec int) []byte {
	for i, x := range v {
		if i > 0 {
			b = append(b, ',')
		}
		b = cAppendFixed(b, x, prec)
	}
	return b
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
