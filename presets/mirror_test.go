package presets

import (
	"slices"
	"strings"
	"testing"

	"interplab/engine"
)

// The Mirror preset is Mirror's defaults at 30 Hz, the server's send rate
// and Mirror's equal, running Mirror alone: a Mirror designer meets the
// lab's buffer and EPIC only when they ask to compare.
func TestMirrorPresetAtMirrorDefaults(t *testing.T) {
	p, err := Get("mirror-30hz")
	if err != nil {
		t.Fatal(err)
	}
	s := &p.Settings
	for _, param := range engine.Params() {
		if !strings.HasPrefix(param.Name, "mirror.") || param.Name == "mirror.sendRate" {
			continue
		}
		if got := param.Get(s); got != param.Default {
			t.Errorf("%s = %v, want Mirror's default %v", param.Name, got, param.Default)
		}
	}
	if s.MirrorSettings.SendRate != 30 || s.SendRate != 30 {
		t.Errorf("mirror.sendRate, sendRate = %d, %v; want 30, 30", s.MirrorSettings.SendRate, s.SendRate)
	}
	if !slices.Equal(s.Techniques, []string{engine.TechMirror}) {
		t.Errorf("techniques = %v, want mirror alone (the lab's are a comparison the page offers)", s.Techniques)
	}
}
