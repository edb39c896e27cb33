//go:build !js

package main

import (
	"flag"
	"os"
	"strings"
	"testing"

	"interplab/engine"
)

var update = flag.Bool("update", false, "rewrite "+goldenFile+" from the native engine")

// TestNativeGolden runs the golden cases on the native engine. It pins their
// numbers in testdata/golden.txt (rewritten with -update), which the
// WebAssembly test must reproduce bit for bit.
func TestNativeGolden(t *testing.T) {
	var b strings.Builder
	for i, c := range goldenCases {
		s, err := goldenSettings(i)
		if err != nil {
			t.Fatal(err)
		}
		sim, err := engine.NewSim(s)
		if err != nil {
			t.Fatalf("case %s: NewSim: %v", c.name, err)
		}
		stepCase(i, sim.Step)
		var r goldenRun
		r.techniques = sim.Techniques()
		for _, m := range sim.Metrics(nil) {
			r.metrics = m.Values(r.metrics)
		}
		r.poses = sim.Poses()
		r.frames = sim.Frames()
		r.time = sim.Time()
		r.report(&b, c.name)
	}
	got := b.String()
	if *update {
		if err := os.WriteFile(goldenFile, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(goldenFile)
	if err != nil {
		t.Fatalf("%v (run go test ./wasm -update to write it)", err)
	}
	if got != string(want) {
		t.Errorf("native engine output differs from %s (run go test ./wasm -update if the change is intended):\n%s",
			goldenFile, firstDiff(got, string(want)))
	}
}
