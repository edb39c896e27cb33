package export

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"interplab/engine"
)

var (
	geckosNewRE    = regexp.MustCompile(`(?m)^export const SI = new SnapshotInterpolation\(([^,]+), \{ autoCorrectTimeOffset: (true|false) \}\)$`)
	geckosBufferRE = regexp.MustCompile(`(?m)^SI\.interpolationBuffer\.set\(([^)]+)\)$`)
	geckosVaultRE  = regexp.MustCompile(`(?m)^SI\.vault\.setMaxSize\(([^)]+)\)$`)
)

// parseGeckos reads a geckos export back, as the library would take it:
// serverFPS undefined is 0, and an interpolationBuffer.set that is not
// called (commented out) leaves the constructor's buffer (-1).
func parseGeckos(t *testing.T, js string) engine.GeckosSettings {
	t.Helper()
	var g engine.GeckosSettings
	m := geckosNewRE.FindStringSubmatch(js)
	if m == nil {
		t.Fatalf("no `new SnapshotInterpolation(...)` line in\n%s", js)
	}
	if m[1] != "undefined" {
		g.ServerFPS = parseNum(t, m[1])
	}
	g.AutoCorrectTimeOffset = m[2] == "true"
	g.InterpolationBuffer = -1
	if m := geckosBufferRE.FindAllStringSubmatch(js, -1); len(m) > 1 {
		t.Fatalf("interpolationBuffer.set called %d times", len(m))
	} else if len(m) == 1 {
		g.InterpolationBuffer = parseNum(t, m[0][1])
	}
	m = geckosVaultRE.FindStringSubmatch(js)
	if m == nil {
		t.Fatalf("no `SI.vault.setMaxSize(...)` line in\n%s", js)
	}
	g.VaultSize = int(parseNum(t, m[1]))
	return g
}

