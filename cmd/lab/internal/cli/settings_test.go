package cli

import (
	"io"
	"strings"
	"testing"

	"interplab/engine"
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
		{args: []string{"-set", "loss=0.2", "-preset", "wifi", "-set", "loss=0.3", "-set", "techniques=snap,buffer"},
			check: map[string]string{"loss": "0.3", "latency": wifi.Settings.Text("latency"), "techniques": "snap,buffer"}},
		{args: []string{"-set", "adaptive=true"}, check: map[string]string{"adaptive": "true"}},
		{args: []string{"-set", "loss"}, err: "name=value"},
		{args: []string{"-set", "jiter=0.1"}, err: `unknown parameter "jiter"; closest: jitter`},
		{args: []string{"-set", "loss=2"}, err: "[0, 0.9]"},
		{args: []string{"-set", "loss=95%"}, err: "[0, 90] %"},
		{args: []string{"-set", "latency=20ms", "-set", "jitter=0.005s", "-set", "loss=2%", "-set", "clockDrift=150ppm"},
			check: map[string]string{"latency": "0.02", "jitter": "0.005", "loss": "0.02", "clockDrift": "0.00015"}},
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
