package geom

import "testing"

// BenchmarkSincos covers the headings' range, (−π, π].
func BenchmarkSincos(b *testing.B) {
	x, s := -3.0, 0.0
	for i := 0; i < b.N; i++ {
		sn, cs := Sincos(x)
		s += sn + cs
		if x += 0.001; x > 3 {
			x = -3
		}
	}
	detBenchSink = s
}

// BenchmarkNormQuantile draws p as the link does, from uniform numbers,
// so that about 15% fall in the tails.
func BenchmarkNormQuantile(b *testing.B) {
	r := NewRNG(1, 1)
	s := 0.0
	for i := 0; i < b.N; i++ {
		s += NormQuantile(r.Open())
	}
	detBenchSink = s
}
