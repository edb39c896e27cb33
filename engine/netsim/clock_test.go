package netsim

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"interplab/engine/geom"
	"interplab/engine/internal/goldentest"
)

// clockRun steps a clock at 60 Hz over [0, dur] and calls check with each
// frame's true time and estimate.
func clockRun(c *ClientClock, dur float64, check func(t, est float64)) {
	for f := 0; float64(f)/60 <= dur; f++ {
		t := float64(f) / 60
		check(t, c.Estimate(t))
	}
}

func clockSettings(latency, jitter float64, dist string, drift float64) *netRun {
	s := labNet()
	s.Latency, s.Jitter, s.JitterDist, s.ClockDrift = latency, jitter, dist, drift
	return &s
}

// TestClientClockExact: without jitter both legs of an exchange take the
// latency, every sample is exact, and so is the estimate, from the first
// frame on.
func TestClientClockExact(t *testing.T) {
	for _, latency := range []float64{0, 0.05, 0.4} {
		c := NewClientClock(&clockSettings(latency, 0, "normal", 0).Settings, 3)
		clockRun(c, 60, func(tt, est float64) {
			if math.Abs(est-tt) > 1e-9 {
				t.Fatalf("latency %v: Estimate(%v) = %v, want %v ± 1e-9", latency, tt, est, tt)
			}
		})
	}
}

// TestClientClockDriftTracked: without jitter but with drift, the samples are
// still exact and the fitted line finds the rate once it has samples 2 s
// apart; before that the error grows at the drift rate.
func TestClientClockDriftTracked(t *testing.T) {
	for _, drift := range []float64{0.001, -0.001, 0.01, -0.01} {
		c := NewClientClock(&clockSettings(0.05, 0, "normal", drift).Settings, 4)
		clockRun(c, 60, func(tt, est float64) {
			tol := 1e-9
			if tt < 5 {
				tol = math.Abs(drift) * 3 // the slope is fitted after ~2.5 s
			}
			if math.Abs(est-tt) > tol {
				t.Fatalf("drift %v: Estimate(%v) = %v, want %v ± %v", drift, tt, est, tt, tol)
			}
		})
	}
}

// TestClientClockJitter: with jitter each sample is off by half the
// difference of its two one-way delays, at most half its round trip's excess
// over twice the latency. The estimate averages the quarter of samples with
// the smallest round trip, whose excess is below the median's, so after the
// first 10 s (when the history has filled enough to fit the drift) its error
// stays below the mean jitter, and its RMS below a third of that. It must
// also not grow with the drift.
func TestClientClockJitter(t *testing.T) {
	tests := []struct {
		dist   string
		jitter float64
		drift  float64
	}{
		{"normal", 0.01, 0},
		{"normal", 0.01, 0.001},
		{"normal", 0.01, -0.01},
		{"uniform", 0.02, 0.001},
		{"pareto", 0.01, 0.001},
		{"pareto", 0.05, -0.01},
		{"lognormal", 0.03, 0.005},
		{"lognormal", 0.1, 0.001},
	}
	for _, tt := range tests {
		for seed := uint64(1); seed <= 4; seed++ {
			c := NewClientClock(&clockSettings(0.05, tt.jitter, tt.dist, tt.drift).Settings, seed)
			var worst, sumSq float64
			n := 0
			clockRun(c, 120, func(now, est float64) {
				if now < 10 {
					return
				}
				e := math.Abs(est - now)
				worst = max(worst, e)
				sumSq += e * e
				n++
			})
			t.Logf("%s jitter %v drift %v seed %d: max %.4f rms %.4f", tt.dist, tt.jitter, tt.drift, seed, worst, math.Sqrt(sumSq/float64(n)))
			if worst >= tt.jitter {
				t.Errorf("%s jitter %v drift %v seed %d: max |error| = %.4f s, want < %v", tt.dist, tt.jitter, tt.drift, seed, worst, tt.jitter)
			}
			if rms := math.Sqrt(sumSq / float64(n)); rms >= tt.jitter/3 {
				t.Errorf("%s jitter %v drift %v seed %d: RMS error = %.4f s, want < %v", tt.dist, tt.jitter, tt.drift, seed, rms, tt.jitter/3)
			}
		}
	}
}

