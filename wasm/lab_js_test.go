package main

// These tests run under Node:
//
//	GOOS=js GOARCH=wasm go test -exec="$(go env GOROOT)/lib/wasm/go_js_wasm_exec" ./wasm/...
//
// They call the interplab object through JavaScript, with typed arrays, the
// way the page does.

import (
	"math"
	"os"
	"slices"
	"strings"
	"syscall/js"
	"testing"
	"unsafe"

	"interplab/engine"
)

// api returns a fresh interplab object, registered on globalThis as main does.
func api(t *testing.T) js.Value {
	t.Helper()
	js.Global().Set("interplab", newLab().object())
	return js.Global().Get("interplab")
}

// settingsArray returns s as the Float64Array create takes.
func settingsArray(s engine.Settings) js.Value {
	ps := engine.Params()
	a := js.Global().Get("Float64Array").New(len(ps))
	for i := range ps {
		a.SetIndex(i, ps[i].Get(&s))
	}
	return a
}

func float64s(a js.Value, n int) []float64 {
	v := make([]float64, n)
	if n > 0 {
		u8 := js.Global().Get("Uint8Array").New(a.Get("buffer"), 0, n*8)
		js.CopyBytesToGo(unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), n*8), u8)
	}
	return v
}

func float32s(a js.Value, n int) []float32 {
	v := make([]float32, n)
	if n > 0 {
		u8 := js.Global().Get("Uint8Array").New(a.Get("buffer"), 0, n*4)
		js.CopyBytesToGo(unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), n*4), u8)
	}
	return v
}

// TestWasmGolden runs the golden cases through the JavaScript API and checks
// that WebAssembly reproduces the native engine's numbers bit for bit.
func TestWasmGolden(t *testing.T) {
	want, err := os.ReadFile(goldenFile)
	if err != nil {
		t.Fatalf("%v (the native test writes it: go test ./wasm -update)", err)
	}
	lab := api(t)
	var b strings.Builder
	for i, c := range goldenCases {
		s, err := goldenSettings(i)
		if err != nil {
			t.Fatal(err)
		}
		if msg := lab.Call("create", settingsArray(s)).String(); msg != "" {
			t.Fatalf("case %s: create: %s", c.name, msg)
		}
		stepCase(i, func(dt float64) { lab.Call("step", dt) })

		var r goldenRun
		r.techniques = jsStrings(lab.Call("techniques"))
		ma := js.Global().Get("Float64Array").New(0)
		n := lab.Call("metrics", ma).Int()
		ma = js.Global().Get("Float64Array").New(n)
		if got := lab.Call("metrics", ma).Int(); got != n {
			t.Fatalf("case %s: metrics() = %d, then %d", c.name, n, got)
		}
		r.metrics = float64s(ma, n)
		n = lab.Call("poses", js.Global().Get("Float32Array").New(0)).Int()
		pa := js.Global().Get("Float32Array").New(n)
		lab.Call("poses", pa)
		r.poses = float32s(pa, n)
		r.frames = lab.Call("frames").Int()
		r.time = lab.Call("time").Float()
		r.report(&b, c.name)
	}
	if got := b.String(); got != string(want) {
		t.Errorf("WebAssembly differs from the native engine (%s):\n%s", goldenFile, firstDiff(got, string(want)))
	}
}

func jsStrings(a js.Value) []string {
	out := make([]string, a.Length())
	for i := range out {
		out[i] = a.Index(i).String()
	}
	return out
}

// TestWasmErrors checks that create and set report the engine's own error
// text and change nothing on error.
func TestWasmErrors(t *testing.T) {
	lab := api(t)
	s := engine.Defaults()

	bad := s
	bad.Loss = 2
	p, _ := engine.Lookup("loss")
	want := p.Set(&engine.Settings{}, 2).Error()
	if got := lab.Call("create", settingsArray(bad)).String(); got != want {
		t.Errorf("create(loss 2) = %q, want %q", got, want)
	}
	if got := lab.Call("create", js.Global().Get("Float64Array").New(3)).String(); !strings.Contains(got, "3 settings") {
		t.Errorf("create(3 values) = %q, want a count error", got)
	}

	// A cross-field rule is the engine's too: sendRate above tickRate.
	cross := s
	cross.SendRate, cross.TickRate = 60, 30
	_, werr := engine.NewSim(cross)
	if werr == nil {
		t.Fatal("NewSim(sendRate > tickRate) succeeded")
	}
	if got := lab.Call("create", settingsArray(cross)).String(); got != werr.Error() {
		t.Errorf("create(sendRate > tickRate) = %q, want %q", got, werr.Error())
	}

	if got := lab.Call("create", settingsArray(s)).String(); got != "" {
		t.Fatalf("create(defaults) = %q", got)
	}
	lab.Call("step", 0.5)
	frames := lab.Call("frames").Int()
	r := lab.Call("set", "loss", 7)
	if got := r.Get("error").String(); got != p.Set(&engine.Settings{}, 7).Error() {
		t.Errorf("set(loss, 7).error = %q, want the engine's", got)
	}
	if lab.Call("frames").Int() != frames {
		t.Error("a rejected set changed the run")
	}
}

