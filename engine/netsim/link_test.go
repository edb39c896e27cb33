package netsim

import (
	"flag"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"interplab/engine/geom"
	"interplab/engine/internal/goldentest"
	"interplab/engine/param"
)

// netRun is the lab's default network and the length of the run it
// serves, as the tests start from them.
type netRun struct {
	Settings
	Duration float64 // s
}

// labNet returns the lab's defaults: its default link, 60 s runs.
func labNet() netRun { return netRun{param.Defaults(Params), 60} }

// link returns the link of r for the seed.
func (r *netRun) link(seed uint64) *Link { return NewLink(&r.Settings, &r.Duration, seed) }

// validate checks r as the lab does: each row's range, and the scenario
// against the run.
func (r *netRun) validate() error {
	for i := range Params {
		p := &Params[i]
		if p.Kind == param.Enum && p.Choice(&r.Settings) < 0 {
			return &param.FieldError{Field: p.Name, Value: p.EnumValue(&r.Settings), Allowed: p.Allowed()}
		}
		if err := p.Check(p.Get(&r.Settings)); err != nil {
			return err
		}
	}
	_, err := ScenarioOf(&r.Settings, r.Duration)
	return err
}

// linkSettings returns the defaults with a given network, for tests.
func linkSettings(latency, jitter float64, dist string) *netRun {
	s := labNet()
	s.Latency, s.Jitter, s.JitterDist = latency, jitter, dist
	s.Loss, s.Duplicate = 0, 0
	return &s
}

// linkExtras sends n packets 10 ms apart and returns each one's extra delay
// over the latency.
func linkExtras(t *testing.T, s *netRun, seed uint64, n int) []float64 {
	t.Helper()
	l := s.link(seed)
	extras := make([]float64, 0, n)
	var arr []float64
	for i := range n {
		sent := float64(i) * 0.01
		arr = l.Send(sent, arr[:0])
		if len(arr) != 1 {
			t.Fatalf("packet %d: %d arrivals without loss or duplication, want 1", i, len(arr))
		}
		extras = append(extras, arr[0]-sent-s.Latency)
	}
	return extras
}

// TestLinkJitterDistributions draws 200,000 delays per distribution and
// checks the mean (the jitter setting, for every distribution), the median
// and the 90th percentile against the distribution's closed forms, and that
// no extra delay is negative.
func TestLinkJitterDistributions(t *testing.T) {
	const (
		n      = 200000
		jitter = 0.02
	)
	sigma := jitter * math.Sqrt(math.Pi/2)
	lambda := jitter * (linkParetoShape - 1)
	lomaxQ := func(p float64) float64 { return lambda * (math.Pow(1-p, -1/linkParetoShape) - 1) }
	lognQ := func(z float64) float64 { return jitter * math.Exp(z-0.5) } // z = Φ⁻¹(p), σ = 1
	tests := []struct {
		dist      string
		median    float64
		p90       float64
		meanTol   float64 // relative; the standard error of the mean is sd/√n
		rightSkew bool
	}{
		// sd 0.58·jitter: standard error 0.0013·jitter.
		{dist: "uniform", median: jitter, p90: 1.8 * jitter, meanTol: 0.01},
		// sd 0.76·jitter: standard error 0.0017·jitter.
		{dist: "normal", median: sigma * 0.6744897501960817, p90: sigma * 1.6448536269514722, meanTol: 0.01},
		// sd 2.2·jitter (finite, but the sample variance converges
		// slowly with α = 2.5): standard error 0.005·jitter.
		{dist: "pareto", median: lomaxQ(0.5), p90: lomaxQ(0.9), meanTol: 0.03, rightSkew: true},
		// sd 1.3·jitter: standard error 0.003·jitter.
		{dist: "lognormal", median: lognQ(0), p90: lognQ(1.2815515655446004), meanTol: 0.02, rightSkew: true},
	}
	for _, tt := range tests {
		t.Run(tt.dist, func(t *testing.T) {
			x := linkExtras(t, linkSettings(0.05, jitter, tt.dist), 11, n)
			var sum float64
			for i, e := range x {
				if !(e >= 0) {
					t.Fatalf("packet %d: extra delay %v, want ≥ 0", i, e)
				}
				sum += e
			}
			mean := sum / n
			slices.Sort(x)
			median, p90 := x[n/2], x[n*9/10]
			t.Logf("mean %.6f median %.6f (want %.6f) p90 %.6f (want %.6f)", mean, median, tt.median, p90, tt.p90)
			if math.Abs(mean-jitter) > tt.meanTol*jitter {
				t.Errorf("mean extra delay = %.6f, want %v ± %.0f%%", mean, jitter, tt.meanTol*100)
			}
			// Quantiles of n draws are within ~1% of the true ones here.
			if math.Abs(median-tt.median) > 0.015*tt.median {
				t.Errorf("median extra delay = %.6f, want %.6f ± 1.5%%", median, tt.median)
			}
			if math.Abs(p90-tt.p90) > 0.015*tt.p90 {
				t.Errorf("p90 extra delay = %.6f, want %.6f ± 1.5%%", p90, tt.p90)
			}
			if skew := mean > 1.2*median; skew != tt.rightSkew {
				t.Errorf("mean %.6f > 1.2·median %.6f is %v, want %v (right skew)", mean, median, skew, tt.rightSkew)
			}
		})
	}
}