// TestClientClockSettingsChange: moving the drift and network sliders in the
// middle of a run causes a transient, after which the error is back within
// the jitter; the estimate never runs backwards meanwhile.
func TestClientClockSettingsChange(t *testing.T) {
	s := clockSettings(0.05, 0.01, "normal", 0)
	c := NewClientClock(&s.Settings, 2)
	prev := math.Inf(-1)
	clockRun(c, 150, func(now, est float64) {
		switch {
		case now >= 100:
			s.Latency, s.Jitter, s.JitterDist = 0.15, 0.02, "lognormal"
		case now >= 50:
			s.ClockDrift = 0.005
		}
		if est < prev {
			t.Fatalf("Estimate(%v) = %v after %v, want non-decreasing", now, est, prev)
		}
		prev = est
		// Transients: the 32 s history mixes the old rate with the new.
		bound := 0.01
		switch {
		case now >= 100 && now < 110, now >= 50 && now < 85:
			bound = 0.05
		case now >= 110:
			bound = 0.02
		}
		if e := math.Abs(est - now); e > bound {
			t.Fatalf("Estimate(%v) off by %.4f s, want ≤ %v", now, e, bound)
		}
	})
}

// TestClientClockMonotonic: the estimate never decreases for non-decreasing
// t, under heavy jitter, drift both ways and uneven frame times (including
// repeated times).
func TestClientClockMonotonic(t *testing.T) {
	for _, dist := range JitterDists {
		for _, drift := range []float64{-0.01, 0, 0.01} {
			s := clockSettings(0.02, 0.2, dist, drift)
			c := NewClientClock(&s.Settings, 5)
			r := geom.NewRNG(6, 0)
			now, prev := 0.0, math.Inf(-1)
			for now < 120 {
				est := c.Estimate(now)
				if est < prev {
					t.Fatalf("%s drift %v: Estimate(%v) = %v after %v, want non-decreasing", dist, drift, now, est, prev)
				}
				prev = est
				if u := r.Float64(); u > 0.1 { // one frame in ten repeats the time
					now += u * u * 0.05
				}
			}
		}
	}
}

// FuzzClientClockMonotonic fuzzes the settings and frame steps: the estimate
// is finite and never runs backwards.
func FuzzClientClockMonotonic(f *testing.F) {
	f.Add(uint64(1), 0.05, 0.01, uint8(1), 0.0, uint64(7))
	f.Add(uint64(2), 0.0, 0.5, uint8(2), 0.01, uint64(8))
	f.Add(uint64(3), 1.0, 0.3, uint8(3), -0.01, uint64(9))
	f.Fuzz(func(t *testing.T, seed uint64, latency, jitter float64, dist uint8, drift float64, steps uint64) {
		clamp := func(x, lo, hi float64) float64 {
			if !(x >= lo) {
				return lo
			}
			return min(x, hi)
		}
		s := clockSettings(clamp(latency, 0, 1), clamp(jitter, 0, 0.5), JitterDists[int(dist)%len(JitterDists)], clamp(drift, -0.01, 0.01))
		c := NewClientClock(&s.Settings, seed)
		r := geom.NewRNG(steps, 0)
		now, prev := 0.0, math.Inf(-1)
		for range 2000 {
			est := c.Estimate(now)
			if math.IsNaN(est) || math.IsInf(est, 0) || est < prev {
				t.Fatalf("Estimate(%v) = %v after %v, want finite and non-decreasing", now, est, prev)
			}
			prev = est
			now += r.Float64() * r.Float64() * 0.1
		}
	})
}

