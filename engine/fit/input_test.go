package fit

import (
	"errors"
	"math"
	"strings"
	"testing"

	"interplab/engine"
	"interplab/engine/geom"
)

// trace builds a one-entity trace of sends at the given times with the
// delays given (NaN for lost).
func trace(sent, delay []float64) *engine.Trace {
	t := &engine.Trace{Name: "hand", Entities: 1}
	for k := range sent {
		t.Packets = append(t.Packets, engine.TracePacket{Seq: k, Sent: sent[k], Arrive: sent[k] + delay[k], Pos: geom.Vec3{float64(k), 0, 0}})
	}
	return t
}

func TestFitTooShortOrSparse(t *testing.T) {
	steady := func(n int, lostEvery int) *engine.Trace {
		sent, delay := make([]float64, n), make([]float64, n)
		for k := range n {
			sent[k] = float64(k) / 20
			delay[k] = 0.05 + 0.01*float64(k%7)/7
			if lostEvery > 0 && k%lostEvery != 0 {
				delay[k] = math.NaN()
			}
		}
		return trace(sent, delay)
	}
	for _, c := range []struct {
		name string
		tr   *engine.Trace
		part string
	}{
		{"30 sends", steady(30, 0), "sendRate"},
		{"15 of 300 arrived", steady(300, 20), "latency"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Fit(c.tr, Options{})
			var fe *Error
			if !errors.As(err, &fe) || fe.Part != c.part {
				t.Fatalf("Fit = %v, want an *Error naming %s", err, c.part)
			}
			if !strings.Contains(err.Error(), "want at least") {
				t.Errorf("error %q does not say what is needed", err)
			}
		})
	}
	t.Run("8 s: no drift, no changes", func(t *testing.T) {
		l, err := Fit(steady(160, 0), Options{})
		if err != nil {
			t.Fatal(err)
		}
		parts := map[string]bool{}
		for _, w := range l.Warnings {
			parts[w.Part] = true
		}
		for _, p := range []string{"clockDrift", "scenario", "loss"} {
			if !parts[p] {
				t.Errorf("no warning for %s in %+v", p, l.Warnings)
			}
		}
	})
	t.Run("entity", func(t *testing.T) {
		_, err := Fit(steady(100, 0), Options{Entity: 3})
		var fe *Error
		if !errors.As(err, &fe) || fe.Part != "entity" {
			t.Fatalf("Fit = %v, want an *Error naming the entity", err)
		}
	})
}

// TestFitMixedRates: a server that sent at 20 Hz, then 60 Hz, keeps both
// rates and says so; its loss is counted per send at each.
func TestFitMixedRates(t *testing.T) {
	var sent, delay []float64
	rng := geom.NewRNG(5, 1)
	for ts := 0.0; ts < 60; {
		sent = append(sent, ts)
		d := 0.04 + 0.01*rng.Float64()
		if rng.Float64() < 0.02 {
			d = math.NaN()
		}
		delay = append(delay, d)
		if ts < 40 {
			ts += 1.0 / 20
		} else {
			ts += 1.0 / 60
		}
	}
	l, err := Fit(trace(sent, delay), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Rates) != 2 || math.Abs(l.Rates[0].Rate-20) > 0.01 || math.Abs(l.Rates[1].Rate-60) > 0.01 {
		t.Fatalf("rates = %+v, want 20 Hz then 60 Hz", l.Rates)
	}
	if l.SendRate != 20 {
		t.Errorf("sendRate = %g, want 20 (the rate that held longest)", l.SendRate)
	}
	if math.Abs(l.Rates[0].Share-2.0/3) > 0.01 {
		t.Errorf("20 Hz share = %g, want 2/3 of the time", l.Rates[0].Share)
	}
	warned := false
	for _, w := range l.Warnings {
		warned = warned || w.Part == "sendRate" && strings.Contains(w.Msg, "mixed send rates")
	}
	if !warned {
		t.Errorf("no mixed-rate warning in %+v", l.Warnings)
	}
	if math.Abs(l.Loss/0.02-1) > tolLoss {
		t.Errorf("loss = %g, want 0.02 ± 20%%", l.Loss)
	}
	if math.Abs(l.Latency-0.04) > tolLatency || l.JitterDist != "uniform" {
		t.Errorf("latency %g %s, want 0.04 uniform", l.Latency, l.JitterDist)
	}
}

// TestFitClockJump: a client clock that jumps forward by 80 ms reads as a
// latency step at the jump (one-way timing cannot tell the two apart), not
// as jitter.
func TestFitClockJump(t *testing.T) {
	tr := capture(t, func(s *engine.Settings) { s.Latency, s.Jitter, s.JitterDist = 0.05, 0.01, "uniform" }, 0, 0)
	for i := range tr.Packets {
		if p := &tr.Packets[i]; p.Arrive > 70 {
			p.Arrive += 0.08
		}
	}
	l, err := Fit(tr, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Events) != 1 || l.Events[0].Kind != "step" || math.Abs(l.Events[0].At-70) > tolAt {
		t.Fatalf("events = %+v, want one step at 70 s", l.Events)
	}
	if math.Abs(l.Jitter/0.01-1) > tolJitter {
		t.Errorf("jitter = %g, want 0.01: the jump must not widen it", l.Jitter)
	}
}

// TestFitJitteredSends: a server whose sends wander ±4% about 30 Hz sends
// at one rate, not several.
func TestFitJitteredSends(t *testing.T) {
	var sent, delay []float64
	rng := geom.NewRNG(9, 1)
	for ts := 0.0; ts < 60; ts += (1 + 0.08*(rng.Float64()-0.5)) / 30 {
		sent = append(sent, ts)
		delay = append(delay, 0.03+0.01*rng.Float64())
	}
	l, err := Fit(trace(sent, delay), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Rates) != 1 || math.Abs(l.SendRate-30) > 0.3 {
		t.Errorf("rates = %+v, sendRate %g: want one rate near 30 Hz", l.Rates, l.SendRate)
	}
	for _, w := range l.Warnings {
		if w.Part == "sendRate" {
			t.Errorf("warning %q for one jittered rate", w.Msg)
		}
	}
}

// FuzzFit: any valid trace fits or fails with an *Error, never panics,
// and a fit has finite numbers.
func FuzzFit(f *testing.F) {
	f.Add([]byte{10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 200, 255, 0, 3}, uint16(300))
	f.Add([]byte{0, 0, 0, 255, 255, 1}, uint16(60))
	f.Fuzz(func(t *testing.T, data []byte, n uint16) {
		if len(data) == 0 {
			return
		}
		count := int(n%2000) + 1
		var sent, delay []float64
		ts := 0.0
		for k := range count {
			b := data[k%len(data)]
			ts += 0.005 + float64(b%16)/200
			d := 0.01 + float64(b)/1000
			if b%37 == 0 {
				d = math.NaN()
			}
			sent = append(sent, ts)
			delay = append(delay, d)
		}
		l, err := Fit(trace(sent, delay), Options{})
		if err != nil {
			var fe *Error
			if !errors.As(err, &fe) {
				t.Fatalf("error %v is not an *Error", err)
			}
			return
		}
		for _, v := range []float64{l.Latency, l.Jitter, l.Loss, l.BurstLength, l.Duplicate, l.Reorder, l.ClockDrift, l.SendRate} {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("non-finite fit %+v", l)
			}
		}
		if s := l.Settings(engine.Defaults()); s.Validate() != nil {
			t.Fatalf("fitted settings invalid: %v", s.Validate())
		}
	})
}
