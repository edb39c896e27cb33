package buffer

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"interplab/engine/technique"
)

// adaptP95 is the nearest-rank 95th percentile of xs, the slow way.
func adaptP95(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	rank := int(math.Ceil(0.95 * float64(len(s))))
	return s[rank-1]
}

// TestJitterWindowP95 compares the rolling window with sorting its times
// afresh, while the window size changes up and down. A shorter window drops
// its oldest times at once; a longer one fills up with the next ones.
func TestJitterWindowP95(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	w := newJitterWindow(40)
	var all []float64
	size, keep := 40, 0
	for i := range 3000 {
		if i%250 == 0 {
			size = []int{40, 4, 256, 17, 1, 100, 300, 0}[i/250%8]
		}
		x := 0.05 + 0.1*rng.Float64()
		switch {
		case i%7 == 0:
			x = 0.05 // repeats: removal must find the right equal value
		case i%11 == 0:
			x = 0 // the least time there is
		}
		w.add(x, size)
		all = append(all, x)
		keep = min(keep, max(size, 1)-1, adaptMaxWindow-1) + 1
		got, ok := w.p95()
		if want := adaptP95(all[len(all)-keep:]); !ok || got != want {
			t.Fatalf("after %d adds with window %d: p95 = %g, %v, want %g, true", i+1, size, got, ok, want)
		}
		if w.len() != keep {
			t.Fatalf("after %d adds with window %d: len = %d, want %d", i+1, size, w.len(), keep)
		}
		// The whole top, not only its least: the largest topCount times of
		// the window, ascending, and marked so in inTop.
		sorted := slices.Sorted(slices.Values(all[len(all)-keep:]))
		want := sorted[keep-topCount(keep):]
		var top []float64
		for _, s := range w.top {
			top = append(top, w.hist[s])
		}
		if !slices.Equal(top, want) {
			t.Fatalf("after %d adds with window %d: top = %v, want %v", i+1, size, top, want)
		}
		marked := 0
		for _, in := range w.inTop {
			if in {
				marked++
			}
		}
		if marked != len(w.top) {
			t.Fatalf("after %d adds with window %d: %d times marked in the top, want %d", i+1, size, marked, len(w.top))
		}
	}
	empty := newJitterWindow(8)
	if _, ok := empty.p95(); ok {
		t.Errorf("empty window p95 ok = true, want false")
	}
}

// TestTopCount checks topCount against the nearest rank it stands for, and
// that the top's fixed room holds it for every window size.
func TestTopCount(t *testing.T) {
	for n := 0; n <= adaptMaxWindow; n++ {
		want := 0
		if n > 0 {
			want = n - (int(math.Ceil(0.95*float64(n))) - 1)
		}
		if got := topCount(n); got != want || got > adaptMaxTop {
			t.Errorf("topCount(%d) = %d, want %d (at most adaptMaxTop = %d)", n, got, want, adaptMaxTop)
		}
	}
}

func TestAdaptiveDelay(t *testing.T) {
	cases := []struct {
		name     string
		adaptive bool
		times    []float64 // inter-arrival times in the window, s
		window   int       // adaptWindow when the delay is asked
		want     float64
	}{
		{name: "fixed ignores jitter", times: []float64{0.3, 0.3}, window: 40, want: 0.1},
		{name: "adaptive, nothing measured", adaptive: true, window: 40, want: 0.1},
		{name: "steady spacing under the base", adaptive: true, times: []float64{0.05, 0.05, 0.05}, window: 40, want: 0.1},
		{name: "p95 plus margin over the base", adaptive: true, times: []float64{0.05, 0.12, 0.05, 0.05}, window: 40, want: 0.145},
		{name: "capped", adaptive: true, times: []float64{0.05, 0.4}, window: 40, want: 0.2},
		{name: "shortened window forgets the spike", adaptive: true, times: []float64{0.4, 0.05, 0.05, 0.06}, window: 3, want: 0.1},
		{name: "shortened window keeps the newest", adaptive: true, times: []float64{0.05, 0.05, 0.05, 0.09}, window: 3, want: 0.115},
	}
	for _, c := range cases {
		s := bufSettings() // delay 0.1 s, margin 0.025 s, delayCap 0.2 s
		s.Adaptive = c.adaptive
		w := newJitterWindow(40)
		for _, x := range c.times {
			w.add(x, 40)
		}
		s.AdaptWindow = c.window
		if got := adaptiveDelay(&s.Settings, &w); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("%s: adaptiveDelay = %g, want %g", c.name, got, c.want)
		}
	}
}

// TestBufferAdaptiveJitter feeds the buffer jittered streams and checks the
// delay in use: it stays at the base without jitter, rises with it, reaches
// the cap under heavy jitter, and is never outside [delay, delayCap].
func TestBufferAdaptiveJitter(t *testing.T) {
	cases := []struct {
		name     string
		jitter   float64 // uniform extra one-way delay in [0, jitter), s
		wantLow  float64 // the delay in use at the end, at least, s
		wantHigh float64 // and at most
	}{
		{name: "no jitter", jitter: 0, wantLow: 0.1, wantHigh: 0.1},
		{name: "some jitter", jitter: 0.06, wantLow: 0.11, wantHigh: 0.17},
		{name: "heavy jitter", jitter: 0.4, wantLow: 0.2, wantHigh: 0.2},
	}
	for _, c := range cases {
		s := bufSettings()
		s.Adaptive = true
		rng := rand.New(rand.NewPCG(5, 6))
		jit := func(int) float64 { return c.jitter * rng.Float64() }
		var last technique.Sample
		bufRun(newBufferIn(s, true), bufStream(bufCircle, 0.05, 20, 0.03, jit), 0, 20, 1.0/60, func(now float64, got technique.Sample) {
			if got.Delay < s.Delay || got.Delay > s.DelayCap {
				t.Fatalf("%s: Sample(%g).Delay = %g, want in [%g, %g]", c.name, now, got.Delay, s.Delay, s.DelayCap)
			}
			last = got
		})
		if last.Delay < c.wantLow-1e-12 || last.Delay > c.wantHigh+1e-12 {
			t.Errorf("%s: final Delay = %g, want in [%g, %g]", c.name, last.Delay, c.wantLow, c.wantHigh)
		}
	}
}

