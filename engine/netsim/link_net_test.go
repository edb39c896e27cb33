package netsim

import (
	"math"
	"slices"
	"testing"
)

// sendAll sends n packets at rate Hz over l and returns, per packet, its
// send time and arrivals.
func sendAll(l *Link, n int, rate float64) (sent []float64, arrivals [][]float64) {
	for k := range n {
		t := float64(k) / rate
		sent = append(sent, t)
		arrivals = append(arrivals, l.Send(t, nil))
	}
	return sent, arrivals
}

// TestLinkBandwidth checks the bottleneck against its definition: sending
// faster than the bandwidth, arrivals (at a fixed latency) are spaced by at
// least one serialization time, so no window carries more than the limit;
// the queue never holds more than queueLimit packets, so no packet waits
// longer than queueLimit serialization times; the excess is tail-dropped.
func TestLinkBandwidth(t *testing.T) {
	for _, tt := range []struct {
		bw      float64
		size    int
		limit   int
		rate    float64
		latency float64
	}{
		{bw: 64000, size: 200, limit: 50, rate: 60, latency: 0.05},
		{bw: 1e6, size: 1200, limit: 1000, rate: 128, latency: 0.02},
		{bw: 28000, size: 200, limit: 5, rate: 20, latency: 0},
	} {
		s := labNet()
		s.Jitter, s.Latency = 0, tt.latency
		s.Bandwidth, s.PacketSize, s.QueueLimit = tt.bw, tt.size, tt.limit
		l := s.link(7)
		const n = 20000
		sent, arr := sendAll(l, n, tt.rate)
		ser := float64(8*tt.size) / tt.bw
		var all []float64
		for k, a := range arr {
			for _, x := range a {
				if wait := x - sent[k] - tt.latency; wait > float64(tt.limit)*ser+1e-9 {
					t.Fatalf("bw %g: packet %d waited %g s, more than queueLimit × %g s", tt.bw, k, wait, ser)
				}
				all = append(all, x)
			}
		}
		slices.Sort(all)
		for i := 1; i < len(all); i++ {
			if gap := all[i] - all[i-1]; gap < ser-1e-9 {
				t.Fatalf("bw %g: arrivals %d and %d %g s apart, less than the serialization time %g s", tt.bw, i-1, i, gap, ser)
			}
		}
		// Throughput over the whole run: at most the limit.
		span := all[len(all)-1] - all[0]
		if bits := float64(8*tt.size*(len(all)-1)) / span; bits > tt.bw*(1+1e-9) {
			t.Errorf("bw %g: throughput %g bit/s, over the limit", tt.bw, bits)
		}
		offered := tt.rate * float64(8*tt.size)
		if drops := l.tailDrops; (offered > tt.bw) != (drops > 0) {
			t.Errorf("bw %g, offered %g bit/s: %d tail drops", tt.bw, offered, drops)
		}
	}
}

// TestLinkReorder checks netem's reordering over 100k packets: the share
// of packets sent ahead is reorder with gap 1 and 1/(gap − 1 + 1/reorder)
// with a larger gap, within 5 standard errors; a packet sent ahead arrives
// at its send time, before the packets in flight.
func TestLinkReorder(t *testing.T) {
	for _, tt := range []struct {
		reorder float64
		gap     int
	}{{0.1, 1}, {0.25, 5}, {0.02, 1}, {0.5, 3}} {
		s := labNet()
		s.Latency, s.Jitter = 0.1, 0.01
		s.Reorder, s.ReorderGap = tt.reorder, tt.gap
		l := s.link(3)
		const n = 100_000
		sent, arr := sendAll(l, n, 100)
		ahead := 0
		for k, a := range arr {
			if a[0] == sent[k] {
				ahead++
				if k > 0 && len(arr[k-1]) > 0 && arr[k-1][0] != sent[k-1] && arr[k-1][0] < a[0] {
					t.Fatalf("reorder %g: packet %d sent ahead arrives after packet %d", tt.reorder, k, k-1)
				}
			}
		}
		want := 1 / (float64(tt.gap-1) + 1/tt.reorder)
		got := float64(ahead) / n
		if se := math.Sqrt(want * (1 - want) / n); math.Abs(got-want) > 5*se {
			t.Errorf("reorder %g gap %d: share %g, want %g ± %g", tt.reorder, tt.gap, got, want, 5*se)
		}
		if l.reordered != ahead {
			t.Errorf("reorder %g: counted %d, saw %d", tt.reorder, l.reordered, ahead)
		}
	}
}

