package main

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"interplab/cmd/lab/internal/report"
	"interplab/engine"
	"interplab/engine/study"
	"interplab/presets"
)

// sweepTestBase is harbor-before, shortened as the tests' -set flags do.
func sweepTestBase(t *testing.T) engine.Settings {
	t.Helper()
	p, err := presets.Get("harbor-before")
	if err != nil {
		t.Fatal(err)
	}
	s := p.Settings
	s.Duration, s.Entities = 3, 2
	return s
}

var sweepTestArgs = []string{"-preset", "harbor-before", "-set", "duration=3", "-set", "entities=2", "-technique", "buffer"}

func TestSweepJSONMatchesEngine(t *testing.T) {
	var out, errb bytes.Buffer
	args := append(sweepTestArgs[:len(sweepTestArgs):len(sweepTestArgs)], "-x", "delay=20:100:3", "-y", "adaptive", "-json")
	if code := runSweep(args, &out, &errb); code != 0 {
		t.Fatalf("lab sweep exit %d: %s", code, errb.String())
	}
	var got report.SweepJSON
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("lab sweep -json: %v\n%s", err, out.String())
	}
	spec := study.SweepSpec{Base: sweepTestBase(t), Technique: engine.TechBuffer,
		X: study.Axis{Name: "delay", Min: 0.02, Max: 0.1, Steps: 3},
		Y: &study.Axis{Name: "adaptive", Min: 0, Max: 1, Steps: 2}}
	want, err := study.Sweep(context.Background(), spec, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Points, want) {
		t.Errorf("lab sweep points = %+v, want study.Sweep's %+v", got.Points, want)
	}
	if got.X != spec.X || got.Y == nil || *got.Y != *spec.Y || got.Metric != "errP95" || got.Technique != "buffer" {
		t.Errorf("lab sweep -json header = %+v %+v %s %s, want the spec's axes, errP95, buffer", got.X, got.Y, got.Metric, got.Technique)
	}
	if !reflect.DeepEqual(got.XValues, spec.X.Values()) || !reflect.DeepEqual(got.YValues, spec.Y.Values()) {
		t.Errorf("lab sweep values = %v × %v, want %v × %v", got.XValues, got.YValues, spec.X.Values(), spec.Y.Values())
	}
}

// The tables show the chosen metric of every point in display units: a
// column for one parameter, a row per y value for two.
func TestSweepTable(t *testing.T) {
	base := sweepTestBase(t)
	tests := []struct {
		name string
		args []string
		spec study.SweepSpec
	}{
		{"one parameter", []string{"-x", "delay=20ms:0.2s:4", "-metric", "underrun"},
			study.SweepSpec{X: study.Axis{Name: "delay", Min: 0.02, Max: 0.2, Steps: 4}}},
		{"two parameters", []string{"-x", "extrapolateCap=0:1000:3", "-y", "speedClamp", "-metric", "underrun"},
			study.SweepSpec{X: study.Axis{Name: "extrapolateCap", Min: 0, Max: 1, Steps: 3},
				Y: &study.Axis{Name: "speedClamp", Min: 0, Max: 1, Steps: 2}}},
	}
	for _, tt := range tests {
		var out, errb bytes.Buffer
		if code := runSweep(append(sweepTestArgs[:len(sweepTestArgs):len(sweepTestArgs)], tt.args...), &out, &errb); code != 0 {
			t.Fatalf("%s: lab sweep exit %d: %s", tt.name, code, errb.String())
		}
		spec := tt.spec
		spec.Base, spec.Technique = base, engine.TechBuffer
		pts, err := study.Sweep(context.Background(), spec, 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimRight(out.String(), "\n"), "\n")
		rows := lines[3:] // title, blank line, column header
		var cells []string
		for _, row := range rows {
			f := strings.Fields(row)
			if spec.Y == nil {
				f = f[1:] // the x value
			} else {
				f = f[1:] // the y value
			}
			cells = append(cells, f...)
		}
		if len(cells) != len(pts) {
			t.Fatalf("%s: table has %d cells, want %d:\n%s", tt.name, len(cells), len(pts), out.String())
		}
		for k, p := range pts {
			if want := report.Number(p.Metrics.Underrun * 100); cells[k] != want {
				t.Errorf("%s: cell %d = %s, want %s (study.Sweep's underrun in %%)", tt.name, k, cells[k], want)
			}
		}
		if !strings.Contains(lines[0], "underrun (%)") || !strings.Contains(lines[2], "ms") {
			t.Errorf("%s: table header lacks the metric's or the axis's unit:\n%s", tt.name, out.String())
		}
	}
}

func TestSweepTableInvalidPoints(t *testing.T) {
	var out, errb bytes.Buffer
	args := []string{"-technique", "snap", "-set", "duration=2", "-set", "tickRate=30", "-x", "sendRate=20:40:3", "-metric", "snaps"}
	if code := runSweep(args, &out, &errb); code != 0 {
		t.Fatalf("lab sweep exit %d: %s", code, errb.String())
	}
	text := out.String()
	if !strings.Contains(text, "  -\n") || !strings.Contains(text, "sendRate=40Hz: sendRate = \"40Hz\" is not allowed: want [1 Hz, tickRate = 30 Hz]") {
		t.Errorf("lab sweep does not mark and list the invalid point sendRate=40:\n%s", text)
	}
}

func TestSweepUsage(t *testing.T) {
	tests := []struct {
		name string
		args []string
		code int
		want string // in stderr
	}{
		{"help", []string{"-h"}, 0, "name=min:max:steps"},
		{"no x", []string{"-technique", "buffer"}, 2, "-x is required"},
		{"unknown technique", []string{"-technique", "lerp", "-x", "adaptive"}, 2, "-technique: technique"},
		{"bad axis", []string{"-technique", "buffer", "-x", "delay=0:2000:3"}, 2, `-x: delay = "2000" is not allowed: want [0, 500] ms`},
		{"bad steps", []string{"-technique", "buffer", "-x", "delay=0:200:0"}, 2, "-x: x.steps"},
		{"same axes", []string{"-technique", "buffer", "-x", "delay=0:200:2", "-y", "delay=0:100:2"}, 2, "-y: y.name"},
		{"too many points", []string{"-technique", "buffer", "-x", "delay=0:200:200", "-y", "margin=0:200:200"}, 2, "points"},
		{"bad metric", []string{"-technique", "buffer", "-x", "adaptive", "-metric", "lag"}, 2, "-metric"},
		{"bad set", []string{"-technique", "buffer", "-x", "adaptive", "-set", "loss=95"}, 2, "loss"},
		{"stray argument", []string{"-technique", "buffer", "-x", "adaptive", "extra"}, 2, `"extra"`},
	}
	for _, tt := range tests {
		var out, errb bytes.Buffer
		code := runSweep(tt.args, &out, &errb)
		if code != tt.code || !strings.Contains(errb.String(), tt.want) {
			t.Errorf("%s: lab sweep %v = exit %d, stderr %q; want exit %d naming %q", tt.name, tt.args, code, errb.String(), tt.code, tt.want)
		}
	}
	var out, errb bytes.Buffer
	if code := run([]string{"sweep", "-h"}, strings.NewReader(""), &out, &errb); code != 0 || !strings.Contains(errb.String(), "lab sweep") {
		t.Errorf("lab sweep -h through run = exit %d, stderr %q; want the usage", code, errb.String())
	}
}
