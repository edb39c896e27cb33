package epic

import (
	"math/rand/v2"
	"testing"

	"interplab/engine/geom"
)

// TestReadPosUpdateWrittenOut checks readPos against Read and update
// against Update, for both variants and a snapping DisplayBehind:
// the same position, result and state after every call, over packets
// in and out of order and reads within and past SlopTime.
func TestReadPosUpdateWrittenOut(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	vec := func() geom.Vec3 { return geom.Vec3{100 * r.Float64(), 100 * r.Float64(), r.Float64()} }
	for _, s := range []Settings[float64]{{CalcAhead: 0.05, DisplayBehind: 0.1, SlopTime: 0.2}, {CalcAhead: 0.02, DisplayBehind: 0.00005, SlopTime: 0.1}} {
		for _, fix := range []bool{false, true} {
			pos, vel := vec(), vec()
			fast, ref := New(s, pos, vel, 0), New(s, pos, vel, 0)
			fast.fix, ref.fix = fix, fix
			now := 0.0
			for i := range 2000 {
				now += 0.016
				if i%3 == 0 {
					tick := now - 0.3*r.Float64() // some older than the newest
					p, v := vec(), vec()
					if got, want := fast.update(&p, &v, tick), ref.Update(p, v, tick); got != want || *fast != *ref {
						t.Fatalf("%+v fix %v, packet %d: update = %v, state %+v,\nwant %v, %+v", s, fix, i, got, *fast, want, *ref)
					}
				}
				at := now + 0.4*(r.Float64()-0.5) // some past SlopTime
				got := geom.Vec3{-1, -1, -1}
				var want, wantVel geom.Vec3
				gok, wok := fast.readPos(at, &got), ref.Read(at, &want, &wantVel)
				if gok != wok || got != want || *fast != *ref {
					t.Fatalf("%+v fix %v, read %d: readPos = %v, %v, state %+v,\nwant %v, %v, %+v", s, fix, i, gok, got, *fast, wok, want, *ref)
				}
			}
		}
	}
}
