// Package traceio reads and writes recorded packet traces, the files
// `lab trace import` and POST /api/traces read, and derives the settings
// that replay one.
//
// Three formats, told apart by their content (or named with -format):
//
// csv: a header row naming the columns, in any order and any case, then one
// row per entity per packet copy:
//
//	entity,seq,sent,arrive,x,y,z,vx,vy,vz,qx,qy,qz,qw
//	0,17,12.350,12.391,3.2,0.5,0,7,0,0,0,0,0.38268,0.92388
//
// sent (s) and x, y, z (m), vx, vy, vz (m/s) are required; arrive (s, on the
// same clock as sent), or delay (s, arrive − sent), is required, an empty
// cell (or nan, lost) meaning the packet was lost. entity (whole numbers;
// any ids, numbered 0, 1, ... in ascending order) and seq (the entity's send
// number: a gap is a loss; without it, sends are numbered in time order and
// rows of an entity with the same sent are copies of one send) are optional;
// so is the orientation, as a unit quaternion qx, qy, qz, qw or a yaw in
// radians. Lines starting with # are comments; blank lines are skipped.
// Unknown columns are errors, so a misspelt name is not silently ignored.
//
// jsonl: one JSON object per line with the same names as keys, or pos, vel
// and rot as arrays of 3, 3 and 4 numbers; arrive null or absent for a loss:
//
//	{"entity":0,"seq":17,"sent":12.35,"arrive":12.391,"pos":[3.2,0.5,0],"vel":[7,0,0]}
//
// seed: the seed EPIC driver's input, "x,y,z / x,y,z / t" per line (position,
// velocity, time; spaces optional), one entity. The driver hands each line
// to its interpolator as it reads it, so delivery is immediate: arrive = t,
// a trace with no delay, loss or jitter. As in the driver, a line starting
// with q ends the input. Unlike the driver, which reports a malformed line
// and reads on, a malformed line is an error.
//
// Rows may come in any order (a receiver's log is in arrival order): they
// are sorted by sent. A malformed file is an error naming its line and
// field, and nothing of it is kept.
package traceio

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"interplab/cmd/lab/internal/wire"
	"interplab/engine"
	"interplab/engine/geom"
)

// Limits on a trace file.
const (
	MaxBytes   = 32 << 20 // largest file, bytes
	MaxLine    = 64 << 10 // longest line, bytes
	MaxNameLen = 64       // longest trace name
	// MaxPackets is the most packets a file may hold: a game's whole
	// match comes in as a capture (package capture), up to
	// engine.TraceMaxPackets, and a file is held whole while it is read.
	MaxPackets = 200000
	rotSlack   = 0.01 // how far a recorded quaternion's norm may be from 1 before it is an error
)

// FormatsDoc sums the formats up for a command's help.
const FormatsDoc = `Formats (detected from the content unless -format is given):
  csv    a header naming the columns, then one row per entity per packet:
         entity,seq,sent,arrive,x,y,z,vx,vy,vz[,qx,qy,qz,qw | ,yaw]
         sent, arrive (or delay), x..vz are required; an empty arrive is a loss
  jsonl  one object per line with the same keys (or pos, vel, rot arrays)
  seed   the seed EPIC driver's "x,y,z / x,y,z / t" lines (arrive = t)
A malformed file is refused with its line number, and nothing is stored.
`

// formats are the trace file formats.
var formats = []string{"csv", "jsonl", "seed"}

// InputError is a malformed trace file: the 1-based line (0 when the
// error is about the whole file), the column or key at fault, and why.
type InputError struct {
	Line  int
	Field string
	Msg   string
}

