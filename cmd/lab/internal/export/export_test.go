package export

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"interplab/engine"
	"interplab/engine/netsim"
	"interplab/presets"
)

// update rewrites the golden exports under testdata/.
var update = flag.Bool("update", false, "rewrite the golden exports under testdata/")

// exportGoldenPreset is the preset of the golden exports.
const exportGoldenPreset = "harbor-after"

func TestExportGolden(t *testing.T) {
	p, err := presets.Get(exportGoldenPreset)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range formats {
		file, err := Render(f.name, Origin{Preset: p.Name}, withTechnique(p.Settings, f.technique))
		if err != nil {
			t.Fatalf("Render(%s) error: %v", f.name, err)
		}
		body := file.Body
		golden := filepath.Join("testdata", f.name+filepath.Ext(file.Name))
		if *update {
			if err := os.WriteFile(golden, body, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatalf("%v (run go test -update to create it)", err)
		}
		if !bytes.Equal(body, want) {
			t.Errorf("Render(%s) differs from %s; got:\n%s", f.name, golden, body)
		}
	}
}

// withTechnique returns s with technique added to its techniques (a
// library's export writes only its technique's settings); "" adds none.
// setStored sets the named parameter from text as an export's code or cfg
// writes it, for the read-back tests: a number in the parameter's stored
// unit (the library's own: seconds for cl_interp, a fraction for
// catchupSpeed), or a name.
func setStored(s *engine.Settings, name, text string) error {
	p, ok := engine.Lookup(name)
	if ok && (p.Kind == engine.Float || p.Kind == engine.Int) {
		v, err := strconv.ParseFloat(text, 64)
		if err != nil {
			return err
		}
		return p.Set(s, v)
	}
	return s.SetText(name, text)
}

func withTechnique(s engine.Settings, technique string) engine.Settings {
	if technique != "" && !slices.Contains(s.Techniques, technique) {
		s.Techniques = append(slices.Clone(s.Techniques), technique)
	}
	return s
}

// TestExportLineChanges changes one setting and checks that exactly the
// lines that carry it change, to the new value: no export number is fixed.
func TestExportLineChanges(t *testing.T) {
	tests := []struct {
		format string
		set    string   // name=value applied to the golden preset
		want   []string // the changed lines, in order, each as a substring
	}{
		{"json", "loss=5%", []string{`    "loss": 0.05,`}},
		{"json", "techniques=snap,buffer", []string{`    "techniques": ["snap", "buffer"]`}},
		{"json", "adaptive=false", []string{`    "adaptive": false,`}},
		{"cpp", "calcAhead=50ms", []string{"    0.05f,  // calcAhead, s:"}},
		{"cpp", "slopTime=1000ms", []string{"    1.0f,  // slopTime, s:"}},
		{"cpp", "delay=120ms", []string{"constexpr float delay = 0.12f;"}},
		{"cpp", "adaptWindow=64", []string{"constexpr int adaptWindow = 64;"}},
		{"cpp", "rotation=euler", []string{`constexpr const char* rotation = "euler";`}},
		{"mirror", "mirror.bufferLimit=16", []string{"        bufferLimit = 16, // snapshots:"}},
		{"mirror", "mirror.catchupSpeed=5%", []string{"        catchupSpeed = 0.05, // How much faster"}},
		{"mirror", "mirror.sendIntervalMultiplier=2", []string{
			"// Effective display delay behind the newest snapshot: 83.333 ms in steady state",
			"//   + NetworkTransform's shift of its snapshots, 50 ms",
			"        // Sync every 2 sends",
			"        nt.syncInterval = 0.033333335f;"}},
		{"mirror", "mirror.timelineOffset=false", []string{
			"// Effective display delay behind the newest snapshot: 33.333 ms in steady state",
			"//   + NetworkTransform's shift of its snapshots, 0 ms",
			"        nt.timelineOffset = false;"}},
		{"netem", "jitter=30ms", []string{
			"# delay: mean one-way delay latency + jitter = 40 + 30 ms",
			"netem delay 70ms 30ms distribution paretonormal loss random 1%"}},
		{"netem", "bandwidth=256kbit/s", []string{"netem delay 60ms 20ms distribution paretonormal loss random 1% rate 256kbit limit 1000"}},
		{"netem", "bandwidth=0.0645Mbit/s", []string{"rate 64.5kbit limit 1000"}},
		{"netem", "duplicate=2%", []string{"netem delay 60ms 20ms distribution paretonormal loss random 1% duplicate 2%"}},
		// p = 0.01 × (1/3) / 0.99, r = 1/3, in percent.
		{"netem", "lossModel=burst", []string{
			"# loss: Gilbert-Elliott loss:",
			"loss gemodel 0.336700337% 33.333333333% 100% 0%"}},
		{"unreal", "unreal.networkSmoothingMode=linear", []string{
			"//     Network Smoothing Mode                   Linear",
			"    Move.NetworkSmoothingMode = ENetworkSmoothingMode::Linear;"}},
		{"unreal", "unreal.networkSimulatedSmoothLocationTime=250ms", []string{
			"//     Network Simulated Smooth Location Time   0.25 s",
			"    Move.NetworkSimulatedSmoothLocationTime = 0.25f;"}},
		{"unreal", "unreal.networkSimulatedSmoothRotationTime=0ms", []string{
			"//     Network Simulated Smooth Rotation Time   0 s",
			"    Move.NetworkSimulatedSmoothRotationTime = 0.0f;"}},
		{"unreal", "unreal.networkMaxSmoothUpdateDistance=100", []string{
			"//     Network Max Smooth Update Distance       100 cm",
			"    Move.NetworkMaxSmoothUpdateDistance = 100.0f;"}},
		{"unreal", "unreal.networkNoSmoothUpdateDistance=512.5", []string{
			"//     Network No Smooth Update Distance        512.5 cm",
			"    Move.NetworkNoSmoothUpdateDistance = 512.5f;"}},
		{"unreal", "sendRate=10", []string{"// server sending 10 updates a second"}},
		{"unreal", "delay=150ms", nil}, // the buffer's settings are not Unreal's
		{"source", "source.cl_interp=150ms", []string{"// Effective interpolation delay: 165 ms", "cl_interp 0.15"}},
		{"source", "source.cl_extrapolate=false", []string{"cl_extrapolate 0"}},
		{"source", "source.tickrate=128", []string{"// Effective interpolation delay: 109.375 ms", "-tickrate 128", "gives a game that sends at 20 Hz and ticks at 128 Hz"}},
		{"source", "source.sv_maxupdaterate=128", []string{"sv_maxupdaterate 128"}},
		{"source", "delay=150ms", nil}, // the buffer's delay is not the source technique's
	}
	p, err := presets.Get(exportGoldenPreset)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		base := withTechnique(p.Settings, Technique(tt.format))
		beforeFile, err := Render(tt.format, Origin{Preset: p.Name}, base)
		before := beforeFile.Body
		if err != nil {
			t.Fatal(err)
		}
		s := base
		name, value, _ := strings.Cut(tt.set, "=")
		if err := s.SetText(name, value); err != nil {
			t.Fatal(err)
		}
		afterFile, err := Render(tt.format, Origin{Preset: p.Name}, s)
		after := afterFile.Body
		if err != nil {
			t.Fatalf("Render(%s) with %s error: %v", tt.format, tt.set, err)
		}
		bl, al := strings.Split(string(before), "\n"), strings.Split(string(after), "\n")
		if len(bl) != len(al) {
			t.Errorf("%s with %s: %d lines, want %d", tt.format, tt.set, len(al), len(bl))
			continue
		}
		var changed []string
		for i := range al {
			if al[i] != bl[i] {
				changed = append(changed, al[i])
			}
		}
		ok := len(changed) == len(tt.want)
		for i := 0; ok && i < len(changed); i++ {
			ok = strings.Contains(changed[i], tt.want[i])
		}
		if !ok {
			t.Errorf("%s with %s: changed lines\n%s\nwant lines containing\n%s", tt.format, tt.set,
				strings.Join(changed, "\n"), strings.Join(tt.want, "\n"))
		}
	}
}

