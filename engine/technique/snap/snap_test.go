package snap

import (
	"reflect"
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

// TestSnapFillWrittenOut checks that the batch's Fill, which writes a
// sample field by field, writes every field as the composite literal it
// stands for, over a sample that held something else in every field (set
// by reflection, so that a field added to technique.Sample and not written
// by Fill fails here), and that its Receive through a pointer keeps what
// the Technique's Receive keeps.
func TestSnapFillWrittenOut(t *testing.T) {
	b := Def.Batch(nil, nil, 2)
	one := Def.One(nil, nil)
	for _, tm := range []float64{0.1, 0.3, 0.2, 0.5} {
		sn := snapAt(tm)
		b.Receive(tm, 0, []technique.Snapshot{sn, sn})
		one.Receive(sn, 0)
		shown := one.Sample(0)
		last := technique.Snapshot{Time: shown.Time, Pos: shown.Pos, Rot: shown.Rot}
		want := technique.Sample{Pos: last.Pos, Rot: last.Rot, Mode: technique.Interpolate, Time: last.Time, Newest: last.Time}
		out := make([]technique.Sample, 2)
		for e := range out {
			fillNines(t, reflect.ValueOf(&out[e]).Elem())
		}
		b.Fill(0, out)
		for e := range out {
			if out[e] != want {
				t.Fatalf("after %v: Fill gives %+v, want %+v", tm, out[e], want)
			}
		}
	}
}

// fillNines sets every field and element of v to 9 (true for a bool).
func fillNines(t *testing.T, v reflect.Value) {
	switch v.Kind() {
	case reflect.Float64:
		v.SetFloat(9)
	case reflect.Int:
		v.SetInt(9)
	case reflect.Uint8:
		v.SetUint(9)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Array:
		for i := range v.Len() {
			fillNines(t, v.Index(i))
		}
	case reflect.Struct:
		for i := range v.NumField() {
			fillNines(t, v.Field(i))
		}
	default:
		t.Fatalf("technique.Sample holds a %s: teach fillNines to set it", v.Kind())
	}
}
