package epic

import (
	"math/rand/v2"
	"testing"

	"interplab/engine/geom"
)

// updateRef is Update as the seed's port first wrote it, taking its
// vectors by value: the reference for update, which takes them through
// pointers.
func updateRef(e *Interpolator[geom.Vec3, float64], pos, vel geom.Vec3, t float64) bool {
	if t < e.newest {
		return false
	}
	if float64(e.Settings.DisplayBehind) < 0.0001 {
		e.pos, e.vel, e.origin = pos, vel, t
	} else {
		inv, ahead := 1/e.Settings.DisplayBehind, e.Settings.CalcAhead
		for i := 0; i < len(pos); i++ {
			e.pos[i] = e.returnPos[i]
			e.vel[i] = (pos[i] + float64(vel[i]*ahead) - e.pos[i]) * inv
		}
		e.origin = t
		if e.fix {
			e.origin = e.returnTime
		}
	}
	e.newest = t
	return true
}

// TestReadPosUpdateWrittenOut checks readPos against Read and update
// against updateRef, for both variants and a snapping DisplayBehind:
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
					if got, want := fast.update(&p, &v, tick), updateRef(ref, p, v, tick); got != want || *fast != *ref {
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
