//go:build !js

package lightyear

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"interplab/engine/param"
	"interplab/engine/technique"
)

// exportOf is the export of s tuned at a 64 Hz tick and 10 Hz sends.
func exportOf(s *Settings) string {
	var b strings.Builder
	Def.Export.Write(&b, s, &technique.ExportEnv{From: "test", Env: technique.Env{TickRate: 64, SendRate: 10, RenderRate: 60}})
	return b.String()
}

// tuned is settings away from every default.
func tuned() Settings {
	var s Settings
	param.SetDefaults(Params, &s)
	s.MinDelay, s.SendIntervalRatio, s.JitterMultiple, s.JitterMargin = 0.012, 2.3, 2, 0.7
	s.HandshakePings, s.ErrorMargin, s.MaxErrorMargin, s.ConsecutiveErrorsThreshold = 5, 1.3, 7.5, 4
	s.SpeedupFactor, s.PingInterval = 1.08, 0.25
	return s
}

// TestExportRoundTrip reads every `field: value,` of the export back into
// settings: each knob is written once under lightyear's name, and reads
// back as the value lightyear holds (f32 knobs as f32, durations in ns).
func TestExportRoundTrip(t *testing.T) {
	for _, want := range []Settings{func() Settings { var s Settings; param.SetDefaults(Params, &s); return s }(), tuned()} {
		var got Settings
		seen := map[string]bool{}
		for line := range strings.Lines(exportOf(&want)) {
			field, lit, ok := strings.Cut(strings.TrimSpace(line), ": ")
			if !ok || strings.HasPrefix(field, "//") || strings.Contains(field, " ") || field == "sync" {
				continue
			}
			lit = strings.TrimSuffix(lit, ",")
			p, ok := param.Find(Params, Name+"."+field)
			if !ok || seen[field] {
				t.Fatalf("export sets %q: not a knob, or twice", line)
			}
			seen[field] = true
			var v float64
			if ns, ok := strings.CutPrefix(lit, "Duration::from_nanos("); ok {
				n, err := strconv.ParseInt(strings.TrimSuffix(ns, ")"), 10, 64)
				if err != nil {
					t.Fatalf("%q: %v", line, err)
				}
				v = float64(n) / 1e9
			} else {
				f, err := strconv.ParseFloat(lit, 64)
				if err != nil {
					t.Fatalf("%q: %v", line, err)
				}
				v = f
			}
			p.Write(&got, v)
		}
		if len(seen) != len(Params) {
			t.Errorf("export sets %d knobs, want all %d", len(seen), len(Params))
		}
		for i := range Params {
			p := &Params[i]
			a, b := p.Read(&got), p.Read(&want)
			if a != b && float32(a) != float32(b) {
				t.Errorf("%s reads back as %v, want %v", p.Name, a, b)
			}
		}
		if labConfig(&got, &technique.Env{TickRate: 64, SendRate: 10}) != labConfig(&want, &technique.Env{TickRate: 64, SendRate: 10}) {
			t.Errorf("the export read back configures the client differently")
		}
	}
}

// lightyearStub declares what the export uses of lightyear, with its
// fields' types at the technique's commit, for rustc.
const lightyearStub = `mod lightyear { pub mod prelude {
    use core::time::Duration;
    #[derive(Default)] pub struct SyncConfig { pub jitter_multiple: u8, pub jitter_margin: f32, pub handshake_pings: u8,
        pub error_margin: f32, pub max_error_margin: f32, pub consecutive_errors_threshold: u8, pub speedup_factor: f32 }
    #[derive(Default)] pub struct InterpolationConfig { pub min_delay: Duration, pub send_interval_ratio: f32, pub sync: SyncConfig }
    #[derive(Default)] pub struct PingConfig { pub ping_interval: Duration }
} }
`

// TestExportCompiles compiles the export with rustc against a stub of
// lightyear's three structs: the Rust is well formed and every value has
// its field's type.
func TestExportCompiles(t *testing.T) {
	rustc, err := exec.LookPath("rustc")
	if err != nil {
		t.Skip("SKIPPING THE RUST COMPILE CHECK: no rustc on PATH")
	}
	for _, s := range []Settings{tuned()} {
		dir := t.TempDir()
		src := filepath.Join(dir, "lib.rs")
		if err := os.WriteFile(src, []byte(lightyearStub+exportOf(&s)), 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(rustc, "--edition", "2021", "--crate-type", "lib", "-A", "dead_code", "--out-dir", dir, src).CombinedOutput()
		if err != nil {
			t.Fatalf("rustc: %v\n%s", err, out)
		}
	}
}
