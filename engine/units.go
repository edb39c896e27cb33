package engine

import (
	"math"
	"slices"
	"strconv"
	"strings"
)

// Typed units. A number a person types may carry a unit where one is
// natural: 20ms, 0.02s, 2%, 150ppm, 60Hz, 7m/s. A plain number is in the
// stored unit (seconds, fractions, Hz...). One table serves parameters
// (Param.Parse: CLI -set, the API, the sweep and tune forms, the page's typed
// values) and metrics (lab tune -max).

// unitDiv is one unit a value may be typed in: stored = typed / Div.
type unitDiv struct {
	Suffix string
	Div    float64
}

// unitFamilies lists, for each stored unit, the units a value of it may be
// typed in besides the stored unit itself.
var unitFamilies = map[string][]unitDiv{
	"s":        {{"ms", 1000}, {"s", 1}},
	"fraction": {{"%", 100}, {"ppm", 1e6}},
	"m":        {{"cm", 100}, {"mm", 1000}, {"m", 1}},
	"Hz":       {{"Hz", 1}},
	"m/s":      {{"m/s", 1}},
	"packets":  {{"packets", 1}},
	"entities": {{"entities", 1}},
}

// typedUnits returns the units a value stored in unit may be typed in.
func typedUnits(unit, display string, scale float64) []unitDiv {
	us := slices.Clone(unitFamilies[unit])
	if display != "" && scale > 0 && !slices.ContainsFunc(us, func(u unitDiv) bool { return u.Suffix == display }) {
		us = append(us, unitDiv{display, scale})
	}
	return us
}

// Units returns the units a value of the parameter may be typed in, besides a
// plain number in its stored unit: ["ms", "s"] for a time, ["%", "ppm"] for a
// share. Empty for a parameter without a unit or with named values.
func (p *Param) Units() []string {
	if p.Kind != Float && p.Kind != Int {
		return nil
	}
	var out []string
	for _, u := range typedUnits(p.Unit, p.Display, p.Scale) {
		out = append(out, u.Suffix)
	}
	return out
}

// parseQuantity reads a number with an optional unit among us. It returns
// the value in the stored unit and the unit typed ("" for a plain number);
// ok is false when the text is not a number with a known unit.
func parseQuantity(text string, us []unitDiv) (v float64, typed unitDiv, ok bool) {
	text = strings.TrimSpace(text)
	num := text
	// The longest matching suffix wins: "ms" before "s".
	best := -1
	for i, u := range us {
		if len(text) > len(u.Suffix) && strings.HasSuffix(strings.ToLower(text), strings.ToLower(u.Suffix)) &&
			(best < 0 || len(u.Suffix) > len(us[best].Suffix)) {
			best = i
		}
	}
	typed = unitDiv{Div: 1}
	if best >= 0 {
		typed = us[best]
		num = strings.TrimSpace(text[:len(text)-len(typed.Suffix)])
	}
	if num == "" || strings.ContainsAny(num, "_xXpP") { // no hex, no digit separators
		return 0, typed, false
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, typed, false
	}
	if typed.Div != 1 {
		f /= typed.Div
	}
	return f, typed, true
}

// inUnit formats a stored value in a typed unit, rounded to 12 significant
// digits so 0.3 s reads 300 ms, not 300.00000000000006.
func inUnit(v float64, u unitDiv) string {
	x := v * u.Div
	r, err := strconv.ParseFloat(strconv.FormatFloat(x, 'g', 12, 64), 64)
	if err != nil {
		r = x
	}
	if a := math.Abs(r); a >= 1e-6 && a < 1e15 {
		return strconv.FormatFloat(r, 'f', -1, 64) // 4294967295, not 4.294967295e+09
	}
	return formatNumber(r)
}

// rangeIn describes [min, max] in the unit typed, for error messages.
func rangeIn(min, max float64, storedUnit string, u unitDiv) string {
	unit := u.Suffix
	if unit == "" {
		unit = storedUnit
	}
	r := "[" + inUnit(min, u) + ", " + inUnit(max, u) + "]"
	if unit != "" {
		r += " " + unit
	}
	return r
}

// parseNumber is Param.Parse for a Float or Int: a number, with or without
// a unit. Errors name the field and give the range in the unit typed.
func (p *Param) parseNumber(text string) (float64, error) {
	us := typedUnits(p.Unit, p.Display, p.Scale)
	v, typed, ok := parseQuantity(text, us)
	if !ok {
		return 0, &FieldError{Field: p.Name, Value: text, Allowed: p.allowedTyped(typed, true)}
	}
	if err := p.check(v); err != nil {
		return 0, &FieldError{Field: p.Name, Value: text, Allowed: p.allowedTyped(typed, false)}
	}
	return v, nil
}

// allowedTyped is allowed with the range in the unit typed and, when the
// text was not a number, the units it may carry.
func (p *Param) allowedTyped(u unitDiv, listUnits bool) string {
	r := rangeIn(p.Min, p.Max, p.Unit, u)
	if p.Kind == Int {
		r = "a whole number in " + r
	}
	if us := p.Units(); listUnits && len(us) > 0 {
		r += " (a number in " + p.Unit + ", or with a unit: " + strings.Join(us, ", ") + ")"
	}
	return r
}

// ParseMetric reads a value of the named metric, as lab tune -max and the
// tune form take it: a plain number in the metric's SI unit, or with a unit
// (150ms, 5%, 20cm); names of MetricFields, PopulationMetricFields and
// the tuner's own extraLatency and recovery.
func ParseMetric(name, text string) (float64, error) {
	var f MetricField
	if i := metricIndex(name); i >= 0 {
		f = MetricFields[i]
	} else if i := populationMetricIndex(name); i >= 0 {
		f = PopulationMetricFields[i]
	} else if tf, ok := tuneField(name); ok {
		f = tf
	} else {
		return 0, &FieldError{Field: name, Value: text, Allowed: "a metric name: " + metricNames() +
			"; or, over a population, " + populationMetricNames()}
	}
	us := typedUnits(f.Unit, f.Display, f.Scale)
	v, _, ok := parseQuantity(text, us)
	if !ok {
		allowed := "a number in " + f.Unit
		if len(us) > 0 {
			var names []string
			for _, u := range us {
				names = append(names, u.Suffix)
			}
			allowed += ", or with a unit: " + strings.Join(names, ", ")
		}
		return 0, &FieldError{Field: name, Value: text, Allowed: allowed}
	}
	return v, nil
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
// Scale), rounded to 12 significant digits: FormatIn(0.3, 1000) is "300".
func FormatIn(v, scale float64) string { return inUnit(v, unitDiv{Div: scale}) }