// TestClientClockFrameRateIndependent: the exchanges and the estimate do not
// depend on how often the clock is looked at; 60 Hz and 144 Hz frames give
// the very same estimate at the instants they share.
func TestClientClockFrameRateIndependent(t *testing.T) {
	s := clockSettings(0.05, 0.03, "pareto", 0.002)
	a, b := NewClientClock(&s.Settings, 9), NewClientClock(&s.Settings, 9)
	for f := 0; f <= 144*30; f++ {
		tb := float64(f) / 144
		eb := b.Estimate(tb)
		if f%12 == 0 { // every 12th frame at 144 Hz is every 5th at 60 Hz
			ta := float64(f/12*5) / 60
			for g := f/12*5 - 4; g < f/12*5; g++ {
				if g >= 0 {
					a.Estimate(float64(g) / 60)
				}
			}
			if ea := a.Estimate(ta); ea != eb {
				t.Fatalf("Estimate(%v) = %v at 60 Hz, %v at 144 Hz", tb, ea, eb)
			}
		}
	}
}

func TestClientClockDeterministic(t *testing.T) {
	s := clockSettings(0.05, 0.02, "lognormal", 0.001)
	a, b, c := NewClientClock(&s.Settings, 11), NewClientClock(&s.Settings, 11), NewClientClock(&s.Settings, 12)
	differ := 0
	for f := range 3600 {
		now := float64(f) / 60
		ea, eb, ec := a.Estimate(now), b.Estimate(now), c.Estimate(now)
		if ea != eb {
			t.Fatalf("seed 11: Estimate(%v) = %v and %v", now, ea, eb)
		}
		if ea != ec {
			differ++
		}
	}
	if differ < 3000 {
		t.Errorf("seeds 11 and 12 differ on %d of 3600 frames, want nearly all", differ)
	}
}

// TestClientClockLocal: the unsynced local clock is visibly wrong, by 5 to
// 15 s either way, and runs at 1 + drift.
func TestClientClockLocal(t *testing.T) {
	neg := 0
	for seed := range uint64(200) {
		c := NewClientClock(&clockSettings(0.05, 0.01, "normal", 0.01).Settings, seed)
		o := c.local(0)
		if a := math.Abs(o); a < 5 || a >= 15 {
			t.Errorf("seed %d: local(0) = %v, want |local(0)| in [5, 15)", seed, o)
		}
		if o < 0 {
			neg++
		}
		if got, want := c.local(10)-o, 10*1.01; math.Abs(got-want) > 1e-9 {
			t.Errorf("seed %d: local clock ran %v s in 10 s, want %v", seed, got, want)
		}
	}
	if neg < 70 || neg > 130 {
		t.Errorf("%d of 200 seeds have a negative offset, want about half", neg)
	}
}

// TestClientClockRead: Read gives Estimate's and Local's bits, while the
// drift changes under it, whether or not the time was advanced to
// already, and for a time before the latest (which advances nothing).
func TestClientClockRead(t *testing.T) {
	s := clockSettings(0.05, 0.02, "pareto", 0.002)
	a, b := NewClientClock(&s.Settings, 5), NewClientClock(&s.Settings, 5)
	for f := range 40 * 60 {
		tf := float64(f) / 60
		if f == 20*60 {
			s.ClockDrift = -0.003
		}
		if f%2 == 0 {
			a.Advance(tf)
			b.Advance(tf)
		}
		if f%7 == 3 {
			back := tf - 0.01
			est, local := a.Read(back)
			if want, wantL := b.Estimate(back), b.Local(back); est != want || local != wantL {
				t.Fatalf("Read(%v) after %v = %v, %v, want %v, %v", back, tf, est, local, want, wantL)
			}
		}
		est, local := a.Read(tf)
		if want := b.Estimate(tf); est != want {
			t.Fatalf("Read(%v) estimate = %v, want Estimate's %v", tf, est, want)
		}
		if want := b.Local(tf); local != want {
			t.Fatalf("Read(%v) local = %v, want Local's %v", tf, local, want)
		}
	}
}

