package store

import (
	"errors"
	"reflect"
	"testing"
	"time"

	"interplab/engine"
)

func TestPresetStore(t *testing.T) {
	eachBackend(t, func(t *testing.T, dir string) {
		st := openTestStore(t, dir, storeT0)
		s := engine.Defaults()
		s.Latency, s.Delay, s.Techniques = 0.08, 0.15, []string{"buffer", "epic"}
		p := CustomPreset{Name: "team-wifi", Title: "Team Wi-Fi", Doc: "what we play on", Settings: s}
		if err := st.SavePreset(p, storeT0); err != nil {
			t.Fatalf("SavePreset = %v", err)
		}
		if err := st.SavePreset(p, storeT0); !errors.Is(err, ErrPresetExists) {
			t.Errorf("SavePreset(same name) = %v, want ErrPresetExists", err)
		}
		bad := p
		bad.Name = "bad-settings"
		bad.Settings.Latency = 5
		if err := st.SavePreset(bad, storeT0); err == nil {
			t.Error("SavePreset(latency 5 s) = nil, want the engine's refusal")
		}
		if err := st.SavePreset(CustomPreset{Name: "b-second", Title: "B", Doc: "d", Settings: engine.Defaults()}, storeT0.Add(time.Second)); err != nil {
			t.Fatal(err)
		}
		got, err := st.LoadPreset("team-wifi")
		p.Created = storeT0.UTC()
		if err != nil || !reflect.DeepEqual(got, p) {
			t.Errorf("LoadPreset = %+v, %v\nwant %+v", got, err, p)
		}
		list, err := st.ListPresets()
		if err != nil || len(list) != 2 || list[0].Name != "b-second" || list[1].Name != "team-wifi" {
			t.Errorf("ListPresets = %+v, %v; want b-second, team-wifi", list, err)
		}

		// They outlive the process.
		st.Close()
		st = openTestStore(t, dir, storeT0)
		if got, err := st.LoadPreset("team-wifi"); err != nil || got.Settings.Latency != 0.08 {
			t.Errorf("after reopening: LoadPreset = %+v, %v", got, err)
		}
		if err := st.DeletePreset("team-wifi"); err != nil {
			t.Errorf("DeletePreset = %v", err)
		}
		if _, err := st.LoadPreset("team-wifi"); !errors.Is(err, ErrPresetNotFound) {
			t.Errorf("LoadPreset(deleted) = %v, want ErrPresetNotFound", err)
		}
		if err := st.DeletePreset("team-wifi"); !errors.Is(err, ErrPresetNotFound) {
			t.Errorf("DeletePreset(again) = %v, want ErrPresetNotFound", err)
		}
		// A row that cannot be read is left out of the list, and named on load.
		if _, err := st.db.Exec(`UPDATE presets SET settings = 'not json' WHERE name = 'b-second'`); err != nil {
			t.Fatal(err)
		}
		if list, err := st.ListPresets(); err != nil || len(list) != 0 {
			t.Errorf("ListPresets with a damaged row = %+v, %v; want it left out", list, err)
		}
		if _, err := st.LoadPreset("b-second"); !errors.Is(err, ErrDamaged) {
			t.Errorf("LoadPreset(damaged) = %v, want ErrDamaged", err)
		}
	})
}
