package param

import (
	"errors"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Typed units. One rule wherever a person types or reads a value: a plain
// number is in the quantity's display unit, the unit shown beside its box
// (ms for the link's times, % for shares, kbit/s for bandwidth, ppm for
// clock drift, Hz, m/s...), and a number may carry any unit of its kind:
// 120ms, 0.12s, 2%, 150ppm, 256kbit/s, 2Mbit, 60Hz. Stored values (Settings,
// JSON, the API's numbers) stay in SI units: seconds, fractions, bit/s. One
// table serves parameters (Param.Parse and Param.Format: CLI -set, links,
// the sweep and tune forms, the page's number boxes, scenario text) and
// the engine's metrics (lab tune -max, the tune form).
//
// Units a power of ten apart are converted by moving the decimal point of
// the text, not by multiplying floats, so 0.3 s reads "300ms" (not
// 300.00000000000006) and Parse(Format(v)) == v for every finite v.

// unitDiv is one unit a value may be typed in: stored = typed / Div.
type unitDiv struct {
	Suffix string
	Div    float64
}

// unitFamilies lists, for each stored unit, the units a value of it may be
// typed in (the display unit is added when it is not among them).
var unitFamilies = map[string][]unitDiv{
	"s":        {{"ms", 1000}, {"s", 1}},
	"ms":       {{"ms", 1}, {"s", 0.001}},
	"fraction": {{"%", 100}, {"ppm", 1e6}},
	"m":        {{"cm", 100}, {"mm", 1000}, {"m", 1}},
	"cm":       {{"cm", 1}, {"mm", 10}, {"m", 0.01}},
	"bit/s":    {{"kbit/s", 0.001}, {"Mbit/s", 1e-6}, {"bit/s", 1}, {"kbit", 0.001}, {"Mbit", 1e-6}, {"bit", 1}},
	"Hz":       {{"Hz", 1}},
	"m/s":      {{"m/s", 1}},
	"packets":  {{"packets", 1}},
	"entities": {{"entities", 1}},
}

// symbolUnits are the display units Format writes after the number: units
// of measure, whose plain number would read differently under another rule
// (120 is not 0.12). Counts (packets, snapshots) and ratios (×) stay plain.
var symbolUnits = []string{"ms", "s", "%", "ppm", "kbit/s", "Hz", "m/s", "mm", "cm", "m"}

// Quantity is what the unit rules need of a parameter or a metric: the unit
// it is stored in, the unit it is shown and typed in, and the scale
// between them. Make one with NewQuantity.
type Quantity struct {
	Unit    string  // stored (SI) unit
	Display string  // the unit shown, and the unit of a plain number
	Scale   float64 // shown = stored × Scale
}

// Quantity returns the parameter's quantity.
func (p *Param[P]) Quantity() Quantity { return NewQuantity(p.Unit, p.Display, p.Scale) }

// NewQuantity returns the quantity stored in unit and shown in display,
// shown = stored × scale. An empty display is the unit itself (a fraction
// with no display unit shows as the plain fraction), and a scale that is
// not positive is 1.
func NewQuantity(unit, display string, scale float64) Quantity {
	if display == "" {
		// A share a library keeps as a plain fraction (Mirror's
		// catchupSpeed 0.02) shows as that plain number, with no unit.
		if unit != "fraction" {
			display = unit
		}
		if scale == 0 {
			scale = 1
		}
	}
	if scale <= 0 {
		scale = 1
	}
	return Quantity{unit, display, scale}
}

// eachUnit yields the units a value may be typed in: the stored unit's
// family, then the display unit when the family lacks it. "count" and ""
// have none.
func (q Quantity) eachUnit(yield func(unitDiv) bool) {
	fam := unitFamilies[q.Unit]
	for _, u := range fam {
		if !yield(u) {
			return
		}
	}
	if q.Display != "" && q.Display != "count" && !slices.ContainsFunc(fam, func(u unitDiv) bool { return u.Suffix == q.Display }) {
		yield(unitDiv{q.Display, q.Scale})
	}
}

// units lists eachUnit's units.
func (q Quantity) units() []unitDiv { return slices.Collect(q.eachUnit) }

// Parse reads a number, plain (in the display unit) or with a unit among
// the quantity's, and returns it in the stored unit. ok is false when the
// text is not a finite number with a known unit.
func (q Quantity) Parse(text string) (v float64, ok bool) {
	v, _, ok = q.parse(text)
	return v, ok
}

// parse is Parse that also returns the unit the text was typed in (the
// display unit's for a plain number).
func (q Quantity) parse(text string) (v float64, typed unitDiv, ok bool) {
	text = strings.TrimSpace(text)
	// A ratio's × may be typed as the letter x (3x, 1.5X): keyboards lack ×.
	if q.Display == "×" && len(text) > 1 && (text[len(text)-1] == 'x' || text[len(text)-1] == 'X') {
		text = text[:len(text)-1] + "×"
	}
	// The longest matching suffix wins: "ms" before "s", "kbit/s" before "bit/s".
	best := unitDiv{Div: q.Scale}
	for u := range q.eachUnit {
		if n := len(u.Suffix); len(text) > n && n > len(best.Suffix) && asciiEqualFold(text[len(text)-n:], u.Suffix) {
			best = u
		}
	}
	v, ok = parseScaled(strings.TrimSpace(text[:len(text)-len(best.Suffix)]), best.Div)
	return v, best, ok
}

// parseScaled reads num / div. When div is a power of ten the decimal point
// moves in the text, so the result is the double nearest the exact value.
func parseScaled(num string, div float64) (float64, bool) {
	if num == "" || strings.ContainsAny(num, "_xXpP") { // no hex, no digit separators
		return 0, false
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, false
	}
	if div == 1 {
		return f, true
	}
	if k, ok := pow10(div); ok {
		mant, exp := num, 0
		if i := strings.IndexAny(num, "eE"); i >= 0 {
			mant = num[:i]
			if exp, err = strconv.Atoi(num[i+1:]); err != nil {
				return f / div, true // an exponent too long for an int: ParseFloat took it
			}
		}
		g, err := strconv.ParseFloat(mant+"e"+strconv.Itoa(exp-k), 64)
		if math.IsInf(g, 0) {
			return 0, false
		}
		if err == nil || errors.Is(err, strconv.ErrRange) {
			return g, true // an underflow to 0 included
		}
	}
	return f / div, true
}

// pow10 returns k when x is exactly 10^k.
func pow10(x float64) (int, bool) {
	if x <= 0 {
		return 0, false
	}
	k := int(math.Round(math.Log10(x)))
	return k, k >= -300 && k <= 300 && math.Pow10(k) == x
}

// FormatIn formats a stored value v shown × scale (a Param's or a metric's
// Scale) in plain decimal notation, exactly: the shortest decimal that
// reads back as v, its point moved when scale is a power of ten, so
// FormatIn(0.3, 1000) is "300". Values beyond [1e-9, 1e21) in size use an
// exponent.
func FormatIn(v, scale float64) string {
	if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		if v == 0 {
			return "0"
		}
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	k, ok := pow10(scale)
	if !ok {
		return plainShifted(strconv.FormatFloat(v*scale, 'e', -1, 64), 0)
	}
	return plainShifted(strconv.FormatFloat(v, 'e', -1, 64), k)
}

// zeros holds the most zeros plainShifted writes: 20 after the digits of a
// number below 1e21, 8 before those of one at least 1e-9.
const zeros = "00000000000000000000"

// plainShifted writes the number in e ("-4.96e-02", strconv's 'e' form)
// times 10^k without an exponent, when its size allows.
func plainShifted(e string, k int) string {
	neg := strings.HasPrefix(e, "-")
	e = strings.TrimPrefix(e, "-")
	mant, exps, _ := strings.Cut(e, "e")
	exp, _ := strconv.Atoi(exps)
	exp += k
	whole, frac, _ := strings.Cut(mant, ".")
	digits := whole + frac
	if exp < -9 || exp >= 21 {
		s := digits[:1]
		if len(digits) > 1 {
			s += "." + digits[1:]
		}
		s += "e" + strconv.Itoa(exp)
		if neg {
			s = "-" + s
		}
		return s
	}
	point := exp + 1 // digits before the decimal point
	var s string
	switch {
	case point <= 0:
		s = "0." + zeros[:-point] + digits
	case point >= len(digits):
		s = digits + zeros[:point-len(digits)]
	default:
		s = digits[:point] + "." + digits[point:]
	}
	if neg {
		s = "-" + s
	}
	return s
}

// Readable formats x for a person: a whole number as it is, with no
// exponent (2761734960, 100000), other numbers to sig significant digits
// without an exponent and without trailing zeros (0.2, 0.0186, 49.61);
// digits left of the point are never rounded away (1234.56 to 3 digits is
// 1235). It rounds the shortest decimal that reads back as x, half away
// from zero, so 0.125 to 2 digits is 0.13; web/format.js mirrors it digit
// for digit.
func Readable(x float64, sig int) string { return ReadableIn(x, 1, sig) }

// ReadableIn is Readable(v × scale, sig) for a stored value v shown ×
// scale (a Param's or a metric's Scale), with the decimal point moved in
// the text when scale is a power of ten, so no float noise from the
// product reaches the rounding: ReadableIn(0.0002, 1000, 6) is "0.2".
func ReadableIn(v, scale float64, sig int) string {
	x := v * scale
	a := math.Abs(x)
	switch {
	case math.IsNaN(x) || math.IsInf(x, 0):
		return strconv.FormatFloat(x, 'g', -1, 64)
	case x == 0:
		return "0"
	case a < 1e-9 || a >= 1e21:
		return strconv.FormatFloat(x, 'g', sig, 64)
	}
	s := roundDecimal(FormatIn(math.Abs(v), scale), sig)
	if x < 0 && s != "0" {
		s = "-" + s
	}
	return s
}

// roundDecimal rounds s, a positive number in plain decimal notation, to
// sig significant digits but no fewer than its whole digits, half away
// from zero, and drops trailing zeros after the point.
func roundDecimal(s string, sig int) string {
	whole, frac, _ := strings.Cut(s, ".")
	// e is the decimal exponent of the leading digit.
	e := len(whole) - 1
	if whole == "0" {
		e = -1 - (len(frac) - len(strings.TrimLeft(frac, "0")))
	}
	keep := max(0, sig-1-e) // digits kept after the point
	if len(frac) <= keep {
		return s
	}
	up := frac[keep] >= '5'
	digits := []byte(whole + frac[:keep])
	for i := len(digits) - 1; up && i >= 0; i-- {
		if digits[i] == '9' {
			digits[i] = '0'
			continue
		}
		digits[i]++
		up = false
	}
	if up {
		digits = append([]byte{'1'}, digits...)
	}
	n := len(digits) - keep
	out := strings.TrimLeft(string(digits[:n]), "0")
	if out == "" {
		out = "0"
	}
	if f := strings.TrimRight(string(digits[n:]), "0"); f != "" {
		out += "." + f
	}
	return out
}

// withUnit writes a number a person reads with its unit: "120 ms", "2 %",
// "256 kbit/s", and a ratio as "1.5×".
func withUnit(num, unit string) string {
	switch unit {
	case "":
		return num
	case "×":
		return num + "×"
	}
	return num + " " + unit
}

// RangeText is [min, max] in the display unit: "[0, 1000] ms",
// "[0, 4294967295]", "[0.1×, 10×]".
func (q Quantity) RangeText(min, max float64) string {
	lo, hi := FormatIn(min, q.Scale), FormatIn(max, q.Scale)
	switch q.Display {
	case "", "count":
		return "[" + lo + ", " + hi + "]"
	case "×":
		return "[" + lo + "×, " + hi + "×]"
	}
	return "[" + lo + ", " + hi + "] " + q.Display
}

// Shown is v in the display unit with its unit, exactly: "120 ms".
func (q Quantity) Shown(v float64) string {
	if q.Display == "count" {
		return FormatIn(v, q.Scale)
	}
	return withUnit(FormatIn(v, q.Scale), q.Display)
}

// TypedHint says what a plain number means and which units a number may
// carry: "a plain number in ms, or with a unit: ms, s".
func (q Quantity) TypedHint() string {
	var names []string
	for _, u := range q.units() {
		names = append(names, u.Suffix)
	}
	if q.Display == "" || q.Display == "count" {
		return "a plain number"
	}
	return "a plain number in " + q.Display + ", or with a unit: " + strings.Join(names, ", ")
}

// Units returns the units a value of the parameter may be typed in
// (a plain number is in its display unit): ["ms", "s"] for a time, ["%",
// "ppm"] for a share. Empty for a parameter without a unit or with named
// values.
func (p *Param[P]) Units() []string {
	if p.Kind != Float && p.Kind != Int {
		return nil
	}
	var out []string
	for _, u := range p.Quantity().units() {
		out = append(out, u.Suffix)
	}
	return out
}

// DisplayUnit returns the unit a plain number of the parameter is in and
// its values are shown in, and the scale to it from the stored unit
// (shown = stored × scale): "ms", 1000 for latency; "kbit/s", 0.001 for
// bandwidth.
func (p *Param[P]) DisplayUnit() (unit string, scale float64) {
	q := p.Quantity()
	return q.Display, q.Scale
}

// Range is a number's range in the display unit, as errors and lab params
// give it: "[0, 1000] ms", "[0, 100000] kbit/s", "[0, 4294967295]",
// "[0.1×, 10×]"; the allowed values in words for the other kinds.
func (p *Param[P]) Range() string {
	if p.Kind != Float && p.Kind != Int {
		return p.Allowed()
	}
	return p.Quantity().RangeText(p.Min, p.Max)
}

// ShowDigits is how many significant digits Show and the page's number
// boxes give a value that is not a whole number in its display unit.
const ShowDigits = 6

// Show formats a stored value for a person in the display unit with its
// unit, to ShowDigits significant digits: "120 ms", "0.2 ms", "0.0186 %",
// "256 kbit/s", "1.5×", "2761734960"; names for a Bool, an Enum or a Set.
func (p *Param[P]) Show(v float64) string {
	if p.Kind != Float && p.Kind != Int {
		return p.Format(v)
	}
	q := p.Quantity()
	num := ReadableIn(v, q.Scale, ShowDigits)
	if q.Display == "count" {
		return num
	}
	return withUnit(num, q.Display)
}

// parseNumber is Param.Parse for a Float or Int: a number, plain (in the
// display unit) or with a unit. Errors name the field and give the range in
// the display unit.
func (p *Param[P]) parseNumber(text string) (float64, error) {
	q := p.Quantity()
	v, typed, ok := q.parse(text)
	if !ok {
		return 0, &FieldError{Field: p.Name, Value: text, Allowed: p.Allowed() + " (" + q.TypedHint() + ")"}
	}
	if err := p.Check(v); err != nil {
		allowed := p.Allowed()
		if typed.Suffix != "" && typed.Suffix != q.Display {
			// Typed in another unit than the display's (150% for a plain
			// fraction, 2s for a time in ms): the range in that unit first.
			in := Quantity{Unit: p.Unit, Display: typed.Suffix, Scale: typed.Div}
			r := in.RangeText(p.Min, p.Max)
			if p.Kind == Int {
				r = "a whole number in " + r
			}
			allowed = r + ", that is " + allowed
		}
		return 0, &FieldError{Field: p.Name, Value: text, Allowed: allowed}
	}
	return v, nil
}

// Format formats a stored value as Parse reads it back exactly: in the
// display unit, with the unit when it is a unit of measure (120ms, 2%,
// 256kbit/s, 60Hz), plain for counts, ratios and identifiers (3, 1.5,
// 2761734960).
func (q Quantity) Format(v float64) string {
	s := FormatIn(v, q.Scale)
	if slices.Contains(symbolUnits, q.Display) {
		s += q.Display
	}
	return s
}

// Suggest returns up to n names of rows closest to name: those that
// differ only in case, then those it is a prefix or part of, then those
// within a small edit distance, nearest first, rows of one distance in
// table order. Names are ASCII, and case is folded as ASCII.
func Suggest[P any](rows []Param[P], name string, n int) []string {
	lower := asciiLower(strings.TrimSpace(name))
	far := max(2, len(lower)/3) // the farthest a suggestion may be
	dist := make([]int, len(rows))
	for i := range rows {
		pl := asciiLower(rows[i].Name)
		d := editDistance(lower, pl)
		switch {
		case pl == lower:
			d = 0
		case lower != "" && (strings.Contains(pl, lower) || strings.Contains(lower, pl)):
			d = min(d, 1)
		}
		dist[i] = d
	}
	var out []string
	for d := 0; d <= far && len(out) < n; d++ {
		for i := range rows {
			if dist[i] == d && len(out) < n {
				out = append(out, rows[i].Name)
			}
		}
	}
	return out
}

// asciiLower is s with its ASCII capitals made lower case; other bytes
// are left as they are.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// asciiEqualFold tells whether a and b are equal under ASCII case folding:
// units are ASCII (and "×", compared as it is).
func asciiEqualFold(a, b string) bool {
	return len(a) == len(b) && asciiLower(a) == asciiLower(b)
}

// editDistance is the Levenshtein distance between a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// Unknown is the error for a name that is not among rows, with the
// closest names.
func Unknown[P any](rows []Param[P], name, value string) *FieldError {
	allowed := "a parameter name (see lab params or /api/params)"
	if s := Suggest(rows, name, 3); len(s) > 0 {
		allowed += "; did you mean " + strings.Join(s, ", ") + "?"
	}
	return &FieldError{Field: name, Value: value, Allowed: allowed}
}

// FormatNumber formats v exactly, without an exponent: 2761734960, 0.0002.
func FormatNumber(v float64) string { return FormatIn(v, 1) }
