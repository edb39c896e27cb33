package main

import (
	"math"
	"strconv"
	"syscall/js"
	"unicode/utf8"

	"interplab/engine"
)

// The parameter table and the metric fields reach the page as one JSON text
// each, which JSON.parse turns into the plain objects the page reads. Built
// as Go maps and converted by js.ValueOf, the table took thousands of calls
// across the boundary (an object per row and per rule, a call per key, a
// string decoded per name and value, a finalizer per object), a fifth of the
// cold start's JavaScript time in Chromium.

var jsonParse = js.Global().Get("JSON").Get("parse")

var kindNames = [...]string{engine.Float: "float", engine.Int: "int", engine.Bool: "bool", engine.Enum: "enum", engine.Set: "set"}

// params returns the parameter table as plain objects (see Param in
// web/types/interplab.d.ts); inert is the row's param.Inert rules, which
// the page evaluates on its own values.
func params(js.Value, []js.Value) any {
	return jsonParse.Invoke(string(appendParams(nil)))
}

func metricFields(js.Value, []js.Value) any {
	return jsonParse.Invoke(string(appendMetricFields(nil)))
}

func appendParams(b []byte) []byte {
	w := jsonWriter{b: append(b, '[')}
	for i, p := range engine.Params() {
		w.open(i)
		w.str("name", p.Name)
		w.str("group", p.Group)
		w.str("kind", kindNames[p.Kind])
		w.str("unit", p.Unit)
		w.num("min", p.Min)
		w.num("max", p.Max)
		w.num("step", p.Step)
		w.num("default", p.Default)
		w.key("choices")
		w.b = append(w.b, '[')
		for k, c := range p.Choices {
			if k > 0 {
				w.b = append(w.b, ',')
			}
			w.b = appendString(w.b, c)
		}
		w.b = append(w.b, ']')
		w.str("doc", p.Doc)
		w.key("restart")
		w.b = strconv.AppendBool(w.b, p.Restart)
		w.str("display", p.Display)
		w.num("scale", p.Scale)
		w.key("inert")
		w.b = append(w.b, '[')
		for k, r := range p.Inert {
			w.open(k)
			w.str("when", r.When)
			w.num("from", r.From)
			w.num("to", r.To)
			w.str("why", r.Why)
			w.b = append(w.b, '}')
		}
		w.b = append(w.b, "]}"...)
	}
	return append(w.b, ']')
}

func appendMetricFields(b []byte) []byte {
	w := jsonWriter{b: append(b, '[')}
	for i, f := range engine.MetricFields {
		w.open(i)
		w.str("name", f.Name)
		w.str("unit", f.Unit)
		w.str("display", f.Display)
		w.num("scale", f.Scale)
		w.str("doc", f.Doc)
		w.b = append(w.b, '}')
	}
	return append(w.b, ']')
}

// jsonWriter appends the members of JSON objects to b.
type jsonWriter struct {
	b     []byte
	first bool // the next member is the object's first
}

// open starts the i-th object of an array.
func (w *jsonWriter) open(i int) {
	if i > 0 {
		w.b = append(w.b, ',')
	}
	w.b = append(w.b, '{')
	w.first = true
}

// key appends the name of the next member, which needs no escaping.
func (w *jsonWriter) key(k string) {
	if !w.first {
		w.b = append(w.b, ',')
	}
	w.first = false
	w.b = append(w.b, '"')
	w.b = append(w.b, k...)
	w.b = append(w.b, '"', ':')
}

func (w *jsonWriter) str(k, v string) {
	w.key(k)
	w.b = appendString(w.b, v)
}

func (w *jsonWriter) num(k string, v float64) {
	w.key(k)
	w.b = appendNumber(w.b, v)
}

// appendNumber appends v as a JSON number. JSON has no infinities or NaN:
// they are written as the numbers JSON.parse reads back as the same value
// (±1e999 is ±Infinity), and NaN as null, which no row of the table holds.
func appendNumber(b []byte, v float64) []byte {
	switch {
	case math.IsNaN(v):
		return append(b, "null"...)
	case math.IsInf(v, 1):
		return append(b, "1e999"...)
	case math.IsInf(v, -1):
		return append(b, "-1e999"...)
	}
	return strconv.AppendFloat(b, v, 'g', -1, 64)
}

// appendString appends s as a JSON string: quotes, backslashes and control
// characters escaped, each byte of invalid UTF-8 replaced by U+FFFD (the
// tables' texts are Go literals, valid UTF-8).
func appendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c < 0x20:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			b = append(b, "\ufffd"...)
		} else {
			b = append(b, s[i:i+n]...)
		}
		i += n
	}
	return append(b, '"')
}
