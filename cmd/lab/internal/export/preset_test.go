package export

import (
	"testing"
	"testing/fstest"

	"interplab/engine"
	"interplab/presets"
)

// A preset file reads back through package presets as the settings it
// names, the others at their defaults.
func TestPresetFile(t *testing.T) {
	s := engine.Defaults()
	s.Latency, s.JitterDist, s.Adaptive = 0.03, "pareto", true
	data := PresetFile("office-run", s, []string{"latency", "jitterDist", "adaptive"})
	list, err := presets.Load(fstest.MapFS{"office-run.json": {Data: data}})
	if err != nil {
		t.Fatalf("presets.Load(PresetFile) = %v:\n%s", err, data)
	}
	got := list[0]
	if got.Name != "office-run" || got.Settings.Latency != 0.03 || got.Settings.JitterDist != "pareto" || !got.Settings.Adaptive ||
		got.Settings.Loss != engine.Defaults().Loss {
		t.Errorf("preset read back as %+v", got)
	}
}
