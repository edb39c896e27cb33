package netsim

import (
	"math"
	"testing"

	"interplab/engine/geom"
)

// TestJitterScaleWrittenOut checks jitterScale, a product with a factor
// from a table, against the factors written out, to the bit, for every
// kind over jitters across the range.
func TestJitterScaleWrittenOut(t *testing.T) {
	r := geom.NewRNG(3, 1)
	for range 2000 {
		jitter := r.Float64() * math.Pow(10, -4+4*r.Float64())
		want := [...]float64{
			jitterUniform:   2 * jitter,
			jitterNormal:    jitter * math.Sqrt(math.Pi/2),
			jitterPareto:    jitter * (linkParetoShape - 1),
			jitterLognormal: jitter,
		}
		for k, w := range want {
			if got := jitterScale(jitterKind(k), jitter); math.Float64bits(got) != math.Float64bits(w) {
				t.Fatalf("jitterScale(%s, %v) = %v, want %v", JitterDists[k], jitter, got, w)
			}
		}
	}
}

// TestLinkDuplicateDelays checks both arrivals of duplicated packets
// against the delays worked out from the same draws one packet at a time,
// under every distribution: a packet's own delay comes from the unit kept
// for the batch, its copy's (whose unit the link does not work out ahead)
// the long way.
func TestLinkDuplicateDelays(t *testing.T) {
	for _, dist := range JitterDists {
		s := linkSettings(0.04, 0.02, dist)
		s.Duplicate = 0.4
		l := s.link(5)
		delay, dup := geom.NewRNG(5, linkStreamDelay), geom.NewRNG(5, linkStreamDup)
		var arr []float64
		dups := 0
		for i := range 400 {
			sent := float64(i) / 20
			u1, u2, ud := delay.Open(), delay.Open(), dup.Float64()
			want := []float64{sent + (s.Latency + ExtraDelay(dist, s.Jitter, u1))}
			if ud < s.Duplicate {
				want = append(want, sent+0+(s.Latency+ExtraDelay(dist, s.Jitter, u2)))
				dups++
			}
			arr = l.Send(sent, arr[:0])
			if len(arr) != len(want) || arr[0] != want[0] || len(arr) == 2 && arr[1] != want[1] {
				t.Fatalf("%s, packet %d: arrivals %v, want %v", dist, i, arr, want)
			}
		}
		if dups < 100 {
			t.Errorf("%s: %d duplicates, want at least 100", dist, dups)
		}
	}
}
