package main

import (
	"os"
	"strings"
	"syscall/js"
	"testing"

	"interplab/engine"
)

// flatArray returns tr's flat encoding as the Float64Array createReplay takes.
func flatArray(tr *engine.Trace) js.Value {
	f := tr.AppendFlat(nil)
	a := js.Global().Get("Float64Array").New(len(f))
	js.CopyBytesToJS(js.Global().Get("Uint8Array").New(a.Get("buffer")), f64Bytes(f))
	return a
}

// TestWasmReplayGolden replays the replay cases through createReplay, the
// way the page does (quarter-frame steps), and checks that WebAssembly
// reproduces engine.RunTrace's native metrics bit for bit.
func TestWasmReplayGolden(t *testing.T) {
	want, err := os.ReadFile(replayGoldenFile)
	if err != nil {
		t.Fatalf("%v (the native test writes it: go test ./wasm -update)", err)
	}
	lab := api(t)
	var b strings.Builder
	for i, c := range replayCases {
		tr, s, err := replayCase(i)
		if err != nil {
			t.Fatal(err)
		}
		if msg := lab.Call("createReplay", settingsArray(s), flatArray(tr)).String(); msg != "" {
			t.Fatalf("case %s: createReplay: %s", c.name, msg)
		}
		frames := int(min(s.Duration, tr.Span())*s.RenderRate + 0.5)
		for lab.Call("frames").Int() < frames {
			lab.Call("step", 1/s.RenderRate/4)
		}
		n := lab.Call("metrics", js.Global().Get("Float64Array").New(0)).Int()
		ma := js.Global().Get("Float64Array").New(n)
		lab.Call("metrics", ma)
		replayReport(&b, c.name, lab.Call("frames").Int(), jsStrings(lab.Call("techniques")), float64s(ma, n))
	}
	if got := b.String(); got != string(want) {
		t.Errorf("WebAssembly replay differs from the native engine (%s):\n%s", replayGoldenFile, firstDiff(got, string(want)))
	}
}

// TestWasmReplayErrors checks that createReplay reports the engine's own
// error text, and that a replay refuses to change what its trace fixes.
func TestWasmReplayErrors(t *testing.T) {
	lab := api(t)
	tr, s, err := replayCase(0)
	if err != nil {
		t.Fatal(err)
	}
	flat := tr.AppendFlat(nil)
	flat[engine.TraceFlatHeader+2] = flat[engine.TraceFlatHeader+engine.TraceFlatStride+2] + 1 // packet 0 sent after packet 1
	bad := js.Global().Get("Float64Array").New(len(flat))
	js.CopyBytesToJS(js.Global().Get("Uint8Array").New(bad.Get("buffer")), f64Bytes(flat))
	_, werr := engine.TraceFromFlat(flat)
	if werr == nil {
		t.Fatal("TraceFromFlat accepted an unsorted trace")
	}
	if got := lab.Call("createReplay", settingsArray(s), bad).String(); got != werr.Error() {
		t.Errorf("createReplay(unsorted) = %q, want %q", got, werr.Error())
	}
	if got := lab.Call("createReplay", settingsArray(s), js.Global().Get("Float64Array").New(0)).String(); !strings.Contains(got, "flat trace") {
		t.Errorf("createReplay(empty) = %q, want the engine's flat-trace error", got)
	}

	if got := lab.Call("createReplay", settingsArray(s), flatArray(tr)).String(); got != "" {
		t.Fatalf("createReplay = %q", got)
	}
	if n := lab.Call("entities").Int(); n != tr.Entities {
		t.Errorf("entities() = %d, want the trace's %d", n, tr.Entities)
	}
	r := lab.Call("set", "entities", 50)
	if e := r.Get("error").String(); !strings.Contains(e, "from its trace") {
		t.Errorf("set(entities, 50) in a replay: error %q, want a refusal", e)
	}
	lab.Call("step", 1)
	frames := lab.Call("frames").Int()
	lab.Call("restart")
	if lab.Call("frames").Int() != 0 || frames == 0 {
		t.Errorf("restart: frames %d → %d, want back to 0", frames, lab.Call("frames").Int())
	}
}