// TestLinkExtraQuantiles checks the inverse CDFs at exact points and that
// they are increasing and non-negative over the whole range of draws.
func TestLinkExtraQuantiles(t *testing.T) {
	const j = 0.01
	tests := []struct {
		dist    string
		u, want float64
	}{
		{"uniform", 0.25, 0.005},
		{"uniform", 0.5, 0.01},
		{"normal", 0.5, j * math.Sqrt(math.Pi/2) * 0.6744897501960817},
		{"pareto", 0.5, 1.5 * j * (math.Pow(2, 0.4) - 1)},
		{"pareto", 0.99, 1.5 * j * (math.Pow(100, 0.4) - 1)},
		{"lognormal", 0.5, j * math.Exp(-0.5)},
	}
	for _, tt := range tests {
		if got := ExtraDelay(tt.dist, j, tt.u); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("linkExtra(%q, %v, %v) = %v, want %v", tt.dist, j, tt.u, got, tt.want)
		}
	}
	ends := []float64{0x1p-53, 1e-9, 0.001}
	for _, dist := range JitterDists {
		prev := -1.0
		for _, u := range append(ends, 0.01, 0.1, 0.3, 0.5, 0.7, 0.9, 0.99, 0.999, 1-1e-9, 1-0x1p-53) {
			got := ExtraDelay(dist, j, u)
			if !(got >= 0) || math.IsInf(got, 0) || got < prev {
				t.Errorf("linkExtra(%q, %v, %v) = %v after %v, want finite, ≥ 0 and increasing", dist, j, u, got, prev)
			}
			prev = got
		}
		if got := ExtraDelay(dist, 0, 0.999); got != 0 {
			t.Errorf("linkExtra(%q, 0, 0.999) = %v, want 0", dist, got)
		}
	}
}

func TestLinkZeroJitter(t *testing.T) {
	for _, dist := range JitterDists {
		s := linkSettings(0.08, 0, dist)
		l := s.link(3)
		var arr []float64
		for i := range 1000 {
			sent := float64(i) / 20
			arr = l.Send(sent, arr[:0])
			if len(arr) != 1 || arr[0] != sent+0.08 {
				t.Fatalf("%s: Send(%v) = %v, want [%v]", dist, sent, arr, sent+0.08)
			}
		}
	}
}

// linkLossRuns sends n packets and returns the loss rate, the mean length of
// the runs of consecutive lost packets and the number of runs.
func linkLossRuns(s *netRun, seed uint64, n int) (rate, meanRun float64, runs int) {
	l := s.link(seed)
	var arr []float64
	lost, run := 0, 0
	for i := range n {
		arr = l.Send(float64(i)*0.01, arr[:0])
		if len(arr) == 0 {
			lost++
			run++
			continue
		}
		if run > 0 {
			runs++
			run = 0
		}
	}
	if run > 0 {
		runs++
	}
	if runs == 0 {
		return 0, 0, 0
	}
	return float64(lost) / float64(n), float64(lost) / float64(runs), runs
}

