package engine

import (
	"math"
	"testing"
)

// liveDelaySim runs technique tech alone on 4 entities with the defaults
// changed by set (vocabulary names, text values) and returns the Sim.
func liveDelaySim(t *testing.T, tech string, set map[string]string) *Sim {
	t.Helper()
	s := Defaults()
	s.Entities, s.Duration = 4, 60
	s.Techniques = []string{tech}
	for name, text := range set {
		if err := s.SetText(name, text); err != nil {
			t.Fatalf("set %s=%s: %v", name, text, err)
		}
	}
	m, err := NewSim(s)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// liveDelay returns the Sim's live delay of its one technique.
func liveDelay(m *Sim) float64 { return m.LiveDelays(nil)[0] }

// liveDelayRange steps m by seconds of frames and returns the smallest
// and largest live delay seen on any frame; NaN for both if a frame had
// none after one had.
func liveDelayRange(m *Sim, seconds float64) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for range int(seconds * m.set.RenderRate) {
		m.StepFrames(1)
		d := liveDelay(m)
		if math.IsNaN(d) {
			if lo <= hi {
				return d, d
			}
			continue
		}
		lo, hi = math.Min(lo, d), math.Max(hi, d)
	}
	return lo, hi
}

// advance steps m by seconds of frames (Step does at most 1 s).
func advance(m *Sim, seconds float64) { m.StepFrames(int(seconds * m.set.RenderRate)) }

// formula is the technique's steady-state game delay for m's settings.
func formula(t *testing.T, m *Sim) float64 {
	t.Helper()
	s := m.Settings()
	d, ok := EffectiveDelay(m.Techniques()[0], &s)
	if !ok {
		t.Fatalf("%s has no game delay", m.Techniques()[0])
	}
	return d
}

// mirror30 is the mirror-30hz preset's link and knobs.
var mirror30 = map[string]string{"tickRate": "30", "sendRate": "30", "mirror.sendRate": "30"}

