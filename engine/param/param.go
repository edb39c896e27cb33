package param

import (
	"math"
	"slices"
	"strconv"
	"strings"
)

// Param describes one setting of a settings struct, which P points to
// (Param[*Settings]): its vocabulary name,
// its unit and range, its default and a one-line doc. Sliders, validation,
// URL parsing, CLI flags and exports are all generated from tables of them.
//
// Every value crosses the table as a float64: an index for an Enum, 0 or 1 for
// a Bool, a bit mask for a Set.
type Param[P any] struct {
	Name    string   // vocabulary name: JSON key, query parameter, flag, slider name
	Group   string   // "epic", "network", "buffer", "scenario" or a library's name
	Kind    Kind     // how the value is read
	Unit    string   // SI unit of the stored value: "s", "Hz", "m/s", "fraction", "packets"...
	Min     float64  // smallest allowed value
	Max     float64  // largest allowed value
	Step    float64  // slider step, in the stored unit
	Default float64  // default value
	Choices []string // names of an Enum's or a Set's values
	Doc     string   // one line of help
	Restart bool     // changing it restarts a running simulation
	// Inert are the rules under which the row has no effect (see Inert).
	Inert []Inert

	// Display is the unit a designer thinks in, and Scale converts to it:
	// shown = value × Scale (seconds shown as ms, fractions as %). A plain
	// number a person types is in Display (Unit when Display is "").
	Display string
	Scale   float64

	// Read and Write are the field behind the row: Read returns its value
	// as the table's float64, Write stores one that Check allows.
	Read  func(P) float64  `json:"-"`
	Write func(P, float64) `json:"-"`
	// Field is an Enum's string field (see EnumOf).
	Field func(P) *string `json:"-"`
}

// Get returns the parameter's value in s.
func (p *Param[P]) Get(s P) float64 { return p.Read(s) }

// Set validates v and stores it in s. On error s is unchanged.
func (p *Param[P]) Set(s P, v float64) error {
	if err := p.Check(v); err != nil {
		return err
	}
	p.Write(s, v)
	return nil
}

// Parse converts text (a number, an enum choice, true or false, or a
// comma-separated list of choices for a Set) to the parameter's value, in
// the stored unit, and checks its range. A plain number is in the display
// unit, the unit shown beside the parameter's box (latency "120" is 120 ms,
// loss "2" is 2 %, bandwidth "256" is 256 kbit/s); a number may carry a
// unit instead (0.12s, 2%, 256kbit/s, 150ppm; see Quantity). A range error
// gives the range in the display unit.
func (p *Param[P]) Parse(text string) (float64, error) {
	text = strings.TrimSpace(text)
	bad := func() (float64, error) {
		return 0, &FieldError{Field: p.Name, Value: text, Allowed: p.Allowed()}
	}
	var v float64
	switch p.Kind {
	case Bool:
		switch text {
		case "true", "1":
			v = 1
		case "false", "0":
			v = 0
		default:
			return bad()
		}
	case Enum:
		i := slices.Index(p.Choices, text)
		if i < 0 {
			return bad()
		}
		v = float64(i)
	case Set:
		for _, name := range strings.Split(text, ",") {
			i := slices.Index(p.Choices, strings.TrimSpace(name))
			if i < 0 {
				return bad()
			}
			v = float64(uint64(v) | 1<<i)
		}
	default:
		return p.parseNumber(text)
	}
	if err := p.Check(v); err != nil {
		return 0, err
	}
	return v, nil
}

// Format returns the text form of the parameter's value v, the inverse of
// Parse (Parse(Format(v)) == v): a number in the display unit, with the
// unit when it is a unit of measure (120ms, 2%, 256kbit/s), so the text
// reads the same whatever rule its reader takes plain numbers by; names for
// a Bool, an Enum or a Set. Links and -set lines are written with it.
func (p *Param[P]) Format(v float64) string {
	switch p.Kind {
	case Bool:
		return strconv.FormatBool(v != 0)
	case Enum:
		if i := int(v); i >= 0 && i < len(p.Choices) && float64(i) == v {
			return p.Choices[i]
		}
	case Set:
		var names []string
		for i, c := range p.Choices {
			if uint64(v)&(1<<i) != 0 {
				names = append(names, c)
			}
		}
		return strings.Join(names, ",")
	case Float, Int:
		return p.Quantity().Format(v)
	}
	return FormatNumber(v)
}