// TestWasmSet checks that set restarts the run only for a Restart parameter.
func TestWasmSet(t *testing.T) {
	lab := api(t)
	if got := lab.Call("create", settingsArray(engine.Defaults())).String(); got != "" {
		t.Fatalf("create = %q", got)
	}
	tests := []struct {
		name        string
		value       float64
		wantRestart bool
	}{
		{"latency", 0.12, false},
		{"adaptive", 1, false},
		{"seed", 9, true},
		{"techniques", 0b10001, true},
	}
	for _, tt := range tests {
		lab.Call("step", 0.25)
		r := lab.Call("set", tt.name, tt.value)
		if e := r.Get("error").String(); e != "" {
			t.Errorf("set(%s, %v) error %q", tt.name, tt.value, e)
			continue
		}
		if got := r.Get("restarted").Bool(); got != tt.wantRestart {
			t.Errorf("set(%s, %v).restarted = %v, want %v", tt.name, tt.value, got, tt.wantRestart)
		}
		if frames := lab.Call("frames").Int(); (frames == 0) != tt.wantRestart {
			t.Errorf("after set(%s): frames() = %d, restarted %v", tt.name, frames, tt.wantRestart)
		}
	}
	if got := strings.Join(jsStrings(lab.Call("techniques")), ","); got != "epic,hermite" {
		t.Errorf("techniques() = %s, want epic,hermite after the mask 0b10001", got)
	}
}

// TestWasmCopies checks the typed-array layouts: poses, metrics, timeline.
func TestWasmCopies(t *testing.T) {
	lab := api(t)
	s := engine.Defaults()
	s.Entities = 3
	s.Techniques = []string{"snap", "buffer"}
	if got := lab.Call("create", settingsArray(s)).String(); got != "" {
		t.Fatalf("create = %q", got)
	}
	lab.Call("setFocus", 1)
	lab.Call("step", 1)

	ps := engine.PoseStride
	if got := lab.Get("poseStride").Int(); got != ps {
		t.Errorf("poseStride = %d, want %d", got, ps)
	}
	want := (1 + 2) * 3 * ps
	small := js.Global().Get("Float32Array").New(4)
	if n := lab.Call("poses", small).Int(); n != want {
		t.Errorf("poses(small) = %d, want %d (the length needed)", n, want)
	}
	pa := js.Global().Get("Float32Array").New(want)
	lab.Call("poses", pa)
	poses := float32s(pa, want)
	for e := 0; e < 3; e++ {
		if mode := poses[e*ps+ps-1]; mode != 1 { // the mode is last
			t.Errorf("truth row entity %d mode = %v, want 1", e, mode)
		}
	}

	nf := len(engine.MetricFields)
	if n := lab.Call("metrics", js.Global().Get("Float64Array").New(0)).Int(); n != 2*nf {
		t.Errorf("metrics() = %d values, want %d", n, 2*nf)
	}
	if fields := lab.Call("metricFields"); fields.Length() != nf || fields.Index(0).Get("name").String() != engine.MetricFields[0].Name {
		t.Errorf("metricFields() = %d fields, want engine.MetricFields", fields.Length())
	}

	pk := js.Global().Get("Float64Array").New(1024 * packetStride)
	fr := js.Global().Get("Float64Array").New(1024 * frameStride)
	counts := lab.Call("timeline", pk, fr)
	np, nfr := counts.Index(0).Int(), counts.Index(1).Int()
	if np == 0 || nfr == 0 {
		t.Fatalf("timeline() = [%d, %d] after 1 s, want records", np, nfr)
	}
	frames := float64s(fr, nfr*frameStride)
	for i := 1; i < nfr; i++ {
		if frames[i*frameStride] <= frames[(i-1)*frameStride] {
			t.Fatalf("frame %d time %v not after %v: stride wrong?", i, frames[i*frameStride], frames[(i-1)*frameStride])
		}
	}
	packets := float64s(pk, np*packetStride)
	for i := 1; i < np; i++ {
		if packets[i*packetStride] <= packets[(i-1)*packetStride] {
			t.Errorf("packet %d seq %v not after %v", i, packets[i*packetStride], packets[(i-1)*packetStride])
		}
		if a := packets[i*packetStride+3]; !math.IsNaN(a) && a < packets[i*packetStride+1] {
			t.Errorf("packet %d arrives at %v before it is sent at %v", i, a, packets[i*packetStride+1])
		}
	}
	if again := lab.Call("timeline", pk, fr); again.Index(1).Int() != 0 {
		t.Errorf("a second timeline() drained %d frames again", again.Index(1).Int())
	}
}

