package server

import (
	"testing"
	"time"
)

// posesAgainstCopyJS compares the page's poses (lab.poses(), what the view
// draws) with a copy the engine makes (interplab.poses), and says whether
// the page's are a view onto the engine's memory rather than a copy.
const posesAgainstCopyJS = `(() => {
	const mine = lab.poses();
	const copy = new Float32Array(interplab.poses(new Float32Array(0)));
	interplab.poses(copy);
	const s = lab.screen(0, 0);
	return {
		n: mine.length, want: copy.length,
		same: mine.length === copy.length && mine.every((v, i) => Object.is(v, copy[i])),
		onMemory: interplab.memory !== undefined && lab.posesOnMemory(),
		screen: Number.isFinite(s.x) && Number.isFinite(s.y),
	};
})()`

type posesCheck struct {
	N, Want        int
	Same, OnMemory bool
	Screen         bool
}

// TestBrowserPullViews checks that the page reads each frame's poses where
// the engine wrote them, through a view onto the module's memory, not a
// copy, and that the view stays right when the memory grows (growing it
// detaches the buffer every view was on): what the view draws and where it
// puts the focus entity are the engine's poses before and after.
func TestBrowserPullViews(t *testing.T) {
	b := openLab(t, "/?seed=1&entities=400")
	defer b.finish()
	b.eval(`lab.pause()`, nil)
	b.eval(`lab.advance(30)`, nil)
	check := func(when string) {
		t.Helper()
		var c posesCheck
		b.eval(posesAgainstCopyJS, &c)
		if c.N == 0 || !c.Same || !c.OnMemory || !c.Screen {
			t.Errorf("%s: the page's poses: %d values (engine's %d), the same %v, a view onto the engine's memory %v, focus on screen %v; want all",
				when, c.N, c.Want, c.Same, c.OnMemory, c.Screen)
		}
	}
	check("after 30 frames")
	// Make Go's heap grow, and with it the memory (which detaches the old
	// buffer): createReplay copies the trace it is given before it reads
	// it, and refuses a trace of zeros, leaving the run as it was.
	grow := func(when string) {
		t.Helper()
		var r struct {
			Error    string
			Detached bool
		}
		b.eval(`(() => {
			const old = interplab.memory.buffer;
			const error = interplab.createReplay(Float64Array.from(interplab.params(), (p) => p.default), new Float64Array(old.byteLength / 8 + (4 << 20)));
			return { error, detached: old.byteLength === 0 };
		})()`, &r)
		if r.Error == "" || !r.Detached {
			t.Fatalf("%s: a replay of zeros: error %q, the memory grew %v; want an error and growth, or the checks prove nothing", when, r.Error, r.Detached)
		}
	}
	grow("after 30 frames")
	check("after the memory grew, before the next frame")
	b.eval(`lab.advance(1)`, nil)
	check("after the memory grew and a frame")
	grow("then")
	b.eval(`lab.restart()`, nil)
	b.eval(`lab.advance(3)`, nil)
	check("after a restart (new poses) and a frame")
}

// TestBrowserFrameCalls checks what a running page's animation frames ask
// of the engine: a step and a pull, taking numbers only (a typed array
// passed into Go costs its runtime a finalizer for each call), and the
// rest (frames, time, metrics) only at the readout's rate, not every frame.
func TestBrowserFrameCalls(t *testing.T) {
	b := openLab(t, "/?seed=1&entities=400")
	defer b.finish()
	b.eval(`(() => {
		window.__calls = { frames: 0, byName: {}, objects: {} };
		for (const name of Object.keys(interplab)) {
			const f = interplab[name];
			if (typeof f !== 'function') continue;
			interplab[name] = function (...args) {
				const c = window.__calls;
				c.byName[name] = (c.byName[name] ?? 0) + 1;
				if (args.some((a) => typeof a === 'object' && a !== null)) c.objects[name] = (c.objects[name] ?? 0) + 1;
				return f.apply(this, args);
			};
		}
		const tick = () => { window.__calls.frames++; requestAnimationFrame(tick); };
		requestAnimationFrame(tick);
		return true;
	})()`, nil)
	time.Sleep(2 * time.Second)
	var c struct {
		Frames  int
		ByName  map[string]int
		Objects map[string]int
	}
	b.eval(`window.__calls`, &c)
	if c.Frames < 20 {
		t.Fatalf("%d animation frames in 2 s: too few to tell", c.Frames)
	}
	if c.ByName["step"] < c.Frames/2 || c.ByName["pull"] < c.Frames/2 {
		t.Errorf("%d frames: step %d, pull %d calls; want about one each a frame", c.Frames, c.ByName["step"], c.ByName["pull"])
	}
	for _, name := range []string{"step", "pull"} {
		if c.Objects[name] != 0 {
			t.Errorf("%s took an object %d times in %d frames, want numbers only", name, c.Objects[name], c.Frames)
		}
	}
	// The readout refreshes 4 times a second (PANEL_EVERY): over 2 s about
	// 8 calls each of frames and time, where every frame called frames().
	for _, name := range []string{"frames", "time", "metrics", "poses", "timeline"} {
		if n := c.ByName[name]; n > c.Frames/3 {
			t.Errorf("%s: %d calls in %d frames, want only at the readout's rate", name, n, c.Frames)
		}
	}
}