func (e *InputError) Error() string {
	var b strings.Builder
	if e.Line > 0 {
		fmt.Fprintf(&b, "line %d: ", e.Line)
	}
	if e.Field != "" {
		b.WriteString(e.Field + ": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Row is one packet copy of a trace file, or of a live trace, before the
// rows become a trace (Build).
type Row struct {
	Line   int     // the 1-based line of the file (the packet's number in a live trace)
	Entity int     // the file's id
	Seq    int     // -1 when the file has none
	Sent   float64 // s
	Arrive float64 // s, on the same clock as Sent; NaN if lost
	Pos    geom.Vec3
	Vel    geom.Vec3
	Rot    geom.Quat
	HasRot bool
}

// Parse reads a trace file in format ("" to detect it) from r and returns
// the trace, named name, and the format read. Errors are *InputError.
//
// It reads r as a stream, line by line, so the memory it takes is that of
// the rows (at most MaxPackets of them), never the file's: a
// file over MaxBytes, a line over MaxLine bytes or a row beyond the packet
// limit stops it at once.
func Parse(r io.Reader, format, name string) (*engine.Trace, string, error) {
	lr := &limitedReader{r: r, left: MaxBytes}
	br := bufio.NewReaderSize(lr, MaxLine)
	if bom, _ := br.Peek(3); bytes.Equal(bom, []byte("\uFEFF")) {
		br.Discard(3) // a spreadsheet's byte order mark
	}
	if format == "" {
		format = detectFormat(br)
	}
	var rows []Row
	var err error
	switch format {
	case "csv":
		rows, err = parseCSV(br)
	case "jsonl":
		rows, err = parseJSONL(br)
	case "seed":
		rows, err = parseSeed(br)
	default:
		return nil, "", &InputError{Field: "format",
			Msg: fmt.Sprintf("unknown format %q: want %s", wire.Clip(format, 20), strings.Join(formats, ", "))}
	}
	if lr.over {
		return nil, format, &InputError{Msg: fmt.Sprintf("file over %d bytes", MaxBytes)}
	}
	if err != nil {
		return nil, format, err
	}
	tr, err := Build(rows, name)
	return tr, format, err
}

// ReadFile reads and parses the trace file at path as Parse does.
func ReadFile(path, format, name string) (*engine.Trace, string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, "", err
	}
	defer f.Close()
	tr, got, err := Parse(f, format, name)
	if err != nil {
		return nil, got, fmt.Errorf("%s: %w", path, err)
	}
	return tr, got, nil
}

// limitedReader reads at most left bytes of r and then fails, noting that
// the stream went on.
type limitedReader struct {
	r    io.Reader
	left int64
	over bool
}

func (l *limitedReader) Read(p []byte) (int, error) {
	if l.left <= 0 {
		var one [1]byte
		if n, _ := io.ReadFull(l.r, one[:]); n > 0 {
			l.over = true
			return 0, errTooBig
		}
		return 0, io.EOF
	}
	if int64(len(p)) > l.left {
		p = p[:l.left]
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	return n, err
}

var errTooBig = errors.New("file too big")

// lineReader yields a stream's lines, numbered from 1, without their line
// ends; a line over MaxLine bytes is an error.
type lineReader struct {
	br  *bufio.Reader
	n   int // the number of the line last read
	err error
}

// next returns the next line, or false at the end of the stream or on an
// error (in lr.err, an *InputError).
func (lr *lineReader) next() ([]byte, bool) {
	line, err := lr.br.ReadSlice('\n')
	if len(line) == 0 && err != nil {
		if !errors.Is(err, io.EOF) {
			lr.err = &InputError{Line: lr.n + 1, Msg: "read: " + err.Error()}
		}
		return nil, false
	}
	lr.n++
	if errors.Is(err, bufio.ErrBufferFull) {
		lr.err = &InputError{Line: lr.n, Msg: fmt.Sprintf("line over %d bytes", MaxLine)}
		return nil, false
	}
	return line, true
}

// detectFormat guesses a file's format from its first line that is
// neither blank nor a comment, within the first MaxLine bytes: an object
// is jsonl, two slashes seed, else csv.
func detectFormat(br *bufio.Reader) string {
	head, _ := br.Peek(MaxLine)
	for line := range bytes.Lines(head) {
		line = bytes.TrimSpace(line)
		switch {
		case len(line) == 0 || line[0] == '#':
			continue
		case line[0] == '{':
			return "jsonl"
		case bytes.Count(line, []byte("/")) == 2:
			return "seed"
		}
		return "csv"
	}
	return "csv"
}

// columns are the CSV columns and JSON keys of a row.
var columns = []string{"entity", "seq", "sent", "arrive", "delay",
	"x", "y", "z", "vx", "vy", "vz", "qx", "qy", "qz", "qw", "yaw"}

func parseCSV(br *bufio.Reader) ([]Row, error) {
	r := csv.NewReader(br)
	r.Comment = '#'
	r.TrimLeadingSpace = true
	r.ReuseRecord = true
	header, err := r.Read()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil, &InputError{Msg: "empty file: want a header row naming the columns"}
		}
		return nil, csvError(err)
	}
	hline, _ := r.FieldPos(0)
	col := map[string]int{}
	for i, h := range header {
		name := strings.ToLower(strings.TrimSpace(h))
		if !slices.Contains(columns, name) {
			return nil, &InputError{Line: hline, Field: wire.Clip(name, 20),
				Msg: fmt.Sprintf("unknown column %q in the header (column %d): want %s", wire.Clip(h, 20), i+1, strings.Join(columns, ", "))}
		}
		if _, dup := col[name]; dup {
			return nil, &InputError{Line: hline, Field: name, Msg: "column named twice"}
		}
		col[name] = i
	}
	if err := checkKeys(func(k string) bool { _, ok := col[k]; return ok }); err != nil {
		err.Line = hline
		return nil, err
	}
	var rows []Row
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, csvError(err)
		}
		line, _ := r.FieldPos(0)
		if len(rows) == MaxPackets {
			return nil, &InputError{Line: line, Msg: fmt.Sprintf("more than %d packets", MaxPackets)}
		}
		row := Row{Line: line}
		cell := func(k string) (string, bool) {
			i, ok := col[k]
			if !ok {
				return "", false
			}
			return strings.TrimSpace(rec[i]), true
		}
		if err := row.fill(cell); err != nil {
			err.Line = line
			return nil, err
		}
		rows = append(rows, row)
	}
	if len(rows) == 0 {
		return nil, &InputError{Line: hline, Msg: "a header and no packets"}
	}
	return rows, nil
}

