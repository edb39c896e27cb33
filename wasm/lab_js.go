package main

import (
	"math"
	"strconv"
	"syscall/js"
	"unsafe"

	"interplab/engine"
	"interplab/engine/netsim"
)

// Record layouts of interplab.timeline, in float64s.
const (
	packetStride    = 10 // seq, sent, tick, arrive (NaN if lost), dup, x, y, z, net delay (s), down
	frameTechStride = 8  // renderTime, newest, depth, delay, mode, snap, err, idle
	maxTechniques   = len(engine.FrameRecord{}.Tech)
	frameStride     = 2 + maxTechniques*frameTechStride // time, est, then the techniques
)

// lab is the state behind the interplab object: one simulation and the
// scratch buffers that keep the per-frame calls free of allocation.
type lab struct {
	sim        *engine.Sim
	noHeadings bool // setHeadings(false): kept for the runs create makes
	metrics    []engine.Metrics
	values     []float64
	packets    []engine.PacketRecord
	frames     []engine.FrameRecord
	flatPk     []float64 // the packet records drain and pull hand out
	flatFr     []float64 // the frame records
	pulled     []float32 // the poses of the last pull, kept alive for the views onto them
	samples    []float64
	live       []float64 // liveDelays' scratch

	posesView, metricsView, packetsView, framesView byteView
	settingsView, traceView, samplesView            byteView
}

func newLab() *lab { return &lab{} }

// object returns the JavaScript face of l. The functions live as long as the
// page, so they are never released.
func (l *lab) object() map[string]any {
	return map[string]any{
		"create":           js.FuncOf(l.create),
		"createReplay":     js.FuncOf(l.createReplay),
		"set":              js.FuncOf(l.set),
		"restart":          js.FuncOf(l.restart),
		"step":             js.FuncOf(l.step),
		"poses":            js.FuncOf(l.poses),
		"pull":             js.FuncOf(l.pull),
		"metrics":          js.FuncOf(l.copyMetrics),
		"timeline":         js.FuncOf(l.timeline),
		"setFocus":         js.FuncOf(l.setFocus),
		"setHeadings":      js.FuncOf(l.setHeadings),
		"techniques":       js.FuncOf(l.techniques),
		"delays":           js.FuncOf(l.delays),
		"liveDelays":       js.FuncOf(l.liveDelays),
		"advice":           js.FuncOf(l.advice),
		"gameRate":         js.FuncOf(l.gameRate),
		"underrunByDesign": js.FuncOf(l.underrunByDesign),
		"time":             js.FuncOf(l.time),
		"frames":           js.FuncOf(l.frameCount),
		"entities":         js.FuncOf(l.entities),
		"params":           js.FuncOf(params),
		"metricFields":     js.FuncOf(metricFields),
		"format":           js.FuncOf(format),
		"parse":            js.FuncOf(parse),
		"setScenarioText":  js.FuncOf(l.setScenarioText),
		"checkScenario":    js.FuncOf(l.checkScenario),
		"builtinScenario":  js.FuncOf(builtinScenario),

		"poseStride":      engine.PoseStride,
		"packetStride":    packetStride,
		"frameStride":     frameStride,
		"frameTechStride": frameTechStride,
		"maxTechniques":   maxTechniques,
		"scenarioStride":  engine.ScenarioSampleStride,
	}
}

// misuse reports a call with the wrong arguments on the console; the Go side
// cannot throw into JavaScript without ending the program.
func misuse(usage string) any {
	js.Global().Get("console").Call("error", "interplab: usage: "+usage)
	return nil
}

// The typed array constructors the calls check their arguments against,
// looked up once: a lookup by name on every call (several a frame) made a
// new string and value each time, garbage the page's collector then had to
// clear mid-animation.
var (
	float32Array = js.Global().Get("Float32Array")
	float64Array = js.Global().Get("Float64Array")
	uint8Array   = js.Global().Get("Uint8Array")
)

func isArray(v, ctor js.Value) bool {
	return v.Type() == js.TypeObject && v.InstanceOf(ctor)
}

