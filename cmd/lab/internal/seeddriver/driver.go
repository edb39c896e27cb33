// Package seeddriver is the seed's EPIC driver program, byte for byte: it
// reads packet lines "x,y,z / x,y,z / t" as the C program's fgets and
// sscanf do, feeds them to the engine's EPIC interpolator and prints what
// it shows with glibc's printf rounding. `lab epic` runs it.
package seeddriver

import (
	"bufio"
	"io"

	"interplab/engine"
	"interplab/engine/technique/epic"
)

// Run is the seed's main and read_line: it reads packet lines from stdin
// until the end of input or a line starting with 'q', feeds each to the
// seed's interpolator (float32, made at the origin at time −1) with s's
// calcAhead, displayBehind and slopTime, and after each reads it every
// 0.05 s from time 0 up to 0.15 s past the packet, printing the position,
// velocity and time to stdout. stderr gets the banner, the prompts and the
// format errors. Both are the seed program's, byte for byte. The error is
// a failure to write stdout (then stderr).
func Run(s engine.Settings, stdin io.Reader, stdout, stderr io.Writer) error {
	// The seed's stdout is fully buffered when it is not a terminal;
	// stderr is not buffered, but only the bytes of each stream are
	// compared, not how the two interleave.
	out := bufio.NewWriterSize(stdout, 64<<10)
	errs := bufio.NewWriterSize(stderr, 64<<10)
	drive(s, stdin, out, errs)
	errsErr := errs.Flush()
	if err := out.Flush(); err != nil {
		return err
	}
	return errsErr
}

func drive(s engine.Settings, stdin io.Reader, out, errs *bufio.Writer) {
	terp := epic.New(epic.Settings[float32]{
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
