package snap

import (
	"testing"

	"interplab/engine/geom"
	"interplab/engine/technique"
)

// snapAt returns a snapshot at time t whose position and yaw encode t, so a
// test can tell which one is shown.
func snapAt(t float64) technique.Snapshot {
	return technique.Snapshot{Time: t, Pos: geom.Vec3{t, 2 * t, 0}, Vel: geom.Vec3{1, 2, 0}, Rot: geom.QuatFromYaw(t)}
}

func TestSnap(t *testing.T) {
	cases := []struct {
		name     string
		times    []float64 // snapshot times, in arrival order
		wantTime float64   // time of the snapshot shown; ignored when wantMode is Empty
		wantMode technique.Mode
	}{
		{name: "nothing yet", wantMode: technique.Empty},
		{name: "one", times: []float64{0.05}, wantTime: 0.05, wantMode: technique.Interpolate},
		{name: "in order", times: []float64{0.05, 0.1, 0.15}, wantTime: 0.15, wantMode: technique.Interpolate},
		{name: "late one ignored", times: []float64{0.05, 0.15, 0.1}, wantTime: 0.15, wantMode: technique.Interpolate},
		{name: "duplicate ignored", times: []float64{0.05, 0.1, 0.1}, wantTime: 0.1, wantMode: technique.Interpolate},
		{name: "negative times", times: []float64{-1, -0.95}, wantTime: -0.95, wantMode: technique.Interpolate},
	}
	for _, c := range cases {
		tech := Def.One(nil, nil)
		now := 0.0
		for i, tm := range c.times {
			now += 0.05
			sn := snapAt(tm)
			if i > 0 && tm <= c.times[i-1] {
				sn.Pos = geom.Vec3{99, 99, 99} // a stale packet's bogus pose must not show
			}
			tech.Receive(sn, now)
		}
		got := tech.Sample(now + 0.01)
		var want technique.Sample
		if c.wantMode != technique.Empty {
			sn := snapAt(c.wantTime)
			want = technique.Sample{Pos: sn.Pos, Rot: sn.Rot, Mode: technique.Interpolate, Time: c.wantTime, Newest: c.wantTime}
		}
		if got != want {
			t.Errorf("%s: Sample = %+v, want %+v", c.name, got, want)
		}
	}
}

// TestSnapDuplicateKeepsFirst checks that a second copy of the newest
// snapshot, even with a different pose, is ignored.
func TestSnapDuplicateKeepsFirst(t *testing.T) {
	tech := Def.One(nil, nil)
	tech.Receive(snapAt(1), 1.1)
	dup := snapAt(1)
	dup.Pos = geom.Vec3{-5, -5, -5}
	tech.Receive(dup, 1.2)
	if got, want := tech.Sample(1.3).Pos, snapAt(1).Pos; got != want {
		t.Errorf("Sample().Pos after duplicate = %v, want %v", got, want)
	}
}

func BenchmarkSampleSnap(b *testing.B) {
	t := Def.One(nil, nil)
	t.Receive(snapAt(0.1), 0.13)
	var sink technique.Sample
	b.ReportAllocs()
	k := 0
	for b.Loop() {
		sink = t.Sample(0.2 + float64(k)/60)
		k++
	}
	if sink.Mode != technique.Interpolate {
		b.Fatalf("last Sample.Mode = %v, want interpolate", sink.Mode)
	}
}
