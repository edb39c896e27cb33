package main

import (
	"math"
	"strings"
	"syscall/js"
	"testing"

	"interplab/engine"
	"interplab/engine/netsim"
)

// The scenario editor's calls: a custom text at create and later, the
// check with its line and field, and the samples of the conditions.
func TestWasmScenario(t *testing.T) {
	ip := api(t)
	s := engine.Defaults()
	s.Duration = 30
	s.Scenario = netsim.ScenarioCustom
	text := "set latency=80ms\noutage at=10 for=2"
	if msg := ip.Call("create", settingsArray(s)).String(); !strings.Contains(msg, "scenarioText is empty") {
		t.Errorf("create(custom) without a text = %q", msg)
	}
	if msg := ip.Call("create", settingsArray(s), text).String(); msg != "" {
		t.Fatalf("create(custom, text) = %q", msg)
	}

	n := 30
	stride := ip.Get("scenarioStride").Int()
	dst := js.Global().Get("Float64Array").New(n * stride)
	c := ip.Call("checkScenario", "set latency=80ms\nspike at=5 for=x delay=100", dst)
	if c.Get("line").Int() != 2 || c.Get("field").String() != "for" || c.Get("samples").Int() != 0 {
		t.Errorf("bad text: line %v field %v samples %v (%s)", c.Get("line"), c.Get("field"), c.Get("samples"), c.Get("error"))
	}
	c = ip.Call("checkScenario", text, dst)
	if c.Get("error").String() != "" || c.Get("samples").Int() != n || c.Get("start").Float() != 10 || c.Get("end").Float() != 12 {
		t.Fatalf("good text: %s, samples %v, span %v–%v", c.Get("error"), c.Get("samples"), c.Get("start"), c.Get("end"))
	}
	v := float64s(dst, n*stride)
	for i := range n {
		at := (float64(i) + 0.5) // 1 s per sample over 30 s
		down := v[i*stride+6] == 1
		if math.Abs(v[i*stride]-0.08) > 1e-12 || down != (at >= 10 && at < 12) {
			t.Errorf("sample at %v s: latency %v, down %v", at, v[i*stride], down)
		}
	}
	// Too long for the run: refused with how to fix it.
	c = ip.Call("checkScenario", "outage at=40 for=1", dst)
	if !strings.Contains(c.Get("error").String(), "duration") {
		t.Errorf("a scenario past the run's end: %q", c.Get("error"))
	}

	r := ip.Call("setScenarioText", "set latency=120ms\nspike at=1 for=1 delay=100ms")
	if r.Get("error").String() != "" || !r.Get("restarted").Bool() {
		t.Errorf("setScenarioText(good) = %s, restarted %v", r.Get("error"), r.Get("restarted"))
	}
	r = ip.Call("setScenarioText", "spike at=1")
	if r.Get("error").String() == "" {
		t.Error("setScenarioText(bad) accepted")
	}
	if got := ip.Call("builtinScenario", "outage-2s").String(); !strings.Contains(got, "outage at=20") {
		t.Errorf("builtinScenario(outage-2s) = %q", got)
	}
	if got := ip.Call("builtinScenario", "nope").String(); got != "" {
		t.Errorf("builtinScenario(nope) = %q", got)
	}
}
