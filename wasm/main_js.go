// Command wasm is the lab engine compiled to WebAssembly for the page. It is
// a thin adapter: it converts JavaScript values, calls package engine and
// copies the results into typed arrays. It has no logic of its own.
//
// Build it with GOOS=js GOARCH=wasm; the page loads it with the wasm_exec.js
// of the same Go. main puts one object on globalThis:
//
//	interplab.create(settings: Float64Array, scenarioText?: string) → string
//	    starts a run; settings holds one value per parameter in
//	    engine.Params() order (an index for an enum, 0 or 1 for a bool, a bit
//	    mask for the techniques), scenarioText the custom scenario's text.
//	    The result is "" or the engine's error text.
//	interplab.createReplay(settings: Float64Array, trace: Float64Array) → string
//	    starts a replay of a recorded trace (engine.NewReplay): settings as
//	    for create, trace the engine's flat encoding (engine.TraceFromFlat),
//	    as GET /api/traces/{name}/flat serves it. The trace sets entities and
//	    sendRate; set refuses to change them. The result is "" or the
//	    engine's error text.
//	interplab.set(name: string, value: number) → {error: string, restarted: bool}
//	    changes one parameter of the running simulation (engine.Sim.Set).
//	interplab.setScenarioText(text: string) → {error: string, restarted: bool}
//	    changes the custom scenario's text (engine.Sim.SetScenarioText).
//	interplab.checkScenario(text: string, dst: Float64Array) → {error, line, field, title, samples, start, end, duration}
//	    checks text as the custom scenario of the running settings; when it
//	    is good, fills dst with samples of scenarioStride numbers (latency s,
//	    jitter s, loss, bandwidth bit/s, extra delay s, hiccup loss, 1 in an
//	    outage) evenly over the run (engine.SampleScenario).
//	interplab.builtinScenario(name: string) → string   a built-in scenario's text
//	interplab.restart()                  back to time 0, same settings
//	interplab.step(dt: number) → frames  advance dt simulated seconds (engine.Sim.Step)
//	interplab.poses(dst: Float32Array) → n
//	    copies engine.Sim.Poses: row 0 the ground truth, then one row per
//	    technique, each entities() × poseStride floats (x, y, z, cos yaw, sin yaw, mode).
//	interplab.metrics(dst: Float64Array) → n
//	    copies, per running technique, Metrics.Values (metricFields() order).
//	interplab.timeline(packets: Float64Array, frames: Float64Array) → [np, nf]
//	    drains the focus entity's records since the last call: np packets of
//	    packetStride numbers (seq, sent, tick, arrive or NaN if lost, dup,
//	    x, y, z, the link's mean one-way delay at the send in s, 1 if an
//	    outage holds arrivals then) and nf frames of frameStride numbers (time, est, then for
//	    each of maxTechniques slots indexed like techniques(): renderTime,
//	    newest, depth, delay, mode, snap, err, idle: 1 for an idle hold).
//	interplab.pull() → address
//	    poses and timeline in one call, as the page takes them each frame,
//	    copying nothing: at address in the module's memory (the instance's
//	    exports.mem, which the loader puts on interplab as memory) 8 float64s:
//	    frames(), time(), the poses' length in float32s, np, nf (timeline's,
//	    the latest 1,024 of each at most), and the byte addresses of the
//	    poses, the np packet records and the nf frame records (the records
//	    valid until the next pull or timeline; the poses, rewritten by each
//	    step, until the next pull). web/engine.js (Pull) reads them.
//	interplab.setFocus(entity: number)
//	interplab.setHeadings(on: boolean)   whether poses carries headings (engine Sim.SetHeadings);
//	    kept for the runs create makes after it
//	interplab.techniques() → string[]    the running techniques
//	interplab.delays() → number[]        each running technique's game delay in steady state, s (NaN: none)
//	interplab.liveDelays() → number[]    each running technique's game delay as its state has it on
//	    the latest frame (engine.Sim.LiveDelays), s (NaN: none, or nothing drawn yet)
//	interplab.advice() → string[]        library knobs that disagree with the lab's network
//	interplab.underrunByDesign() → bool[] per running technique: draws past its
//	    newest packet on every frame by design (engine.UnderrunByDesign)
//	interplab.time() / frames() / entities() → number
//	interplab.params() → object[]        the parameter table
//	interplab.metricFields() → object[]  name, unit, display, scale, doc
//	interplab.format(name, value) → string            engine Param.Format
//	interplab.parse(name, text) → {value, error}      engine Param.Parse
//	interplab.poseStride, packetStride, frameStride, frameTechStride, maxTechniques, scenarioStride
//
// The functions that copy return the number of values available, which is
// more than they copied when dst is too small; the caller then grows dst.
package main

import "syscall/js"

func main() {
	js.Global().Set("interplab", newLab().object())
	// Keep the Go runtime alive: the page calls in from JavaScript.
	<-make(chan struct{})
}