// TestClientClockPingsIndependent: the clock's pings draw from their own
// streams, so making a clock does not change the link's packets.
func TestClientClockPingsIndependent(t *testing.T) {
	s := clockSettings(0.05, 0.02, "normal", 0)
	want := linkTrace(s, 13, 100)
	l := s.link(13)
	c := NewClientClock(&s.Settings, 13)
	for i := range 100 {
		c.Estimate(float64(i) * 0.05)
		if got := l.Send(float64(i)*0.05, nil); got[0] != want[i][0] {
			t.Fatalf("packet %d arrives at %v beside a clock, %v without", i, got[0], want[i][0])
		}
	}
}

// clockRankRuns are runs whose samples' order by round trip the tests
// check: with distinct round trips, with equal ones (no jitter: mostly the
// same round trip, so the order is by age), and with many equal and many
// distinct ones (jittered replies' arrivals rounded to a grid), the last
// coarser and with a drift.
var clockRankRuns = []struct {
	name          string
	jitter, drift float64
	grid          float64 // replies' arrivals rounded to multiples of this, s; 0 for none
}{
	{"lognormal", 0.01, 0.001, 0},
	{"no jitter", 0, 0.001, 0},
	{"ties", 0.01, 0, 0.004},
	{"coarse ties", 0.02, -0.002, 0.01},
}

func BenchmarkClientClockEstimate(b *testing.B) {
	s := clockSettings(0.05, 0.01, "normal", 0.001)
	c := NewClientClock(&s.Settings, 1)
	var sink float64
	for i := 0; i < b.N; i++ {
		sink += c.Estimate(float64(i) / 60)
	}
	netBenchSink = sink
}

// TestClientClockByRTT checks the order the fit takes its samples in,
// kept a ping at a time, against the history sorted afresh by round trip
// and age after every reply, in the first three of clockRankRuns (the
// last one's drift, over this test's hour, leaves no two round trips
// equal).
func TestClientClockByRTT(t *testing.T) {
	for _, tt := range clockRankRuns[:3] {
		s := clockSettings(0.05, tt.jitter, "lognormal", tt.drift)
		c := NewClientClock(&s.Settings, 7)
		ties := 0 // neighbours in the order with the same round trip
		for f := range 60 * 60 {
			tf := float64(f) / 60
			if tt.grid > 0 {
				for i := range c.inflight {
					p := &c.inflight[i]
					p.t3 = max(p.t1, math.Round(p.t3/tt.grid)*tt.grid)
				}
			}
			c.Advance(tf)
			ages := make([]int, c.n)
			for a := range ages {
				ages[a] = a
			}
			slot := func(age int) int { return (c.head + c.n - 1 - age) % clockHistory }
			slices.SortStableFunc(ages, func(a, b int) int {
				return cmp.Compare(c.samples[slot(a)].delta, c.samples[slot(b)].delta)
			})
			for i := 1; i < len(ages); i++ {
				if c.samples[slot(ages[i])].delta == c.samples[slot(ages[i-1])].delta {
					ties++
				}
			}
			for i, a := range ages {
				if got := int(c.byRTT[i]); got != slot(a) {
					t.Fatalf("%s at t = %v: byRTT[%d] = slot %d (round trip %v), want slot %d (round trip %v, age %d)",
						tt.name, tf, i, got, c.samples[got].delta, slot(a), c.samples[slot(a)].delta, a)
				}
			}
		}
		if tt.name != "lognormal" && ties == 0 {
			t.Errorf("%s: no two samples had the same round trip; the case tests nothing", tt.name)
		}
	}
}

// TestClientClockGolden pins the estimates to the bit under every jitter
// distribution with drift (see goldentest).
func TestClientClockGolden(t *testing.T) {
	var b strings.Builder
	for _, dist := range JitterDists {
		s := clockSettings(0.05, 0.03, dist, 0.003)
		c := NewClientClock(&s.Settings, 2026)
		d := goldentest.NewDigest()
		clockRun(c, 60, func(now, est float64) { d.Add(est) })
		b.WriteString(dist + " " + d.String() + "\n")
	}
	goldentest.Check(t, "clock.golden", b.String(), *update)
}