// csvError turns a csv.ParseError (wrong field count, bad quotes) into
// an InputError.
func csvError(err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return &InputError{Line: pe.Line, Msg: fmt.Sprintf("column %d: %v", pe.Column, pe.Err)}
	}
	return &InputError{Msg: err.Error()}
}

// checkKeys checks that a file's columns or a row's keys make a
// packet: sent, arrive or delay, the position and velocity, and at most one
// orientation, whole.
func checkKeys(has func(string) bool) *InputError {
	for _, k := range []string{"sent", "x", "y", "z", "vx", "vy", "vz"} {
		if !has(k) {
			return &InputError{Field: k, Msg: "missing " + k}
		}
	}
	if has("arrive") == has("delay") {
		return &InputError{Field: "arrive", Msg: "want exactly one of arrive and delay"}
	}
	q := 0
	for _, k := range []string{"qx", "qy", "qz", "qw"} {
		if has(k) {
			q++
		}
	}
	if q != 0 && q != 4 {
		return &InputError{Field: "qw", Msg: "an orientation needs all of qx, qy, qz and qw"}
	}
	if q == 4 && has("yaw") {
		return &InputError{Field: "yaw", Msg: "give the orientation as qx, qy, qz, qw or as yaw, not both"}
	}
	return nil
}

