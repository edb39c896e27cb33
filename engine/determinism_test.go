package engine

import (
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

// TestDeterminism pins every metric of a demanding run (heavy-tailed jitter,
// burst loss, duplicates, clock drift, every technique) to the bit. The same
// test runs natively and under GOOS=js GOARCH=wasm (make test-wasm): both
// must produce the golden file, so the page and the server agree.
func TestDeterminism(t *testing.T) {
	s := Defaults()
	s.Entities, s.Duration = 12, 20
	s.Jitter, s.JitterDist = 0.03, "pareto"
	s.Loss, s.LossModel, s.BurstLength = 0.05, "burst", 4
	s.Duplicate, s.ClockDrift = 0.02, 0.002
	s.Adaptive, s.Seed = true, 42
	s.Techniques = TechniqueNames // the library techniques too, not only the default lab set
	res, err := Run(s)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, tr := range res.Techniques {
		b.WriteString(tr.Name)
		b.WriteString(" frames=" + strconv.Itoa(tr.Metrics.Frames))
		for i, v := range tr.Metrics.Values(nil) {
			// 'x' keeps every bit, so a last-place difference shows.
			b.WriteString(" " + MetricFields[i].Name + "=" + strconv.FormatFloat(v, 'x', -1, 64))
		}
		b.WriteString("\n")
	}
	golden := filepath.Join("testdata", "determinism.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update natively to create it)", err)
	}
	if got := b.String(); got != string(want) {
		t.Errorf("metrics differ from %s:\ngot:\n%s\nwant:\n%s", golden, got, want)
	}
}
