package epic

import "testing"

var epicSink float32

// BenchmarkEPIC is the loop of the DESIGN's performance anchor (the seed's
// C++ at 5.9 ns/op): one op is an Update at t, then Reads at t+0.0166,
// t+0.0333 and t+0.05; t advances 0.05 per op, and a fresh interpolator,
// started at time −1, is made every 100,000 ops. The results are summed so
// that nothing can be optimised away, as the C++ loop it is compared with
// does.
func BenchmarkEPIC(b *testing.B) {
	b.ReportAllocs()
	s := Settings[float32]{CalcAhead: 0.2, DisplayBehind: 0.2, SlopTime: 0.5}
	var sx, sy, sz float32
	var e *Interpolator[[3]float32, float32]
	var t float32
	var p, v [3]float32
	for i := range b.N {
		if i%100000 == 0 {
			e, t = New(s, [3]float32{}, [3]float32{}, -1), 0
		}
		e.Update([3]float32{t, 1, 0}, [3]float32{1, 0.5, 0}, t)
		e.Read(t+0.0166, &p, &v)
		sx, sy, sz = sx+(p[0]+v[0]), sy+p[1], sz+p[2]
		e.Read(t+0.0333, &p, &v)
		sx, sy, sz = sx+(p[0]+v[0]), sy+p[1], sz+p[2]
		e.Read(t+0.05, &p, &v)
		sx, sy, sz = sx+(p[0]+v[0]), sy+p[1], sz+p[2]
		t += 0.05
	}
	epicSink = sx + sy + sz
}