// TestLinkOutage checks that nothing arrives inside an outage, with the
// backlog held to its end (burst) or dropped, whatever the jitter,
// duplicates and reordering.
func TestLinkOutage(t *testing.T) {
	s := labNet()
	s.Duration, s.SendRate, s.TickRate = 300, 128, 128
	s.Jitter, s.JitterDist, s.Duplicate, s.Reorder = 0.05, "pareto", 0.1, 0.05
	s.Scenario = ScenarioCustom
	s.ScenarioText = `outage at=10 for=2 backlog=burst
outage at=50.5 for=0.3 backlog=drop
spike at=100 for=1 delay=500ms
outage at=101 for=1 backlog=burst
outage at=200 for=30 backlog=drop`
	if err := s.validate(); err != nil {
		t.Fatal(err)
	}
	sc, _ := ScenarioOf(&s.Settings, s.Duration)
	l := s.link(11)
	_, arr := sendAll(l, int(s.Duration*s.SendRate), s.SendRate)
	atEnd := map[float64]int{}
	for _, a := range arr {
		for _, x := range a {
			if o, ok := sc.Outage(x); ok {
				t.Fatalf("arrival at %g s, inside the outage of line %d", x, o.Line)
			}
			atEnd[x]++
		}
	}
	for _, e := range sc.Events {
		if e.Kind != EventOutage {
			continue
		}
		if got := atEnd[e.At+e.For]; e.Drop != (got == 0) {
			t.Errorf("outage of line %d (drop %v): %d arrivals at its end", e.Line, e.Drop, got)
		}
	}
}

// TestClockAsymmetry: with an asymmetric path and no jitter, round-trip
// clock sync is off by half the difference of the two ways, and the round
// trip is their sum.
func TestClockAsymmetry(t *testing.T) {
	s := labNet()
	s.Latency, s.Jitter, s.UplinkRatio = 0.04, 0, 3
	c := NewClientClock(&s.Settings, 5)
	c.Advance(10)
	if got, want := c.Estimate(10)-10, (0.12-0.04)/2; math.Abs(got-want) > 1e-9 {
		t.Errorf("estimate error %g s, want (up − down)/2 = %g s", got, want)
	}
	if got := c.RTT(); math.Abs(got-0.16) > 1e-9 {
		t.Errorf("RTT() = %g, want 0.16", got)
	}
}

// TestLinkScenarioLatency: the link follows the scenario's latency ramp.
func TestLinkScenarioLatency(t *testing.T) {
	s := labNet()
	s.Jitter, s.Scenario = 0, "ramp-40-180"
	l := s.link(1)
	for _, tt := range []struct{ sent, delay float64 }{{0, 0.04}, {10, 0.04}, {30, 0.11}, {50, 0.18}, {59, 0.18}} {
		a := l.Send(tt.sent, nil)
		if len(a) != 1 || math.Abs(a[0]-tt.sent-tt.delay) > 1e-12 {
			t.Errorf("Send(%g) = %v, want one arrival %g s later", tt.sent, a, tt.delay)
		}
	}
}

func FuzzParseScenario(f *testing.F) {
	for _, b := range builtinScenarios {
		f.Add(b.text)
	}
	f.Add("step at=1 for=2 latency=10ms loss=1%\nramp at=3 for=1 bandwidth=2mbit")
	s := labNet()
	f.Fuzz(func(t *testing.T, text string) {
		sc, err := ParseScenario(text)
		if err != nil {
			return
		}
		again, err := ParseScenario(sc.Text())
		if err != nil {
			t.Fatalf("ParseScenario(Text()) = %v for\n%s", err, sc.Text())
		}
		if again.Text() != sc.Text() {
			t.Fatalf("Text does not round-trip:\n%s\nthen\n%s", sc.Text(), again.Text())
		}
		for tm := 0.0; tm < 100; tm += 0.37 {
			c := sc.Conditions(&s.Settings, tm)
			for _, v := range []float64{c.Latency, c.Jitter, c.Loss, c.Bandwidth, c.Extra, c.Drop} {
				if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
					t.Fatalf("Conditions(%g) = %+v", tm, c)
				}
			}
		}
	})
}

// TestLinkIdeal: with ideal on, every packet arrives once after exactly the
// latency; switched back, the link gives the packets it would have given
// (with random loss; a burst's chain or a queue stands still meanwhile).
func TestLinkIdeal(t *testing.T) {
	s := labNet()
	s.Jitter, s.Loss, s.Duplicate, s.Scenario = 0.03, 0.1, 0.05, "outage-2s"
	ref := s.link(9)
	_, want := sendAll(ref, 600, 20)

	l := s.link(9)
	for k := range 600 {
		sent := float64(k) / 20
		s.Ideal = k >= 100 && k < 300
		got := l.Send(sent, nil)
		if s.Ideal {
			if len(got) != 1 || got[0] != sent+s.Latency {
				t.Fatalf("ideal: packet %d arrives %v, want once at %g", k, got, sent+s.Latency)
			}
			continue
		}
		if !slices.Equal(got, want[k]) {
			t.Fatalf("packet %d arrives %v, want %v as without the switch", k, got, want[k])
		}
	}
}
