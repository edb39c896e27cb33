package netsim

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// netSimSends sends n packets at rate over a link with s and returns every
// send time with its arrivals.
func netSimSends(s *netRun, n int, rate float64) (sent []float64, arr [][]float64) {
	l := s.link(7)
	for k := range n {
		t := float64(k) / rate
		sent = append(sent, t)
		arr = append(arr, l.Send(t, nil))
	}
	return sent, arr
}

// TestNetSimModels checks each engine's simulator model on a steady link
// against what its export sets: the mean delay, the share lost, the frames
// deliveries fall on and (Unreal) the order kept.
func TestNetSimModels(t *testing.T) {
	tests := []struct {
		netSim         string
		loss           float64 // the link's loss
		wantLoss       float64 // the share the model drops
		frames         bool    // deliveries fall on the tickRate grid
		ordered        bool    // never reordered
		meanLo, meanHi float64 // the mean one-way delay, s
	}{
		// Mirror: latency + noise × 2·jitter, frame-quantized (up to one
		// 60 Hz frame more); its loss is a float percent.
		{netSim: "mirror", loss: 0.005, wantLoss: 0.005, frames: true, meanLo: 0.05 + 0.005, meanHi: 0.05 + 0.02 + 1.0/60},
		// Unity's global simulator: delay 60 ms, jitter a whole ms in
		// [-10, 9] (2.6: max(0, it)), float percent loss; NetworkTransform's
		// reliable pipeline resends what is lost (64 ms later), so nothing
		// is lost and a few packets and those held behind them come late.
		{netSim: "unity", loss: 0.005, wantLoss: 0, frames: true, ordered: true, meanLo: 0.0595, meanHi: 0.0595 + 1.0/60 + 0.002},
		{netSim: "unity-2.6", loss: 0.005, wantLoss: 0, frames: true, ordered: true, meanLo: 0.06 + 0.00225, meanHi: 0.06 + 0.00225 + 1.0/60 + 0.002},
		// Unreal: PktLoss is a whole percent, 1.5% written as the nearest, 2%;
		// packets leave in the order sent.
		{netSim: "unreal", loss: 0.015, wantLoss: 0.02, frames: true, ordered: true, meanLo: 0.06, meanHi: 0.06 + 2.0/60},
	}
	for _, tt := range tests {
		t.Run(tt.netSim, func(t *testing.T) {
			s := labNet()
			s.NetSim, s.Loss, s.Duration = tt.netSim, tt.loss, 3600
			sent, arr := netSimSends(&s, 100000, 20)
			lost, sum, n, last := 0, 0.0, 0, math.Inf(-1)
			for i, a := range arr {
				if len(a) == 0 {
					lost++
					continue
				}
				d := a[0] - sent[i]
				if d < 0 {
					t.Fatalf("packet %d arrives %g s before it was sent", i, -d)
				}
				sum += d
				n++
				if f := a[0] * s.TickRate; tt.frames && math.Abs(f-math.Round(f)) > 1e-6 {
					t.Fatalf("packet %d arrives at %.9f s, not on a %g Hz server frame", i, a[0], s.TickRate)
				}
				if tt.ordered && a[0] < last {
					t.Fatalf("packet %d arrives at %g s, before the one sent before it (%g s)", i, a[0], last)
				}
				last = max(last, a[0])
			}
			share := float64(lost) / float64(len(arr))
			if math.Abs(share-tt.wantLoss) > 4*math.Sqrt(tt.wantLoss/float64(len(arr))) || tt.wantLoss == 0 && lost > 0 {
				t.Errorf("lost %.4f of the packets, want %.4f", share, tt.wantLoss)
			}
			if mean := sum / float64(n); mean < tt.meanLo || mean > tt.meanHi {
				t.Errorf("mean one-way delay %.4f s, want in [%.4f, %.4f]", mean, tt.meanLo, tt.meanHi)
			}
		})
	}
}

// TestNetSimIdealAndLab: the network switch (ideal) overrides a simulator,
// and netSim lab is the lab's own link, draw for draw.
func TestNetSimIdealAndLab(t *testing.T) {
	s := labNet()
	s.Loss = 0.05
	_, want := netSimSends(&s, 1000, 20)
	s.NetSim = Lab
	if _, got := netSimSends(&s, 1000, 20); !sameArrivals(got, want) {
		t.Error("netSim lab changed the lab's link")
	}
	for _, name := range Simulators[1:] {
		s.NetSim, s.Ideal = name, true
		sent, got := netSimSends(&s, 100, 20)
		for i, a := range got {
			if len(a) != 1 || a[0] != sent[i]+s.Latency {
				t.Fatalf("netSim %s with ideal: packet %d arrives %v, want once at %g", name, i, a, sent[i]+s.Latency)
			}
		}
	}
}

func sameArrivals(a, b [][]float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if len(a[i]) != len(b[i]) {
			return false
		}
		for j := range a[i] {
			if a[i][j] != b[i][j] {
				return false
			}
		}
	}
	return true
}