// TestExportJSONDecodes checks the canonical JSON: every vocabulary key in
// table order, decoding back to the same settings.
func TestExportJSONDecodes(t *testing.T) {
	list, err := presets.All()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range list {
		file, err := Render("json", Origin{Preset: p.Name}, p.Settings)
		body, contentType := file.Body, file.ContentType
		if err != nil {
			t.Fatal(err)
		}
		if contentType != "application/json" {
			t.Errorf("content type = %q, want application/json", contentType)
		}
		var doc struct {
			Schema   int             `json:"schema"`
			Preset   string          `json:"preset"`
			Settings json.RawMessage `json:"settings"`
		}
		dec := json.NewDecoder(bytes.NewReader(body))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&doc); err != nil {
			t.Fatalf("%s: decode: %v", p.Name, err)
		}
		if doc.Schema != 1 || doc.Preset != p.Name {
			t.Errorf("%s: schema, preset = %d, %q; want 1, %q", p.Name, doc.Schema, doc.Preset, p.Name)
		}
		var s engine.Settings
		dec = json.NewDecoder(bytes.NewReader(doc.Settings))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&s); err != nil {
			t.Fatalf("%s: decode settings: %v", p.Name, err)
		}
		if !reflect.DeepEqual(s, p.Settings) {
			t.Errorf("%s: settings decode to %+v, want %+v", p.Name, s, p.Settings)
		}
		// Key order: the table's.
		dec = json.NewDecoder(bytes.NewReader(doc.Settings))
		dec.Token() // {
		for i, param := range engine.Params() {
			key, err := dec.Token()
			if err != nil || key != param.Name {
				t.Fatalf("%s: key %d = %v (%v), want %s", p.Name, i, key, err, param.Name)
			}
			var skip json.RawMessage
			dec.Decode(&skip)
		}
	}
}