func (l *lab) create(_ js.Value, args []js.Value) any {
	if len(args) < 1 || len(args) > 2 || !isArray(args[0], float64Array) ||
		len(args) == 2 && args[1].Type() != js.TypeString {
		return misuse("create(settings: Float64Array, scenarioText?: string)")
	}
	s, msg := l.settings("create", args[0])
	if msg != "" {
		return msg
	}
	if len(args) == 2 {
		s.ScenarioText = args[1].String()
	}
	sim, err := engine.NewSim(s)
	if err != nil {
		return err.Error()
	}
	sim.SetHeadings(!l.noHeadings)
	l.sim = sim
	return ""
}

func (l *lab) createReplay(_ js.Value, args []js.Value) any {
	if len(args) != 2 || !isArray(args[0], float64Array) || !isArray(args[1], float64Array) {
		return misuse("createReplay(settings: Float64Array, trace: Float64Array)")
	}
	s, msg := l.settings("createReplay", args[0])
	if msg != "" {
		return msg
	}
	flat := make([]float64, args[1].Length())
	l.traceView.copyToGo(f64Bytes(flat), args[1])
	tr, err := engine.TraceFromFlat(flat)
	if err != nil {
		return err.Error()
	}
	sim, err := engine.NewReplay(tr, s)
	if err != nil {
		return err.Error()
	}
	sim.SetHeadings(!l.noHeadings)
	l.sim = sim
	return ""
}

// settings decodes a settings array (one value per parameter, in
// engine.Params() order) over the defaults; msg is "" or the error text.
func (l *lab) settings(fn string, a js.Value) (s engine.Settings, msg string) {
	ps := engine.Params()
	if n := a.Length(); n != len(ps) {
		return s, fn + ": got " + strconv.Itoa(n) + " settings, want " + strconv.Itoa(len(ps)) + " (one per parameter)"
	}
	v := make([]float64, len(ps))
	l.settingsView.copyToGo(f64Bytes(v), a)
	s = engine.Defaults()
	for i := range ps {
		if err := ps[i].Set(&s, v[i]); err != nil {
			return s, err.Error()
		}
	}
	return s, ""
}

func (l *lab) set(_ js.Value, args []js.Value) any {
	if len(args) != 2 || args[0].Type() != js.TypeString || args[1].Type() != js.TypeNumber {
		return misuse("set(name: string, value: number)")
	}
	if l.sim == nil {
		return map[string]any{"error": "set: no simulation: call create first", "restarted": false}
	}
	restarted, err := l.sim.Set(args[0].String(), args[1].Float())
	msg := ""
	if err != nil {
		msg = err.Error()
	}
	return map[string]any{"error": msg, "restarted": restarted}
}

func (l *lab) setScenarioText(_ js.Value, args []js.Value) any {
	if len(args) != 1 || args[0].Type() != js.TypeString {
		return misuse("setScenarioText(text: string)")
	}
	if l.sim == nil {
		return map[string]any{"error": "setScenarioText: no simulation: call create first", "restarted": false}
	}
	restarted, err := l.sim.SetScenarioText(args[0].String())
	msg := ""
	if err != nil {
		msg = err.Error()
	}
	return map[string]any{"error": msg, "restarted": restarted}
}

// checkScenario checks text as the custom scenario of the running
// settings (engine.CheckScenarioText) and, when it is good, fills dst with
// samples of its conditions over the run (engine.SampleScenario), as many
// as fit.
func (l *lab) checkScenario(_ js.Value, args []js.Value) any {
	if len(args) != 2 || args[0].Type() != js.TypeString || !isArray(args[1], float64Array) {
		return misuse("checkScenario(text: string, dst: Float64Array)")
	}
	s := engine.Defaults()
	if l.sim != nil {
		s = l.sim.Settings()
	}
	out := map[string]any{"error": "", "line": 0, "field": "", "title": "", "samples": 0, "start": 0, "end": 0, "duration": s.Duration}
	sc, err := engine.CheckScenarioText(s, args[0].String())
	if err != nil {
		out["error"] = err.Error()
		if se, ok := err.(*netsim.ScenarioError); ok {
			out["line"], out["field"] = se.Line, se.Field
		}
		return out
	}
	n := args[1].Length() / engine.ScenarioSampleStride
	l.samples = engine.SampleScenario(l.samples[:0], sc, &s, n)
	l.samplesView.copyToJS(args[1], f64Bytes(l.samples))
	out["samples"], out["title"] = n, sc.Title
	if start, end, ok := sc.Span(); ok {
		out["start"], out["end"] = start, end
	}
	return out
}

