package engine

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// settingsEveryKnob is Defaults with every parameter moved off its default
// (to its maximum, or its minimum where that is the default; an enum to its
// last choice) and a scenario text: a settings value whose JSON shows every
// key with a value of its own.
func settingsEveryKnob() Settings {
	s := Defaults()
	for _, p := range Params() {
		v := p.Max
		if v == p.Default {
			v = p.Min
		}
		if err := p.Set(&s, v); err != nil {
			panic(err)
		}
	}
	s.ScenarioText = "outage at=2 for=1"
	return s
}

// TestSettingsJSONGolden holds the JSON of Settings, the one flat object
// that sessions, presets, exports and the API carry, to the bytes in
// testdata: every key, in order, with the defaults and with every knob
// moved; and it reads back to the same settings.
func TestSettingsJSONGolden(t *testing.T) {
	cases := []struct {
		name string
		s    Settings
	}{
		{"defaults", Defaults()},
		{"every-knob", settingsEveryKnob()},
	}
	var all bytes.Buffer
	for _, c := range cases {
		b, err := json.MarshalIndent(c.s, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		var back Settings
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !reflect.DeepEqual(back, c.s) {
			t.Errorf("%s: JSON round trip = %+v, want %+v", c.name, back, c.s)
		}
		all.WriteString(c.name + "\n")
		all.Write(b)
		all.WriteString("\n")
	}
	golden := filepath.Join("testdata", "settings.golden")
	if *update {
		if err := os.WriteFile(golden, all.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(all.Bytes(), want) {
		t.Errorf("settings JSON differs from %s:\ngot:\n%s", golden, all.Bytes())
	}
}
