package export

import (
	"bufio"
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"interplab/engine"
)

// parseSourceCfg reads a source export back: "name value" cvar lines, the
// "// -tickrate N" launch option, comments skipped. It returns the source
// technique's settings the cfg sets, failing on any cvar the technique does
// not have or any it leaves out.
func parseSourceCfg(cfg []byte) (engine.SourceSettings, error) {
	var s engine.Settings
	seen := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(cfg))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		name, value, ok := "", "", false
		if rest, isComment := strings.CutPrefix(line, "//"); isComment {
			if v, isTick := strings.CutPrefix(strings.TrimSpace(rest), "-tickrate "); isTick {
				name, value, ok = "tickrate", v, true
			}
		} else if line != "" {
			name, value, ok = strings.Cut(line, " ")
			if !ok {
				return s.SourceSettings, fmt.Errorf("line %q: want a cvar and a value", line)
			}
		}
		if !ok {
			continue
		}
		if seen[name] {
			return s.SourceSettings, fmt.Errorf("%s set twice", name)
		}
		seen[name] = true
		if err := setStored(&s, "source."+name, value); err != nil {
			return s.SourceSettings, err
		}
	}
	if !seen["cl_interpolate"] {
		// Development-only, never written: a released game interpolates.
		s.SourceSettings.ClInterpolate = true
		seen["cl_interpolate"] = true
	}
	for _, p := range engine.Params() {
		if p.Group == "source" && !seen[strings.TrimPrefix(p.Name, "source.")] {
			return s.SourceSettings, fmt.Errorf("the cfg does not set %s", p.Name)
		}
	}
	return s.SourceSettings, sc.Err()
}

// TestExportSourceRoundTrip reads the export back into the source
// technique's settings and checks that a run with them draws exactly what
// the designer saw.
func TestExportSourceRoundTrip(t *testing.T) {
	base := engine.Defaults()
	base.Duration, base.Jitter, base.Loss, base.ClockDrift = 8, 0.02, 0.03, 0.0005
	base.Techniques = []string{engine.TechSource}
	tuned := base
	for _, set := range []string{"source.tickrate=128", "source.cl_updaterate=33", "source.cl_interp=30ms",
		"source.cl_interp_ratio=1.5", "source.cl_extrapolate_amount=100ms", "source.sv_maxupdaterate=100",
		"source.cl_clockdrift_max_ms=100", "source.cl_clock_correction_adjustment_max_amount=150", "sendRate=33"} {
		name, value, _ := strings.Cut(set, "=")
		if err := tuned.SetText(name, value); err != nil {
			t.Fatal(err)
		}
	}
	for _, s := range []engine.Settings{base, tuned} {
		f, err := Render("source", Origin{}, s)
		if err != nil {
			t.Fatal(err)
		}
		back, err := parseSourceCfg(f.Body)
		if err != nil {
			t.Fatalf("read back: %v\n%s", err, f.Body)
		}
		if back != s.SourceSettings {
			t.Errorf("read back %+v, want %+v", back, s.SourceSettings)
		}
		read := s
		read.SourceSettings = back
		want, err := engine.Run(s)
		if err != nil {
			t.Fatal(err)
		}
		got, err := engine.Run(read)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got.Techniques, want.Techniques) {
			t.Errorf("run with the read-back settings = %+v, want %+v", got.Techniques, want.Techniques)
		}
	}
}

// TestExportSourceFlags: every cheat-protected cvar is marked as such on its
// own line, cl_interpolate (development-only: a released game cannot set it)
// is never written, and a lab run without interpolation says the export
// cannot give it.
func TestExportSourceFlags(t *testing.T) {
	cheat := map[string]bool{"cl_extrapolate": true, "cl_extrapolate_amount": true, "cl_clock_correction": true,
		"cl_clockdrift_max_ms": true, "cl_clock_correction_adjustment_min_offset": true,
		"cl_clock_correction_adjustment_max_offset": true, "cl_clock_correction_adjustment_max_amount": true}
	s := engine.Defaults()
	s.Techniques = []string{engine.TechSource}
	f, err := Render("source", Origin{}, s)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(f.Body), "\n")
	for i, line := range lines {
		name, _, ok := strings.Cut(line, " ")
		if !ok || strings.HasPrefix(line, "//") || line == "" {
			continue
		}
		if name == "cl_interpolate" {
			t.Errorf("line %d sets cl_interpolate, which is development-only", i+1)
		}
		marked := i > 0 && strings.Contains(lines[i-1], "FCVAR_CHEAT")
		if cheat[name] != marked {
			t.Errorf("line %d: %s is cheat-protected %v, marked %v (comment above: %q)", i+1, name, cheat[name], marked, lines[i-1])
		}
	}
	s.SourceSettings.ClInterpolate = false
	f, err = Render("source", Origin{}, s)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(f.Body), "cl_interpolate 0 cannot be set in a released game") {
		t.Errorf("with cl_interpolate 0 the export does not say it cannot give it:\n%s", f.Body)
	}
}