// TestLinkLoss checks the long-run loss rate of both models and the mean
// burst length: B for the burst model, 1/(1−loss) for random loss (whose runs
// are geometric too). With burst loss the rate's standard error grows with
// B (the chain's states are correlated): about 0.004 at loss 0.2, B = 10.
func TestLinkLoss(t *testing.T) {
	const n = 200000
	tests := []struct {
		model       string
		loss, burst float64
		wantRate    float64
		wantRun     float64
	}{
		{"random", 0.01, 3, 0.01, 1 / 0.99},
		{"random", 0.2, 3, 0.2, 1 / 0.8},
		{"random", 0.5, 3, 0.5, 2},
		{"burst", 0.01, 3, 0.01, 3},
		{"burst", 0.05, 1, 0.05, 1},
		{"burst", 0.2, 3, 0.2, 3},
		{"burst", 0.2, 10, 0.2, 10},
		{"burst", 0.5, 4.5, 0.5, 4.5},
		// Infeasible: loss 0.8 with bursts of 1 would need P(Good→Bad) = 4;
		// it is clamped to 1 and the loss is B/(B+1) = 0.5.
		{"burst", 0.8, 1, 0.5, 1},
		// Loss 0.9, B = 3 needs 3 > 1 too: 3/4 lost, bursts still 3 long.
		{"burst", 0.9, 3, 0.75, 3},
	}
	for _, tt := range tests {
		s := linkSettings(0.05, 0.01, "normal")
		s.LossModel, s.Loss, s.BurstLength = tt.model, tt.loss, tt.burst
		rate, run, runs := linkLossRuns(s, 5, n)
		t.Logf("%s loss %v burst %v: rate %.4f, mean burst %.3f over %d bursts", tt.model, tt.loss, tt.burst, rate, run, runs)
		if tol := 0.02*tt.wantRate + 0.002*math.Sqrt(tt.burst); math.Abs(rate-tt.wantRate) > tol {
			t.Errorf("%s loss %v burst %v: loss rate = %.4f, want %v ± %.4f", tt.model, tt.loss, tt.burst, rate, tt.wantRate, tol)
		}
		// Run lengths are geometric with mean m: standard deviation
		// √(m(m−1)); allow four standard errors of the mean of the runs.
		tol := 4*math.Sqrt(tt.wantRun*(tt.wantRun-1)/float64(runs)) + 1e-9
		if math.Abs(run-tt.wantRun) > tol {
			t.Errorf("%s loss %v burst %v: mean burst = %.3f packets over %d bursts, want %v ± %.3f", tt.model, tt.loss, tt.burst, run, runs, tt.wantRun, tol)
		}
	}
}

func TestLinkBurstProbs(t *testing.T) {
	tests := []struct {
		loss, burst, enter, leave float64
	}{
		{0, 3, 0, 1.0 / 3},
		{0.2, 3, 0.2 / (3 * 0.8), 1.0 / 3},
		{0.5, 1, 1, 1},
		{0.8, 1, 1, 1}, // clamped
		{0.2, 0.5, 0.25, 1},
		{1, 2, 1, 0.5},
	}
	for _, tt := range tests {
		enter, leave := linkBurstProbs(tt.loss, tt.burst)
		if math.Abs(enter-tt.enter) > 1e-15 || math.Abs(leave-tt.leave) > 1e-15 {
			t.Errorf("linkBurstProbs(%v, %v) = %v, %v, want %v, %v", tt.loss, tt.burst, enter, leave, tt.enter, tt.leave)
		}
		if enter < 1 && tt.loss > 0 {
			// The stationary share of Bad is the loss.
			if pi := enter / (enter + leave); math.Abs(pi-tt.loss) > 1e-12 {
				t.Errorf("linkBurstProbs(%v, %v): stationary loss %v, want %v", tt.loss, tt.burst, pi, tt.loss)
			}
		}
	}
}

func TestLinkDuplicate(t *testing.T) {
	const n = 200000
	for _, dup := range []float64{0, 0.05, 0.3} {
		s := linkSettings(0.05, 0.01, "pareto")
		s.Duplicate, s.Loss, s.LossModel = dup, 0.1, "random"
		l := s.link(8)
		var arr []float64
		delivered, doubled, later := 0, 0, 0
		for i := range n {
			arr = l.Send(float64(i), arr[:0])
			switch len(arr) {
			case 0:
			case 1:
				delivered++
			case 2:
				delivered++
				doubled++
				if arr[1] < arr[0] {
					later++
				}
			default:
				t.Fatalf("packet %d arrived %d times, want at most 2", i, len(arr))
			}
		}
		// The share of delivered packets with a copy; standard error
		// √(0.3·0.7/180000) ≈ 0.0011.
		if got := float64(doubled) / float64(delivered); math.Abs(got-dup) > 0.005 {
			t.Errorf("duplicate %v: %.4f of delivered packets doubled, want %v ± 0.005", dup, got, dup)
		}
		// Copies have independent delays: the copy comes first about
		// half the time.
		if doubled > 0 {
			if got := float64(later) / float64(doubled); math.Abs(got-0.5) > 0.03 {
				t.Errorf("duplicate %v: copy arrived first for %.3f of doubled packets, want 0.5 ± 0.03", dup, got)
			}
		}
	}
}

