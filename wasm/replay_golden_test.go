//go:build !js

package main

import (
	"math"
	"os"
	"strings"
	"testing"

	"interplab/engine"
)

// TestNativeReplayGolden replays the replay cases with engine.RunTrace and
// pins their metrics in testdata/replay.txt (rewritten with -update), which
// the WebAssembly test must reproduce bit for bit. It also checks that
// stepping a replay by quarter frames, as the page and the WebAssembly test
// do, gives RunTrace's metrics.
func TestNativeReplayGolden(t *testing.T) {
	var b strings.Builder
	for i, c := range replayCases {
		tr, s, err := replayCase(i)
		if err != nil {
			t.Fatal(err)
		}
		res, err := engine.RunTrace(tr, s)
		if err != nil {
			t.Fatalf("case %s: RunTrace: %v", c.name, err)
		}
		frames := int(math.Round(res.Settings.Duration * res.Settings.RenderRate))
		var names []string
		var metrics []float64
		for _, tech := range res.Techniques {
			names = append(names, tech.Name)
			metrics = tech.Metrics.Values(metrics)
		}
		replayReport(&b, c.name, frames, names, metrics)

		sim, err := engine.NewReplay(tr, s)
		if err != nil {
			t.Fatalf("case %s: NewReplay: %v", c.name, err)
		}
		for sim.Frames() < frames {
			sim.Step(1 / sim.Settings().RenderRate / 4)
		}
		var stepped []float64
		for _, m := range sim.Metrics(nil) {
			stepped = m.Values(stepped)
		}
		for j := range metrics {
			if math.Float64bits(stepped[j]) != math.Float64bits(metrics[j]) {
				t.Errorf("case %s: stepped replay metric %d = %v, RunTrace %v", c.name, j, stepped[j], metrics[j])
				break
			}
		}
	}
	got := b.String()
	if *update {
		if err := os.WriteFile(replayGoldenFile, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(replayGoldenFile)
	if err != nil {
		t.Fatalf("%v (run go test ./wasm -update to write it)", err)
	}
	if got != string(want) {
		t.Errorf("native replay differs from %s (run go test ./wasm -update if the change is intended):\n%s",
			replayGoldenFile, firstDiff(got, string(want)))
	}
}
