package engine

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
// metrics (ParseMetric: lab tune -max, the tune form).
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

// quantity is what the unit rules need of a parameter or a metric.
type quantity struct {
	unit    string  // stored (SI) unit
	display string  // the unit shown, and the unit of a plain number
	scale   float64 // shown = stored × scale
}

func (p *Param) quantity() quantity { return newQuantity(p.Unit, p.Display, p.Scale) }

func metricQuantity(f MetricField) quantity { return newQuantity(f.Unit, f.Display, f.Scale) }

func newQuantity(unit, display string, scale float64) quantity {
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
	return quantity{unit, display, scale}
}

// eachUnit yields the units a value may be typed in: the stored unit's
// family, then the display unit when the family lacks it. "count" and ""
// have none.
func (q quantity) eachUnit(yield func(unitDiv) bool) {
	fam := unitFamilies[q.unit]
	for _, u := range fam {
		if !yield(u) {
			return
		}
	}
	if q.display != "" && q.display != "count" && !slices.ContainsFunc(fam, func(u unitDiv) bool { return u.Suffix == q.display }) {
		yield(unitDiv{q.display, q.scale})
	}
}

// units lists eachUnit's units.
func (q quantity) units() []unitDiv { return slices.Collect(q.eachUnit) }

// parse reads a number, plain (in the display unit) or with a unit among
// the quantity's. ok is false when the text is not a finite number with a
// known unit.
func (q quantity) parse(text string) (v float64, ok bool) {
	text = strings.TrimSpace(text)
	// The longest matching suffix wins: "ms" before "s", "kbit/s" before "bit/s".
	best := unitDiv{Div: q.scale}
	for u := range q.eachUnit {
		if n := len(u.Suffix); len(text) > n && n > len(best.Suffix) && strings.EqualFold(text[len(text)-n:], u.Suffix) {
			best = u
		}
	}
	return parseScaled(strings.TrimSpace(text[:len(text)-len(best.Suffix)]), best.Div)
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

// decimal formats v × scale in plain decimal notation, exactly: the shortest
// decimal that reads back as v, its point moved when scale is a power of
// ten. Values beyond [1e-9, 1e21) in size use an exponent.
func decimal(v, scale float64) string {
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

// plainShifted writes the number in e ("-4.96e-02", strconv's 'e' form)
// times 10^k without an exponent, when its size allows.
func plainShifted(e string, k int) string {
	neg := strings.HasPrefix(e, "-")
	e = strings.TrimPrefix(e, "-")
	mant, exps, _ := strings.Cut(e, "e")
	exp, _ := strconv.Atoi(exps)
	exp += k
	digits := strings.Replace(mant, ".", "", 1)
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
		s = "0." + strings.Repeat("0", -point) + digits
	case point >= len(digits):
		s = digits + strings.Repeat("0", point-len(digits))
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
	s := roundDecimal(decimal(math.Abs(v), scale), sig)
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

// rangeText is [min, max] in the display unit: "[0, 1000] ms",
// "[0, 4294967295]", "[0.1×, 10×]".
func (q quantity) rangeText(min, max float64) string {
	lo, hi := decimal(min, q.scale), decimal(max, q.scale)
	switch q.display {
	case "", "count":
		return "[" + lo + ", " + hi + "]"
	case "×":
		return "[" + lo + "×, " + hi + "×]"
	}
	return "[" + lo + ", " + hi + "] " + q.display
}

// shown is v in the display unit with its unit, exactly: "120 ms".
func (q quantity) shown(v float64) string {
	if q.display == "count" {
		return decimal(v, q.scale)
	}
	return withUnit(decimal(v, q.scale), q.display)
}

// typedHint says what a plain number means and which units a number may
// carry: "a plain number in ms, or with a unit: ms, s".
func (q quantity) typedHint() string {
	var names []string
	for _, u := range q.units() {
		names = append(names, u.Suffix)
	}
	if q.display == "" || q.display == "count" {
		return "a plain number"
	}
	return "a plain number in " + q.display + ", or with a unit: " + strings.Join(names, ", ")
}

// Units returns the units a value of the parameter may be typed in
// (a plain number is in its display unit): ["ms", "s"] for a time, ["%",
// "ppm"] for a share. Empty for a parameter without a unit or with named
// values.
func (p *Param) Units() []string {
	if p.Kind != Float && p.Kind != Int {
		return nil
	}
	var out []string
	for _, u := range p.quantity().units() {
		out = append(out, u.Suffix)
	}
	return out
}

// DisplayUnit returns the unit a plain number of the parameter is in and
// its values are shown in, and the scale to it from the stored unit
// (shown = stored × scale): "ms", 1000 for latency; "kbit/s", 0.001 for
// bandwidth.
func (p *Param) DisplayUnit() (unit string, scale float64) {
	q := p.quantity()
	return q.display, q.scale
}

// Range is a number's range in the display unit, as errors and lab params
// give it: "[0, 1000] ms", "[0, 100000] kbit/s", "[0, 4294967295]",
// "[0.1×, 10×]"; the allowed values in words for the other kinds.
func (p *Param) Range() string {
	if p.Kind != Float && p.Kind != Int {
		return p.allowed()
	}
	return p.quantity().rangeText(p.Min, p.Max)
}

// ShowDigits is how many significant digits Show and the page's number
// boxes give a value that is not a whole number in its display unit.
const ShowDigits = 6

// Show formats a stored value for a person in the display unit with its
// unit, to ShowDigits significant digits: "120 ms", "0.2 ms", "0.0186 %",
// "256 kbit/s", "1.5×", "2761734960"; names for a Bool, an Enum or a Set.
func (p *Param) Show(v float64) string {
	if p.Kind != Float && p.Kind != Int {
		return p.Format(v)
	}
	q := p.quantity()
	num := ReadableIn(v, q.scale, ShowDigits)
	if q.display == "count" {
		return num
	}
	return withUnit(num, q.display)
}

// parseNumber is Param.Parse for a Float or Int: a number, plain (in the
// display unit) or with a unit. Errors name the field and give the range in
// the display unit.
func (p *Param) parseNumber(text string) (float64, error) {
	q := p.quantity()
	v, ok := q.parse(text)
	if !ok {
		return 0, &FieldError{Field: p.Name, Value: text, Allowed: p.allowed() + " (" + q.typedHint() + ")"}
	}
	if err := p.check(v); err != nil {
		return 0, &FieldError{Field: p.Name, Value: text, Allowed: p.allowed()}
	}
	return v, nil
}

// formatValue formats a Float's or Int's value as Parse reads it back
// exactly: in the display unit, with the unit when it is a unit of measure
// (120ms, 2%, 256kbit/s, 60Hz), plain for counts, ratios and identifiers
// (3, 1.5, 2761734960).
func (p *Param) formatValue(v float64) string {
	q := p.quantity()
	s := decimal(v, q.scale)
	if slices.Contains(symbolUnits, q.display) {
		for u := range q.eachUnit {
			if u.Suffix == q.display {
				return s + q.display
			}
		}
	}
	return s
}

// ParseMetric reads a value of the named metric, as lab tune -max and the
// tune form take it: a plain number in the metric's display unit (ms, cm,
// %), or with a unit (150ms, 0.15s, 5%, 20cm); names of MetricFields,
// PopulationMetricFields and the tuner's own extraLatency and recovery.
func ParseMetric(name, text string) (float64, error) {
	f, ok := metricField(name)
	if !ok {
		return 0, &FieldError{Field: name, Value: text, Allowed: "a metric name: " + metricNames() +
			"; or, over a population, " + populationMetricNames()}
	}
	q := metricQuantity(f)
	v, ok := q.parse(text)
	if !ok {
		return 0, &FieldError{Field: name, Value: text, Allowed: q.typedHint()}
	}
	return v, nil
}

// FormatMetric formats a value of the named metric as ParseMetric reads
// it back: in its display unit, with the unit (150ms, 5%, 20cm).
func FormatMetric(name string, v float64) string {
	f, ok := metricField(name)
	if !ok {
		return decimal(v, 1)
	}
	q := metricQuantity(f)
	s := decimal(v, q.scale)
	if slices.Contains(symbolUnits, q.display) {
		s += q.display
	}
	return s
}

// metricField finds a metric by name among MetricFields,
// PopulationMetricFields and RecoveryField.
func metricField(name string) (MetricField, bool) {
	if i := metricIndex(name); i >= 0 {
		return MetricFields[i], true
	}
	if i := populationMetricIndex(name); i >= 0 {
		return PopulationMetricFields[i], true
	}
	return tuneField(name)
}

// SuggestParams returns up to n parameter names closest to name: those that
// differ only in case, then those it is a prefix or part of, then those
// within a small edit distance, nearest first.
func SuggestParams(name string, n int) []string {
	lower := strings.ToLower(strings.TrimSpace(name))
	type cand struct {
		name string
		d    int
	}
	var cs []cand
	for _, p := range params {
		pl := strings.ToLower(p.Name)
		d := editDistance(lower, pl)
		switch {
		case pl == lower:
			d = 0
		case lower != "" && (strings.Contains(pl, lower) || strings.Contains(lower, pl)):
			d = min(d, 1)
		}
		if d <= max(2, len(lower)/3) {
			cs = append(cs, cand{p.Name, d})
		}
	}
	slices.SortStableFunc(cs, func(a, b cand) int { return a.d - b.d })
	var out []string
	for _, c := range cs[:min(n, len(cs))] {
		out = append(out, c.name)
	}
	return out
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

// UnknownParamError is the error for a name that is not in the parameter
// table, with the closest names.
func UnknownParamError(name, value string) *FieldError {
	allowed := "a parameter name (see lab params or /api/params)"
	if s := SuggestParams(name, 3); len(s) > 0 {
		allowed += "; did you mean " + strings.Join(s, ", ") + "?"
	}
	return &FieldError{Field: name, Value: value, Allowed: allowed}
}

// FormatIn formats a stored value shown × scale (a Param's or a metric's
// Scale) exactly, without an exponent: FormatIn(0.3, 1000) is "300".
func FormatIn(v, scale float64) string { return decimal(v, scale) }