// linkTrace sends n packets 50 ms apart; trace[i] holds packet i's arrivals.
func linkTrace(s *netRun, seed uint64, n int) [][]float64 {
	l := s.link(seed)
	trace := make([][]float64, n)
	for i := range trace {
		trace[i] = l.Send(float64(i)*0.05, nil)
	}
	return trace
}

func TestLinkDeterministic(t *testing.T) {
	s := linkSettings(0.05, 0.03, "lognormal")
	s.Loss, s.LossModel, s.Duplicate = 0.1, "burst", 0.1
	a, b := linkTrace(s, 77, 5000), linkTrace(s, 77, 5000)
	for i := range a {
		if !slices.Equal(a[i], b[i]) {
			t.Fatalf("seed 77 packet %d: %v then %v", i, a[i], b[i])
		}
	}
	c := linkTrace(s, 78, 5000)
	same := 0
	for i := range a {
		if slices.Equal(a[i], c[i]) {
			same++
		}
	}
	// Only packets lost under both seeds (no arrivals) can coincide.
	if same > 1000 {
		t.Errorf("seeds 77 and 78 gave the same arrivals for %d of 5000 packets", same)
	}
}

// TestLinkStreamsIndependent: each setting governs only its own part of the
// trace. Adding loss leaves the survivors' delays alone; changing the
// distribution or duplication leaves the loss pattern alone; the delays of
// a distribution are rank-coupled to the others'.
func TestLinkStreamsIndependent(t *testing.T) {
	const n = 4000
	base := linkSettings(0.05, 0.02, "normal")
	ref := linkTrace(base, 9, n)

	lossy := *base
	lossy.Loss, lossy.LossModel = 0.3, "burst"
	withLoss := linkTrace(&lossy, 9, n)
	lostCount := 0
	for i := range ref {
		if len(withLoss[i]) == 0 {
			lostCount++
			continue
		}
		if !slices.Equal(withLoss[i], ref[i]) {
			t.Fatalf("packet %d: arrivals %v with loss, %v without; want the same", i, withLoss[i], ref[i])
		}
	}
	if lostCount == 0 {
		t.Fatal("loss 0.3 lost nothing")
	}

	for _, dist := range JitterDists {
		other := lossy
		other.JitterDist, other.Duplicate = dist, 0.2
		tr := linkTrace(&other, 9, n)
		for i := range tr {
			if (len(tr[i]) == 0) != (len(withLoss[i]) == 0) {
				t.Fatalf("%s with duplicates: packet %d lost = %v, want %v as with normal", dist, i, len(tr[i]) == 0, len(withLoss[i]) == 0)
			}
		}
	}

	// Rank coupling: the packet with the largest normal delay has the
	// largest delay under every distribution.
	slowest := func(tr [][]float64) int {
		k := 0
		for i := range tr {
			if tr[i][0]-float64(i)*0.05 > tr[k][0]-float64(k)*0.05 {
				k = i
			}
		}
		return k
	}
	want := slowest(ref)
	for _, dist := range JitterDists {
		s := *base
		s.JitterDist = dist
		if got := slowest(linkTrace(&s, 9, n)); got != want {
			t.Errorf("%s: slowest packet is %d, want %d as under normal", dist, got, want)
		}
	}
}

// TestLinkReorders: jitter larger than the send interval reorders packets.
func TestLinkReorders(t *testing.T) {
	s := linkSettings(0.05, 0.05, "normal") // mean extra 50 ms, packets 50 ms apart
	tr := linkTrace(s, 1, 2000)
	swaps := 0
	for i := 1; i < len(tr); i++ {
		if tr[i][0] < tr[i-1][0] {
			swaps++
		}
	}
	if swaps < 100 {
		t.Errorf("%d of 2000 packets overtook their predecessor, want ≥ 100", swaps)
	}
}

