package link

import (
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"

	"interplab/engine"
	"interplab/engine/netsim"
	"interplab/presets"
)

func TestLinkRoundTrip(t *testing.T) {
	list, err := presets.All()
	if err != nil {
		t.Fatal(err)
	}
	type state struct {
		preset string
		edit   func(*engine.Settings)
	}
	states := []state{
		{"", func(*engine.Settings) {}},
		{"", func(s *engine.Settings) {
			s.Loss = 0.03
			s.JitterDist = "pareto"
			s.Techniques = []string{"epic", "buffer"}
		}},
		{"", func(s *engine.Settings) { s.DisplayBehind = 0.123456789; s.Seed = 4294967295; s.ClockDrift = -0.0005 }},
		{"", func(s *engine.Settings) { s.Scenario = "outage-2s"; s.Bandwidth, s.Reorder = 64000, 0.1 }},
		{"", func(s *engine.Settings) {
			s.Scenario, s.ScenarioText = netsim.ScenarioCustom, "title mine & yours\nspike at=2 for=1 delay=300ms # 100%?\n"
		}},
	}
	for _, p := range list {
		states = append(states,
			state{p.Name, func(*engine.Settings) {}},
			state{p.Name, func(s *engine.Settings) { s.Adaptive = !s.Adaptive; s.Motion = "zigzag"; s.Entities = 100 }})
	}
	for _, st := range states {
		s := engine.Defaults()
		if st.preset != "" {
			p, _ := presets.Get(st.preset)
			s = p.Settings
		}
		st.edit(&s)
		if err := s.Validate(); err != nil {
			t.Fatalf("test state invalid: %v", err)
		}
		link := Query(st.preset, s)
		for _, q := range []url.Values{Values(st.preset, s), mustParseQuery(t, link)} {
			preset, got, errs := Parse(q)
			if preset != st.preset || len(errs) > 0 || !reflect.DeepEqual(got, s) {
				t.Errorf("Parse(%q) = %q, %+v, %v; want %q, %+v, no errors", q.Encode(), preset, got, errs, st.preset, s)
			}
		}
	}
}

func mustParseQuery(t *testing.T, raw string) url.Values {
	t.Helper()
	q, err := url.ParseQuery(raw)
	if err != nil {
		t.Fatalf("ParseQuery(%q) error: %v", raw, err)
	}
	return q
}

func TestLinkQueryOnlyDiffsInTableOrder(t *testing.T) {
	wifi, err := presets.Get("wifi")
	if err != nil {
		t.Fatal(err)
	}
	s := wifi.Settings
	s.Loss = 0.03
	s.DisplayBehind = 0.12
	s.Techniques = []string{"epic", "buffer"}
	tests := []struct {
		preset string
		s      engine.Settings
		want   string
	}{
		{"wifi", wifi.Settings, "preset=wifi"},
		{"wifi", s, "preset=wifi&displayBehind=120ms&loss=3%25&techniques=epic,buffer"},
		{"", engine.Defaults(), ""},
		{"", wifi.Settings, "latency=15ms&jitter=12ms&jitterDist=pareto&loss=0.5%25"},
		{"no-such-preset", engine.Defaults(), ""},
	}
	for _, tt := range tests {
		if got := Query(tt.preset, tt.s); got != tt.want {
			t.Errorf("Query(%q, ...) = %q, want %q", tt.preset, got, tt.want)
		}
	}
}

func TestSettingsFromQueryErrors(t *testing.T) {
	harbor, err := presets.Get("harbor-after")
	if err != nil {
		t.Fatal(err)
	}
	def := engine.Defaults()
	tests := []struct {
		name       string
		query      string
		wantPreset string
		wantFields []string // fields of the errors, in order
		check      map[string]string
	}{
		{"clean", "preset=harbor-after&loss=5", "harbor-after", nil,
			map[string]string{"loss": "5%", "delay": harbor.Settings.Text("delay")}},
		{"empty preset means defaults", "preset=&loss=5%25", "", nil,
			map[string]string{"loss": "5%", "delay": def.Text("delay")}},
		{"bad value keeps the preset's", "preset=harbor-after&loss=200&delay=120", "harbor-after", []string{"loss"},
			map[string]string{"loss": harbor.Settings.Text("loss"), "delay": "120ms"}},
		{"units", "latency=0.12s&jitter=0.2&bandwidth=256kbit/s&clockDrift=-150", "", nil,
			map[string]string{"latency": "120ms", "jitter": "0.2ms", "bandwidth": "256kbit/s", "clockDrift": "-150ppm"}},
		{"not a number", "displayBehind=abc", "", []string{"displayBehind"},
			map[string]string{"displayBehind": def.Text("displayBehind")}},
		{"unknown keys, sorted, after known ones", "zeta=1&alpha=2&jitterDist=cauchy", "", []string{"jitterDist", "alpha", "zeta"},
			map[string]string{"jitterDist": def.Text("jitterDist")}},
		{"repeated key", "loss=1&loss=2", "", []string{"loss"},
			map[string]string{"loss": def.Text("loss")}},
		{"unknown preset", "preset=mars&loss=10", "", []string{"preset"},
			map[string]string{"loss": "10%"}},
		{"cross-field, named override undone", "sendRate=100", "", []string{"sendRate"},
			map[string]string{"sendRate": def.Text("sendRate"), "tickRate": def.Text("tickRate")}},
		{"cross-field, partner undone", "tickRate=10&loss=20", "", []string{"sendRate"},
			map[string]string{"tickRate": def.Text("tickRate"), "sendRate": def.Text("sendRate"), "loss": "20%"}},
		{"cap below delay", "preset=harbor-after&delayCap=50", "harbor-after", []string{"delayCap"},
			map[string]string{"delayCap": harbor.Settings.Text("delayCap")}},
		{"bad technique", "techniques=epic,warp", "", []string{"techniques"},
			map[string]string{"techniques": def.Text("techniques")}},
	}
	for _, tt := range tests {
		preset, s, errs := Parse(mustParseQuery(t, tt.query))
		if preset != tt.wantPreset {
			t.Errorf("%s: preset = %q, want %q", tt.name, preset, tt.wantPreset)
		}
		var fields []string
		for _, e := range errs {
			fields = append(fields, e.Field)
		}
		if strings.Join(fields, " ") != strings.Join(tt.wantFields, " ") {
			t.Errorf("%s: error fields = %v, want %v (errors %v)", tt.name, fields, tt.wantFields, errs)
		}
		for name, want := range tt.check {
			if got := s.Text(name); got != want {
				t.Errorf("%s: %s = %s, want %s", tt.name, name, got, want)
			}
		}
		if err := s.Validate(); err != nil {
			t.Errorf("%s: settings invalid: %v", tt.name, err)
		}
	}
}