// Text returns the text form of the parameter's value in s: Format's, or
// an Enum's string as it is when it is not one of the choices.
func (p *Param[P]) Text(s P) string {
	if p.Kind == Enum {
		// An out-of-table enum string has no index; show it as it is.
		if i := p.Choice(s); i < 0 {
			return p.EnumValue(s)
		}
	}
	return p.Format(p.Get(s))
}

// Check tells whether v is allowed: finite, in [Min, Max], whole for Int,
// Bool, Enum and Set. The error names the field and the allowed values.
func (p *Param[P]) Check(v float64) error {
	ok := !math.IsNaN(v) && !math.IsInf(v, 0) && v >= p.Min && v <= p.Max
	if ok && p.Kind != Float {
		ok = v == math.Trunc(v)
	}
	if !ok {
		return &FieldError{Field: p.Name, Value: p.ValueText(v), Allowed: p.Allowed()}
	}
	return nil
}

// ValueText is v as an error quotes a stored value: Format's text, or the
// number when Format has no name for it (an Enum index out of range).
func (p *Param[P]) ValueText(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return FormatNumber(v)
	}
	return p.Format(v)
}

// Allowed describes the allowed values in words, for error messages.
func (p *Param[P]) Allowed() string {
	switch p.Kind {
	case Bool:
		return "true or false"
	case Enum:
		return "one of " + strings.Join(p.Choices, ", ")
	case Set:
		return "one or more of " + strings.Join(p.Choices, ", ")
	}
	r := p.Range()
	if p.Kind == Int {
		r = "a whole number in " + r
	}
	return r
}

// Choice returns the index among Choices of an Enum's string in s, or −1
// when it is none of them.
func (p *Param[P]) Choice(s P) int { return slices.Index(p.Choices, p.EnumValue(s)) }

// EnumValue returns the string field behind an Enum parameter.
func (p *Param[P]) EnumValue(s P) string {
	if p.Field == nil {
		panic("param: no enum field for parameter " + p.Name)
	}
	return *p.Field(s)
}

// EnumOf fills in an Enum parameter's kind, range and accessors from its
// string field: its value is the index of the string among p.Choices.
//
// It is not inlined: inlined into a table's initialiser, each call compiled
// its own copy of the two closures and of the row's copying, 2.4 kB of
// lab.wasm under gzip -9; the tables are built once, at start.
//
//go:noinline
func EnumOf[P any](p Param[P], field func(P) *string) Param[P] {
	p.Kind, p.Step, p.Max, p.Field = Enum, 1, float64(len(p.Choices)-1), field
	p.Read = func(s P) float64 { return float64(slices.Index(p.Choices, *field(s))) }
	p.Write = func(s P, v float64) { *field(s) = p.Choices[int(v)] }
	return p
}

// FromBool is a Bool parameter's value: 1 for true, 0 for false.
func FromBool(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// Lift returns rows, declared over the settings Q points to, as rows over
// those P points to, whose field returns the Q: how a group's table (a
// technique's knobs over its own settings struct) joins the table of the
// settings that embed it.
//
// The type parameters are pointers (Param[*Settings]) so that every table
// shares one instance of the generic code: a struct type parameter would
// compile each method once per settings struct, which the WebAssembly
// build pays for in size.
func Lift[P, Q any](rows []Param[Q], field func(P) Q) []Param[P] {
	out := make([]Param[P], len(rows))
	for i := range rows {
		r := &rows[i]
		l := Param[P]{Name: r.Name, Group: r.Group, Kind: r.Kind, Unit: r.Unit, Min: r.Min, Max: r.Max,
			Step: r.Step, Default: r.Default, Choices: r.Choices, Doc: r.Doc, Restart: r.Restart,
			Display: r.Display, Scale: r.Scale, Inert: r.Inert}
		read, write := r.Read, r.Write
		l.Read = func(s P) float64 { return read(field(s)) }
		l.Write = func(s P, v float64) { write(field(s), v) }
		if f := r.Field; f != nil {
			l.Field = func(s P) *string { return f(field(s)) }
		}
		out[i] = l
	}
	return out
}

// Find returns the row of rows with the given vocabulary name.
func Find[P any](rows []Param[P], name string) (*Param[P], bool) {
	for i := range rows {
		if rows[i].Name == name {
			return &rows[i], true
		}
	}
	return nil, false
}

// SetDefaults stores every row's default in s.
func SetDefaults[P any](rows []Param[P], s P) {
	for i := range rows {
		rows[i].Write(s, rows[i].Default)
	}
}

// Defaults returns the settings struct with every row's default.
func Defaults[S any](rows []Param[*S]) S {
	var s S
	SetDefaults(rows, &s)
	return s
}
