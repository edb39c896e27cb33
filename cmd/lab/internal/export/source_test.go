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
		f, err := Render("source", "", s)
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