// fill reads one row's cells; cell returns a cell's trimmed text and whether
// the file has that column.
func (row *Row) fill(cell func(string) (string, bool)) *InputError {
	num := func(k string) (float64, *InputError) {
		text, _ := cell(k)
		v, err := strconv.ParseFloat(text, 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return 0, &InputError{Field: k, Msg: fmt.Sprintf("%q is not a finite number", wire.Clip(text, 20))}
		}
		return v, nil
	}
	whole := func(k string) (int, *InputError) {
		text, _ := cell(k)
		v, err := strconv.Atoi(text)
		if err != nil || v < 0 {
			return 0, &InputError{Field: k, Msg: fmt.Sprintf("%q is not a whole number from 0", wire.Clip(text, 20))}
		}
		return v, nil
	}
	var err *InputError
	if _, ok := cell("entity"); ok {
		if row.Entity, err = whole("entity"); err != nil {
			return err
		}
	}
	row.Seq = -1
	if _, ok := cell("seq"); ok {
		if row.Seq, err = whole("seq"); err != nil {
			return err
		}
	}
	if row.Sent, err = num("sent"); err != nil {
		return err
	}
	row.Arrive = math.NaN()
	for _, k := range []string{"arrive", "delay"} {
		text, ok := cell(k)
		if !ok {
			continue
		}
		switch strings.ToLower(text) {
		case "", "nan", "lost", "null":
			continue
		}
		v, err := num(k)
		if err != nil {
			return err
		}
		if k == "delay" {
			v += row.Sent
		}
		row.Arrive = v
	}
	for i, k := range []string{"x", "y", "z"} {
		if row.Pos[i], err = num(k); err != nil {
			return err
		}
	}
	for i, k := range []string{"vx", "vy", "vz"} {
		if row.Vel[i], err = num(k); err != nil {
			return err
		}
	}
	if _, ok := cell("qw"); ok {
		var q geom.Quat
		for i, k := range []string{"qx", "qy", "qz", "qw"} {
			if q[i], err = num(k); err != nil {
				return err
			}
		}
		if err := row.SetRot(q); err != nil {
			return err
		}
	}
	if _, ok := cell("yaw"); ok {
		yaw, err := num("yaw")
		if err != nil {
			return err
		}
		if math.Abs(yaw) > 1e6 {
			return &InputError{Field: "yaw", Msg: "want radians within ±1e6"}
		}
		row.Rot, row.HasRot = geom.QuatFromYaw(yaw), true
	}
	return nil
}

// SetRot takes q, normalised, as the row's orientation; its norm must be
// within rotSlack of 1.
func (row *Row) SetRot(q geom.Quat) *InputError {
	n := math.Sqrt(q[0]*q[0] + q[1]*q[1] + q[2]*q[2] + q[3]*q[3])
	if !(math.Abs(n-1) <= rotSlack) {
		return &InputError{Field: "qw", Msg: fmt.Sprintf("(%g, %g, %g, %g) is not a unit quaternion", q[0], q[1], q[2], q[3])}
	}
	row.Rot, row.HasRot = geom.Quat{q[0] / n, q[1] / n, q[2] / n, q[3] / n}, true
	return nil
}

// jsonRow is one line of a jsonl file. Pointers tell a key left out.
type jsonRow struct {
	Entity *int      `json:"entity"`
	Seq    *int      `json:"seq"`
	Sent   *float64  `json:"sent"`
	Arrive *float64  `json:"arrive"`
	Delay  *float64  `json:"delay"`
	X      *float64  `json:"x"`
	Y      *float64  `json:"y"`
	Z      *float64  `json:"z"`
	VX     *float64  `json:"vx"`
	VY     *float64  `json:"vy"`
	VZ     *float64  `json:"vz"`
	QX     *float64  `json:"qx"`
	QY     *float64  `json:"qy"`
	QZ     *float64  `json:"qz"`
	QW     *float64  `json:"qw"`
	Yaw    *float64  `json:"yaw"`
	Pos    []float64 `json:"pos"`
	Vel    []float64 `json:"vel"`
	Rot    []float64 `json:"rot"`
}

