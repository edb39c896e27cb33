package main

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"interplab/engine"
	"interplab/presets"
)

func TestSimJSONMatchesEngine(t *testing.T) {
	var out, errb bytes.Buffer
	code := runSim([]string{"-preset", "wifi", "-set", "duration=5", "-set", "entities=3", "-json"}, &out, &errb)
	if code != 0 {
		t.Fatalf("lab sim exit %d: %s", code, errb.String())
	}
	var got engine.Result
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("lab sim -json: %v\n%s", err, out.String())
	}
	p, err := presets.Get("wifi")
	if err != nil {
		t.Fatal(err)
	}
	s := p.Settings
	s.Duration, s.Entities = 5, 3
	want, err := engine.Run(s)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Techniques) != len(want.Techniques) {
		t.Fatalf("lab sim gave %d techniques, want %d", len(got.Techniques), len(want.Techniques))
	}
	for k := range want.Techniques {
		if got.Techniques[k].Name != want.Techniques[k].Name || got.Techniques[k].Metrics != want.Techniques[k].Metrics {
			t.Errorf("technique %d: lab sim = %+v, engine.Run = %+v", k, got.Techniques[k], want.Techniques[k])
		}
	}
}

func TestSimTable(t *testing.T) {
	var out, errb bytes.Buffer
	if code := runSim([]string{"-set", "duration=3", "-set", "techniques=snap,buffer"}, &out, &errb); code != 0 {
		t.Fatalf("lab sim exit %d: %s", code, errb.String())
	}
	text := out.String()
	for _, want := range []string{"snap", "buffer", "errRMS", "addedLatency", "underrunRounds", "*"} {
		if !strings.Contains(text, want) {
			t.Errorf("lab sim table lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "hermite") {
		t.Errorf("lab sim table shows hermite, which was not asked for:\n%s", text)
	}
	// One row per metric, plus the header lines.
	if got, want := strings.Count(text, "\n"), len(engine.MetricFields)+3; got != want {
		t.Errorf("lab sim table has %d lines, want %d:\n%s", got, want, text)
	}
}

func TestSimBadUsage(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"out of range", []string{"-set", "loss=95"}, "loss"},
		{"unknown parameter", []string{"-set", "nosuch=1"}, "nosuch"},
		{"unknown preset", []string{"-preset", "moon"}, "moon"},
		{"stray argument", []string{"extra"}, "extra"},
		{"cross-field", []string{"-set", "tickRate=10", "-set", "sendRate=20"}, "sendRate"},
	}
	for _, tt := range tests {
		var out, errb bytes.Buffer
		code := runSim(tt.args, &out, &errb)
		if code != 2 || !strings.Contains(errb.String(), tt.want) {
			t.Errorf("%s: lab sim %v = exit %d, stderr %q; want exit 2 naming %q", tt.name, tt.args, code, errb.String(), tt.want)
		}
	}
}

// TestSimOneLineErrors: a bad -set or -preset is one line naming the key
// and the closest names or the valid presets, not the whole usage.
func TestSimOneLineErrors(t *testing.T) {
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"-set", "lss=0.1"}, []string{`-set lss=0.1: unknown parameter "lss"; closest: loss`}},
		{[]string{"-set", "latency"}, []string{"-set latency: want name=value"}},
		{[]string{"-preset", "moon"}, []string{`unknown preset "moon": want one of epic-seed,`, "wifi"}},
		{[]string{"-set", "latency=2000ms"}, []string{`latency = "2000ms" is not allowed: want [0, 1000] ms`}},
	}
	for _, tt := range tests {
		var out, errb bytes.Buffer
		code := runSim(tt.args, &out, &errb)
		msg := errb.String()
		if code != 2 || strings.Count(msg, "\n") != 1 || strings.Contains(msg, "usage") {
			t.Errorf("lab sim %v = exit %d, stderr %q; want exit 2 and one line without the usage", tt.args, code, msg)
		}
		for _, w := range tt.want {
			if !strings.Contains(msg, w) {
				t.Errorf("lab sim %v: stderr %q, want %q", tt.args, msg, w)
			}
		}
	}
}

func TestSimHelp(t *testing.T) {
	var out, errb bytes.Buffer
	if code := runSim([]string{"-h"}, &out, &errb); code != 0 || !strings.Contains(errb.String(), "usage: lab sim") || !strings.Contains(errb.String(), "-preset") {
		t.Errorf("lab sim -h = exit %d, stderr %q; want 0 with the usage and flags", code, errb.String())
	}
}

func TestSimScenario(t *testing.T) {
	var out, errb bytes.Buffer
	args := []string{"-scenario", "spike-300ms", "-set", "duration=25", "-set", "entities=2", "-set", "techniques=snap,buffer"}
	if code := runSim(args, &out, &errb); code != 0 {
		t.Fatalf("lab sim exit %d: %s", code, errb.String())
	}
	for _, want := range []string{"scenario spike-300ms (latency spike 300 ms): conditions change from 20 s to 20.5 s", "recovery ms", "buffer"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("lab sim -scenario lacks %q:\n%s", want, out.String())
		}
	}
}

func TestSimScenarioFile(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		name, text string
		code       int
		msg        string
	}{
		{"ok.txt", "title mine\nspike at=2 for=1s delay=200ms\n", 0, "scenario custom (mine)"},
		{"overlap.txt", "spike at=2 for=1 delay=200ms\noutage at=2.5 for=1\n", 2, "scenario line 2, field at: outage over [2.5, 3.5) s overlaps the spike on line 1"},
		{"long.txt", "outage at=4 for=2\n", 2, "raise duration to 6 or more"},
	} {
		path := dir + "/" + tt.name
		if err := os.WriteFile(path, []byte(tt.text), 0o644); err != nil {
			t.Fatal(err)
		}
		var out, errb bytes.Buffer
		code := runSim([]string{"-scenario", path, "-set", "duration=5", "-set", "entities=1", "-set", "techniques=snap"}, &out, &errb)
		if code != tt.code || !strings.Contains(out.String()+errb.String(), tt.msg) {
			t.Errorf("lab sim -scenario %s: exit %d, want %d, output lacks %q:\n%s%s", tt.name, code, tt.code, tt.msg, out.String(), errb.String())
		}
	}
	var out, errb bytes.Buffer
	if code := runSim([]string{"-scenario", dir + "/missing"}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "not a built-in scenario") {
		t.Errorf("lab sim -scenario missing: exit %d: %s", code, errb.String())
	}
}

// TestSimNetSim: lab sim -netsim NAME runs the settings over the lab's
// network and over NAME's simulator and prints, per technique, both values
// of every metric and their difference; a simulator the lab does not model
// is refused with the choices.
func TestSimNetSim(t *testing.T) {
	code, out, errs := labRun("sim", "-netsim", "unreal", "-set", "duration=5", "-set", "loss=0.5%")
	if code != 0 {
		t.Fatalf("lab sim -netsim unreal = %d:\n%s%s", code, out, errs)
	}
	for _, want := range []string{"Unreal's packet simulation playing the unreal-network export", "buffer lab", "unreal", "errRMS", "smoothness"} {
		if !strings.Contains(out, want) {
			t.Errorf("lab sim -netsim unreal output lacks %q:\n%s", want, out)
		}
	}
	if code, _, errs := labRun("sim", "-netsim", "source"); code != 2 || !strings.Contains(errs, "want one of mirror, unity, unreal") {
		t.Errorf("lab sim -netsim source = %d, %q; want 2 naming the choices", code, errs)
	}
}