func TestExportErrors(t *testing.T) {
	if _, err := Render("yaml", Origin{}, engine.Defaults()); err == nil || !strings.Contains(err.Error(), "netem") {
		t.Errorf("Render(yaml) error = %v, want one listing the formats", err)
	}
	bad := engine.Defaults()
	bad.SendRate = bad.TickRate + 1
	if _, err := Render("json", Origin{}, bad); err == nil || !strings.Contains(err.Error(), "sendRate") {
		t.Errorf("export of invalid settings: error = %v, want one naming sendRate", err)
	}
}

func TestExportFloatLit(t *testing.T) {
	tests := []struct {
		v    float64
		want string
	}{
		{0.2, "0.2f"}, {1, "1.0f"}, {0, "0.0f"}, {0.025, "0.025f"}, {1e-5, "1e-05f"}, {66, "66.0f"}, {0.123456789, "0.12345679f"},
	}
	for _, tt := range tests {
		if got := floatLit(tt.v); got != tt.want {
			t.Errorf("floatLit(%v) = %q, want %q", tt.v, got, tt.want)
		}
	}
}

// TestExportCppCompiles compiles the header against the seed's Settings
// declaration and checks the values a C++ program reads back.
func TestExportCppCompiles(t *testing.T) {
	cxx, err := exec.LookPath("g++")
	if err != nil {
		t.Skip("no g++")
	}
	s := engine.Defaults()
	s.CalcAhead, s.DisplayBehind, s.SlopTime, s.Delay, s.Adaptive = 0.07, 0.125, 1, 0.09, true
	headerFile, err := Render("cpp", Origin{}, s)
	header := headerFile.Body
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	prog := `#include <cstdio>
// The seed's declarations the header needs (seeds/000, abridged).
template<typename Val, typename Time = float>
class Interpolator {
  public:
    struct Settings {
      Time calcAhead;
      Time displayBehind;
      Time slopTime;
    };
};
class Vector3 { public: float x, y, z; };
#include "settings.h"
int main() {
  std::printf("%g %g %g %g %d %s\n", interplab::epicSettings.calcAhead, interplab::epicSettings.displayBehind,
      interplab::epicSettings.slopTime, interplab::delay, interplab::adaptive, interplab::rotation);
  return 0;
}
`
	if err := os.WriteFile(filepath.Join(dir, "settings.h"), header, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "main.cpp"), []byte(prog), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "main")
	if out, err := exec.Command(cxx, "-std=c++11", "-Wall", "-Werror", "-o", bin, filepath.Join(dir, "main.cpp")).CombinedOutput(); err != nil {
		t.Fatalf("g++: %v\n%s\nheader:\n%s", err, out, header)
	}
	out, err := exec.Command(bin).Output()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(out), "0.07 0.125 1 0.09 1 slerp\n"; got != want {
		t.Errorf("C++ reads %q, want %q", got, want)
	}
}