func TestSettingsFromQueryErrorText(t *testing.T) {
	_, _, errs := Parse(mustParseQuery(t, "loss=95"))
	if len(errs) != 1 {
		t.Fatalf("errors = %v, want one", errs)
	}
	if got, want := errs[0].Error(), `loss = "95" is not allowed: want [0, 90] %`; got != want {
		t.Errorf("error = %q, want it to name loss and its range", got)
	}
}

func TestLinkScenarioErrors(t *testing.T) {
	q := url.Values{"scenario": {"custom"}, "scenarioText": {"spike at=2 for=1 delay=300ms\noutage at=2.5 for=1"}}
	_, s, errs := Parse(q)
	if len(errs) != 1 || errs[0].Field != "scenarioText" || errs[0].Value != "outage at=2.5 for=1" || !strings.Contains(errs[0].Allowed, "line 2, field at") {
		t.Fatalf("Parse(%v) errors = %v, want the custom text's line 2 named", q, errs)
	}
	if err := s.Validate(); err != nil || s.Scenario != netsim.ScenarioNone {
		t.Errorf("Parse(%v) = scenario %q, %v; want the override undone", q, s.Scenario, err)
	}
	q = url.Values{"scenario": {"outage-2s"}, "duration": {"10"}}
	if _, _, errs = Parse(q); len(errs) != 1 || !strings.Contains(errs[0].Allowed, "raise duration to 22") {
		t.Errorf("Parse(%v) errors = %v, want the run too short for the scenario", q, errs)
	}
}

// BenchmarkLinkQuery writes and reads a share link of a changed preset.
func BenchmarkLinkQuery(b *testing.B) {
	p, _ := presets.Get("wifi")
	s := p.Settings
	s.Latency, s.Loss, s.Bandwidth, s.Delay, s.Seed = 0.123, 0.0186, 256000, 0.0875, 2761734960
	for b.Loop() {
		Parse(Values("wifi", s))
	}
}

// A link's plain numbers below one display unit of a time or a share are
// noted with what an older link meant by them, and the older link is
// offered; values with a unit, of a display unit or more, and of
// parameters stored as shown are left alone.
func TestOldUnits(t *testing.T) {
	q := mustParseQuery(t, "preset=mirror-30hz&latency=0.08&jitter=0.015&loss=0.02&displayBehind=0.1s&calcAhead=30&bandwidth=0.5&mirror.catchupSpeed=0.5")
	notes, older := OldUnits(q)
	want := []string{
		"latency=0.08 reads as 0.08 ms; a link made before plain numbers were in ms held seconds there, and meant 80ms",
		"jitter=0.015 reads as 0.015 ms; a link made before plain numbers were in ms held seconds there, and meant 15ms",
		"loss=0.02 reads as 0.02 %; a link made before plain numbers were in % held fractions there, and meant 2%",
	}
	if !slices.Equal(notes, want) {
		t.Errorf("notes:\n%q\nwant\n%q", notes, want)
	}
	for k, v := range map[string]string{"latency": "80ms", "jitter": "15ms", "loss": "2%", "displayBehind": "0.1s", "calcAhead": "30", "bandwidth": "0.5", "mirror.catchupSpeed": "0.5", "preset": "mirror-30hz"} {
		if got := older.Get(k); got != v {
			t.Errorf("older %s = %q, want %q", k, got, v)
		}
	}
	if q.Get("latency") != "0.08" {
		t.Errorf("OldUnits changed the link it read: latency=%q", q.Get("latency"))
	}
	// The older link reads as the older one meant.
	_, s, errs := Parse(older)
	if len(errs) != 0 || s.Latency != 0.08 || s.Jitter != 0.015 || s.Loss != 0.02 {
		t.Errorf("the older link reads latency %v, jitter %v, loss %v (%v)", s.Latency, s.Jitter, s.Loss, errs)
	}
	for _, raw := range []string{"latency=80&loss=2", "latency=0.08s&loss=2%25", "latency=0&loss=0", "seed=0.5", ""} {
		if notes, older := OldUnits(mustParseQuery(t, raw)); notes != nil || older != nil {
			t.Errorf("%q: notes %q, older %v; want none", raw, notes, older)
		}
	}
}