// builtinScenario returns a built-in scenario's text, "" for an unknown
// name.
func builtinScenario(_ js.Value, args []js.Value) any {
	if len(args) != 1 || args[0].Type() != js.TypeString {
		return misuse("builtinScenario(name: string)")
	}
	return netsim.BuiltinScenarioText(args[0].String())
}

func (l *lab) restart(js.Value, []js.Value) any {
	if l.sim != nil {
		l.sim.Restart()
	}
	return nil
}

// step returns the frames rendered since time 0 after the step, which
// saves the page a frames() call: a call into Go from JavaScript costs tens
// of microseconds whatever it does.
func (l *lab) step(_ js.Value, args []js.Value) any {
	if len(args) != 1 || args[0].Type() != js.TypeNumber {
		return misuse("step(dt: number)")
	}
	if l.sim == nil {
		return 0
	}
	l.sim.Step(args[0].Float())
	return l.sim.Frames()
}

func (l *lab) poses(_ js.Value, args []js.Value) any {
	if len(args) != 1 || !isArray(args[0], float32Array) {
		return misuse("poses(dst: Float32Array)")
	}
	return l.copyPoses(args[0])
}

// copyPoses copies the latest poses into dst, as many as fit, and returns
// how many there are.
func (l *lab) copyPoses(dst js.Value) int {
	if l.sim == nil {
		return 0
	}
	p := l.sim.Poses()
	n := min(len(p), dst.Length())
	if n > 0 {
		l.posesView.copyToJS(dst, unsafe.Slice((*byte)(unsafe.Pointer(&p[0])), n*4))
	}
	return len(p)
}

// pull is poses, timeline, frames and time in one call, what the page and
// the A/B worker take after each step that rendered a frame. It takes no
// arguments and copies nothing into JavaScript: it writes into pullOut the
// frame count, the time, the poses' length (in float32s, as poses returns
// it), the counts np and nf of the timeline's records it drained (the
// latest maxPullRecords of each) and the byte addresses in the module's
// memory of the poses, of the np packet records and of the nf frame
// records, and returns pullOut's address. The caller reads all of it
// through typed-array views onto the memory (web/engine.js, Pull).
//
// A typed array passed in costs a js.Value, and every js.Value of an object
// costs Go's runtime a finalizer (runtime.SetFinalizer, runtime.addspecial),
// run and cleared by its collector later; copying the poses cost a 1.44 MB
// copy a frame at 10,000 entities. Numbers cost neither.
//
// The views stay right while the memory holds what they point at: Go's
// collector never moves an object, and l.pulled keeps the poses slice of
// the last pull alive (a create or restart replaces the Sim's) until the
// next pull, which reports any new address. When the memory grows, its
// buffer changes and the views go empty: the reader makes them again at
// the same addresses (Pull.poses).
func (l *lab) pull(js.Value, []js.Value) any {
	pullOut = [pullInfo]float64{}
	l.pulled = nil
	if l.sim != nil {
		l.pulled = l.sim.Poses()
		np, nf := l.flatten(maxPullRecords, maxPullRecords)
		pullOut = [...]float64{
			float64(l.sim.Frames()), l.sim.Time(), float64(len(l.pulled)), float64(np), float64(nf),
			float64(addrOf(l.pulled)), float64(addrOf(l.flatPk)), float64(addrOf(l.flatFr)),
		}
	}
	return float64(uintptr(unsafe.Pointer(&pullOut[0])))
}

// pullInfo is the length of pull's answer: frames, time, poses' length,
// np, nf, and the addresses of the poses, the packets and the frames.
const pullInfo = 8

// maxPullRecords is how many of the latest packet and frame records a pull
// returns at most (the page's timeline shows a few seconds of them).
const maxPullRecords = 1024

// pullOut is pull's answer. A package variable: its address never changes.
var pullOut [pullInfo]float64

// addrOf returns the address of s's first element in the module's memory
// (WebAssembly's linear memory: a Go pointer is its byte offset), 0 for an
// empty slice.
func addrOf[T any](s []T) uintptr {
	if len(s) == 0 {
		return 0
	}
	return uintptr(unsafe.Pointer(&s[0]))
}

