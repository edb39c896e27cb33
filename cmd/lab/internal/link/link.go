// Package link reads and writes share links: the lab's state as readable
// query parameters named by the vocabulary,
// /?preset=wifi&displayBehind=120ms&loss=3%25. "preset" names the starting
// point and every other key overrides one parameter. Without a preset the
// starting point is engine.Defaults, the parameter table's defaults: a link
// then depends on nothing but the engine's table, not on a preset file
// that may be retuned.
//
// Values are read by engine.Param.Parse: a plain number is in the unit the
// page shows beside the parameter's box (latency=120 is 120 ms, loss=2 is
// 2 %, bandwidth=256 is 256 kbit/s), or carries its unit. Links are written
// with the unit (engine.Param.Format: latency=120ms), so they read the same
// whatever rule a reader takes plain numbers by. Links written before that
// rule had plain numbers in stored units (latency=0.12 for 120 ms) and are
// read by the new rule (0.12 ms): nothing in such a link tells it from one
// typed by a person under the new rule, so no guess is made; OldUnits
// names the values an older link would have meant otherwise, for the page
// to say so.
package link

import (
	"errors"
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"interplab/engine"
	"interplab/engine/netsim"
	"interplab/engine/param"
	"interplab/presets"
)

// PresetKey is the query key naming the starting preset.
const PresetKey = "preset"

// ScenarioTextKey is the query key carrying a custom scenario's text
// (engine.Settings.ScenarioText, used with scenario=custom): not a
// parameter, but a link must be able to share it.
const ScenarioTextKey = "scenarioText"

