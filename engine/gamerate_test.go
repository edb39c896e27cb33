package engine

import (
	"slices"
	"strings"
	"testing"
)

// TestFollowGameRate: each library's rate knob drives the lab's send and
// tick rates, so Mirror's own 60 Hz is one setting, not three.
func TestFollowGameRate(t *testing.T) {
	tests := []struct {
		tech, knob, text string
		send, tick       float64
	}{
		{TechMirror, "mirror.sendRate", "60", 60, 60},
		{TechMirror, "mirror.sendRate", "20", 20, 20},
		{TechNGO, "ngo.tickRate", "50", 50, 50},
		{TechGeckos, "geckos.serverFPS", "20", 20, 30}, // its tick is its own
		{TechGeckos, "geckos.serverFPS", "40", 40, 40}, // at least the send rate
		{TechSource, "source.cl_updaterate", "66", 66, 1 / 0.015},
		{TechSource, "source.cl_updaterate", "100", 1 / 0.015, 1 / 0.015}, // at most once a tick
	}
	for _, tt := range tests {
		s := Defaults()
		s.Techniques = []string{TechEPIC, tt.tech}
		s.TickRate, s.SendRate = 30, 30
		if err := s.SetText(tt.knob, tt.text); err != nil {
			t.Fatal(err)
		}
		g, ok := s.GameRate()
		if !ok || g.Knob != tt.knob {
			t.Errorf("%s: GameRate() = %+v, %v; want knob %s", tt.tech, g, ok, tt.knob)
			continue
		}
		s.FollowGameRate()
		if s.SendRate != tt.send || s.TickRate != tt.tick {
			t.Errorf("%s = %s: followed to sendRate %v, tickRate %v; want %v, %v", tt.knob, tt.text, s.SendRate, s.TickRate, tt.send, tt.tick)
		}
		if err := s.Validate(); err != nil {
			t.Errorf("%s = %s, followed: %v", tt.knob, tt.text, err)
		}
		if m := g.Mismatch(&s); m != "" {
			t.Errorf("%s = %s, followed: Mismatch = %q, want none", tt.knob, tt.text, m)
		}
	}
	s := Defaults()
	s.Techniques = []string{TechEPIC, TechUnreal}
	if g, ok := s.GameRate(); ok {
		t.Errorf("unreal-cmc: GameRate() = %+v, want none (no rate knob)", g)
	}
	if got := s.FollowGameRate(); got != nil {
		t.Errorf("unreal-cmc: FollowGameRate() = %v, want nothing", got)
	}
}

// TestSendRateRefusalNamesTheGameKnob: on a Mirror preset at 30 Hz,
// sendRate = 60 alone is refused, and the message names the one knob to
// set instead.
func TestSendRateRefusalNamesTheGameKnob(t *testing.T) {
	s := Defaults()
	s.Techniques = []string{TechMirror}
	s.TickRate, s.SendRate, s.MirrorSettings.SendRate = 30, 60, 30
	err := s.Validate()
	if err == nil || !strings.Contains(err.Error(), "mirror.sendRate") {
		t.Fatalf("sendRate 60 above tickRate 30 on mirror: %v, want a refusal naming mirror.sendRate", err)
	}
	s.MirrorSettings.SendRate = 60
	if got := s.FollowGameRate(); !slices.Equal(got, []string{"tickRate"}) {
		t.Errorf("FollowGameRate() changed %v, want [tickRate]", got)
	}
	if err := s.Validate(); err != nil {
		t.Errorf("mirror.sendRate = 60, followed: %v", err)
	}
}
