// Package peers checks the lab's library techniques against cases captured
// from the real libraries: a packet schedule, the frames a client rendered,
// and what the library drew in each (the format of the project's
// golden/peers cases, which studios can also capture from their own builds).
//
// A case file is JSON (or gzip-compressed JSON) with a
// "library" field naming its library; the Runner registered for that library
// decodes the case's inputs and replays them through the lab's technique,
// and Check compares the technique's frames with the case's "out" rows:
// whether something was drawn, and where, to a tolerance in metres.
//
// A network simulator's case (the project's golden/netsim format) is told
// apart by its shape: "sends" and "delivered" instead of "out". Its
// NetSimRunner replays the sends through the lab's model of that simulator
// and compares what it delivered, dropped and held: ids, order and frames
// exactly, times to a tolerance in seconds.
package peers

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"interplab/engine/geom"
	"interplab/engine/netsim"
	"interplab/engine/technique"
)

// Tolerance is the largest position error, in metres, that still counts as
// reproducing a library's frame.
const Tolerance = 1e-6

// TimeTolerance is the largest difference of a delivery time, in seconds,
// that still counts as reproducing a network simulator's delivery.
const TimeTolerance = 1e-6

// MaxCaseBytes bounds a case file, compressed or not, and its decompressed
// size: the shipped cases are under 1 MiB each.
const MaxCaseBytes = 256 << 20

// Runner decodes a case of its library from the JSON of a case file and
// replays it through the lab's technique, returning one frame per entry of
// the case's frames.
type Runner func(caseJSON []byte) ([]technique.PeerFrame, error)

// NetSimRunner decodes a network simulator's case from the JSON of a case
// file, replays its sends through the lab's model of that simulator and
// compares the outcome with the case's, times to tol seconds.
type NetSimRunner func(caseJSON []byte, tol float64) (netsim.CaseCheck, error)

// Result is the outcome of checking one case file.
type Result struct {
	Path      string  // the file checked
	Name      string  // the case's name ("" if unreadable)
	Library   string  // its library field
	NetSim    bool    // a network simulator's case: Frames counts messages, MaxErr is in seconds
	Frames    int     // frames compared (messages, for a network simulator's case)
	MaxErr    float64 // the largest position error over frames drawn by both, m (time error, s)
	FirstDiff int     // index of the first frame that differs (drawn or not, or beyond Tolerance); -1 if none (0 for a simulator's case that differs)
	Why       string  // what differs at FirstDiff, for a person
	Err       error   // the case could not be read or run
}

// OK tells whether the case was read, run and reproduced within Tolerance.
func (r *Result) OK() bool { return r.Err == nil && r.FirstDiff < 0 }

// Checker runs case files through the Runner of their library.
type Checker struct {
	Runners       map[string]Runner       // by the cases' library field
	NetSimRunners map[string]NetSimRunner // network simulators' cases, by library
	Tol           float64                 // position tolerance, m; 0 means Tolerance
	TimeTol       float64                 // a simulator's time tolerance, s; 0 means TimeTolerance
}

// caseHead is what Check reads of every case: the library, the name and the
// library's frames, or for a network simulator's case whether it has sends
// and deliveries.
type caseHead struct {
	Name    string `json:"name"`
	Library string `json:"library"`
	Out     []struct {
		T   float64         `json:"t"`
		Pos json.RawMessage `json:"pos"`
	} `json:"out"`
	Sends     json.RawMessage `json:"sends"`
	Delivered json.RawMessage `json:"delivered"`
}