// ParseRef parses the query of a q:QUERY ref, the text after "q:", as a
// person may type it: a % that does not start an escape (loss=1%, the unit
// a number carries) is itself, where url.ParseQuery refuses it as a bad URL
// escape; a query copied from a link (loss=1%25) reads the same.
func ParseRef(query string) (url.Values, error) {
	var b strings.Builder
	for i := 0; i < len(query); i++ {
		c := query[i]
		if c == '%' && !(i+2 < len(query) && isHex(query[i+1]) && isHex(query[i+2])) {
			b.WriteString("%25")
			continue
		}
		b.WriteByte(c)
	}
	return url.ParseQuery(b.String())
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// Parse restores the state of a share link. It starts from the
// preset named by q's "preset" key (engine.Defaults when absent) and applies
// every other key with engine.Settings.SetText, in parameter-table order.
// Nothing is dropped silently: an unknown preset or key, a key given twice and
// a bad value are each reported in errs, and a bad value leaves the preset's
// value. A cross-field failure of Validate is reported too, and overrides are
// undone, latest first, until the settings pass, so s is always valid.
// preset is the preset actually used ("" for the defaults).
func Parse(q url.Values) (preset string, s engine.Settings, errs []*engine.FieldError) {
	base := engine.Defaults()
	if vals, ok := q[PresetKey]; ok {
		name := vals[len(vals)-1]
		switch {
		case len(vals) > 1:
			errs = append(errs, &engine.FieldError{Field: PresetKey, Value: strings.Join(vals, ","), Allowed: "one preset"})
		case name == "":
			// An empty preset= means the defaults, as when it is absent.
		default:
			if p, err := presets.Get(name); err != nil {
				errs = append(errs, &engine.FieldError{Field: PresetKey, Value: name, Allowed: presetChoices()})
			} else {
				preset, base = name, p.Settings
			}
		}
	}
	s = base

	// Known keys in table order, then unknown ones sorted: errors come out in
	// the same order whatever the link's order.
	var applied []*engine.Param
	for i := range engine.Params() {
		p := &engine.Params()[i]
		vals, ok := q[p.Name]
		if !ok {
			continue
		}
		if len(vals) > 1 {
			errs = append(errs, &engine.FieldError{Field: p.Name, Value: strings.Join(vals, ","), Allowed: "one value"})
			continue
		}
		if err := s.SetText(p.Name, vals[0]); err != nil {
			errs = append(errs, fieldError(p.Name, vals[0], err))
			continue
		}
		applied = append(applied, p)
	}
	if vals, ok := q[ScenarioTextKey]; ok {
		if len(vals) > 1 {
			errs = append(errs, &engine.FieldError{Field: ScenarioTextKey, Value: strings.Join(vals, ","), Allowed: "one value"})
		} else {
			s.ScenarioText = vals[0]
		}
	}
	var unknown []string
	for k := range q {
		if _, ok := engine.Lookup(k); !ok && k != PresetKey && k != ScenarioTextKey {
			unknown = append(unknown, k)
		}
	}
	slices.Sort(unknown)
	for _, k := range unknown {
		errs = append(errs, &engine.FieldError{Field: k, Value: strings.Join(q[k], ","), Allowed: "a parameter name (see /api/params)"})
	}

	for err := s.Validate(); err != nil; err = s.Validate() {
		var se *netsim.ScenarioError
		if errors.As(err, &se) && s.Scenario == netsim.ScenarioCustom {
			// A bad custom scenario: quote its line, and go back to the
			// base's scenario.
			fe := &engine.FieldError{Field: ScenarioTextKey, Allowed: err.Error()}
			if lines := strings.Split(s.ScenarioText, "\n"); se.Line > 0 && se.Line <= len(lines) {
				fe.Value = lines[se.Line-1]
			}
			errs = append(errs, fe)
			s.Scenario, s.ScenarioText = base.Scenario, base.ScenarioText
			applied = slices.DeleteFunc(applied, func(p *engine.Param) bool { return p.Name == "scenario" })
			continue
		}
		errs = append(errs, fieldError("", "", err))
		// Undo the override the error names if there is one, else the
		// latest; base is valid, so this ends.
		i := slices.IndexFunc(applied, func(p *engine.Param) bool { return p.Name == errs[len(errs)-1].Field })
		if i < 0 {
			i = len(applied) - 1
		}
		if i < 0 {
			break // base itself is invalid: cannot happen for checked presets
		}
		p := applied[i]
		p.Set(&s, p.Get(&base))
		applied = slices.Delete(applied, i, i+1)
	}
	return preset, s, errs
}

// fieldError returns err as a *engine.FieldError, wrapping any other
// error under the given field.
func fieldError(field, value string, err error) *engine.FieldError {
	var fe *engine.FieldError
	if errors.As(err, &fe) {
		return fe
	}
	var se *netsim.ScenarioError
	if errors.As(err, &se) {
		// A built-in scenario that does not fit the run.
		return &engine.FieldError{Field: "scenario", Value: value, Allowed: err.Error()}
	}
	return &engine.FieldError{Field: field, Value: value, Allowed: err.Error()}
}

func presetChoices() string {
	list, _ := presets.All()
	names := make([]string, len(list))
	for i, p := range list {
		names[i] = p.Name
	}
	return "one of " + strings.Join(names, ", ")
}

// Values is the inverse of Parse: the preset (when not
// "") and every parameter whose value differs from the preset's (or from
// engine.Defaults when preset is ""), formatted by Param.Format, with its
// unit. An unknown preset is compared as "". Use Query for the encoded form
// in table order.
func Values(preset string, s engine.Settings) url.Values {
	q := url.Values{}
	for _, kv := range pairs(preset, s) {
		q.Set(kv[0], kv[1])
	}
	return q
}

// Query encodes Values(preset, s) with the preset first and
// the parameters in table order (url.Values.Encode would sort them), keeping
// commas readable: preset=wifi&loss=3%25&techniques=epic,buffer.
func Query(preset string, s engine.Settings) string {
	var b strings.Builder
	for _, kv := range pairs(preset, s) {
		if b.Len() > 0 {
			b.WriteByte('&')
		}
		b.WriteString(url.QueryEscape(kv[0]))
		b.WriteByte('=')
		b.WriteString(strings.ReplaceAll(url.QueryEscape(kv[1]), "%2C", ","))
	}
	return b.String()
}

func pairs(preset string, s engine.Settings) [][2]string {
	base := engine.Defaults()
	var pairs [][2]string
	if preset != "" {
		if p, err := presets.Get(preset); err == nil {
			base = p.Settings
			pairs = append(pairs, [2]string{PresetKey, preset})
		}
	}
	for i := range engine.Params() {
		p := &engine.Params()[i]
		if v := p.Get(&s); v != p.Get(&base) {
			pairs = append(pairs, [2]string{p.Name, p.Format(v)})
		}
	}
	if s.ScenarioText != base.ScenarioText {
		pairs = append(pairs, [2]string{ScenarioTextKey, s.ScenarioText})
	}
	return pairs
}

// OldUnits looks in q for the links made before plain numbers were in the
// display unit: for each plain number (no unit written) of a parameter
// shown in a larger unit than it is stored in (seconds shown as ms, a
// fraction as %) that reads as less than one display unit, it returns a
// note saying how the lab reads it and what an older link meant by it
// (latency=0.08: 0.08 ms now, 80 ms in a link made before the rule), and
// older, q with those values' old unit written out (latency=0.08s): the
// link the older one meant. The lab still reads the link by the rule, as
// Parse does; the page offers older as a link. No such value gives no
// notes and a nil older. q is left as it is; older shares the value
// slices it does not rewrite with q, so a caller must not write into them.
func OldUnits(q url.Values) (notes []string, older url.Values) {
	for _, p := range engine.Params() {
		vals, ok := q[p.Name]
		if !ok || len(vals) != 1 || p.Display == "" || p.Scale <= 1 || (p.Kind != engine.Float && p.Kind != engine.Int) {
			continue
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(vals[0]), 64)
		if err != nil || !(v > 0 && v < 1) {
			continue // has a unit, or reads as a display unit or more
		}
		text, unit := vals[0]+p.Unit, p.Unit // the old unit: the stored one
		if p.Unit == "fraction" {
			text, unit = param.FormatIn(v, 100)+"%", "fractions"
		} else if p.Unit == "s" {
			unit = "seconds"
		}
		old, err := p.Parse(text)
		if err != nil {
			continue // out of range in the old unit: not an older link's value
		}
		if older == nil {
			older = maps.Clone(q)
		}
		older[p.Name] = []string{p.Format(old)}
		notes = append(notes, p.Name+"="+vals[0]+" reads as "+vals[0]+" "+p.Display+
			"; a link made before plain numbers were in "+p.Display+" held "+unit+" there, and meant "+p.Format(old))
	}
	return notes, older
}
