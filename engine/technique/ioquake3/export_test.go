//go:build !js

package ioquake3

import (
	"strconv"
	"strings"
	"testing"

	"interplab/engine/param"
	"interplab/engine/technique"
)

// TestExportRoundTrip reads every `seta|set cvar "value"` line of the .cfg
// back into settings, as the game's console would: each knob is set once,
// under its cvar name, to the value the lab ran; the only other cvar set
// is g_smoothClients 1, the server side the technique models.
func TestExportRoundTrip(t *testing.T) {
	var def Settings
	param.SetDefaults(Params, &def)
	nudged := def
	nudged.TimeNudge, nudged.Snaps, nudged.MaxPackets, nudged.FPS, nudged.SmoothClients = -12, 30, 60, 40, true
	for _, want := range []Settings{def, nudged} {
		var b strings.Builder
		Def.Export.Write(&b, &want, &technique.ExportEnv{From: "test", Env: technique.Env{TickRate: 20, SendRate: 20, RenderRate: 60}})
		var got Settings
		seen := map[string]bool{}
		for line := range strings.Lines(b.String()) {
			f := strings.Fields(line)
			if len(f) == 0 || strings.HasPrefix(f[0], "//") {
				continue
			}
			if len(f) != 3 || (f[0] != "seta" && f[0] != "set") {
				t.Fatalf("%q: not a cvar line", line)
			}
			text, err := strconv.Unquote(f[2])
			if err != nil {
				t.Fatalf("%q: %v", line, err)
			}
			if f[1] == "g_smoothClients" {
				if text != "1" {
					t.Errorf("%q: the technique models g_smoothClients 1", line)
				}
				continue
			}
			p, ok := param.Find(Params, Name+"."+f[1])
			if !ok || seen[f[1]] {
				t.Fatalf("%q: not a knob of the technique, or set twice", line)
			}
			seen[f[1]] = true
			v, err := strconv.ParseFloat(text, 64)
			if err != nil {
				t.Fatalf("%q: %v", line, err)
			}
			p.Write(&got, v)
		}
		if got != want || len(seen) != len(Params) {
			t.Errorf("the .cfg read back = %+v (%d cvars), want %+v (%d)", got, len(seen), want, len(Params))
		}
	}
}