func ExampleClientClock_Estimate() {
	s := labNet() // latency 50 ms, jitter 10 ms (half-normal)
	s.ClockDrift = 0.001
	c := NewClientClock(&s.Settings, 1)
	fmt.Printf("unsynced local clock at t = 0: %+.3f s\n", c.local(0))
	for _, t := range []float64{0, 1, 10, 60} {
		fmt.Printf("t = %2.0f s: estimate off by %+.1f ms\n", t, (c.Estimate(t)-t)*1000)
	}
	// Output:
	// unsynced local clock at t = 0: +12.134 s
	// t =  0 s: estimate off by -9.4 ms
	// t =  1 s: estimate off by +3.5 ms
	// t = 10 s: estimate off by +0.2 ms
	// t = 60 s: estimate off by -1.4 ms
}

// netBenchSink keeps the benchmarks' results alive.
var netBenchSink float64

// TestClientClockDelayDrawsFollowSettings moves the jitter distribution and
// the jitter (through 0) between pings, out of step with the batches the
// clock draws its pings' delays in (see delayDraws), and checks both legs
// of every ping against the delays worked out from the same draws one at a
// time, and that every distribution had pings whose batch was worked out
// ahead for it.
func TestClientClockDelayDrawsFollowSettings(t *testing.T) {
	s := clockSettings(0.05, 0.01, "lognormal", 0)
	s.UplinkRatio = 1.5
	c := NewClientClock(&s.Settings, 9)
	r := geom.NewRNG(9, clockStreamPing)
	r.Open() // the first exchange's two draws
	r.Open()
	jitters := [...]float64{0.02, 0, 0.005, 0.02, 0.3}
	var ahead [jitterLognormal + 1]int
	for i := range 800 {
		s.JitterDist = JitterDists[i/5%len(JitterDists)]
		s.Jitter = jitters[i/7%len(jitters)]
		u1, u2 := r.Open(), r.Open()
		up, down := c.upDown(float64(i) / 2)
		wantUp := (float64(s.Latency*s.UplinkRatio) + ExtraDelay(s.JitterDist, s.Jitter, u1)) + 0.0
		wantDown := (s.Latency + ExtraDelay(s.JitterDist, s.Jitter, u2)) + 0.0
		if up != wantUp || down != wantDown {
			t.Fatalf("ping %d (%s, jitter %v): delays %v, %v, want %v, %v", i, s.JitterDist, s.Jitter, up, down, wantUp, wantDown)
		}
		if k := jitterKindOf(s.JitterDist); s.Jitter != 0 && c.draws.kind == k {
			ahead[k]++
		}
	}
	for k, n := range ahead {
		if n < 20 {
			t.Errorf("%s: %d pings with their units worked out ahead, want at least 20", JitterDists[k], n)
		}
	}
}

// TestClientClockKeptRates: Read's estimate and local clock, from the
// rates and the end of the slew the clock keeps, are the bits of the
// formulas written out from its state, through slews, steps and drift
// changes.
func TestClientClockKeptRates(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3} {
		ns := clockSettings(0.05, 0.03, "lognormal", 0.002)
		c := NewClientClock(&ns.Settings, seed)
		slewEnded := 0
		for f := 1; f <= 60*120; f++ {
			tt := float64(f) / 60
			switch f {
			case 60 * 30:
				ns.ClockDrift = -0.004
			case 60 * 70:
				ns.ClockDrift = 0.01
			}
			est, local := c.Read(tt)
			l := c.locBase + float64((tt-c.tBase)*(1+c.drift))
			want := c.segE + float64((l-c.segL)*c.segRate)
			if l > c.segEnd {
				slewEnded++
				end := c.segE + float64((c.segEnd-c.segL)*c.segRate)
				want = end + float64((l-c.segEnd)*(1+c.fitF))
			}
			if est != want || local != l-c.offset0 {
				t.Fatalf("seed %d: Read(%v) = %v, %v, want %v, %v", seed, tt, est, local, want, l-c.offset0)
			}
		}
		if slewEnded == 0 {
			t.Errorf("seed %d: no frame read past the end of a slew", seed)
		}
	}
}