// TestBufferDelaySlew moves the delay slider and checks that the delay in
// use follows at delaySlew, that render time runs at 0.9 to 1.1 times real
// time meanwhile and never backwards, and that the new delay is reached.
func TestBufferDelaySlew(t *testing.T) {
	s := bufSettings()
	tech := newBufferIn(s, false)
	const frame = 1.0 / 60
	moves := map[int]float64{60: 0.4, 240: 0.05, 300: 0.3, 310: 0.1} // frame → new delay
	var prev technique.Sample
	for k := range 600 {
		now := 1 + float64(k)*frame
		if d, ok := moves[k]; ok {
			s.Delay = d
		}
		tech.Receive(bufLinear(math.Floor(now*20)/20), now)
		got := tech.Sample(now)
		if k > 0 {
			if step := math.Abs(got.Delay - prev.Delay); step > delaySlew*frame+1e-12 {
				t.Fatalf("frame %d: delay moved %g s, want ≤ %g", k, step, delaySlew*frame)
			}
			adv := got.Time - prev.Time
			if adv < (1-delaySlew)*frame-1e-12 || adv > (1+delaySlew)*frame+1e-12 {
				t.Fatalf("frame %d: render time advanced %g s in a %g s frame, want within ±%g%%", k, adv, frame, 100*delaySlew)
			}
		}
		prev = got
	}
	if prev.Delay != s.Delay {
		t.Errorf("final Delay = %g, want the slider's %g", prev.Delay, s.Delay)
	}
	// A fresh buffer starts at its target, with no slew from zero.
	s.Delay = 0.3
	if got := newBufferIn(s, false).Sample(5).Delay; got != 0.3 {
		t.Errorf("first Sample.Delay = %g, want 0.3", got)
	}
}

// TestBufferRenderTimeMonotonic checks that render time never decreases,
// even when now repeats or (against the contract) steps back, under jitter
// and slider moves.
func TestBufferRenderTimeMonotonic(t *testing.T) {
	s := bufSettings()
	s.Adaptive = true
	tech := newBufferIn(s, false)
	rng := rand.New(rand.NewPCG(7, 8))
	ps := bufStream(bufLinear, 0.05, 10, 0.03, func(int) float64 { return 0.2 * rng.Float64() })
	prev := math.Inf(-1)
	now := 0.0
	for k := range 1000 {
		switch k % 10 {
		case 3: // repeat now
		case 7:
			now -= 0.005
		default:
			now += 0.01
		}
		if k%100 == 50 {
			s.Delay, s.DelayCap = 0.3*rng.Float64(), 0.3+0.2*rng.Float64()
			s.Adaptive = !s.Adaptive
		}
		for len(ps) > 0 && ps[0].at <= now {
			tech.Receive(ps[0].sn, ps[0].at)
			ps = ps[1:]
		}
		got := tech.Sample(now)
		if got.Mode == technique.Empty {
			continue // the render clock starts with the first snapshot
		}
		if got.Time < prev {
			t.Fatalf("step %d: Sample(%g).Time = %g after %g: ran backwards", k, now, got.Time, prev)
		}
		prev = got.Time
	}
}

// TestBufferAdaptiveSwitchedOn checks that spacings are measured only while
// the delay adapts: switched on mid-run, the window starts empty (the delay
// from the base) and the delay rises with the jitter measured from then on.
func TestBufferAdaptiveSwitchedOn(t *testing.T) {
	s := bufSettings()
	rng := rand.New(rand.NewPCG(11, 12))
	ps := bufStream(bufLinear, 0.05, 12, 0.03, func(int) float64 { return 0.3 * rng.Float64() })
	tech := newBufferIn(s, false).(*bufTech)
	var last technique.Sample
	bufRun(tech, ps, 0, 12, 1.0/60, func(now float64, got technique.Sample) {
		if now < 6 && (got.Delay != s.Delay || tech.jitter.len() != 0) {
			t.Fatalf("Sample(%g): Delay = %g with %d spacings kept while fixed, want %g with none",
				now, got.Delay, tech.jitter.len(), s.Delay)
		}
		if now >= 6 {
			s.Adaptive = true
		}
		last = got
	})
	if n := tech.jitter.len(); n < 20 {
		t.Errorf("spacings kept 6 s after switching on = %d, want ≥ 20", n)
	}
	if last.Delay < s.Delay+0.05 || last.Delay > s.DelayCap {
		t.Errorf("Delay 6 s after switching on under heavy jitter = %g, want in [%g, %g]", last.Delay, s.Delay+0.05, s.DelayCap)
	}
}
