package engine

import (
	"math"
	"slices"
	"testing"

	"interplab/engine/param"
)

// TestTraceNetwork records traces through the engine's own link at known
// settings and checks that Network gives the settings back. Tolerances (10
// minutes at 20 Hz, 12,000 sends): latency within 0.5 ms; jitter within 8%;
// the jitter distribution exactly; loss the share of sends the trace lost
// (to its rounding) and within 40% of the setting (bursts make the realised
// loss vary: 2.71% for 2% in one case); the loss model exactly and
// burstLength within 30%; duplicate within 0.005; sendRate exactly.
func TestTraceNetwork(t *testing.T) {
	cases := []struct {
		name               string
		latency, jitter    float64
		dist               string
		loss               float64
		model              string
		burst, dup, rate   float64
		entities, duration int
	}{
		{"lan", 0.001, 0.001, "normal", 0, "", 0, 0, 20, 1, 600},
		{"4g", 0.03, 0.015, "lognormal", 0.02, "burst", 4, 0, 20, 2, 600},
		{"wifi", 0.015, 0.008, "pareto", 0.01, "random", 0, 0.01, 30, 1, 400},
		{"uniform", 0.02, 0.01, "uniform", 0.05, "random", 0, 0.02, 20, 3, 600},
		{"bursty", 0.05, 0.02, "pareto", 0.1, "burst", 2, 0.01, 20, 1, 600},
		{"slow", 0.1, 0.04, "normal", 0.03, "random", 0, 0, 10, 1, 1200},
	}
	for _, c := range cases {
		for seed := 1; seed <= 3; seed++ {
			s := Defaults()
			s.Entities, s.Duration, s.Seed, s.SendRate = c.entities, float64(c.duration), seed, c.rate
			s.Latency, s.Jitter, s.JitterDist = c.latency, c.jitter, c.dist
			s.Loss, s.Duplicate = c.loss, c.dup
			if c.model != "" {
				s.LossModel = c.model
			}
			if c.burst > 0 {
				s.BurstLength = c.burst
			}
			tr, err := SyntheticTrace(s)
			if err != nil {
				t.Fatal(err)
			}
			e := tr.Network()
			where := c.name + " seed " + param.FormatNumber(float64(seed))
			if math.Abs(e.Latency-c.latency) > 0.0005 {
				t.Errorf("%s: latency = %v, want %v ± 0.5 ms", where, e.Latency, c.latency)
			}
			if math.Abs(e.Jitter-c.jitter) > 0.08*c.jitter {
				t.Errorf("%s: jitter = %v, want %v ± 8%%", where, e.Jitter, c.jitter)
			}
			if e.JitterDist != c.dist {
				t.Errorf("%s: jitterDist = %q (distances %.3f), want %q", where, e.JitterDist, e.DistFit, c.dist)
			}
			lost, sends, last := 0, 0, -1
			for _, p := range tr.Packets {
				if p.Entity == 0 && p.Seq != last { // a copy repeats its send's seq
					sends, last = sends+1, p.Seq
					if math.IsNaN(p.Arrive) {
						lost++
					}
				}
			}
			if real := float64(lost) / float64(sends); math.Abs(e.Loss-real) > 0.5e-4 || math.Abs(e.Loss-c.loss) > 0.4*c.loss {
				t.Errorf("%s: loss = %v, want %v (lost in the trace) and %v ± 40%%", where, e.Loss, real, c.loss)
			}
			if e.LossModel != c.model {
				t.Errorf("%s: lossModel = %q, want %q", where, e.LossModel, c.model)
			}
			if c.model == "burst" && math.Abs(e.BurstLength-c.burst) > 0.3*c.burst {
				t.Errorf("%s: burstLength = %v, want %v ± 30%%", where, e.BurstLength, c.burst)
			}
			if math.Abs(e.Duplicate-c.dup) > 0.005 {
				t.Errorf("%s: duplicate = %v, want %v ± 0.005", where, e.Duplicate, c.dup)
			}
			if e.SendRate != c.rate {
				t.Errorf("%s: sendRate = %v, want %v", where, e.SendRate, c.rate)
			}
			if e.Sends != c.entities*(c.duration*int(c.rate)+1) {
				t.Errorf("%s: sends = %d, want %d", where, e.Sends, c.entities*(c.duration*int(c.rate)+1))
			}
		}
	}
}