func with(base map[string]string, kv ...string) map[string]string {
	out := map[string]string{}
	for k, v := range base {
		out[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		out[kv[i]] = kv[i+1]
	}
	return out
}

func TestLiveDelaysBeforeAnything(t *testing.T) {
	s := Defaults()
	s.Techniques = TechniqueNames
	m, err := NewSim(s)
	if err != nil {
		t.Fatal(err)
	}
	for k, d := range m.LiveDelays(nil) {
		if !math.IsNaN(d) {
			t.Errorf("%s: live delay before the first frame = %v, want NaN", m.Techniques()[k], d)
		}
	}
	advance(m, 5)
	for k, d := range m.LiveDelays(nil) {
		name := m.Techniques()[k]
		_, has := EffectiveDelay(name, &s)
		if has == math.IsNaN(d) {
			t.Errorf("%s: live delay after 5 s = %v; has a game delay: %v", name, d, has)
		}
	}
}

func TestLiveDelayMirror(t *testing.T) {
	// Without dynamic adjustment on an ideal link Mirror's bufferTime is the
	// formula's: the live figure is the steady-state one, on every frame.
	for _, mult := range []string{"2", "3"} {
		m := liveDelaySim(t, TechMirror, with(mirror30, "ideal", "true", "mirror.dynamicAdjustment", "false", "mirror.bufferTimeMultiplier", mult))
		advance(m, 2)
		want := formula(t, m)
		if lo, hi := liveDelayRange(m, 5); !(math.Abs(lo-want) <= 1e-12 && math.Abs(hi-want) <= 1e-12) {
			t.Errorf("mirror, dynamic off, ideal, bufferTimeMultiplier %s: live delay in [%v, %v], want %v", mult, lo, hi, want)
		}
	}
	// The multiplier moves it by one send interval a step.
	d := map[string]float64{}
	for _, mult := range []string{"2", "3"} {
		m := liveDelaySim(t, TechMirror, with(mirror30, "jitter", "10ms", "mirror.dynamicAdjustment", "false", "mirror.bufferTimeMultiplier", mult))
		advance(m, 10)
		d[mult] = liveDelay(m)
	}
	if si := float64(float32(1) / 30); !(math.Abs(d["3"]-d["2"]-si) <= 1e-9) {
		t.Errorf("mirror, dynamic off: live delay %v at ×2, %v at ×3, want %v apart", d["2"], d["3"], si)
	}
	// With dynamic adjustment the multiplier follows the delivery jitter:
	// the live delay grows with it, from the formula's on a steady link.
	// The latency is off the frame grid (55 ms, not 3 frames of 60 Hz), so
	// that arrivals do not straddle frame boundaries by a rounding and
	// the steady link delivers as steadily as it sends.
	prev := 0.0
	for _, jitter := range []string{"0ms", "5ms", "10ms", "20ms", "40ms"} {
		m := liveDelaySim(t, TechMirror, with(mirror30, "latency", "55ms", "jitter", jitter, "jitterDist", "normal"))
		advance(m, 3)
		got := meanLiveDelay(m, 10)
		switch want := formula(t, m); {
		case jitter == "0ms" && !(math.Abs(got-want) <= 1e-6):
			t.Errorf("mirror, dynamic on, no jitter: mean live delay %.6f s, want the formula's %.6f s", got, want)
		case jitter != "0ms" && !(got > prev):
			t.Errorf("mirror, dynamic on, jitter %s: mean live delay %.4f s, want more than %.4f s (the smaller jitter's)", jitter, got, prev)
		case jitter == "40ms" && !(got >= want+0.02):
			t.Errorf("mirror, dynamic on, jitter 40ms: mean live delay %.4f s, want well above the formula's %.4f s", got, want)
		}
		prev = got
	}
}

// meanLiveDelay steps m by seconds of frames and returns the mean of the
// live delay over them.
func meanLiveDelay(m *Sim, seconds float64) float64 {
	n := int(seconds * m.set.RenderRate)
	sum := 0.0
	for range n {
		m.StepFrames(1)
		sum += liveDelay(m)
	}
	return sum / float64(n)
}

func TestLiveDelayBuffer(t *testing.T) {
	for _, tech := range []string{TechBuffer, TechHermite} {
		// Fixed: the delay, on an ideal link and a jittery one alike.
		for _, link := range []map[string]string{{"ideal": "true"}, {"jitter": "30ms"}} {
			m := liveDelaySim(t, tech, with(link, "delay", "80ms", "adaptive", "false"))
			advance(m, 1)
			if lo, hi := liveDelayRange(m, 5); lo != 0.08 || hi != 0.08 {
				t.Errorf("%s fixed %v: live delay in [%v, %v], want 0.08", tech, link, lo, hi)
			}
		}
		// Adaptive: it grows with the measured jitter, from the base delay
		// plus the margin, within the cap.
		prev := 0.0
		for _, jitter := range []string{"0ms", "10ms", "40ms"} {
			m := liveDelaySim(t, tech, map[string]string{"delay": "50ms", "adaptive": "true", "margin": "10ms", "delayCap": "300ms",
				"latency": "55ms", "jitter": jitter, "jitterDist": "normal"})
			advance(m, 3)
			got := meanLiveDelay(m, 10)
			if !(got > prev && got >= 0.06-1e-9 && got <= 0.3) {
				t.Errorf("%s adaptive, jitter %s: mean live delay %.4f s, want above %.4f s (the smaller jitter's), within [0.06, 0.3]", tech, jitter, got, prev)
			}
			prev = got
		}
	}
}

func TestLiveDelayUnreal(t *testing.T) {
	m := liveDelaySim(t, TechUnreal, map[string]string{"jitter": "30ms"})
	advance(m, 1)
	if lo, hi := liveDelayRange(m, 5); lo != 0 || hi != 0 {
		t.Errorf("unreal-cmc: live delay in [%v, %v], want 0: it draws the newest update extrapolated", lo, hi)
	}
}

// TestLiveDelayAverage checks that the live figure is the mean over the
// entities drawn: technique by technique, the focus entity's Delay when
// every entity shares it.
func TestLiveDelayAverage(t *testing.T) {
	s := Defaults()
	s.Techniques = TechniqueNames
	s.Jitter = 0.02
	m, err := NewSim(s)
	if err != nil {
		t.Fatal(err)
	}
	advance(m, 3)
	_, fr := m.Drain(nil, nil)
	last := fr[len(fr)-1]
	for k, d := range m.LiveDelays(nil) {
		name := m.Techniques()[k]
		if _, ok := EffectiveDelay(name, &s); !ok {
			continue
		}
		if want := last.Tech[k].Delay; !(math.Abs(d-want) <= 1e-12) {
			t.Errorf("%s: live delay %v, want the focus entity's %v (every entity shares its timing)", name, d, want)
		}
	}
}

// TestLiveDelayPerEntity checks the mean over entities that do not share a
// batch: a replayed trace runs one technique per entity, and gives the
// same live delays as the run it was recorded from, whose batches share
// one.
func TestLiveDelayPerEntity(t *testing.T) {
	s := replayDemanding()
	s.Techniques = TechniqueNames
	tr, err := SyntheticTrace(s)
	if err != nil {
		t.Fatal(err)
	}
	run, err := NewSim(s)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := NewReplay(tr, s)
	if err != nil {
		t.Fatal(err)
	}
	for step := range 5 {
		run.StepFrames(97)
		rep.StepFrames(97)
		want, got := run.LiveDelays(nil), rep.LiveDelays(nil)
		for k, name := range run.Techniques() {
			if !(math.Abs(got[k]-want[k]) <= 1e-9) && !(math.IsNaN(got[k]) && math.IsNaN(want[k])) {
				t.Errorf("step %d, %s: replayed live delay %v, run's %v", step, name, got[k], want[k])
			}
		}
	}
}

func TestLiveDelayNGO(t *testing.T) {
	ngo := map[string]string{"tickRate": "30", "sendRate": "30"}
	// Ideal: ServerTime dithers around its target by the slew step of
	// one frame, so the live delay is the formula within that step.
	m := liveDelaySim(t, TechNGO, with(ngo, "ideal", "true"))
	advance(m, 5)
	want, step := formula(t, m), 0.01/60+1e-9
	if lo, hi := liveDelayRange(m, 5); !(lo >= want-step && hi <= want+step) {
		t.Errorf("ngo ideal: live delay in [%v, %v], want %v ± %v", lo, hi, want, step)
	}
	// The latency grows by 100 ms: the next TimeSync puts ServerTime's
	// target 100 ms back, and ServerTime slews there at 1% of real time,
	// so for seconds the render time is nearer the newest state.
	if _, err := m.Set("latency", 0.15); err != nil {
		t.Fatal(err)
	}
	advance(m, 2)
	if got := liveDelay(m); !(got <= want-0.07) {
		t.Errorf("ngo 2 s after latency 50 → 150 ms: live delay %v, want below %v (the formula less most of 100 ms)", got, want-0.07)
	}
	advance(m, 15)
	if got := liveDelay(m); !(math.Abs(got-want) <= step+1e-3) {
		t.Errorf("ngo 17 s after latency 50 → 150 ms: live delay %v, want back at %v", got, want)
	}
}

func TestLiveDelaySource(t *testing.T) {
	src := map[string]string{"tickRate": "66.66666666666667", "sendRate": "20"}
	m := liveDelaySim(t, TechSource, with(src, "ideal", "true"))
	advance(m, 5)
	// The clock is held to the packets' ticks within
	// cl_clock_correction_adjustment_min_offset (10 ms) and the frame a
	// packet waits to be read.
	want := formula(t, m)
	lo, hi := liveDelayRange(m, 5)
	if !(lo >= want-0.01-1.0/60 && hi <= want+0.01+1.0/60) {
		t.Errorf("source ideal: live delay in [%v, %v], want %v within the clock's 10 ms and a frame", lo, hi, want)
	}
	// A cvar change moves it by as much, at once.
	before := liveDelay(m)
	if _, err := m.Set("source.cl_interp", 0.2); err != nil {
		t.Fatal(err)
	}
	m.StepFrames(1)
	if got, wantMove := liveDelay(m)-before, formula(t, m)-want; !(math.Abs(got-wantMove) <= 0.002) {
		t.Errorf("source: cl_interp 0.1 → 0.2 moved the live delay by %v, want %v", got, wantMove)
	}
	// Clock drift the correction has to chase shows as a live delay away
	// from the formula; the correction keeps it within its max_offset.
	m = liveDelaySim(t, TechSource, with(src, "clockDrift", "10000ppm", "jitter", "20ms"))
	lo, hi = liveDelayRange(m, 20)
	if !(hi-lo >= 0.005 && lo >= formula(t, m)-0.1 && hi <= formula(t, m)+0.1) {
		t.Errorf("source with 1%% clock drift and jitter: live delay in [%v, %v], want it to move, within 100 ms of %v", lo, hi, formula(t, m))
	}
}

func TestLiveDelayGeckos(t *testing.T) {
	g := map[string]string{"tickRate": "20", "sendRate": "20", "geckos.serverFPS": "20"}
	m := liveDelaySim(t, TechGeckos, with(g, "ideal", "true"))
	advance(m, 2)
	want := formula(t, m)
	if lo, hi := liveDelayRange(m, 5); !(math.Abs(lo-want) <= 1e-9 && math.Abs(hi-want) <= 1e-9) {
		t.Errorf("geckos ideal: live delay in [%v, %v], want %v", lo, hi, want)
	}
	// Jitter: the time offset taken from one snapshot is off from the
	// newest one's by that snapshot's luck. The auto-correction keeps it
	// from more than 50 ms below (a newer snapshot whose sample is that
	// much lower becomes the offset); a late copy of an older one can
	// put it far above.
	m = liveDelaySim(t, TechGeckos, with(g, "jitter", "20ms", "jitterDist", "normal"))
	advance(m, 1)
	lo, hi := liveDelayRange(m, 20)
	if !(hi-lo >= 0.01 && lo >= want-0.05-1e-9) {
		t.Errorf("geckos under 20 ms of jitter: live delay in [%v, %v], want it to move, not below %v", lo, hi, want-0.05)
	}
	// Without the auto-correction, clock drift builds up in the offset:
	// 0.5% of 20 s is 100 ms.
	m = liveDelaySim(t, TechGeckos, with(g, "ideal", "true", "clockDrift", "5000ppm", "geckos.autoCorrectTimeOffset", "false"))
	advance(m, 20)
	if got := liveDelay(m); !(math.Abs(got-want) >= 0.09) {
		t.Errorf("geckos, 0.5%% clock drift, no auto-correction, after 20 s: live delay %v, want about 100 ms off %v", got, want)
	}
}
