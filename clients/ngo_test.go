package clients

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestNGOSettings: on a lab with an access token, which the game gives, a
// designer's set reaches the declared NGO's
// NetworkTimeSystem, Time.maximumDeltaTime and NetworkTransform fields
// within 100 ms, in NGO's units (the export's); a knob NGO reads only at
// start, or fixes, is one log line saying why.
func TestNGOSettings(t *testing.T) {
	dir := build(t, "ngo.cs", "Unity.Netcode.Runtime.dll", []string{"unity/InterpLabLink.cs", "unity/InterpLabClient.cs", "ngo/InterpLabNGO.cs"}, "testdata/ngo_harness.cs")
	lab := startLab(t, true) // the lab's token applies to games too
	page, id := newSession(t, lab, map[string]any{"ngo.hardResetThresholdSec": 0.35})
	lines, _ := startHarness(t, dir, "settings", page, testToken)
	await(t, lines, 60*time.Second, "the session's config in the game", func(s string) bool { return s == "ready" })
	base := follower(t, page, testToken)
	await(t, base, 30*time.Second, "lab follow's first config", func(string) bool { return true })
	d := designer(t, lab, id)
	checkSets(t, lines, base, d, []knobSet{
		{"ngo.serverBufferSec", 0.08, "changed ServerBufferSec 0.080000000000000002"},
		{"ngo.localBufferSec", 0.05, "changed LocalBufferSec 0.050000000000000003"},
		{"ngo.hardResetThresholdSec", 0.5, "changed HardResetThresholdSec 0.5"},
		{"ngo.adjustmentRatio", 0.02, "changed AdjustmentRatio 0.02"},
		{"ngo.maximumDeltaTime", 0.1, "changed maximumDeltaTime 0.10000000149011612"},
		{"ngo.positionThreshold", 0.005, "changed PositionThreshold 0.004999999888241291"},
		{"ngo.useUnreliableDeltas", true, "changed UseUnreliableDeltas True"},
	})
	for _, r := range []struct {
		name  string
		value any
		want  string
	}{
		{"ngo.tickRate", 60, "InterpLab: refused ngo.tickRate = 60: NGO reads NetworkConfig.TickRate when the network starts"},
		{"ngo.ticksAgo", 3, "InterpLab: refused ngo.ticksAgo = 3: fixed by NGO 2.1.1 at 2"},
	} {
		if err := d.WriteJSON(map[string]any{"type": "set", "name": r.name, "value": r.value}); err != nil {
			t.Fatal(err)
		}
		await(t, lines, 10*time.Second, "the refusal of "+r.name, func(s string) bool { return strings.Contains(s, r.want) })
	}
}

// TestNGOCapture: 60 s of 50 remote NetworkTransforms' state updates at
// 30 Hz, sent as ticks on a simulated clock, arrive whole in the lab and
// replay exactly as the CSV of the same updates.
func TestNGOCapture(t *testing.T) {
	captureProtocol(t)
	dir := build(t, "ngo.cs", "Unity.Netcode.Runtime.dll", []string{"unity/InterpLabLink.cs", "unity/InterpLabClient.cs", "ngo/InterpLabNGO.cs"}, "testdata/ngo_harness.cs")
	lab := startLab(t, false)
	page, _ := newSession(t, lab, nil)
	csvPath := filepath.Join(t.TempDir(), "updates.csv")
	lines, cmd := startHarness(t, dir, "capture", page, "ngo-match", csvPath)
	awaitSaved(t, lines, cmd)
	checkCaptureMatchesCSV(t, lab, "ngo-match", csvPath, 60*30*50)
}