func TestNetworkApply(t *testing.T) {
	s := Defaults()
	s.Duration, s.SendRate, s.TickRate = 120, 64, 64
	s.Latency, s.Jitter, s.JitterDist, s.Loss, s.LossModel, s.BurstLength = 0.04, 0.01, "uniform", 0.05, "burst", 3
	tr, err := SyntheticTrace(s)
	if err != nil {
		t.Fatal(err)
	}
	e := tr.Network()
	base := Defaults() // tickRate 60, below the trace's 64 Hz
	got, names := e.Apply(base)
	if err := got.Validate(); err != nil {
		t.Fatalf("Apply(Defaults()) gives invalid settings: %v", err)
	}
	want := []string{"latency", "jitter", "jitterDist", "loss", "lossModel", "burstLength", "duplicate", "tickRate", "sendRate"}
	if !slices.Equal(names, want) {
		t.Errorf("Apply names = %v, want %v", names, want)
	}
	if got.TickRate != 64 || got.SendRate != 64 || got.JitterDist != "uniform" || got.LossModel != "burst" {
		t.Errorf("Apply = tickRate %v sendRate %v jitterDist %s lossModel %s, want 64 64 uniform burst",
			got.TickRate, got.SendRate, got.JitterDist, got.LossModel)
	}
	if got.Delay != base.Delay || got.Entities != base.Entities {
		t.Error("Apply changed a setting that is not the network's")
	}

	// Out-of-range measurements are clamped to the parameter table.
	big := NetworkEstimate{Latency: 3, Jitter: 2, Loss: 0.95, Fields: []string{"latency", "jitter", "loss"}}
	got, _ = big.Apply(Defaults())
	if got.Latency != 1 || got.Jitter != 0.5 || got.Loss != 0.9 {
		t.Errorf("Apply(out of range) = latency %v jitter %v loss %v, want 1 0.5 0.9", got.Latency, got.Jitter, got.Loss)
	}
}

// Sequence gaps are losses; a few delays are summarised without a fit.
func TestNetworkGapsAndFewDelays(t *testing.T) {
	var tr Trace
	tr.Entities = 1
	// Sends 0..9 at 10 Hz, 3, 4 and 7 missing; send 8 listed as lost.
	for seq := range 10 {
		switch seq {
		case 3, 4, 7:
			continue
		}
		arrive := float64(seq)/10 + 0.05 + 0.001*float64(seq)
		if seq == 8 {
			arrive = math.NaN()
		}
		tr.Packets = append(tr.Packets, TracePacket{Seq: seq, Sent: float64(seq) / 10, Arrive: arrive})
	}
	e := tr.Network()
	if e.Sends != 10 || e.Delivered != 6 || e.LossRuns != 2 {
		t.Errorf("sends %d delivered %d runs %d, want 10 6 2", e.Sends, e.Delivered, e.LossRuns)
	}
	if e.Loss != 0.4 || e.SendRate != 10 {
		t.Errorf("loss %v sendRate %v, want 0.4 10", e.Loss, e.SendRate)
	}
	if math.Abs(e.Latency-0.05) > 1e-9 || e.Jitter != 0.003833 || e.JitterDist != "" {
		t.Errorf("latency %v jitter %v dist %q, want the least delay 0.05, the mean above it 0.003833, no fit",
			e.Latency, e.Jitter, e.JitterDist)
	}
	if slices.Contains(e.Fields, "jitterDist") {
		t.Errorf("Fields = %v: jitterDist was not measured", e.Fields)
	}
}

func BenchmarkTraceNetwork(b *testing.B) {
	s := Defaults()
	s.Entities, s.Duration, s.Jitter, s.Loss = 1, 600, 0.02, 0.02
	tr, err := SyntheticTrace(s)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		tr.Network()
	}
}
