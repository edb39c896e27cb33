package netsim

import (
	"math"
	"testing"

	"interplab/engine/geom"
)

// TestUnityTransportJitter: from the same draws, Transport 2.3's simulator
// spreads SendDelayMS 27 with SendJitterMS 12 over 15 to 38 ms (mean 26.5),
// 2.6's one-sided over 27 to 38 ms (mean 29.75, 13 in 24 at exactly 27).
func TestUnityTransportJitter(t *testing.T) {
	p := UnityNetworkSimulator{SendDelayMS: 27, SendJitterMS: 12}
	tests := []struct {
		v26          bool
		lo, hi       int
		mean, at27   float64
		meanTol, tol float64
	}{
		{v26: false, lo: 15, hi: 38, mean: 26.5, at27: 1.0 / 24},
		{v26: true, lo: 27, hi: 38, mean: 29.75, at27: 13.0 / 24},
	}
	const n = 200000
	for _, tt := range tests {
		r := geom.NewRNG(7, netSimStreamUnity)
		lo, hi, sum, at27 := math.MaxInt, math.MinInt, 0, 0
		for range n {
			d := p.DelayMS(r.Float64(), tt.v26)
			lo, hi, sum = min(lo, d), max(hi, d), sum+d
			if d == 27 {
				at27++
			}
		}
		mean, share := float64(sum)/n, float64(at27)/n
		if lo != tt.lo || hi != tt.hi {
			t.Errorf("2.6 %v: delays %d to %d ms, want %d to %d", tt.v26, lo, hi, tt.lo, tt.hi)
		}
		if math.Abs(mean-tt.mean) > 0.05 {
			t.Errorf("2.6 %v: mean delay %.3f ms, want %.2f", tt.v26, mean, tt.mean)
		}
		if math.Abs(share-tt.at27) > 0.005 {
			t.Errorf("2.6 %v: %.4f of the packets at exactly 27 ms, want %.4f", tt.v26, share, tt.at27)
		}
	}
}

// TestUnityTransportVersions: the same seed over netSim unity and unity-2.6
// sends every packet with the same draws, so 2.6's one-sided jitter never
// delivers a packet earlier than 2.3's and delivers many later, 3.25 ms on average.
func TestUnityTransportVersions(t *testing.T) {
	s := labNet()
	s.Latency, s.Jitter = 0.015, 0.012 // SendDelayMS 27, SendJitterMS 12
	s.TickRate = 128                   // the server's frames quantize the delay least
	s.NetSim = "unity"
	sent, old := netSimSends(&s, 20000, 20)
	s.NetSim = "unity-2.6"
	_, new := netSimSends(&s, 20000, 20)
	later, diff := 0, 0.0
	for i := range sent {
		if len(old[i]) != 1 || len(new[i]) != 1 {
			t.Fatalf("packet %d: %v and %v, want one arrival each", i, old[i], new[i])
		}
		if new[i][0] < old[i][0] {
			t.Fatalf("packet %d arrives at %g s under 2.6, before 2.3's %g s", i, new[i][0], old[i][0])
		}
		if new[i][0] > old[i][0] {
			later++
		}
		diff += new[i][0] - old[i][0]
	}
	// 29.75 - 26.5 ms on average before the frames round it.
	if d := diff / float64(len(sent)) * 1000; later < len(sent)/5 || d < 2.5 || d > 4 {
		t.Errorf("%d of %d packets later under 2.6, by %.2f ms on average; want a fifth or more, by about 3.25 ms", later, len(sent), d)
	}
}

// TestUnityReliableResend: on NetworkTransform's default reliable-sequenced
// pipeline a packet the simulator drops is resent and arrives late, in send
// order; with UseUnreliableDeltas it never arrives.
func TestUnityReliableResend(t *testing.T) {
	for _, unreliable := range []bool{false, true} {
		s := labNet()
		s.NetSim, s.Latency, s.Jitter, s.Loss, s.Duration = "unity", 0.05, 0, 0.05, 3600
		l := s.link(3)
		l.FollowUnreliableDeltas(&unreliable)
		const n = 40000
		lost, late, last := 0, 0, math.Inf(-1)
		for k := range n {
			tm := float64(k) / 20
			a := l.Send(tm, nil)
			if len(a) == 0 {
				lost++
				continue
			}
			if len(a) != 1 {
				t.Fatalf("packet %d arrives %v, want once", k, a)
			}
			if a[0] < last {
				t.Fatalf("packet %d arrives at %g s, before the one sent before it (%g s)", k, a[0], last)
			}
			last = a[0]
			// 50 ms and the next 60 Hz frame on time; a resend waits 64 ms
			// more (the minimum resend time).
			if a[0]-tm >= 0.05+0.064 {
				late++
			}
		}
		lostShare, lateShare := float64(lost)/n, float64(late)/n
		switch {
		case !unreliable && (lost != 0 || math.Abs(lateShare-0.05) > 0.006):
			t.Errorf("reliable: %d lost, %.4f late; want none lost and about 0.05 late", lost, lateShare)
		case unreliable && (math.Abs(lostShare-0.05) > 0.006 || late != 0):
			t.Errorf("UseUnreliableDeltas: %.4f lost, %d late; want about 0.05 lost and none late", lostShare, late)
		}
	}
}