// ReadCase returns the JSON of a case file, decompressing it if it is
// gzip-compressed (whatever its name).
func ReadCase(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	br := bufio.NewReader(f)
	var r io.Reader = br
	if magic, _ := br.Peek(2); bytes.Equal(magic, []byte{0x1f, 0x8b}) {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		defer zr.Close()
		r = zr
	}
	data, err := io.ReadAll(io.LimitReader(r, MaxCaseBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(data) > MaxCaseBytes {
		return nil, fmt.Errorf("%s: larger than %d MiB", path, MaxCaseBytes>>20)
	}
	return data, nil
}

// Check checks the case in the file at path.
func (c *Checker) Check(path string) Result {
	res := Result{Path: path, FirstDiff: -1}
	data, err := ReadCase(path)
	if err != nil {
		res.Err = err
		return res
	}
	var head caseHead
	if err := json.Unmarshal(data, &head); err != nil {
		res.Err = fmt.Errorf("not a case: %w", err)
		return res
	}
	res.Name, res.Library = head.Name, head.Library
	if head.Out == nil && head.Sends != nil && head.Delivered != nil {
		return c.checkNetSim(res, head.Library, data)
	}
	run, ok := c.Runners[head.Library]
	if !ok {
		res.Err = fmt.Errorf("library %q: want one of %s", head.Library, strings.Join(slices.Sorted(maps.Keys(c.Runners)), ", "))
		return res
	}
	want := make([]technique.PeerFrame, len(head.Out))
	for i, o := range head.Out {
		p, drawn, err := parsePos(o.Pos)
		if err != nil {
			res.Err = fmt.Errorf("out[%d].pos: %w", i, err)
			return res
		}
		want[i] = technique.PeerFrame{T: o.T, Pos: p, Drawn: drawn}
	}
	got, err := run(data)
	if err != nil {
		res.Err = err
		return res
	}
	if len(got) != len(want) {
		res.Err = fmt.Errorf("the technique rendered %d frames, the case has %d out rows", len(got), len(want))
		return res
	}
	res.Frames = len(want)
	tol := c.Tol
	if tol == 0 {
		tol = Tolerance
	}
	for i := range want {
		g, w := &got[i], &want[i]
		why := ""
		switch {
		case g.Drawn != w.Drawn:
			why = fmt.Sprintf("drawn %v, the library drew %v", g.Drawn, w.Drawn)
		case g.Drawn:
			e := math.Sqrt(sq(g.Pos[0]-w.Pos[0]) + sq(g.Pos[1]-w.Pos[1]) + sq(g.Pos[2]-w.Pos[2]))
			if !(e <= res.MaxErr) {
				res.MaxErr = e
			}
			if !(e <= tol) {
				why = fmt.Sprintf("pos %v, the library drew %v (%.3g m apart)", fmtPos(g.Pos), fmtPos(w.Pos), e)
			}
		}
		if why != "" && res.FirstDiff < 0 {
			res.FirstDiff, res.Why = i, fmt.Sprintf("t = %g s: %s", w.T, why)
		}
	}
	return res
}

// checkNetSim checks a network simulator's case.
func (c *Checker) checkNetSim(res Result, library string, data []byte) Result {
	res.NetSim = true
	run, ok := c.NetSimRunners[library]
	if !ok {
		res.Err = fmt.Errorf("network simulator %q: want one of %s", library, strings.Join(slices.Sorted(maps.Keys(c.NetSimRunners)), ", "))
		return res
	}
	tol := c.TimeTol
	if tol == 0 {
		tol = TimeTolerance
	}
	got, err := run(data, tol)
	if err != nil {
		res.Err = err
		return res
	}
	res.Frames, res.MaxErr = got.Messages, got.MaxErr
	if got.FirstDiff != "" {
		res.FirstDiff, res.Why = 0, got.FirstDiff
	}
	return res
}

func sq(x float64) float64 { return x * x }

func fmtPos(p geom.Vec3) string { return fmt.Sprintf("[%.9g, %.9g, %.9g]", p[0], p[1], p[2]) }

// parsePos reads a case's pos: [x, y, z], or null for nothing drawn.
func parsePos(raw json.RawMessage) (geom.Vec3, bool, error) {
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return geom.Vec3{}, false, nil
	}
	var xyz []float64
	if err := json.Unmarshal(raw, &xyz); err != nil || len(xyz) != 3 {
		return geom.Vec3{}, false, errors.New("want [x, y, z] or null")
	}
	return geom.Vec3{xyz[0], xyz[1], xyz[2]}, true, nil
}

// Files returns the case files under the given files and directories: every
// *.json and *.json.gz below a directory, in lexical order; a file named
// directly is taken whatever its name.
func Files(paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		info, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !info.IsDir() {
			out = append(out, p)
			continue
		}
		var found []string
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && (strings.HasSuffix(path, ".json") || strings.HasSuffix(path, ".json.gz")) {
				found = append(found, path)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		if len(found) == 0 {
			return nil, fmt.Errorf("%s: no case files (*.json, *.json.gz)", p)
		}
		slices.Sort(found)
		out = append(out, found...)
	}
	return out, nil
}

// Print writes one line per result and a summary line naming the
// tolerance, tol metres (and timeTol seconds for network simulators'
// cases), to w, and tells whether every case passed.
func Print(w io.Writer, results []Result, tol, timeTol float64) bool {
	pass, netsim := 0, false
	for i := range results {
		r := &results[i]
		name := r.Name
		if name == "" {
			name = filepath.Base(r.Path)
		}
		netsim = netsim || r.NetSim
		switch {
		case r.Err != nil:
			fmt.Fprintf(w, "FAIL %s (%s): %v\n", name, r.Path, r.Err)
		case r.NetSim && r.FirstDiff >= 0:
			fmt.Fprintf(w, "FAIL %s [%s] %d messages, max time error %.3g s: %s\n", name, r.Library, r.Frames, r.MaxErr, r.Why)
		case r.NetSim:
			pass++
			fmt.Fprintf(w, "ok   %s [%s] %d messages, max time error %.3g s\n", name, r.Library, r.Frames, r.MaxErr)
		case r.FirstDiff >= 0:
			fmt.Fprintf(w, "FAIL %s [%s] %d frames, max error %.3g m, first differs at frame %d: %s\n",
				name, r.Library, r.Frames, r.MaxErr, r.FirstDiff, r.Why)
		default:
			pass++
			fmt.Fprintf(w, "ok   %s [%s] %d frames, max error %.3g m\n", name, r.Library, r.Frames, r.MaxErr)
		}
	}
	if netsim {
		fmt.Fprintf(w, "%d of %d cases reproduced within %g m (network simulators: %g s)\n", pass, len(results), tol, timeTol)
	} else {
		fmt.Fprintf(w, "%d of %d cases reproduced within %g m\n", pass, len(results), tol)
	}
	return pass == len(results)
}