func TestLinkUnknownNames(t *testing.T) {
	for _, tt := range []struct {
		name string
		edit func(*netRun)
	}{
		{"jitterDist", func(s *netRun) { s.JitterDist = "cauchy" }},
		{"lossModel", func(s *netRun) { s.Loss, s.LossModel = 0.1, "gilbert" }},
	} {
		s := linkSettings(0.05, 0.01, "normal")
		tt.edit(s)
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Send with an unknown %s did not panic", tt.name)
				}
			}()
			s.link(1).Send(0, nil)
		}()
	}
}

func BenchmarkLinkSend(b *testing.B) {
	for _, dist := range JitterDists {
		b.Run(dist, func(b *testing.B) {
			s := linkSettings(0.05, 0.01, dist)
			s.Loss, s.LossModel, s.Duplicate = 0.05, "burst", 0.01
			l := s.link(1)
			arr := make([]float64, 0, 2)
			for i := 0; i < b.N; i++ {
				arr = l.Send(float64(i)*0.05, arr[:0])
			}
		})
	}
}

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

// TestLinkGolden pins the arrival times of every jitter distribution, with
// burst loss and duplicates, to the bit.
func TestLinkGolden(t *testing.T) {
	var b strings.Builder
	for _, dist := range JitterDists {
		for _, model := range LossModels {
			s := linkSettings(0.05, 0.03, dist)
			s.Loss, s.LossModel, s.BurstLength, s.Duplicate = 0.1, model, 4, 0.05
			d := goldentest.NewDigest()
			l := s.link(2026)
			var arr []float64
			for i := range 5000 {
				arr = l.Send(float64(i)/20, arr[:0])
				d.Add(arr...)
			}
			b.WriteString(dist + " " + model + " " + d.String() + "\n")
		}
	}
	goldentest.Check(t, "link.golden", b.String(), *update)
}

func ExampleLink_Send() {
	s := labNet()
	s.Latency, s.Jitter, s.JitterDist = 0.05, 0.02, "pareto"
	s.Loss, s.LossModel, s.Duplicate = 0.2, "random", 0.1
	l := s.link(1)
	var arrivals []float64
	for i := range 10 {
		sent := float64(i) / 20
		arrivals = l.Send(sent, arrivals[:0])
		fmt.Printf("sent %.2f s: arrives %.3f\n", sent, arrivals)
	}
	// Output:
	// sent 0.00 s: arrives [0.055]
	// sent 0.05 s: arrives [0.103]
	// sent 0.10 s: arrives [0.153]
	// sent 0.15 s: arrives [0.200]
	// sent 0.20 s: arrives [0.340 0.262]
	// sent 0.25 s: arrives [0.302]
	// sent 0.30 s: arrives [0.389 0.354]
	// sent 0.35 s: arrives [0.411]
	// sent 0.40 s: arrives [0.451]
	// sent 0.45 s: arrives []
}

// FuzzLinkSend: whatever the settings within their ranges, a packet arrives
// at most twice, never before sent + latency, and at a finite time.
func FuzzLinkSend(f *testing.F) {
	f.Add(uint64(1), 0.05, 0.01, uint8(1), 0.1, true, 3.0, 0.05)
	f.Add(uint64(2), 1.0, 0.5, uint8(2), 0.9, false, 1.0, 0.5)
	f.Add(uint64(3), 0.0, 0.0, uint8(3), 0.0, true, 50.0, 0.0)
	f.Fuzz(func(t *testing.T, seed uint64, latency, jitter float64, dist uint8, loss float64, burst bool, burstLength, dup float64) {
		in := func(x, lo, hi float64) bool { return x >= lo && x <= hi }
		if !in(latency, 0, 1) || !in(jitter, 0, 0.5) || !in(loss, 0, 0.9) || !in(burstLength, 1, 50) || !in(dup, 0, 0.5) {
			t.Skip()
		}
		s := linkSettings(latency, jitter, JitterDists[int(dist)%len(JitterDists)])
		s.Loss, s.BurstLength, s.Duplicate, s.LossModel = loss, burstLength, dup, "random"
		if burst {
			s.LossModel = "burst"
		}
		l := s.link(seed)
		var arr []float64
		for i := range 500 {
			sent := float64(i) / 30
			arr = l.Send(sent, arr[:0])
			if len(arr) > 2 {
				t.Fatalf("packet %d arrives %d times", i, len(arr))
			}
			for _, a := range arr {
				if !(a >= sent+latency) || math.IsInf(a, 0) {
					t.Fatalf("packet %d sent at %v arrives at %v, want finite and ≥ %v", i, sent, a, sent+latency)
				}
			}
		}
	})
}

