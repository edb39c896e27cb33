package buffer

import (
	"math"
	"testing"

	"interplab/engine/technique"
)

// Read benchmarks: one op is one Sample of a primed technique at the next
// 60 Hz frame, against 20 Hz snapshots of a moving, turning entity, so the
// pair of snapshots changes every third frame as in the lab. The lab's
// budget is 10,000 entities × 5 techniques in 4 ms of WebAssembly a frame,
// 80 ns an entity-technique.

const (
	bufBenchFrame  = 1.0 / 60
	bufBenchPeriod = 0.05
	bufBenchSnaps  = 250 // primed snapshots: 12.5 s of frames before a rewind
)

// bufBenchPrimed returns a buffer holding bufBenchSnaps snapshots of bufCircle,
// and the number of frames that stay within them.
func bufBenchPrimed(s *bufLab, hermite bool) (*bufTech, int) {
	b := newBufferIn(s, hermite).(*bufTech)
	for i := range bufBenchSnaps {
		b.Receive(bufCircle(float64(i)*bufBenchPeriod), float64(i)*bufBenchPeriod+0.03)
	}
	frames := int((float64(bufBenchSnaps-1)*bufBenchPeriod - s.DelayCap - 0.1) / bufBenchFrame)
	return b, frames
}

// bufBenchRewind puts b's render clock back to before its first snapshot,
// keeping the snapshots, so a benchmark can replay them.
func bufBenchRewind(b *bufTech) {
	b.dly, b.rt, b.next = math.NaN(), 0, b.first
	b.keepNext()
}

func bufBenchSample(bn *testing.B, s *bufLab, hermite bool) {
	b, frames := bufBenchPrimed(s, hermite)
	if len(b.ring) < bufBenchSnaps {
		bn.Fatalf("ring holds %d, want %d primed snapshots", len(b.ring), bufBenchSnaps)
	}
	var sink technique.Sample
	bn.ReportAllocs()
	k := 0
	for bn.Loop() {
		if k == frames {
			bufBenchRewind(b)
			k = 0
		}
		sink = b.Sample(0.2 + float64(k)*bufBenchFrame)
		k++
	}
	if sink.Mode != technique.Interpolate {
		bn.Fatalf("last Sample.Mode = %v, want interpolate", sink.Mode)
	}
}

func BenchmarkSampleBuffer(bn *testing.B) {
	bufBenchSample(bn, bufSettings(), false)
}

func BenchmarkSampleHermite(bn *testing.B) {
	bufBenchSample(bn, bufSettings(), true)
}

func BenchmarkSampleBufferAdaptive(bn *testing.B) {
	s := bufSettings()
	s.Adaptive = true
	bufBenchSample(bn, s, false)
}

func BenchmarkSampleBufferEuler(bn *testing.B) {
	s := bufSettings()
	s.Rotation = "euler"
	bufBenchSample(bn, s, false)
}

// BenchmarkReceiveBuffer is one Receive of a new snapshot into an adaptive
// buffer: the ring append plus the p95 window update (window 40).
func BenchmarkReceiveBuffer(bn *testing.B) {
	s := bufSettings()
	s.Adaptive = true
	bufBenchReceive(bn, s)
}

// BenchmarkReceiveBufferFixed is one Receive into a fixed-delay buffer.
func BenchmarkReceiveBufferFixed(bn *testing.B) {
	bufBenchReceive(bn, bufSettings())
}

func bufBenchReceive(bn *testing.B, s *bufLab) {
	b := newBufferIn(s, false)
	snaps := make([]technique.Snapshot, 64)
	for i := range snaps {
		snaps[i] = bufCircle(float64(i) * bufBenchPeriod)
	}
	bn.ReportAllocs()
	k := 0
	for bn.Loop() {
		sn := snaps[k%len(snaps)]
		sn.Time = float64(k) * bufBenchPeriod
		b.Receive(sn, sn.Time+0.03+0.001*float64(k%7))
		k++
	}
}

// BenchmarkFrameBuffer is one entity's 60 Hz frame as the lab runs it: a
// Sample, and a Receive every third frame, on the default 8-slot ring.
func BenchmarkFrameBuffer(bn *testing.B) {
	s := bufSettings()
	s.Adaptive = true
	b := newBufferIn(s, false)
	var sink technique.Sample
	bn.ReportAllocs()
	k := 0
	for bn.Loop() {
		now := float64(k) * bufBenchFrame
		if k%3 == 0 {
			b.Receive(bufCircle(float64(k/3)*bufBenchPeriod), now)
		}
		sink = b.Sample(now)
		k++
	}
	if sink.Mode != technique.Interpolate {
		bn.Fatalf("last Sample.Mode = %v, want interpolate", sink.Mode)
	}
}
