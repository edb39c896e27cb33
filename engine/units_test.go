package engine

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestParseUnits(t *testing.T) {
	tests := []struct {
		name, text string
		want       float64
	}{
		{"latency", "20ms", 0.02},
		{"latency", "20 ms", 0.02},
		{"latency", "0.02s", 0.02},
		{"latency", "0.02", 0.02},
		{"latency", "20MS", 0.02},
		{"loss", "2%", 0.02},
		{"loss", "0.02", 0.02},
		{"clockDrift", "-150ppm", -0.00015},
		{"sendRate", "30Hz", 30},
		{"maxSpeed", "7m/s", 7},
		{"adaptWindow", "40 packets", 40},
		{"duration", "90s", 90},
		{"delay", "100ms", 0.1},
	}
	for _, tt := range tests {
		p, _ := Lookup(tt.name)
		got, err := p.Parse(tt.text)
		if err != nil || got != tt.want {
			t.Errorf("%s.Parse(%q) = %v, %v; want %v", tt.name, tt.text, got, err, tt.want)
		}
	}
}

func TestParseUnitErrors(t *testing.T) {
	tests := []struct {
		name, text string
		want       []string // parts of the message
	}{
		{"latency", "2000ms", []string{`latency = "2000ms"`, "[0, 1000] ms"}},
		{"latency", "2s", []string{"[0, 1] s"}},
		{"latency", "2", []string{"[0, 1] s"}},
		{"loss", "95%", []string{"[0, 90] %"}},
		{"jitter", "20 lightyears", []string{"jitter", "with a unit: ms, s"}},
		{"loss", "0x10", []string{"loss", "%"}},
		{"entities", "2.5", []string{"whole number in [1, 10000] entities"}},
		{"latency", "ms", []string{"latency"}},
		{"latency", "NaN", []string{"latency"}},
	}
	for _, tt := range tests {
		p, _ := Lookup(tt.name)
		_, err := p.Parse(tt.text)
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Field != tt.name {
			t.Errorf("%s.Parse(%q) = %v, want a FieldError on %s", tt.name, tt.text, err, tt.name)
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s.Parse(%q) = %q, want it to contain %q", tt.name, tt.text, err, w)
			}
		}
	}
}

func TestParamUnits(t *testing.T) {
	p, _ := Lookup("latency")
	if got := p.Units(); !slices.Equal(got, []string{"ms", "s"}) {
		t.Errorf("latency units = %v", got)
	}
	p, _ = Lookup("jitterDist")
	if got := p.Units(); got != nil {
		t.Errorf("jitterDist units = %v, want none", got)
	}
}

func TestSuggestParams(t *testing.T) {
	for name, want := range map[string]string{"lss": "loss", "Latency": "latency", "jiter": "jitter", "sendrate": "sendRate", "delaycap": "delayCap"} {
		if got := SuggestParams(name, 3); len(got) == 0 || got[0] != want {
			t.Errorf("SuggestParams(%q) = %v, want %q first", name, got, want)
		}
	}
	if got := SuggestParams("zzzzzzzzzz", 3); len(got) != 0 {
		t.Errorf("SuggestParams(zzzzzzzzzz) = %v, want none", got)
	}
	var s Settings
	err := s.SetText("lss", "0.1")
	if err == nil || !strings.Contains(err.Error(), "did you mean loss") {
		t.Errorf("SetText(lss) = %v, want a suggestion of loss", err)
	}
}

func TestParseConstraintUnits(t *testing.T) {
	cs, err := ParseConstraints("addedLatency=150ms,underrun=5%,errP95=20cm,snaps=3")
	if err != nil {
		t.Fatal(err)
	}
	want := []Constraint{{"addedLatency", 0.15}, {"underrun", 0.05}, {"errP95", 0.2}, {"snaps", 3}}
	if !slices.Equal(cs, want) {
		t.Errorf("ParseConstraints = %v, want %v", cs, want)
	}
	if _, err := ParseConstraints("addedLatency=150 parsecs"); err == nil || !strings.Contains(err.Error(), "constraints.addedLatency") {
		t.Errorf("ParseConstraints(parsecs) = %v", err)
	}
}
