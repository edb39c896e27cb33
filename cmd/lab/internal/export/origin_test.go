package export

import (
	"strings"
	"testing"

	"interplab/engine"
	"interplab/presets"
)

// TestExportOrigin: every export's heading says where its values come
// from: a session's revision, a tuning, a preset, and the lab's defaults
// only when they are the defaults.
func TestExportOrigin(t *testing.T) {
	mirror, err := presets.Get("mirror-30hz")
	if err != nil {
		t.Fatal(err)
	}
	changed := engine.Defaults()
	changed.Loss = 0.02
	cases := []struct {
		name   string
		origin Origin
		s      engine.Settings
		want   string
		not    string
	}{
		{"defaults", Origin{}, engine.Defaults(), "(the lab's defaults)", ""},
		{"not the defaults", Origin{}, changed, "(settings changed from the lab's defaults)", "(the lab's defaults)"},
		{"preset", Origin{Preset: "mirror-30hz"}, mirror.Settings, `(preset "mirror-30hz")`, "lab's defaults"},
		{"session", Origin{Preset: "mirror-30hz", From: `session "Harbor" rev 3`}, mirror.Settings, `(session "Harbor" rev 3)`, "preset"},
		{"tuned", Origin{From: "tuned: tuning 3f2a"}, changed, "(tuned: tuning 3f2a)", "lab's defaults"},
	}
	for _, c := range cases {
		for _, f := range formats {
			if f.name == "json" {
				continue // data, read back: no heading
			}
			if f.technique != "" && c.name == "defaults" {
				continue // its technique is added to the defaults' techniques: not the defaults
			}
			file, err := Render(f.name, c.origin, withTechnique(c.s, f.technique))
			if err != nil {
				t.Fatalf("%s: Render(%s): %v", c.name, f.name, err)
			}
			head := string(file.Body[:min(len(file.Body), 400)])
			if !strings.Contains(head, c.want) || (c.not != "" && strings.Contains(head, c.not)) {
				t.Errorf("%s: %s export's heading\n%s\nwant %q in it%s", c.name, f.name, head, c.want, map[bool]string{true: " and not " + c.not}[c.not != ""])
			}
		}
	}
}
