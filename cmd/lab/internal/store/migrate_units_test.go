package store

import (
	"testing"

	"interplab/engine"
)

// A lab made before plain numbers meant the display unit saved scenario
// texts whose plain numbers were in stored units (latency=0.04 for 40 ms):
// the upgrade writes their units out, in every revision and custom preset,
// so they read as they did; texts with units and other settings are kept.
func TestMigrateScenarioUnits(t *testing.T) {
	dir := t.TempDir()
	migrateTo = 6 // as a lab of step 6 left it
	defer func() { migrateTo = 0 }()
	st := openTestStore(t, dir, storeT0)
	old := "set latency=0.04 loss=0.02\nspike at=10 for=1 delay=0.3  # a spike"
	r1, err := st.Create(testDraft("old texts", func(s *engine.Settings) { s.ScenarioText = old }), storeT0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Update(r1.ID, storeT0, func(prev Revision) (Draft, error) {
		d := Draft{Name: prev.Name, Notes: "units already", Settings: prev.Settings}
		d.Settings.ScenarioText = "set latency=40ms"
		return d, nil
	}); err != nil {
		t.Fatal(err)
	}
	p := CustomPreset{Name: "old-preset", Title: "Old", Settings: engine.Defaults()}
	p.Settings.ScenarioText = "set bandwidth=256000"
	if err := st.SavePreset(p, storeT0); err != nil {
		t.Fatal(err)
	}
	st.Close()
	migrateTo = 0

	st = openTestStore(t, dir, storeT0)
	defer st.Close()
	for rev, want := range map[int]string{
		1: "set latency=0.04s loss=2%\nspike at=10 for=1 delay=0.3s  # a spike",
		2: "set latency=40ms",
	} {
		r, err := st.Revision(r1.ID, rev)
		if err != nil {
			t.Fatal(err)
		}
		if r.Settings.ScenarioText != want {
			t.Errorf("revision %d's scenario text = %q, want %q", rev, r.Settings.ScenarioText, want)
		}
		if r.Settings.Latency != engine.Defaults().Latency {
			t.Errorf("revision %d's latency = %v, want the default kept", rev, r.Settings.Latency)
		}
	}
	got, err := st.LoadPreset("old-preset")
	if err != nil {
		t.Fatal(err)
	}
	if want := "set bandwidth=256000bit/s"; got.Settings.ScenarioText != want {
		t.Errorf("preset's scenario text = %q, want %q", got.Settings.ScenarioText, want)
	}
}
