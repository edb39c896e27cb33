package epic

import (
	"testing"

	"interplab/engine/geom"
	"interplab/engine/param"
	"interplab/engine/technique"
)

// benchSampleEPIC reads the EPIC technique (a Sample per op, as the runner
// does each frame), with a packet every third read: a 20 Hz stream shown at
// 60 Hz.
func benchSampleEPIC(b *testing.B, fix bool) {
	s := param.Defaults(Params)
	tech := newTech(&s, fix)
	var sink technique.Sample
	now := 0.0
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if i%3 == 0 {
			tech.Receive(technique.Snapshot{Time: now, Pos: geom.Vec3{now, 1, 0}, Vel: geom.Vec3{1, 0.5, 0}}, now)
		}
		sink = tech.Sample(now + 0.0166)
		now += 1.0 / 60
		i++
	}
	_ = sink
}

func BenchmarkSampleEPIC(b *testing.B)    { benchSampleEPIC(b, false) }
func BenchmarkSampleEPICFix(b *testing.B) { benchSampleEPIC(b, true) }
