package clients

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestMirrorSettings: a designer's set reaches the declared Mirror's
// NetworkClient.snapshotSettings and NetworkTransform fields within 100 ms,
// in Mirror's units (the export's); a knob the game cannot apply is one log
// line saying why.
func TestMirrorSettings(t *testing.T) {
	dir := build(t, "mirror.cs", "Mirror.dll", []string{"unity/InterpLabLink.cs", "unity/InterpLabClient.cs", "mirror/InterpLabMirror.cs"}, "testdata/mirror_harness.cs")
	lab := startLab(t, false)
	page, id := newSession(t, lab, map[string]any{"mirror.bufferLimit": 40, "mirror.positionSensitivity": 0.03})
	lines, _ := startHarness(t, dir, "settings", page)
	late := await(t, lines, 60*time.Second, "a NetworkTransform spawned later", func(s string) bool { return strings.HasPrefix(s, "late ") })
	if late.text != "late positionSensitivity 0.029999999329447746" {
		t.Errorf("a NetworkTransform spawned after the config: %q, want the session's positionSensitivity 0.03", late.text)
	}
	await(t, lines, 10*time.Second, "the session's config in the game", func(s string) bool { return s == "ready" })
	base := follower(t, page, "")
	await(t, base, 30*time.Second, "lab follow's first config", func(string) bool { return true })
	d := designer(t, lab, id)
	checkSets(t, lines, base, d, []knobSet{
		{"mirror.bufferTimeMultiplier", 3, "changed bufferTimeMultiplier 3"},
		{"mirror.catchupSpeed", 0.05, "changed catchupSpeed 0.050000000000000003"},
		{"mirror.dynamicAdjustment", false, "changed dynamicAdjustment False"},
		{"mirror.bufferLimit", 48, "changed bufferLimit 48"},
		{"mirror.positionSensitivity", 0.02, "changed positionSensitivity 0.019999999552965164"},
		{"mirror.timelineOffset", false, "changed timelineOffset False"},
		{"mirror.sendIntervalMultiplier", 3, "changed syncInterval 0.05000000074505806"}, // 3 sends at 60 Hz
	})
	if err := d.WriteJSON(map[string]any{"type": "set", "name": "mirror.sendRate", "value": 30}); err != nil {
		t.Fatal(err)
	}
	await(t, lines, 10*time.Second, "the refusal of mirror.sendRate on a client", func(s string) bool {
		return strings.Contains(s, "InterpLab: refused mirror.sendRate = 30: the server's rate: this game is a client")
	})
}

// TestMirrorCapture: 60 s of 50 remote NetworkTransforms at 30 Hz, on a
// simulated clock, arrive whole in the lab and replay exactly as the CSV
// of the same updates.
func TestMirrorCapture(t *testing.T) {
	captureProtocol(t)
	dir := build(t, "mirror.cs", "Mirror.dll", []string{"unity/InterpLabLink.cs", "unity/InterpLabClient.cs", "mirror/InterpLabMirror.cs"}, "testdata/mirror_harness.cs")
	lab := startLab(t, false)
	page, _ := newSession(t, lab, map[string]any{"mirror.timelineOffset": false})
	csvPath := filepath.Join(t.TempDir(), "updates.csv")
	lines, cmd := startHarness(t, dir, "capture", page, "mirror-match", csvPath)
	awaitSaved(t, lines, cmd)
	checkCaptureMatchesCSV(t, lab, "mirror-match", csvPath, 60*30*50)
}