// TestLinkDelayDrawsFollowSettings moves the jitter distribution and the
// jitter (through 0) between packets, out of step with the batches the
// link draws its delays in (see delayDraws), and checks every arrival
// against the delay worked out from the same draws one packet at a time,
// and that every distribution had packets whose batch was worked out ahead
// for it.
func TestLinkDelayDrawsFollowSettings(t *testing.T) {
	s := linkSettings(0.04, 0.02, "lognormal")
	l := s.link(7)
	r := geom.NewRNG(7, linkStreamDelay)
	jitters := [...]float64{0.02, 0, 0.005, 0.02, 0.3}
	var ahead [jitterLognormal + 1]int // packets per kind whose unit was worked out ahead
	var arr []float64
	for i := range 800 {
		s.JitterDist = JitterDists[i/5%len(JitterDists)]
		s.Jitter = jitters[i/7%len(jitters)]
		sent := float64(i) / 20
		u1, _ := r.Open(), r.Open()
		want := sent + (s.Latency + ExtraDelay(s.JitterDist, s.Jitter, u1))
		arr = l.Send(sent, arr[:0])
		if len(arr) != 1 || arr[0] != want {
			t.Fatalf("packet %d (%s, jitter %v): arrivals %v, want [%v]", i, s.JitterDist, s.Jitter, arr, want)
		}
		if k := jitterKindOf(s.JitterDist); s.Jitter != 0 && l.draws.kind == k {
			ahead[k]++
		}
	}
	for k, n := range ahead {
		if n < 20 {
			t.Errorf("%s: %d packets with their unit worked out ahead, want at least 20", JitterDists[k], n)
		}
	}
}

// TestLinkBurstFollowsSettings moves the loss and the burst length between
// packets and checks every packet's fate against the Gilbert–Elliott chain
// worked out from the same draws with the probabilities of the moment (the
// link keeps them from one packet to the next while the settings stay).
func TestLinkBurstFollowsSettings(t *testing.T) {
	s := linkSettings(0.04, 0.01, "normal")
	s.LossModel = "burst"
	l := s.link(11)
	r := geom.NewRNG(11, linkStreamLoss)
	losses := [...]float64{0.1, 0.3, 0, 0.3, 0.05}
	bursts := [...]float64{2, 5, 1}
	bad, lost := false, 0
	var arr []float64
	for i := range 2000 {
		s.Loss, s.BurstLength = losses[i/40%len(losses)], bursts[i/70%len(bursts)]
		u := r.Float64()
		if s.Loss <= 0 {
			bad = false
		} else if enter, leave := linkBurstProbs(s.Loss, s.BurstLength); bad {
			bad = u >= leave
		} else {
			bad = u < enter
		}
		arr = l.Send(float64(i)/20, arr[:0])
		if got := len(arr) == 0; got != bad {
			t.Fatalf("packet %d (loss %v, burst %v): lost %v, want %v", i, s.Loss, s.BurstLength, got, bad)
		}
		if bad {
			lost++
		}
	}
	if lost < 100 {
		t.Errorf("%d packets lost, want at least 100", lost)
	}
}

