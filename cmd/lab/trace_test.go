package main

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"interplab/cmd/lab/internal/report"
	"interplab/cmd/lab/internal/traceio"
	"interplab/engine"
	"interplab/presets"
)

// labRun runs lab with args and returns the exit status, stdout and stderr.
func labRun(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := run(args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

func TestTraceCommands(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	s := engine.Defaults()
	s.Entities, s.Duration, s.Latency, s.Jitter, s.JitterDist = 2, 30, 0.02, 0.005, "normal"
	tr, err := engine.SyntheticTrace(s)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "Office Run.csv")
	var csv bytes.Buffer
	if err := traceio.WriteCSV(&csv, tr); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, csv.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}

	code, out, errs := labRun("trace", "import", file, "-data", data)
	if code != 0 || !strings.Contains(out, "imported office-run (csv): 1202 packets, 2 entities, 30 s") {
		t.Fatalf("lab trace import = %d %q %q", code, out, errs)
	}
	if code, _, errs := labRun("trace", "import", "-data", data, file); code != 1 || !strings.Contains(errs, "exists") {
		t.Errorf("second import = %d %q, want 1 and a name taken", code, errs)
	}

	code, out, _ = labRun("trace", "ls", "-data", data)
	if code != 0 || !strings.Contains(out, "office-run") || !strings.Contains(out, "sample-4g") {
		t.Errorf("lab trace ls = %d %q, want office-run and the samples", code, out)
	}

	code, out, errs = labRun("trace", "show", "office-run", "-data", data)
	_, lat, _ := strings.Cut(out, "-set latency=")
	lat, _, _ = strings.Cut(lat, " ")
	lat, isMs := strings.CutSuffix(lat, "ms")
	if v, err := strconv.ParseFloat(lat, 64); code != 0 || err != nil || !isMs || math.Abs(v-20) > 0.5 ||
		!strings.Contains(out, "-set jitterDist=normal") {
		t.Fatalf("lab trace show = %d %q %q, want -set lines with the network (latency 20 ms, normal)", code, out, errs)
	}
	// The preset part is a preset file the presets package loads.
	_, preset, ok := strings.Cut(out, ".json):\n")
	if !ok {
		t.Fatalf("lab trace show printed no preset: %q", out)
	}
	var p struct {
		Name     string
		Settings map[string]any
	}
	if err := json.Unmarshal([]byte(preset), &p); err != nil || p.Name != "office-run" || p.Settings["jitterDist"] != "normal" {
		t.Errorf("preset JSON = %+v, %v", p, err)
	}
	if _, err := presets.Load(os.DirFS(writePreset(t, p.Name, preset))); err != nil {
		t.Errorf("presets.Load(lab trace show's preset) = %v", err)
	}

	code, out, _ = labRun("trace", "show", "-json", "sample-lan", "-data", data)
	var shown report.TraceJSON
	if code != 0 || json.Unmarshal([]byte(out), &shown) != nil || shown.Name != "sample-lan" || !shown.Sample {
		t.Errorf("lab trace show -json sample-lan = %d %q", code, out)
	}

	code, out, errs = labRun("trace", "sim", "office-run", "-data", data, "-set", "delay=120")
	if code != 0 || !strings.Contains(out, "trace office-run: 2 entities, 30 s replayed") || !strings.Contains(out, "errRMS") {
		t.Fatalf("lab trace sim = %d %q %q", code, out, errs)
	}
	code, out, _ = labRun("trace", "sim", "office-run", "-data", data, "-json", "-set", "delay=120")
	var res engine.Result
	if code != 0 || json.Unmarshal([]byte(out), &res) != nil || res.Settings.Delay != 0.12 || res.Settings.JitterDist != "normal" {
		t.Errorf("lab trace sim -json = %d, settings %+v", code, res.Settings)
	}
	// The same numbers as engine.RunTrace with the settings it printed.
	want, err := engine.RunTrace(tr, res.Settings)
	if err != nil {
		t.Fatal(err)
	}
	for k := range want.Techniques {
		g, w := res.Techniques[k].Metrics, want.Techniques[k].Metrics
		if g.Frames != w.Frames || g.Underrun != w.Underrun || g.Snaps != w.Snaps {
			t.Errorf("%s: lab trace sim = %+v, RunTrace = %+v", want.Techniques[k].Name, g, w)
		}
	}

	if code, out, _ := labRun("trace", "rm", "office-run", "-data", data); code != 0 || !strings.Contains(out, "deleted") {
		t.Errorf("lab trace rm = %d %q", code, out)
	}
	for _, c := range []struct {
		args []string
		code int
		text string
	}{
		{[]string{"trace"}, 2, "usage"},
		{[]string{"trace", "frobnicate"}, 2, "unknown command"},
		{[]string{"trace", "show", "office-run", "-data", data}, 1, "no trace named"},
		{[]string{"trace", "rm", "sample-lan", "-data", data}, 1, "built-in sample"},
		{[]string{"trace", "sim", "sample-lan", "-data", data, "-set", "latency=9s"}, 2, "latency"},
		{[]string{"trace", "sim", "sample-lan", "-data", data, "-set", "entities=3"}, 2, "comes from the trace"},
		{[]string{"trace", "import", "-data", data}, 2, "argument"},
		{[]string{"trace", "import", file, "-name", "Bad Name", "-data", data}, 2, "name"},
		{[]string{"trace", "import", filepath.Join(dir, "missing.csv"), "-data", data}, 1, "no such file"},
	} {
		code, out, errs := labRun(c.args...)
		if code != c.code || !strings.Contains(out+errs, c.text) {
			t.Errorf("lab %s = %d %q %q, want %d and %q", strings.Join(c.args, " "), code, out, errs, c.code, c.text)
		}
	}
}

// A malformed file is refused with its line, and nothing is stored.
func TestTraceImportMalformed(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	file := filepath.Join(dir, "bad.csv")
	body := "sent,arrive,x,y,z,vx,vy,vz\n0,0.02,0,0,0,1,0,0\n0.05,0.07,0.05,0,0,1,0,0\n0.1,0.12,0.1,0,0,1,0\n"
	if err := os.WriteFile(file, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs := labRun("trace", "import", file, "-data", data)
	if code != 1 || !strings.Contains(errs, "line 4") {
		t.Errorf("lab trace import bad.csv = %d %q, want 1 and line 4", code, errs)
	}
	_, out, _ := labRun("trace", "ls", "-data", data)
	if strings.Contains(out, "bad") {
		t.Errorf("lab trace ls after a refused import lists it: %q", out)
	}
}

// writePreset writes a preset file into a fresh directory and returns it.
func writePreset(t *testing.T, name, content string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, name+".json"), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}
