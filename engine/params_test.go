package engine

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
)

func TestDefaultsValid(t *testing.T) {
	s := Defaults()
	if err := s.Validate(); err != nil {
		t.Fatalf("Defaults().Validate() = %v, want nil", err)
	}
	if s.CalcAhead != 0.2 || s.DisplayBehind != 0.2 || s.SlopTime != 0.5 {
		t.Errorf("EPIC defaults = %v, %v, %v, want the seed's 0.2, 0.2, 0.5", s.CalcAhead, s.DisplayBehind, s.SlopTime)
	}
	if !slices.Equal(s.Techniques, TechniqueNames[:labTechniques]) {
		t.Errorf("default techniques = %v, want the lab's own %v", s.Techniques, TechniqueNames[:labTechniques])
	}
}

func TestParamTable(t *testing.T) {
	seen := map[string]bool{}
	for _, p := range Params() {
		if seen[p.Name] {
			t.Errorf("parameter %q listed twice", p.Name)
		}
		seen[p.Name] = true
		if p.Doc == "" || p.Group == "" {
			t.Errorf("parameter %q has no doc or group", p.Name)
		}
		if !(p.Min <= p.Default && p.Default <= p.Max) || p.Step <= 0 {
			t.Errorf("parameter %q: default %v outside [%v, %v] or step %v", p.Name, p.Default, p.Min, p.Max, p.Step)
		}
		// Text round trip of the default.
		s := Defaults()
		txt := p.Format(p.Default)
		v, err := p.Parse(txt)
		if err != nil || v != p.Default {
			t.Errorf("%s: Parse(Format(%v) = %q) = %v, %v", p.Name, p.Default, txt, v, err)
		}
		if err := s.SetText(p.Name, txt); err != nil || s.Text(p.Name) != txt {
			t.Errorf("%s: SetText(%q) = %v, Text = %q", p.Name, txt, err, s.Text(p.Name))
		}
	}
}

func TestValidateRejects(t *testing.T) {
	tests := []struct {
		name  string
		edit  func(*Settings)
		field string
		want  string // part of the message
	}{
		{"negative latency", func(s *Settings) { s.Latency = -0.01 }, "latency", `latency = "-10ms" is not allowed: want [0, 1000] ms`},
		{"NaN calcAhead", func(s *Settings) { s.CalcAhead = math.NaN() }, "calcAhead", "NaN"},
		{"Inf slopTime", func(s *Settings) { s.SlopTime = math.Inf(1) }, "slopTime", "+Inf"},
		{"loss above range", func(s *Settings) { s.Loss = 1.5 }, "loss", `loss = "150%" is not allowed: want [0, 90] %`},
		{"fractional entities impossible via struct; zero entities", func(s *Settings) { s.Entities = 0 }, "entities", "whole number in [1, 10000]"},
		{"unknown jitter distribution", func(s *Settings) { s.JitterDist = "cauchy" }, "jitterDist", "\"cauchy\" is not allowed: want one of uniform, normal, pareto, lognormal"},
		{"unknown technique", func(s *Settings) { s.Techniques = []string{"kalman"} }, "techniques", "\"kalman\""},
		{"no technique", func(s *Settings) { s.Techniques = nil }, "techniques", "one or more of"},
		{"send faster than tick", func(s *Settings) { s.TickRate, s.SendRate = 20, 30 }, "sendRate", "tickRate = 20"},
		{"cap below delay", func(s *Settings) { s.Adaptive, s.Delay, s.DelayCap = true, 0.2, 0.1 }, "delayCap", `delayCap = "100ms" is not allowed: want [delay = 200 ms, 1000 ms]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := Defaults()
			tt.edit(&s)
			err := s.Validate()
			var fe *FieldError
			if !errors.As(err, &fe) {
				t.Fatalf("Validate() = %v, want a *FieldError", err)
			}
			if fe.Field != tt.field || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Validate() = %q (field %q), want field %q and text %q", err, fe.Field, tt.field, tt.want)
			}
		})
	}
}

func TestParse(t *testing.T) {
	tests := []struct {
		name, text string
		want       float64
		wantErr    bool
	}{
		{"calcAhead", "250", 0.25, false},
		{"calcAhead", "0.25", 0.00025, false},
		{"calcAhead", "0.25s", 0.25, false},
		{"calcAhead", "NaN", 0, true},
		{"calcAhead", "inf", 0, true},
		{"calcAhead", "1500", 0, true},
		{"calcAhead", "1.5s", 0, true},
		{"calcAhead", "abc", 0, true},
		{"entities", "12", 12, false},
		{"entities", "12.5", 0, true},
		{"adaptive", "true", 1, false},
		{"adaptive", "yes", 0, true},
		{"jitterDist", "pareto", 2, false},
		{"jitterDist", "2", 0, true},
		{"techniques", "buffer,epic", 1 | 8, false},
		{"techniques", "buffer,,epic", 0, true},
		{"techniques", "", 0, true},
	}
	for _, tt := range tests {
		p, ok := Lookup(tt.name)
		if !ok {
			t.Fatalf("Lookup(%q) failed", tt.name)
		}
		got, err := p.Parse(tt.text)
		if (err != nil) != tt.wantErr || (err == nil && got != tt.want) {
			t.Errorf("%s.Parse(%q) = %v, %v; want %v, error %v", tt.name, tt.text, got, err, tt.want, tt.wantErr)
		}
		if err != nil && !strings.Contains(err.Error(), tt.name) {
			t.Errorf("%s.Parse(%q) error %q does not name the field", tt.name, tt.text, err)
		}
	}
}

func TestSetTextLeavesSettingsOnError(t *testing.T) {
	s := Defaults()
	before := s
	if err := s.SetText("latency", "2000"); err == nil {
		t.Fatal("SetText(latency, 2000) = nil, want an error")
	}
	if err := s.SetText("nosuch", "1"); err == nil || !strings.Contains(err.Error(), "nosuch") {
		t.Fatalf("SetText(nosuch) = %v, want an error naming it", err)
	}
	if s.Latency != before.Latency {
		t.Errorf("latency = %v after a rejected SetText, want %v", s.Latency, before.Latency)
	}
}