func parseNum(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestExportGeckosRoundTrip reads each export back into settings and runs
// the geckos technique on the same simulated link with both: the frames
// the designer saw are the frames the game will show.
func TestExportGeckosRoundTrip(t *testing.T) {
	tests := []engine.GeckosSettings{
		{ServerFPS: 20, InterpolationBuffer: -1, VaultSize: 120, AutoCorrectTimeOffset: true},
		{ServerFPS: 0, InterpolationBuffer: -1, VaultSize: 120, AutoCorrectTimeOffset: true},
		{ServerFPS: 30, InterpolationBuffer: 83, VaultSize: 40, AutoCorrectTimeOffset: false},
		{ServerFPS: 60, InterpolationBuffer: 0, VaultSize: 7, AutoCorrectTimeOffset: true},
		{ServerFPS: 12.5, InterpolationBuffer: 123.5, VaultSize: 1000, AutoCorrectTimeOffset: true},
	}
	for _, g := range tests {
		s := engine.Defaults()
		s.GeckosSettings = g
		s.Techniques = []string{engine.TechGeckos}
		s.Jitter, s.JitterDist, s.Loss, s.Duplicate, s.ClockDrift, s.Duration = 0.03, "pareto", 0.05, 0.02, 0.002, 20
		file, err := Render("geckos", Origin{}, s)
		if err != nil {
			t.Fatal(err)
		}
		back := s
		back.GeckosSettings = parseGeckos(t, string(file.Body))
		if back.GeckosSettings != g {
			t.Errorf("export of %+v reads back as %+v", g, back.GeckosSettings)
		}
		want, err := engine.Run(s)
		if err != nil {
			t.Fatal(err)
		}
		got, err := engine.Run(back)
		if err != nil {
			t.Fatal(err)
		}
		if got.Techniques[0].Metrics != want.Techniques[0].Metrics {
			t.Errorf("%+v: read back, metrics %+v\nwant %+v", g, got.Techniques[0].Metrics, want.Techniques[0].Metrics)
		}
	}
}

// TestExportGeckosLines checks that each knob changes exactly its lines.
func TestExportGeckosLines(t *testing.T) {
	base := engine.Defaults()
	base.Techniques = []string{engine.TechGeckos}
	tests := []struct {
		set  string
		want []string
	}{
		{"geckos.serverFPS=30", []string{"// Effective delay: 100 ms", "state of about 100 ms",
			"// serverFPS 30: the server's snapshots per second; the default buffer is 3 of its frames, 100 ms.",
			"new SnapshotInterpolation(30, ", "not set, the constructor's 100 ms", "// SI.interpolationBuffer.set(100)"}},
		{"geckos.serverFPS=0", []string{"// Effective delay: 100 ms", "state of about 100 ms",
			"// serverFPS undefined: the server's snapshots per second; not passed: the default buffer is 100 ms.",
			"new SnapshotInterpolation(undefined, ", "not set, the constructor's 100 ms", "// SI.interpolationBuffer.set(100)"}},
		{"geckos.autoCorrectTimeOffset=false", []string{"// autoCorrectTimeOffset false:", "{ autoCorrectTimeOffset: false }"}},
		{"geckos.vaultSize=60", []string{"SI.vault.setMaxSize(60)"}},
	}
	before := render(t, base)
	for _, tt := range tests {
		s := base
		name, value, _ := strings.Cut(tt.set, "=")
		if err := s.SetText(name, value); err != nil {
			t.Fatal(err)
		}
		s.FollowGameRate() // the lab's server at the game's rate: no warning
		after := render(t, s)
		bl, al := strings.Split(before, "\n"), strings.Split(after, "\n")
		if len(bl) != len(al) {
			t.Errorf("%s: %d lines, want %d", tt.set, len(al), len(bl))
			continue
		}
		var changed []string
		for i := range al {
			if al[i] != bl[i] {
				changed = append(changed, al[i])
			}
		}
		if !containsAll(changed, tt.want) {
			t.Errorf("%s: changed lines\n%s\nwant lines containing\n%s", tt.set, strings.Join(changed, "\n"), strings.Join(tt.want, "\n"))
		}
	}
	// Setting the buffer turns the commented call into a call.
	s := base
	s.InterpolationBuffer = 90
	js := render(t, s)
	for _, want := range []string{"// Effective delay: 90 ms", "\nSI.interpolationBuffer.set(90)\n"} {
		if !strings.Contains(js, want) {
			t.Errorf("with interpolationBuffer 90, no %q in\n%s", want, js)
		}
	}
}

func render(t *testing.T, s engine.Settings) string {
	t.Helper()
	f, err := Render("geckos", Origin{}, s)
	if err != nil {
		t.Fatal(err)
	}
	return string(f.Body)
}

// containsAll tells whether lines are as many as want and each contains its
// want in order.
func containsAll(lines, want []string) bool {
	if len(lines) != len(want) {
		return false
	}
	for i := range lines {
		if !strings.Contains(lines[i], want[i]) {
			return false
		}
	}
	return true
}

func TestExportGeckosNeedsTechnique(t *testing.T) {
	s := engine.Defaults()
	if _, err := Render("geckos", Origin{}, s); err == nil || !strings.Contains(err.Error(), "add geckos to techniques") {
		t.Errorf("Render(geckos) without the technique: error = %v, want one asking to add it", err)
	}
}

// TestExportGeckosParses checks the snippet's syntax with node, as an ES
// module (the form the import line takes).
func TestExportGeckosParses(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("no node")
	}
	s := engine.Defaults()
	s.Techniques = []string{engine.TechGeckos}
	for _, buf := range []float64{-1, 90} {
		s.InterpolationBuffer = buf
		path := filepath.Join(t.TempDir(), "si.mjs")
		if err := os.WriteFile(path, []byte(render(t, s)), 0o644); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command(node, "--check", path).CombinedOutput(); err != nil {
			t.Errorf("node --check: %v\n%s", err, out)
		}
	}
}