// TestWasmPull checks that step returns frames() and that pull gives what
// poses, timeline, frames and time give, in one call and at addresses in
// the module's memory: two runs of the same settings, one read each way.
// Its answer stays at one address, and the poses at theirs from step to
// step, so the page's views onto them stay right.
func TestWasmPull(t *testing.T) {
	s := engine.Defaults()
	s.Entities = 3
	s.Techniques = []string{"snap", "buffer"}
	f32 := js.Global().Get("Float32Array")
	f64 := js.Global().Get("Float64Array")
	type read struct {
		frames, time float64
		poses        []float32
		packets      []float64
		frameRecs    []float64
	}
	var reads [2]read
	for i := range reads {
		lab := api(t)
		if got := lab.Call("create", settingsArray(s)).String(); got != "" {
			t.Fatalf("create = %q", got)
		}
		lab.Call("setFocus", 1)
		stepped := lab.Call("step", 0.5)
		if got, want := stepped.Int(), lab.Call("frames").Int(); got != want || want == 0 {
			t.Errorf("step(0.5) = %v, want frames() = %d (not 0)", stepped, want)
		}
		pk := f64.New(1024 * packetStride)
		fr := f64.New(1024 * frameStride)
		r := &reads[i]
		if i == 0 {
			n := lab.Call("poses", f32.New(0)).Int()
			pa := f32.New(n)
			lab.Call("poses", pa)
			counts := lab.Call("timeline", pk, fr)
			np, nf := counts.Index(0).Int(), counts.Index(1).Int()
			*r = read{lab.Call("frames").Float(), lab.Call("time").Float(), float32s(pa, n), float64s(pk, np*packetStride), float64s(fr, nf*frameStride)}
			continue
		}
		addr := lab.Call("pull").Float()
		in := at[float64](addr, pullInfo)
		n, np, nf := int(in[2]), int(in[3]), int(in[4])
		if n != len(reads[0].poses) {
			t.Fatalf("pull's poses length = %d, want %d (as poses returns)", n, len(reads[0].poses))
		}
		*r = read{in[0], in[1], at[float32](in[5], n), at[float64](in[6], np*packetStride), at[float64](in[7], nf*frameStride)}
		lab.Call("step", 0.25)
		if again := lab.Call("pull").Float(); again != addr {
			t.Errorf("pull's answer moved from %v to %v", addr, again)
		}
		again := at[float64](addr, pullInfo)
		if again[3] == 0 || again[5] != in[5] {
			t.Errorf("the pull after a step: %v packets, poses at %v; want some packets, poses still at %v", again[3], again[5], in[5])
		}
		if got, want := at[float32](again[5], n), float32s(posesOf(lab, n), n); !slices.Equal(got, want) {
			t.Errorf("pull's poses after a step differ from poses'")
		}
		lab.Call("pull")
		if again := at[float64](addr, pullInfo); again[3] != 0 || again[4] != 0 {
			t.Errorf("a second pull drained %v packets and %v frames again, want none", again[3], again[4])
		}
	}
	a, b := reads[0], reads[1]
	if a.frames != b.frames || a.time != b.time {
		t.Errorf("pull: frames, time = %v, %v; frames(), time() = %v, %v", b.frames, b.time, a.frames, a.time)
	}
	if !slices.Equal(a.poses, b.poses) {
		t.Errorf("pull's poses differ from poses'")
	}
	if len(a.packets) == 0 || len(a.frameRecs) == 0 || !slices.EqualFunc(a.packets, b.packets, sameFloat) || !slices.EqualFunc(a.frameRecs, b.frameRecs, sameFloat) {
		t.Errorf("pull's records (%d, %d numbers) differ from timeline's (%d, %d)", len(b.packets), len(b.frameRecs), len(a.packets), len(a.frameRecs))
	}
}

// at returns a copy of the n values of type T at byte address addr of the
// module's memory, as pull gives addresses: the page reads them through a
// typed-array view.
func at[T float32 | float64](addr float64, n int) []T {
	if n == 0 {
		return nil
	}
	return slices.Clone(unsafe.Slice((*T)(unsafe.Add(unsafe.Pointer(nil), uintptr(addr))), n))
}

// posesOf returns a Float32Array of n with the latest poses (interplab.poses).
func posesOf(lab js.Value, n int) js.Value {
	pa := js.Global().Get("Float32Array").New(n)
	lab.Call("poses", pa)
	return pa
}