// TestNetSimFollowsScenario: a model plays the plan's steps, so a 2 s
// outage drops everything sent in it (the engines have no burst release)
// except on Unity's reliable pipeline, which sends it again until the outage
// is over, and a spike delays what is sent in it.
func TestNetSimFollowsScenario(t *testing.T) {
	for _, name := range Simulators[1:] {
		s := labNet()
		s.NetSim, s.Jitter = name, 0
		s.Scenario, s.ScenarioText = ScenarioCustom, "spike at=10 for=1 delay=300ms\noutage at=20 for=2 backlog=burst"
		sent, arr := netSimSends(&s, 30*20, 20)
		for i, a := range arr {
			tm := sent[i]
			resent := strings.HasPrefix(name, "unity")
			switch {
			case resent && tm >= 20 && tm < 22 && (len(a) != 1 || a[0] < 22 || a[0] > 22.4):
				t.Fatalf("netSim %s: sent at %g s, inside the outage, arrives %v; want resent, after 22 s", name, tm, a)
			case resent && tm >= 22 && tm < 22.4:
				// held behind the resent backlog
			case !resent && tm >= 20 && tm < 22 && len(a) != 0:
				t.Fatalf("netSim %s: sent at %g s, inside the outage, arrives %v; want dropped", name, tm, a)
			case tm >= 10.05 && tm < 11 && (len(a) == 0 || a[0]-tm < 0.3):
				t.Fatalf("netSim %s: sent at %g s, inside the spike, arrives %v; want 300 ms late", name, tm, a)
			case (tm < 10 || tm >= 11.5) && (tm < 20 || tm >= 22) && (len(a) == 0 || a[0]-tm > 0.1):
				t.Fatalf("netSim %s: sent at %g s, outside the scenario, arrives %v", name, tm, a)
			}
		}
	}
}

// TestMirrorNoise: the stand-in for Mathf.PerlinNoise stays in [0, 1],
// moves smoothly (a gradient noise, not independent draws) and averages
// one half, so the export's jitter amplitude of twice the lab's mean jitter
// gives the same mean delay.
func TestMirrorNoise(t *testing.T) {
	sum, n, prev := 0.0, 0, mirrorNoise(0)
	for k := range 200000 {
		x := float32(k) * 0.01
		v := mirrorNoise(x)
		if !(v >= 0 && v <= 1) {
			t.Fatalf("mirrorNoise(%g) = %g, want in [0, 1]", x, v)
		}
		if d := math.Abs(float64(v - prev)); k > 0 && d > 0.05 {
			t.Fatalf("mirrorNoise jumps by %g between %g and %g", d, x-0.01, x)
		}
		prev = v
		sum += float64(v)
		n++
	}
	if mean := sum / float64(n); math.Abs(mean-0.5) > 0.02 {
		t.Errorf("mean of mirrorNoise = %g, want 0.5 ± 0.02", mean)
	}
}

// TestNetSimPlanKeepsUp: a slider moved during a run changes what the model
// plays from the next send on, as it does the lab's link.
func TestNetSimPlanKeepsUp(t *testing.T) {
	s := labNet()
	s.NetSim, s.Jitter = "unreal", 0
	l := s.link(1)
	a := l.Send(1, nil)
	s.Latency = 0.2
	b := l.Send(2, nil)
	if a[0]-1 > 0.07 || b[0]-2 < 0.2 {
		t.Errorf("latency 50 ms then 200 ms: delays %g and %g s", a[0]-1, b[0]-2)
	}
}

// TestNetSimGolden pins what each simulator model delivers for a scenario
// that uses loss, a spike, an outage and a ramp, to the bit
// (testdata/models.golden, rewritten by go test -update): the same
// seed gives the same packets natively, with FMA and in WebAssembly.
func TestNetSimGolden(t *testing.T) {
	var b strings.Builder
	for _, name := range Simulators[1:] {
		s := labNet()
		s.NetSim, s.Loss, s.Duplicate, s.Jitter = name, 0.03, 0.02, 0.02
		s.Scenario, s.ScenarioText = ScenarioCustom, "ramp at=2 for=3 latency=120ms\nspike at=6 for=0.4 delay=200ms\noutage at=8 for=1 backlog=drop"
		sent, arr := netSimSends(&s, 12*20, 20)
		for i, a := range arr {
			fmt.Fprintf(&b, "%s %.17g", name, sent[i])
			for _, x := range a {
				fmt.Fprintf(&b, " %.17g", x)
			}
			b.WriteByte('\n')
		}
	}
	golden := filepath.Join("testdata", "models.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got := b.String(); got != string(want) {
		gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
		for i := range min(len(gl), len(wl)) {
			if gl[i] != wl[i] {
				t.Fatalf("line %d = %q, want %q", i+1, gl[i], wl[i])
			}
		}
		t.Fatalf("%d lines, want %d", len(gl), len(wl))
	}
}
