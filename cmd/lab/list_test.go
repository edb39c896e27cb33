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
	for _, want := range []string{"NAME", "RANGE", "DEFAULT", "latency", "0 … 1000 ms", "50 ms", "0 … 90 %", "uniform|normal|pareto|lognormal"} {
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
		if p.Name == "latency" && (p.Unit != "s" || p.Display != "ms" || p.Max != 1 || p.Default != 0.05 || strings.Join(p.Units, ",") != "ms,s") {
			t.Errorf("latency = %+v", p)
		}
	}
	errb.Reset()
	if code := run([]string{"params", "-group", "nope"}, nil, &out, &errb); code != 2 || !strings.Contains(errb.String(), "network") {
		t.Errorf("lab params -group nope = exit %d, stderr %q", code, errb.String())
	}
}