// sameFloat says whether a and b are the same number, NaN (a lost packet's
// arrival) included.
func sameFloat(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }

// TestWasmText checks format and parse against the engine's parameter table.
func TestWasmText(t *testing.T) {
	lab := api(t)
	if got := lab.Call("format", "techniques", 0b00110).String(); got != "epicfix,snap" {
		t.Errorf("format(techniques, 6) = %q", got)
	}
	if got := lab.Call("format", "jitterDist", 2).String(); got != "pareto" {
		t.Errorf("format(jitterDist, 2) = %q", got)
	}
	// A plain number is in the display unit (%), as in the page's box.
	r := lab.Call("parse", "loss", "5")
	if r.Get("error").String() != "" || r.Get("value").Float() != 0.05 {
		t.Errorf("parse(loss, 5) = %v, %q", r.Get("value"), r.Get("error").String())
	}
	if got := lab.Call("format", "bandwidth", 256000).String(); got != "256kbit/s" {
		t.Errorf("format(bandwidth, 256000) = %q, want 256kbit/s", got)
	}
	r = lab.Call("parse", "loss", "lots")
	if e := r.Get("error").String(); !strings.HasPrefix(e, "loss = \"lots\"") {
		t.Errorf("parse(loss, lots).error = %q", e)
	}
	if n := lab.Call("params").Length(); n != len(engine.Params()) {
		t.Errorf("params() has %d entries, want %d", n, len(engine.Params()))
	}
}

// TestWasmHeadings: setHeadings(false) leaves every heading (1, 0) and the
// positions as they were, and it holds for the runs create makes after it.
func TestWasmHeadings(t *testing.T) {
	lab := api(t)
	s := engine.Defaults()
	s.Entities = 4
	s.Motion = "turn"
	poses := func() []float32 {
		arr := js.Global().Get("Float32Array").New((1 + len(engine.Defaults().Techniques)) * 4 * engine.PoseStride)
		n := lab.Call("poses", arr).Int()
		out := make([]float32, n)
		for i := range out {
			out[i] = float32(arr.Index(i).Float())
		}
		return out
	}
	for _, on := range []bool{true, false} {
		lab.Call("setHeadings", on)
		if got := lab.Call("create", settingsArray(s)).String(); got != "" {
			t.Fatalf("create = %q", got)
		}
		lab.Call("step", 0.5)
		p := poses()
		facing := 0
		for i := 0; i < len(p); i += engine.PoseStride {
			if p[i+3] == 1 && p[i+4] == 0 {
				facing++
			}
		}
		if n := len(p) / engine.PoseStride; on && facing == n || !on && facing != n {
			t.Errorf("setHeadings(%v): %d of %d poses face +X", on, facing, n)
		}
	}
	lab.Call("setHeadings", true)
}

// TestWasmLiveDelays checks liveDelays against the engine's Sim.LiveDelays
// for the same run, beside delays (the steady-state figure): NaN where a
// technique has no game delay, and Mirror's moving with its dynamic
// adjustment under jitter.
func TestWasmLiveDelays(t *testing.T) {
	lab := api(t)
	s := engine.Defaults()
	s.Entities, s.Jitter = 4, 0.03
	s.TickRate, s.SendRate, s.MirrorSettings.SendRate = 30, 30, 30
	s.Techniques = []string{engine.TechEPIC, engine.TechBuffer, engine.TechMirror}
	if got := lab.Call("create", settingsArray(s)).String(); got != "" {
		t.Fatalf("create = %q", got)
	}
	m, err := engine.NewSim(s)
	if err != nil {
		t.Fatal(err)
	}
	for range 10 {
		lab.Call("step", 0.5)
		m.Step(0.5)
	}
	live, steady := lab.Call("liveDelays"), lab.Call("delays")
	want := m.LiveDelays(nil)
	if live.Length() != len(want) {
		t.Fatalf("liveDelays() has %d values, want %d", live.Length(), len(want))
	}
	for k, name := range m.Techniques() {
		got := live.Index(k).Float()
		if got != want[k] && !(math.IsNaN(got) && math.IsNaN(want[k])) {
			t.Errorf("liveDelays()[%d] (%s) = %v, want %v", k, name, got, want[k])
		}
	}
	if d := live.Index(0).Float(); !math.IsNaN(d) {
		t.Errorf("epic's live delay = %v, want NaN", d)
	}
	if l, f := live.Index(2).Float(), steady.Index(2).Float(); !(l > f+0.005) {
		t.Errorf("mirror under 30 ms of jitter: live delay %v, want above its steady-state %v", l, f)
	}
}
