package netsim

import (
	"math"
	"testing"
)

// TestUnrealDupOnlyUndelayed: Unreal duplicates (PktDup) only packets it
// does not delay, so with PktLag > 0 none arrives twice; with PktLag 0 the
// share PktDup does.
func TestUnrealDupOnlyUndelayed(t *testing.T) {
	for _, tt := range []struct {
		latency, want float64
	}{{0.05, 0}, {0, 0.05}} {
		s := labNet()
		s.NetSim, s.Latency, s.Jitter, s.Duplicate = "unreal", tt.latency, 0, 0.05
		_, arr := netSimSends(&s, 20000, 20)
		dups := 0
		for _, a := range arr {
			if len(a) > 1 {
				dups++
			}
		}
		if share := float64(dups) / float64(len(arr)); math.Abs(share-tt.want) > 0.006 || tt.want == 0 && dups > 0 {
			t.Errorf("PktLag %g ms, PktDup 5: %.4f of the packets duplicated, want %.2f", tt.latency*1000, share, tt.want)
		}
	}
}