// TestExportNetemParses runs the netem command through tc in a throwaway
// network namespace: tc parses every option before the kernel sees it, so
// "Specified qdisc kind is unknown" (no netem module) still means the syntax
// is right.
func TestExportNetemParses(t *testing.T) {
	if _, err := exec.LookPath("tc"); err != nil {
		t.Skip("no tc")
	}
	if err := exec.Command("unshare", "-n", "true").Run(); err != nil {
		t.Skip("cannot create a network namespace: ", err)
	}
	list, err := presets.All()
	if err != nil {
		t.Fatal(err)
	}
	extra := engine.Defaults()
	extra.JitterDist, extra.Duplicate, extra.Loss, extra.LossModel = "uniform", 0.01, 0.2, "burst"
	cases := append(list, presets.Preset{Name: "", Settings: extra})
	for _, p := range cases {
		scriptFile, err := Render("netem", Origin{Preset: p.Name}, p.Settings)
		script := scriptFile.Body
		if err != nil {
			t.Fatal(err)
		}
		out, _ := exec.Command("unshare", "-n", "sh", "-c", string(script), "sh", "lo").CombinedOutput()
		if msg := strings.TrimSpace(string(out)); msg != "" && msg != "Error: Specified qdisc kind is unknown." {
			t.Errorf("%s: tc says %q for\n%s", p.Name, msg, script)
		}
	}
	// Every command of the scenarios' timed scripts, without the sleeps,
	// and going on past a kernel without netem.
	for _, name := range netsim.Scenarios[1 : len(netsim.Scenarios)-1] {
		s := engine.Defaults()
		s.Scenario, s.Bandwidth, s.Reorder, s.ReorderGap, s.Duplicate = name, 2e6, 0.02, 4, 0.01
		file, err := Render("netem", Origin{}, s)
		if err != nil {
			t.Fatal(err)
		}
		var lines []string
		for _, l := range strings.Split(string(file.Body), "\n") {
			if !strings.HasPrefix(l, "sleep ") && l != "set -e" {
				lines = append(lines, l)
			}
		}
		out, _ := exec.Command("unshare", "-n", "sh", "-c", strings.Join(lines, "\n"), "sh", "lo").CombinedOutput()
		for _, msg := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			if msg != "" && msg != "Error: Specified qdisc kind is unknown." {
				t.Errorf("%s: tc says %q for\n%s", name, msg, file.Body)
				break
			}
		}
	}
}

// Every parameter an export names by hand is in the engine's table: doc
// and value would otherwise print nothing.
func TestExportParamsKnown(t *testing.T) {
	for _, name := range append([]string{"calcAhead", "displayBehind", "slopTime"}, bufferParams...) {
		if _, ok := engine.Lookup(name); !ok {
			t.Errorf("export names %q, which engine.Params does not have", name)
		}
	}
}