func (l *lab) copyMetrics(_ js.Value, args []js.Value) any {
	if len(args) != 1 || !isArray(args[0], float64Array) {
		return misuse("metrics(dst: Float64Array)")
	}
	if l.sim == nil {
		return 0
	}
	l.metrics = l.sim.Metrics(l.metrics[:0])
	l.values = l.values[:0]
	for _, m := range l.metrics {
		l.values = m.Values(l.values)
	}
	n := min(len(l.values), args[0].Length())
	l.metricsView.copyToJS(args[0], f64Bytes(l.values[:n]))
	return len(l.values)
}

func (l *lab) timeline(_ js.Value, args []js.Value) any {
	if len(args) != 2 || !isArray(args[0], float64Array) || !isArray(args[1], float64Array) {
		return misuse("timeline(packets: Float64Array, frames: Float64Array)")
	}
	if l.sim == nil {
		return []any{0, 0}
	}
	np, nf := l.drain(args[0], args[1])
	return []any{np, nf}
}

// drain copies the timeline's records since the last drain into packets
// and frames (the latest that fit) and returns how many of each it copied.
func (l *lab) drain(packets, frames js.Value) (np, nf int) {
	np, nf = l.flatten(packets.Length()/packetStride, frames.Length()/frameStride)
	l.packetsView.copyToJS(packets, f64Bytes(l.flatPk))
	l.framesView.copyToJS(frames, f64Bytes(l.flatFr))
	return np, nf
}

// flatten drains the timeline's records since the last drain and writes
// the latest maxP packets and maxF frames of them, in timeline's layout,
// into l.flatPk and l.flatFr; it returns how many of each it wrote.
func (l *lab) flatten(maxP, maxF int) (np, nf int) {
	l.packets, l.frames = l.sim.Drain(l.packets[:0], l.frames[:0])

	np = min(len(l.packets), maxP)
	l.flatPk = l.flatPk[:0]
	for _, p := range l.packets[len(l.packets)-np:] {
		l.flatPk = append(l.flatPk, float64(p.Seq), p.Sent, p.Tick, p.Arrive, b2f(p.Dup), p.Pos[0], p.Pos[1], p.Pos[2], p.Net, b2f(p.Down))
	}

	nf = min(len(l.frames), maxF)
	l.flatFr = l.flatFr[:0]
	for _, f := range l.frames[len(l.frames)-nf:] {
		l.flatFr = append(l.flatFr, f.Time, f.Est)
		for _, t := range f.Tech {
			l.flatFr = append(l.flatFr, t.RenderTime, t.Newest, float64(t.Depth), t.Delay, float64(t.Mode), b2f(t.Snap), t.Err, b2f(t.Idle))
		}
	}
	return np, nf
}

func (l *lab) setFocus(_ js.Value, args []js.Value) any {
	if len(args) != 1 || args[0].Type() != js.TypeNumber {
		return misuse("setFocus(entity: number)")
	}
	if l.sim != nil {
		l.sim.SetFocus(args[0].Int())
	}
	return nil
}

// setHeadings says whether poses carries headings, for this run and the
// runs create makes after it (engine.Sim.SetHeadings).
func (l *lab) setHeadings(_ js.Value, args []js.Value) any {
	if len(args) != 1 || args[0].Type() != js.TypeBoolean {
		return misuse("setHeadings(on: boolean)")
	}
	l.noHeadings = !args[0].Bool()
	if l.sim != nil {
		l.sim.SetHeadings(!l.noHeadings)
	}
	return nil
}

func (l *lab) techniques(js.Value, []js.Value) any {
	if l.sim == nil {
		return []any{}
	}
	var out []any
	for _, t := range l.sim.Techniques() {
		out = append(out, t)
	}
	return out
}

// delays returns, per running technique, the display delay behind the
// newest snapshot a game built on it has with the current settings
// (engine.EffectiveDelay), in seconds; NaN where the technique has none.
func (l *lab) delays(js.Value, []js.Value) any {
	if l.sim == nil {
		return []any{}
	}
	s := l.sim.Settings()
	out := make([]any, 0, len(l.sim.Techniques()))
	for _, t := range l.sim.Techniques() {
		d, ok := engine.EffectiveDelay(t, &s)
		if !ok {
			d = math.NaN()
		}
		out = append(out, d)
	}
	return out
}

