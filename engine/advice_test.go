package engine

import (
	"strings"
	"testing"
)

func TestAdvice(t *testing.T) {
	s := Defaults()
	s.Techniques = []string{TechBuffer, TechMirror, TechNGO, TechGeckos, TechSource}
	s.SendRate = 20
	s.MirrorSettings.SendRate = 60
	s.NGOSettings.TickRate = 30
	s.GeckosSettings.ServerFPS = 20
	s.SourceSettings.ClUpdaterate = 20
	got := Advice(&s)
	if len(got) != 2 || !strings.HasPrefix(got[0], "mirror.sendRate is 60 Hz but the server sends at 20 Hz") ||
		!strings.HasPrefix(got[1], "ngo.tickRate is 30 Hz") {
		t.Errorf("Advice = %q, want mirror's and ngo's rates flagged", got)
	}
	s.MirrorSettings.SendRate, s.NGOSettings.TickRate = 20, 20
	if got := Advice(&s); len(got) != 0 {
		t.Errorf("Advice with matching rates = %q, want none", got)
	}
	s.Techniques = []string{TechBuffer}
	s.SendRate = 33
	if got := Advice(&s); len(got) != 0 {
		t.Errorf("Advice without library techniques = %q, want none", got)
	}
}