func parseJSONL(br *bufio.Reader) ([]Row, error) {
	var rows []Row
	seqGiven := 0 // 1 if the first row has seq, -1 if not
	lr := &lineReader{br: br}
	for {
		line, ok := lr.next()
		if !ok {
			break
		}
		n := lr.n
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		if len(rows) == MaxPackets {
			return nil, &InputError{Line: n, Msg: fmt.Sprintf("more than %d packets", MaxPackets)}
		}
		var j jsonRow
		if err := wire.Unmarshal(line, &j, ""); err != nil {
			msg, field := wire.Text(err)
			return nil, &InputError{Line: n, Field: field, Msg: msg}
		}
		row, err := j.row()
		if err != nil {
			err.Line = n
			return nil, err
		}
		given := 1
		if j.Seq == nil {
			given = -1
		}
		if seqGiven == 0 {
			seqGiven = given
		} else if given != seqGiven {
			return nil, &InputError{Line: n, Field: "seq", Msg: "seq on some lines but not others: give it on every line or none"}
		}
		row.Line = n
		rows = append(rows, row)
	}
	if lr.err != nil {
		return nil, lr.err
	}
	if len(rows) == 0 {
		return nil, &InputError{Msg: "no packets"}
	}
	return rows, nil
}

// row converts a decoded line into a Row through the same checks as a
// CSV row.
func (j *jsonRow) row() (Row, *InputError) {
	cells := map[string]string{}
	put := func(k string, v *float64) {
		if v != nil {
			cells[k] = strconv.FormatFloat(*v, 'g', -1, 64)
		}
	}
	arrays := []struct {
		name string
		v    []float64
		keys []string
	}{{"pos", j.Pos, []string{"x", "y", "z"}}, {"vel", j.Vel, []string{"vx", "vy", "vz"}}, {"rot", j.Rot, []string{"qx", "qy", "qz", "qw"}}}
	for _, a := range arrays {
		if a.v == nil {
			continue
		}
		if len(a.v) != len(a.keys) {
			return Row{}, &InputError{Field: a.name, Msg: fmt.Sprintf("%d numbers: want %d", len(a.v), len(a.keys))}
		}
		for i, k := range a.keys {
			cells[k] = strconv.FormatFloat(a.v[i], 'g', -1, 64)
		}
	}
	for _, kv := range []struct {
		k string
		v *float64
	}{{"sent", j.Sent}, {"x", j.X}, {"y", j.Y}, {"z", j.Z}, {"vx", j.VX}, {"vy", j.VY}, {"vz", j.VZ},
		{"qx", j.QX}, {"qy", j.QY}, {"qz", j.QZ}, {"qw", j.QW}, {"yaw", j.Yaw}} {
		if kv.v == nil {
			continue
		}
		if _, dup := cells[kv.k]; dup {
			return Row{}, &InputError{Field: kv.k, Msg: kv.k + " given twice (as a key and in an array)"}
		}
		put(kv.k, kv.v)
	}
	if j.Entity != nil {
		cells["entity"] = strconv.Itoa(*j.Entity)
	}
	if j.Seq != nil {
		cells["seq"] = strconv.Itoa(*j.Seq)
	}
	// arrive: a number, or null or absent for a loss (unless delay is given).
	switch {
	case j.Arrive != nil && j.Delay != nil:
		return Row{}, &InputError{Field: "arrive", Msg: "want at most one of arrive and delay"}
	case j.Delay != nil:
		put("delay", j.Delay)
	default:
		cells["arrive"] = ""
		put("arrive", j.Arrive)
	}
	has := func(k string) bool { _, ok := cells[k]; return ok }
	if err := checkKeys(has); err != nil {
		return Row{}, err
	}
	var row Row
	err := row.fill(func(k string) (string, bool) { v, ok := cells[k]; return v, ok })
	return row, err
}