// TestClockSlopeWrittenOut checks clockSlope, whose span test finds the
// earliest and latest sample by comparisons, against the fit written out
// with min and max, to the bit, over random samples whose span falls on
// either side of clockMinSpan.
func TestClockSlopeWrittenOut(t *testing.T) {
	r := geom.NewRNG(11, 1)
	var smp [clockHistory]clockSample
	okSeen, shortSeen := 0, 0
	for trial := range 3000 {
		for i := range smp {
			smp[i] = clockSample{l: 100 + 3*r.Float64(), theta: 5 + 0.01*r.Float64(), delta: r.Float64()}
		}
		if trial%7 == 0 {
			smp[3].l = math.Copysign(0, -1) // a zero among them, of either sign
			smp[4].l = 0
		}
		slots := make([]uint8, 1+trial%clockHistory)
		for i := range slots {
			slots[i] = uint8(r.Uint64() % clockHistory)
		}
		var sumL, sumT float64
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, sl := range slots {
			sumL += smp[sl].l
			sumT += smp[sl].theta
			lo, hi = min(lo, smp[sl].l), max(hi, smp[sl].l)
		}
		wantL, wantT := sumL/float64(len(slots)), sumT/float64(len(slots))
		wantF, wantOK := 0.0, hi-lo >= clockMinSpan
		if wantOK {
			var sxx, sxy float64
			for _, sl := range slots {
				dl := smp[sl].l - wantL
				sxx += float64(dl * dl)
				sxy += float64(dl * (smp[sl].theta - wantT))
			}
			wantF = sxy / sxx
			okSeen++
		} else {
			shortSeen++
		}
		gotL, gotT, gotF, gotOK := clockSlope(slots, &smp)
		if math.Float64bits(gotL) != math.Float64bits(wantL) || math.Float64bits(gotT) != math.Float64bits(wantT) ||
			math.Float64bits(gotF) != math.Float64bits(wantF) || gotOK != wantOK {
			t.Fatalf("trial %d: clockSlope = %v, %v, %v, %v, want %v, %v, %v, %v", trial, gotL, gotT, gotF, gotOK, wantL, wantT, wantF, wantOK)
		}
	}
	if okSeen < 100 || shortSeen < 100 {
		t.Errorf("%d fits that span clockMinSpan, %d that do not: want at least 100 of each", okSeen, shortSeen)
	}
}

// TestClientClockKeptFit: the line a clock keeps when a ping leaves its
// fastest quarter as it was is, to the bit, the line a refit gives, on
// every frame of runs whose history fills, with ties of round trip among
// the samples and while the drift changes.
func TestClientClockKeptFit(t *testing.T) {
	for _, tt := range clockRankRuns {
		s := clockSettings(0.05, tt.jitter, "lognormal", tt.drift)
		c := NewClientClock(&s.Settings, 7)
		kept := 0 // frames with a full history and a line of the fastest quarter
		for f := range 120 * 60 {
			tf := float64(f) / 60
			if f == 90*60 {
				s.ClockDrift = -tt.drift // the history renews: new fastest samples
			}
			if tt.grid > 0 {
				for i := range c.inflight {
					p := &c.inflight[i]
					p.t3 = max(p.t1, math.Round(p.t3/tt.grid)*tt.grid)
				}
			}
			c.Advance(tf)
			ref := *c
			ref.fit()
			got := [...]float64{c.fitL, c.fitS, c.fitF, c.fitRate}
			want := [...]float64{ref.fitL, ref.fitS, ref.fitF, ref.fitRate}
			for i := range got {
				if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
					t.Fatalf("%s at t = %v: line (L, S, f, rate) %v, refitted %v", tt.name, tf, got, want)
				}
			}
			if c.n == clockHistory && c.fitTop {
				kept++
			}
		}
		if kept < 30*60 {
			t.Errorf("%s: %d frames with a full history fitted through its fastest quarter, want at least %d", tt.name, kept, 30*60)
		}
	}
}
