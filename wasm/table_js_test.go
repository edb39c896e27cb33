package main

import (
	"math"
	"syscall/js"
	"testing"

	"interplab/engine"
)

// TestParamsTable checks that params() gives every row of engine.Params()
// with every field as the table has it: the JSON text that carries it
// loses nothing.
func TestParamsTable(t *testing.T) {
	got := api(t).Call("params")
	ps := engine.Params()
	if got.Length() != len(ps) {
		t.Fatalf("params() has %d rows, want %d", got.Length(), len(ps))
	}
	for i, p := range ps {
		o := got.Index(i)
		str := func(key, want string) {
			if g := o.Get(key); g.Type() != js.TypeString || g.String() != want {
				t.Errorf("params()[%d].%s = %v, want %q", i, key, g, want)
			}
		}
		num := func(key string, want float64) {
			if g := o.Get(key); g.Type() != js.TypeNumber || g.Float() != want {
				t.Errorf("params()[%d].%s = %v, want %v", i, key, g, want)
			}
		}
		str("name", p.Name)
		str("group", p.Group)
		str("kind", kindNames[p.Kind])
		str("unit", p.Unit)
		num("min", p.Min)
		num("max", p.Max)
		num("step", p.Step)
		num("default", p.Default)
		str("doc", p.Doc)
		str("display", p.Display)
		num("scale", p.Scale)
		if g := o.Get("restart"); g.Type() != js.TypeBoolean || g.Bool() != p.Restart {
			t.Errorf("params()[%d].restart = %v, want %v", i, g, p.Restart)
		}
		choices := o.Get("choices")
		if choices.Length() != len(p.Choices) {
			t.Errorf("params()[%d].choices has %d, want %d", i, choices.Length(), len(p.Choices))
		} else {
			for k, c := range p.Choices {
				if g := choices.Index(k).String(); g != c {
					t.Errorf("params()[%d].choices[%d] = %q, want %q", i, k, g, c)
				}
			}
		}
		inert := o.Get("inert")
		if inert.Length() != len(p.Inert) {
			t.Errorf("params()[%d].inert has %d rules, want %d", i, inert.Length(), len(p.Inert))
			continue
		}
		for k, r := range p.Inert {
			g := inert.Index(k)
			if g.Get("when").String() != r.When || g.Get("from").Float() != r.From ||
				g.Get("to").Float() != r.To || g.Get("why").String() != r.Why {
				t.Errorf("params()[%d].inert[%d] = {%v %v %v %v}, want %+v", i, k,
					g.Get("when"), g.Get("from"), g.Get("to"), g.Get("why"), r)
			}
		}
	}
}

func TestMetricFieldsTable(t *testing.T) {
	got := api(t).Call("metricFields")
	if got.Length() != len(engine.MetricFields) {
		t.Fatalf("metricFields() has %d fields, want %d", got.Length(), len(engine.MetricFields))
	}
	for i, f := range engine.MetricFields {
		o := got.Index(i)
		if o.Get("name").String() != f.Name || o.Get("unit").String() != f.Unit || o.Get("display").String() != f.Display ||
			o.Get("scale").Float() != f.Scale || o.Get("doc").String() != f.Doc {
			t.Errorf("metricFields()[%d] = {%v %v %v %v %v}, want %+v", i,
				o.Get("name"), o.Get("unit"), o.Get("display"), o.Get("scale"), o.Get("doc"), f)
		}
	}
}

// TestJSONText checks the JSON writer on what the tables do not hold yet:
// every string reads back as js.ValueOf gives it, every number as itself.
func TestJSONText(t *testing.T) {
	for _, s := range []string{"", `a"b`, `back\slash`, "line\nbreak\ttab\r\x00\x01\x1f\x7f", "é ∆ 😀", "\u2028\u2029", "bad \xff utf-8"} {
		got := jsonParse.Invoke(string(appendString(nil, s))).String()
		if want := js.ValueOf(s).String(); got != want {
			t.Errorf("JSON.parse(appendString(%q)) = %q, want %q", s, got, want)
		}
	}
	for _, v := range []float64{0, -0.5, 1e-9, 123456789.125, math.MaxFloat64, math.SmallestNonzeroFloat64, math.Inf(1), math.Inf(-1)} {
		if got := jsonParse.Invoke(string(appendNumber(nil, v))).Float(); got != v {
			t.Errorf("JSON.parse(appendNumber(%v)) = %v", v, got)
		}
	}
	if got := jsonParse.Invoke(string(appendNumber(nil, math.NaN()))); !got.IsNull() {
		t.Errorf("JSON.parse(appendNumber(NaN)) = %v, want null", got)
	}
}