func parseSeed(br *bufio.Reader) ([]Row, error) {
	var rows []Row
	lr := &lineReader{br: br}
	for {
		line, ok := lr.next()
		if !ok {
			break
		}
		n := lr.n
		text := strings.TrimSpace(string(line))
		if text == "" {
			continue
		}
		if text[0] == 'q' {
			break // the driver's quit
		}
		if len(rows) == MaxPackets {
			return nil, &InputError{Line: n, Msg: fmt.Sprintf("more than %d packets", MaxPackets)}
		}
		row, err := parseSeedLine(text)
		if err != nil {
			err.Line = n
			return nil, err
		}
		row.Line = n
		rows = append(rows, row)
	}
	if lr.err != nil {
		return nil, lr.err
	}
	if len(rows) == 0 {
		return nil, &InputError{Msg: "no packets"}
	}
	return rows, nil
}

// parseSeedLine reads "x,y,z / x,y,z / t".
func parseSeedLine(text string) (Row, *InputError) {
	bad := func(field, why string) (Row, *InputError) {
		return Row{}, &InputError{Field: field, Msg: why + ": want x,y,z / x,y,z / t"}
	}
	parts := strings.Split(text, "/")
	if len(parts) != 3 {
		return bad("", fmt.Sprintf("%d parts separated by /", len(parts)))
	}
	cells := map[string]string{}
	for i, keys := range [][]string{{"x", "y", "z"}, {"vx", "vy", "vz"}} {
		f := strings.Split(parts[i], ",")
		if len(f) != 3 {
			return bad(keys[0], fmt.Sprintf("%d numbers in the %s", len(f), [...]string{"position", "velocity"}[i]))
		}
		for k, key := range keys {
			cells[key] = strings.TrimSpace(f[k])
		}
	}
	cells["sent"] = strings.TrimSpace(parts[2])
	cells["arrive"] = cells["sent"] // immediate delivery, as in the driver
	var row Row
	err := row.fill(func(k string) (string, bool) { v, ok := cells[k]; return v, ok })
	return row, err
}

// Build turns a file's rows into a valid trace: entity ids numbered
// 0, 1, ... in ascending order, rows sorted by sent (stable), sequence
// numbers assigned when the file has none. Validation errors name the line.
func Build(rows []Row, name string) (*engine.Trace, error) {
	ids := make([]int, 0, 8)
	for _, r := range rows {
		ids = append(ids, r.Entity)
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	if len(ids) > engine.TraceMaxEntities {
		// Name the first line that brings one entity too many.
		seen := map[int]bool{}
		for _, r := range rows {
			seen[r.Entity] = true
			if len(seen) > engine.TraceMaxEntities {
				return nil, &InputError{Line: r.Line, Field: "entity",
					Msg: fmt.Sprintf("more than %d entities", engine.TraceMaxEntities)}
			}
		}
	}
	index := make(map[int]int, len(ids))
	for i, id := range ids {
		index[id] = i
	}
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].Sent < rows[j].Sent })

	tr := &engine.Trace{Name: name, Entities: len(ids), Packets: make([]engine.TracePacket, len(rows))}
	type last struct {
		Seq  int
		Sent float64
	}
	prev := make([]last, len(ids))
	for i := range prev {
		prev[i].Seq = -1
	}
	for i, r := range rows {
		e := index[r.Entity]
		seq := r.Seq
		if seq < 0 {
			// No seq in the file: copies share their send's number.
			seq = prev[e].Seq + 1
			if prev[e].Seq >= 0 && r.Sent == prev[e].Sent {
				seq = prev[e].Seq
			}
		}
		prev[e] = last{seq, r.Sent}
		tr.Packets[i] = engine.TracePacket{Entity: e, Seq: seq, Sent: r.Sent, Arrive: r.Arrive,
			Pos: r.Pos, Vel: r.Vel, Rot: r.Rot, HasRot: r.HasRot}
	}
	if err := tr.Validate(); err != nil {
		var te *engine.TraceError
		if errors.As(err, &te) && te.Index >= 0 {
			return nil, &InputError{Line: rows[te.Index].Line, Field: te.Field, Msg: te.Msg}
		}
		return nil, &InputError{Msg: err.Error()}
	}
	return tr, nil
}