// TestSameString compares strings that share their bytes, equal strings
// that do not, and different ones of the same length.
func TestSameString(t *testing.T) {
	spike := "spike"
	built := strings.Repeat("spi", 1) + "ke" // equal, in other bytes
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"", "", true}, {spike, spike, true}, {spike, built, true}, {spike[:4], built[:4], true},
		{spike, "spika", false}, {spike, spike[:4], false}, {"", spike, false},
	} {
		if got := sameString(c.a, c.b); got != c.want {
			t.Errorf("sameString(%q, %q) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}

// TestKindCache: the kept kind of a distribution is jitterKindOf of the
// name given, as names change, come back, or arrive as other strings with
// the same bytes.
func TestKindCache(t *testing.T) {
	c := newKindCache()
	names := []string{"", "lognormal", "pareto", "pareto", "lognormal", "uniform", "bogus", "", "normal",
		strings.Clone("normal"), strings.Repeat("n", 1) + "ormal", "pareto"}
	for _, name := range names {
		if got, want := c.of(name), jitterKindOf(name); got != want {
			t.Fatalf("of(%q) = %v, want %v", name, got, want)
		}
	}
}

// refreshed returns a copy of l, its random streams and queue its own,
// whose scenario and kinds of the loss model and jitter distribution are
// those of the settings now, found directly.
func refreshed(l *Link) *Link {
	c := *l
	loss, delay, dup, reord := *l.loss.r, *l.delay, *l.dup.r, *l.reorder.r
	c.loss.r, c.delay, c.dup.r, c.reorder.r = &loss, &delay, &dup, &reord
	c.queue = slices.Clone(l.queue)
	s := l.s
	c.scen, _ = ScenarioOf(s, 0)
	c.scenName, c.scText = s.Scenario, s.ScenarioText
	c.lossName, c.lossKind = s.LossModel, lossKindOf(s.LossModel)
	c.dist = kindCache{s.JitterDist, jitterKindOf(s.JitterDist)}
	return &c
}

// TestLinkKeptSettings: a link that keeps what it found of the settings
// (the scenario, the loss model's and the jitter distribution's kinds)
// sends as one given them afresh before every send, while the settings
// change between sends, to other values or to other strings of the same
// bytes.
func TestLinkKeptSettings(t *testing.T) {
	r := labNet()
	r.Latency, r.Jitter, r.Loss, r.Duplicate, r.QueueLimit, r.PacketSize = 0.05, 0.02, 0.2, 0.1, 4, 1000
	l := r.link(5)
	var got, want []float64
	for k := range 3000 {
		switch k % 250 {
		case 0:
			r.LossModel = []string{"random", "burst"}[k/250%2]
		case 40:
			r.LossModel = strings.Clone(r.LossModel)
		case 80:
			r.JitterDist = JitterDists[k/250%len(JitterDists)]
		case 120:
			r.Scenario = []string{ScenarioNone, "spike-300ms", "outage-2s"}[k/250%3]
		case 160:
			r.Bandwidth = []float64{0, 100e3}[k/250%2] // 12.5 packets a second against 20 sent: a queue, full
		case 200:
			r.Scenario, r.JitterDist = strings.Clone(r.Scenario), strings.Clone(r.JitterDist)
		}
		ts := float64(k) / 20
		ref := refreshed(l)
		got, want = l.Send(ts, got[:0]), ref.Send(ts, want[:0])
		if !slices.Equal(got, want) || l.bad != ref.bad || !slices.Equal(l.queue, ref.queue) {
			t.Fatalf("send %d at %v: arrivals %v, bad %v, queue %v; finding the settings again: %v, %v, %v",
				k, ts, got, l.bad, l.queue, want, ref.bad, ref.queue)
		}
	}
}

// TestLinkPacketDraws: packet k sees the k-th draw of each of the loss,
// duplication and reorder streams, whatever the shares were for the
// packets before it: the shares (and the ideal switch) change every few
// packets, going to 0 and back, and each packet's fate is worked out from
// the streams drawn once a packet. A link that left a draw untaken where
// a share of 0 does not read it, and did not make it up, would shift the
// numbers of every packet after.
func TestLinkPacketDraws(t *testing.T) {
	r := labNet()
	r.Latency, r.Jitter, r.LossModel, r.ReorderGap = 0.05, 0, "random", 1
	const seed = 11
	l := r.link(seed)
	lossR, dupR, reordR := geom.NewRNG(seed, linkStreamLoss), geom.NewRNG(seed, linkStreamDup), geom.NewRNG(seed, linkStreamReorder)
	shares := []float64{0, 0.4}
	var got []float64
	for k := range 4000 {
		if k%7 == 0 {
			b := k / 7
			r.Loss, r.Duplicate, r.Reorder = shares[b%2], shares[b/2%2], shares[b/4%2]
			r.Ideal = b%11 == 10
		}
		ts := float64(k) / 20
		uL, uD, uR := lossR.Float64(), dupR.Float64(), reordR.Float64()
		var want []float64
		switch {
		case r.Ideal:
			want = []float64{ts + r.Latency}
		case uL < r.Loss:
		default:
			first := ts + r.Latency
			if uR < r.Reorder {
				first = ts // sent ahead: no latency
			}
			want = append(want, first)
			if uD < r.Duplicate {
				want = append(want, ts+r.Latency)
			}
		}
		if got = l.Send(ts, got[:0]); !slices.Equal(got, want) {
			t.Fatalf("packet %d (loss %v, duplicate %v, reorder %v, ideal %v): arrivals %v, want %v",
				k, r.Loss, r.Duplicate, r.Reorder, r.Ideal, got, want)
		}
	}
}
