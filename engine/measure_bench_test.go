package engine

import (
	"testing"

	"interplab/engine/technique"
)

// BenchmarkMeasure is measure alone on the stress view's frame
// (BenchmarkSimStep's): 10,000 entities × the lab's techniques, the
// samples filled once beforehand, so that the figure is the metrics' work
// per frame and nothing of the techniques'.
func BenchmarkMeasure(b *testing.B) {
	m := stressSim(b)
	n := m.n
	outs := make([][]technique.Sample, len(m.batches))
	for k, bt := range m.batches {
		outs[k] = make([]technique.Sample, n)
		for lo := 0; lo < n; lo += fillChunk {
			bt.Fill(lo, outs[k][lo:min(lo+fillChunk, n)])
		}
	}
	fm := frameMeasure{snapSq: 1e-4, inv4: 1e8, cur: 0, prev1: 2, prev2: 1}
	for b.Loop() {
		for lo := 0; lo < n; lo += fillChunk {
			for k := range m.batches {
				m.measure(k, lo, outs[k][lo:min(lo+fillChunk, n)], &fm)
			}
		}
	}
}