// CheckName accepts 1 to MaxNameLen characters of a-z, 0-9, '.',
// '_' and '-', starting with a letter or digit: a trace's name is its id in
// URLs and on the command line.
func CheckName(name string) error {
	ok := name != "" && len(name) <= MaxNameLen
	for i := 0; ok && i < len(name); i++ {
		c := name[i]
		ok = c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || i > 0 && (c == '.' || c == '_' || c == '-')
	}
	if !ok {
		return &engine.FieldError{Field: "name", Value: wire.Clip(name, 40),
			Allowed: fmt.Sprintf("1 to %d characters of a-z, 0-9, '.', '_' and '-', starting with a letter or digit", MaxNameLen)}
	}
	return nil
}

// NameFrom makes a trace name from a file name: lower-case, without
// directory or extension, other characters turned into '-'.
func NameFrom(file string) string {
	if i := strings.LastIndexAny(file, `/\`); i >= 0 {
		file = file[i+1:]
	}
	if i := strings.LastIndexByte(file, '.'); i > 0 {
		file = file[:i]
	}
	var b strings.Builder
	for _, r := range strings.ToLower(file) {
		switch {
		case r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)), r == '.', r == '_':
			b.WriteRune(r)
		default:
			b.WriteByte('-')
		}
	}
	name := strings.Trim(b.String(), "-._")
	if len(name) > MaxNameLen {
		name = strings.TrimRight(name[:MaxNameLen], "-._")
	}
	if name == "" {
		name = "trace"
	}
	return name
}

// WriteCSV writes tr as a trace CSV file that Parse reads back:
// times to the microsecond, positions and velocities to 0.1 mm and
// 0.1 mm/s, the orientation as a yaw to 1e-5 rad.
func WriteCSV(w io.Writer, tr *engine.Trace) error {
	hasRot := slices.ContainsFunc(tr.Packets, func(p engine.TracePacket) bool { return p.HasRot })
	var b bytes.Buffer
	b.WriteString("entity,seq,sent,arrive,x,y,z,vx,vy,vz")
	if hasRot {
		b.WriteString(",yaw")
	}
	b.WriteByte('\n')
	f := func(v float64, prec int) {
		b.WriteByte(',')
		s := strconv.FormatFloat(v, 'f', prec, 64)
		if strings.ContainsRune(s, '.') {
			s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
		}
		if s == "-0" {
			s = "0"
		}
		b.WriteString(s)
	}
	for _, p := range tr.Packets {
		b.WriteString(strconv.Itoa(p.Entity) + "," + strconv.Itoa(p.Seq))
		f(p.Sent, 6)
		if math.IsNaN(p.Arrive) {
			b.WriteByte(',')
		} else {
			f(p.Arrive, 6)
		}
		for _, v := range p.Pos {
			f(v, 4)
		}
		for _, v := range p.Vel {
			f(v, 4)
		}
		if hasRot {
			if p.HasRot {
				f(p.Rot.Yaw(), 5)
			} else {
				f(0, 5)
			}
		}
		b.WriteByte('\n')
	}
	_, err := w.Write(b.Bytes())
	return err
}

// Settings returns base with the network derived from tr and maxSpeed set
// to its largest recorded speed (rounded up to 0.1 m/s, within the
// parameter's range), and the vocabulary names it replaced: the settings
// to replay tr with.
func Settings(tr *engine.Trace, base engine.Settings) (engine.Settings, []string) {
	return SettingsFrom(tr.Network(), tr.MaxSpeed(), base)
}

// SettingsFrom is Settings from what a trace measures: its network and its
// largest speed (m/s).
func SettingsFrom(est engine.NetworkEstimate, top float64, base engine.Settings) (engine.Settings, []string) {
	s, names := est.Apply(base)
	if top > 0 {
		p, _ := engine.Lookup("maxSpeed")
		v := max(p.Min, min(p.Max, math.Ceil(top*10)/10))
		p.Set(&s, v)
		names = append(names, "maxSpeed")
	}
	return s, names
}