// liveDelays returns, per running technique, its game delay as its state
// has it on the latest frame (engine.Sim.LiveDelays), in seconds; NaN where
// the technique has none or has drawn nothing yet.
func (l *lab) liveDelays(js.Value, []js.Value) any {
	if l.sim == nil {
		return []any{}
	}
	l.live = l.sim.LiveDelays(l.live[:0])
	out := make([]any, len(l.live))
	for k, d := range l.live {
		out[k] = d
	}
	return out
}

// underrunByDesign returns, per running technique, whether it draws past
// its newest packet on every frame by design (engine.UnderrunByDesign), so
// its underrun is 100% and not a fault.
func (l *lab) underrunByDesign(js.Value, []js.Value) any {
	if l.sim == nil {
		return []any{}
	}
	out := make([]any, 0, len(l.sim.Techniques()))
	for _, t := range l.sim.Techniques() {
		out = append(out, engine.UnderrunByDesign(t))
	}
	return out
}

// advice returns engine.Advice for the current settings: the library knobs
// that disagree with the lab's network.
func (l *lab) advice(js.Value, []js.Value) any {
	out := []any{}
	if l.sim == nil {
		return out
	}
	s := l.sim.Settings()
	for _, a := range engine.Advice(&s) {
		out = append(out, a)
	}
	return out
}

// gameRate returns engine Settings.GameRate for the current settings: the
// library's rate knob ("" when none) and the send and tick rates it gives.
func (l *lab) gameRate(js.Value, []js.Value) any {
	out := map[string]any{"knob": "", "send": 0, "tick": 0}
	if l.sim == nil {
		return out
	}
	s := l.sim.Settings()
	if g, ok := s.GameRate(); ok {
		out["knob"], out["send"], out["tick"] = g.Knob, g.Send, g.Tick
	}
	return out
}

func (l *lab) time(js.Value, []js.Value) any {
	if l.sim == nil {
		return 0
	}
	return l.sim.Time()
}

func (l *lab) frameCount(js.Value, []js.Value) any {
	if l.sim == nil {
		return 0
	}
	return l.sim.Frames()
}

func (l *lab) entities(js.Value, []js.Value) any {
	if l.sim == nil {
		return 0
	}
	return l.sim.Entities()
}

func format(_ js.Value, args []js.Value) any {
	if len(args) != 2 || args[0].Type() != js.TypeString || args[1].Type() != js.TypeNumber {
		return misuse("format(name: string, value: number)")
	}
	p, ok := engine.Lookup(args[0].String())
	if !ok {
		return ""
	}
	return p.Format(args[1].Float())
}

func parse(_ js.Value, args []js.Value) any {
	if len(args) != 2 || args[0].Type() != js.TypeString || args[1].Type() != js.TypeString {
		return misuse("parse(name: string, text: string)")
	}
	var s engine.Settings
	name, text := args[0].String(), args[1].String()
	if err := s.SetText(name, text); err != nil {
		return map[string]any{"value": math.NaN(), "error": err.Error()}
	}
	p, _ := engine.Lookup(name)
	return map[string]any{"value": p.Get(&s), "error": ""}
}

// byteView caches a Uint8Array over the buffer of the last typed array it
// saw, so copying into the same array every frame makes no garbage.
type byteView struct {
	arr, u8 js.Value
}

func (b *byteView) view(arr js.Value) js.Value {
	if b.u8.IsUndefined() || !arr.Equal(b.arr) {
		b.arr = arr
		// A new array each call where the caller's array is new each time,
		// as the A/B worker's poses are (transferred back and forth).
		b.u8 = uint8Array.New(arr.Get("buffer"), arr.Get("byteOffset"), arr.Get("byteLength"))
	}
	return b.u8
}

func (b *byteView) copyToJS(dst js.Value, src []byte) {
	if len(src) > 0 {
		js.CopyBytesToJS(b.view(dst), src)
	}
}

func (b *byteView) copyToGo(dst []byte, src js.Value) {
	if len(dst) > 0 {
		js.CopyBytesToGo(dst, b.view(src))
	}
}

// f64Bytes returns the bytes of v, which WebAssembly and every browser store
// little-endian, as a typed array expects.
func f64Bytes(v []float64) []byte {
	if len(v) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), len(v)*8)
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
