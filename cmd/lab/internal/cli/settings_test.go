package cli

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"interplab/engine"
	"interplab/engine/study"
	"interplab/presets"
)

func TestSettingsFlags(t *testing.T) {
	wifi, err := presets.Get("wifi")
	if err != nil {
		t.Fatal(err)
	}
	def := engine.Defaults()
	tests := []struct {
		args     []string
		parseErr string // substring of the flag.Parse error
		err      string // substring of the build error
		check    map[string]string
	}{
		{args: nil, check: map[string]string{"latency": def.Text("latency")}},
		{args: []string{"-preset", "wifi"}, check: map[string]string{"latency": wifi.Settings.Text("latency"), "jitterDist": "pareto"}},
		{args: []string{"-set", "loss=20", "-preset", "wifi", "-set", "loss=30", "-set", "techniques=snap,buffer"},
			check: map[string]string{"loss": "30%", "latency": wifi.Settings.Text("latency"), "techniques": "snap,buffer"}},
		{args: []string{"-set", "adaptive=true"}, check: map[string]string{"adaptive": "true"}},
		// One game setting, one knob: Mirror's rate moves the server's.
		{args: []string{"-preset", "mirror-30hz", "-set", "mirror.sendRate=60"},
			check: map[string]string{"mirror.sendRate": "60Hz", "sendRate": "60Hz", "tickRate": "60Hz"}},
		{args: []string{"-preset", "mirror-30hz", "-set", "mirror.sendRate=60", "-set", "sendRate=20"},
			check: map[string]string{"mirror.sendRate": "60Hz", "sendRate": "20Hz", "tickRate": "30Hz"}},
		{args: []string{"-preset", "mirror-30hz", "-set", "sendRate=60"}, err: "set it, and the lab's sendRate and tickRate follow"},
		{args: []string{"-set", "loss"}, err: "name=value"},
		{args: []string{"-set", "jiter=0.1"}, err: `unknown parameter "jiter"; closest: jitter`},
		{args: []string{"-set", "loss=95"}, err: `-set loss=95: loss = "95" is not allowed: want [0, 90] %`},
		{args: []string{"-set", "loss=95%"}, err: "[0, 90] %"},
		{args: []string{"-set", "seed=5e9"}, err: "[0, 4294967295]"},
		{args: []string{"-set", "bandwidth=1e9"}, err: "[0, 100000] kbit/s"},
		{args: []string{"-set", "latency=20ms", "-set", "jitter=0.005s", "-set", "loss=2%", "-set", "clockDrift=150ppm"},
			check: map[string]string{"latency": "20ms", "jitter": "5ms", "loss": "2%", "clockDrift": "150ppm"}},
		// A plain number is in the unit lab params and the page show.
		{args: []string{"-set", "latency=120", "-set", "jitter=0.2", "-set", "loss=2", "-set", "bandwidth=256", "-set", "clockDrift=150"},
			check: map[string]string{"latency": "120ms", "jitter": "0.2ms", "loss": "2%", "bandwidth": "256kbit/s", "clockDrift": "150ppm"}},
		{args: []string{"-set", "bandwidth=256kbit/s", "-set", "latency=0.12s"},
			check: map[string]string{"bandwidth": "256kbit/s", "latency": "120ms"}},
		{args: []string{"-set", "bandwidth=2Mbit"}, check: map[string]string{"bandwidth": "2000kbit/s"}},
		{args: []string{"-set", "jitterDist=cauchy"}, err: "jitterDist"},
		{args: []string{"-set", "tickRate=10"}, err: "sendRate"},
		{args: []string{"-preset", "mars"}, err: `"mars"`},
	}
	for _, tt := range tests {
		c := New("test", "", io.Discard, io.Discard)
		sf := c.SettingsFlags()
		err := c.Flags.Parse(tt.args)
		if tt.parseErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.parseErr) {
				t.Errorf("%q: Parse error = %v, want one containing %q", tt.args, err, tt.parseErr)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%q: Parse error: %v", tt.args, err)
		}
		s, err := sf.Settings()
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%q: error = %v, want one containing %q", tt.args, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: error: %v", tt.args, err)
			continue
		}
		for name, want := range tt.check {
			if got := s.Text(name); got != want {
				t.Errorf("%q: %s = %s, want %s", tt.args, name, got, want)
			}
		}
	}
}

// TestPopulationFile: -population takes a custom population file (as lab
// fit -population writes) as well as a preset's name, and names the file
// in its error.
func TestPopulationFile(t *testing.T) {
	dir := t.TempDir()
	def, err := presets.GetPopulation(presets.DefaultPopulation)
	if err != nil {
		t.Fatal(err)
	}
	pp := presets.PopulationPreset{Name: "our-players", Title: "Ours", Doc: "Fitted.", Population: def.Population}
	pp.Population.Latency = study.Spread{Min: 0.02, Max: 0.07}
	file := filepath.Join(dir, "our-players.json")
	var b bytes.Buffer
	if err := presets.WritePopulation(&b, pp); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	got, p, err := (&Population{Name: file, entities: 10}).Get()
	if err != nil {
		t.Fatal(err)
	}
	if got.Name != "our-players" || p.Latency != pp.Population.Latency || p.Entities != 10 {
		t.Errorf("Get = %+v, %+v", got, p)
	}
	if _, _, err := (&Population{Name: filepath.Join(dir, "missing.json")}).Get(); err == nil || !strings.Contains(err.Error(), "missing.json") {
		t.Errorf("a missing file: %v, want an error naming it", err)
	}
}
