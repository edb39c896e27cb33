package export

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"interplab/engine"
	"interplab/presets"
)

// unrealAssign is one line of the unreal export's function body.
var unrealAssign = regexp.MustCompile(`^\s*Move\.(\w+) = (.+);$`)

// parseUnreal reads the unreal export back: each Move.Field = value; line
// sets the lab parameter of that UCharacterMovementComponent field in s.
// It fails on an unknown field, a value that does not parse, or a field
// missing or set twice.
func parseUnreal(body []byte, s *engine.Settings) error {
	params := map[string]string{ // the field names of UE 5.4's UCharacterMovementComponent
		"NetworkSmoothingMode":               "unreal.networkSmoothingMode",
		"NetworkSimulatedSmoothLocationTime": "unreal.networkSimulatedSmoothLocationTime",
		"NetworkSimulatedSmoothRotationTime": "unreal.networkSimulatedSmoothRotationTime",
		"NetworkMaxSmoothUpdateDistance":     "unreal.networkMaxSmoothUpdateDistance",
		"NetworkNoSmoothUpdateDistance":      "unreal.networkNoSmoothUpdateDistance",
	}
	seen := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(body))
	for sc.Scan() {
		m := unrealAssign.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		field, val := m[1], m[2]
		name, ok := params[field]
		if !ok || seen[field] {
			return fmt.Errorf("field %s unknown or set twice", field)
		}
		seen[field] = true
		var text string
		if mode, ok := strings.CutPrefix(val, "ENetworkSmoothingMode::"); ok {
			text = strings.ToLower(mode)
		} else {
			num, ok := strings.CutSuffix(val, "f")
			if !ok {
				return fmt.Errorf("%s = %s: not a float literal", field, val)
			}
			if _, err := strconv.ParseFloat(num, 32); err != nil {
				return fmt.Errorf("%s = %s: %w", field, val, err)
			}
			text = num
		}
		if err := setStored(s, name, text); err != nil {
			return fmt.Errorf("%s: %w", field, err)
		}
	}
	if len(seen) != len(params) {
		return fmt.Errorf("%d of %d fields set", len(seen), len(params))
	}
	return nil
}

// TestExportUnrealRoundTrip reads the export back into settings whose
// Unreal knobs were wiped, and runs the technique with both: the same
// frames and the same metrics.
func TestExportUnrealRoundTrip(t *testing.T) {
	p, err := presets.Get(exportGoldenPreset)
	if err != nil {
		t.Fatal(err)
	}
	base := withTechnique(p.Settings, engine.TechUnreal)
	base.Duration, base.Entities, base.ClockDrift = 10, 4, 0.0005
	tests := []struct {
		name string
		set  func(s *engine.Settings)
	}{
		{"defaults", func(*engine.Settings) {}},
		{"linear", func(s *engine.Settings) { s.NetworkSmoothingMode = "linear" }},
		{"disabled", func(s *engine.Settings) { s.NetworkSmoothingMode = "disabled" }},
		{"tuned", func(s *engine.Settings) {
			s.NetworkSimulatedSmoothLocationTime, s.NetworkSimulatedSmoothRotationTime = 0.0837, 0.213
			s.NetworkMaxSmoothUpdateDistance, s.NetworkNoSmoothUpdateDistance = 31.5, 47.25
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := base
			tt.set(&s)
			file, err := Render("unreal", Origin{}, s)
			if err != nil {
				t.Fatal(err)
			}
			back := s
			back.UnrealSettings = engine.UnrealSettings{NetworkSmoothingMode: "disabled"}
			if err := parseUnreal(file.Body, &back); err != nil {
				t.Fatalf("parse: %v\n%s", err, file.Body)
			}
			if back.UnrealSettings != s.UnrealSettings {
				t.Fatalf("read back %+v, want %+v", back.UnrealSettings, s.UnrealSettings)
			}
			a, err := engine.NewSim(s)
			if err != nil {
				t.Fatal(err)
			}
			b, err := engine.NewSim(back)
			if err != nil {
				t.Fatal(err)
			}
			for range 600 {
				a.StepFrames(1)
				b.StepFrames(1)
				if !slices.Equal(a.Poses(), b.Poses()) {
					t.Fatalf("frame %d: poses differ", a.Frames())
				}
			}
			if ma, mb := a.Metrics(nil), b.Metrics(nil); ma[0] != mb[0] {
				t.Errorf("metrics %+v, read back %+v", ma[0], mb[0])
			}
		})
	}
}

// TestExportUnrealCompiles compiles the header against an abridged
// declaration of the engine's types (their names and types from Epic's API
// reference) and checks the values C++ reads back.
func TestExportUnrealCompiles(t *testing.T) {
	cxx, err := exec.LookPath("g++")
	if err != nil {
		t.Skip("no g++")
	}
	s := withTechnique(engine.Defaults(), engine.TechUnreal)
	s.NetworkSmoothingMode, s.NetworkSimulatedSmoothLocationTime = "linear", 0.125
	s.NetworkMaxSmoothUpdateDistance, s.NetworkNoSmoothUpdateDistance = 200, 512.5
	file, err := Render("unreal", Origin{}, s)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	stub := `#pragma once
enum class ENetworkSmoothingMode : unsigned char { Disabled, Linear, Exponential, Replay };
class UCharacterMovementComponent {
  public:
    ENetworkSmoothingMode NetworkSmoothingMode = ENetworkSmoothingMode::Exponential;
    float NetworkSimulatedSmoothLocationTime = 0.1f;
    float NetworkSimulatedSmoothRotationTime = 0.05f;
    float NetworkMaxSmoothUpdateDistance = 256.0f;
    float NetworkNoSmoothUpdateDistance = 384.0f;
};
`
	prog := `#include <cstdio>
#include "` + file.Name + `"
int main() {
  UCharacterMovementComponent m;
  InterpLab::ApplySimulatedProxySmoothing(m);
  std::printf("%d %g %g %g %g\n", int(m.NetworkSmoothingMode), m.NetworkSimulatedSmoothLocationTime,
      m.NetworkSimulatedSmoothRotationTime, m.NetworkMaxSmoothUpdateDistance, m.NetworkNoSmoothUpdateDistance);
  return 0;
}
`
	for name, body := range map[string]string{
		filepath.Join("GameFramework", "CharacterMovementComponent.h"): stub,
		file.Name:  string(file.Body),
		"main.cpp": prog,
	} {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	bin := filepath.Join(dir, "main")
	if out, err := exec.Command(cxx, "-std=c++17", "-Wall", "-Werror", "-I", dir, "-o", bin, filepath.Join(dir, "main.cpp")).CombinedOutput(); err != nil {
		t.Fatalf("g++: %v\n%s\nheader:\n%s", err, out, file.Body)
	}
	out, err := exec.Command(bin).Output()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(out), "1 0.125 0.05 200 512.5\n"; got != want {
		t.Errorf("C++ reads %q, want %q", got, want)
	}
}
