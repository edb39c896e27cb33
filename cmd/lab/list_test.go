package main

import (
	"bytes"
	"encoding/json"
	"interplab/cmd/lab/internal/report"
	"strings"
	"testing"

	"interplab/engine"
	"interplab/presets"
)

func TestPresetsCommand(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"presets"}, nil, &out, &errb); code != 0 {
		t.Fatalf("lab presets = exit %d, stderr %q", code, errb.String())
	}
	list, _ := presets.All()
	for _, p := range list {
		if !strings.Contains(out.String(), p.Name) || !strings.Contains(out.String(), p.Title) {
			t.Errorf("lab presets lacks %s (%s):\n%s", p.Name, p.Title, out.String())
		}
	}
	out.Reset()
	if code := run([]string{"presets", "-json"}, nil, &out, &errb); code != 0 {
		t.Fatalf("lab presets -json = exit %d", code)
	}
	var js []struct{ Name, Title, Doc string }
	if err := json.Unmarshal(out.Bytes(), &js); err != nil || len(js) != len(list) || js[0].Doc == "" {
		t.Errorf("lab presets -json = %d presets, %v; want %d with docs", len(js), err, len(list))
	}
}

func TestParamsCommand(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"params"}, nil, &out, &errb); code != 0 {
		t.Fatalf("lab params = exit %d, stderr %q", code, errb.String())
	}
	text := out.String()
	for _, want := range []string{"NAME", "UNIT", "RANGE", "DEFAULT", "latency", "[0, 1000] ms", "50 ms", "[0, 90] %", "uniform|normal|pareto|lognormal",
		"[0, 100000] kbit/s", "[0, 4294967295]", "kbit/s, Mbit/s, bit/s"} {
		if !strings.Contains(text, want) {
			t.Errorf("lab params lacks %q:\n%s", want, text)
		}
	}
	if got, want := strings.Count(text, "\n"), len(engine.Params())+1; got != want {
		t.Errorf("lab params has %d lines, want %d", got, want)
	}
	out.Reset()
	if code := run([]string{"params", "-json", "-group", "network"}, nil, &out, &errb); code != 0 {
		t.Fatalf("lab params -json = exit %d, stderr %q", code, errb.String())
	}
	var js []report.Param
	if err := json.Unmarshal(out.Bytes(), &js); err != nil || len(js) == 0 {
		t.Fatalf("lab params -json: %v", err)
	}
	for _, p := range js {
		if p.Group != "network" {
			t.Errorf("lab params -group network lists %s of %s", p.Name, p.Group)
		}
		if p.Name == "latency" && (p.Unit != "s" || p.Display != "ms" || p.Max != 1 || p.Default != 0.05 || strings.Join(p.Units, ",") != "ms,s" ||
			p.Range != "[0, 1000] ms" || p.DefaultText != "50ms") {
			t.Errorf("latency = %+v", p)
		}
		if p.Name == "bandwidth" && (p.Unit != "bit/s" || p.Display != "kbit/s" || p.Scale != 0.001 || p.Max != 1e8 || p.Range != "[0, 100000] kbit/s") {
			t.Errorf("bandwidth = %+v", p)
		}
	}
	errb.Reset()
	if code := run([]string{"params", "-group", "nope"}, nil, &out, &errb); code != 2 || !strings.Contains(errb.String(), "network") {
		t.Errorf("lab params -group nope = exit %d, stderr %q", code, errb.String())
	}
}

// TestParamsAfterSet: a value typed with -set, plain (in the unit the page
// shows) or with a unit, reads back in that unit in lab params.
func TestParamsAfterSet(t *testing.T) {
	var out, errb bytes.Buffer
	args := []string{"params", "-group", "network", "-set", "bandwidth=256kbit/s", "-set", "latency=0.12", "-set", "loss=2"}
	if code := run(args, nil, &out, &errb); code != 0 {
		t.Fatalf("lab %q = exit %d, stderr %q", args, code, errb.String())
	}
	rows := map[string][]string{}
	for _, line := range strings.Split(out.String(), "\n") {
		if f := strings.Fields(line); len(f) > 0 {
			rows[f[0]] = f
		}
	}
	// NAME GROUP UNIT RANGE (two words, and its unit) DEFAULT (two) VALUE (two)
	for name, want := range map[string]string{"bandwidth": "256 kbit/s", "latency": "0.12 ms", "loss": "2 %"} {
		if got := strings.Join(rows[name], " "); !strings.Contains(got, want) {
			t.Errorf("lab params row %s = %q, want the value %q", name, got, want)
		}
	}
	out.Reset()
	if code := run(append(args, "-json"), nil, &out, &errb); code != 0 {
		t.Fatalf("lab params -json = exit %d, stderr %q", code, errb.String())
	}
	var js []report.Param
	if err := json.Unmarshal(out.Bytes(), &js); err != nil {
		t.Fatal(err)
	}
	want := map[string]struct {
		v    float64
		text string
	}{"bandwidth": {256000, "256kbit/s"}, "latency": {0.00012, "0.12ms"}, "loss": {0.02, "2%"}}
	for _, p := range js {
		if w, ok := want[p.Name]; ok && (p.Value == nil || *p.Value != w.v || p.ValueText != w.text) {
			t.Errorf("lab params -json %s: value %v %q, want %v %q", p.Name, p.Value, p.ValueText, w.v, w.text)
		}
	}
	if code := run([]string{"params", "-set", "bandwidth=1e9"}, nil, &out, &errb); code != 2 ||
		!strings.Contains(errb.String(), `bandwidth = "1e9" is not allowed: want [0, 100000] kbit/s`) {
		t.Errorf("lab params -set bandwidth=1e9 = exit %d, stderr %q", code, errb.String())
	}
}
