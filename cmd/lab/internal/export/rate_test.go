package export

import (
	"strings"
	"testing"

	"interplab/engine"
)

// TestExportRateWarning: every technique export whose library has a rate
// knob warns when the lab's server ran at another rate than it gives, and
// says nothing once the lab follows it (issue 29: the Source .cfg and the
// geckos JS did not warn).
func TestExportRateWarning(t *testing.T) {
	for _, tt := range []struct{ format, tech, knob, value string }{
		{"mirror", engine.TechMirror, "mirror.sendRate", "60"},
		{"ngo", engine.TechNGO, "ngo.tickRate", "50"},
		{"source", engine.TechSource, "source.cl_updaterate", "66"},
		{"geckos", engine.TechGeckos, "geckos.serverFPS", "30"},
	} {
		s := engine.Defaults()
		s.Techniques = []string{tt.tech}
		s.TickRate, s.SendRate = 20, 20
		if err := s.SetText(tt.knob, tt.value); err != nil {
			t.Fatal(err)
		}
		f, err := Render(tt.format, Origin{}, s)
		if err != nil {
			t.Fatal(err)
		}
		if body := string(f.Body); !strings.Contains(body, "WARNING: the lab's server sent at 20 Hz") || !strings.Contains(body, tt.knob+" = ") {
			t.Errorf("%s export, lab at 20 Hz, %s = %s: no rate warning naming it:\n%s", tt.format, tt.knob, tt.value, body)
		}
		s.FollowGameRate()
		f, err = Render(tt.format, Origin{}, s)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(f.Body), "WARNING: the lab's server") {
			t.Errorf("%s export after following %s: still warns about the rate", tt.format, tt.knob)
		}
	}
}
