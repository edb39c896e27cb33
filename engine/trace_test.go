package engine

import (
	"errors"
	"math"
	"slices"
	"testing"

	"interplab/engine/geom"
)

// traceTwo is a small valid trace: two entities in one packet per send,
// send 1 lost, send 2 delivered twice.
func traceTwo() *Trace {
	nan := math.NaN()
	p := func(e, seq int, sent, arrive float64) TracePacket {
		return TracePacket{Entity: e, Seq: seq, Sent: sent, Arrive: arrive,
			Pos: geom.Vec3{float64(e), sent, 0}, Vel: geom.Vec3{0, 1, 0}, Rot: geom.QuatIdentity, HasRot: true}
	}
	return &Trace{Name: "two", Entities: 2, Packets: []TracePacket{
		p(0, 0, 10, 10.05), p(1, 0, 10, 10.05),
		p(0, 1, 10.05, nan), p(1, 1, 10.05, nan),
		p(0, 2, 10.1, 10.16), p(1, 2, 10.1, 10.16), p(0, 2, 10.1, 10.18), p(1, 2, 10.1, 10.18),
		p(0, 3, 10.15, 10.2), p(1, 3, 10.15, 10.2),
	}}
}

func TestTraceValidate(t *testing.T) {
	if err := traceTwo().Validate(); err != nil {
		t.Fatalf("traceTwo().Validate() = %v, want nil", err)
	}
	cases := []struct {
		name  string
		edit  func(*Trace)
		index int
		field string
	}{
		{"no packets", func(t *Trace) { t.Packets = nil }, -1, ""},
		{"no entities", func(t *Trace) { t.Entities = 0 }, -1, "entity"},
		{"entity missing", func(t *Trace) { t.Entities = 3 }, -1, "entity"},
		{"entity out of range", func(t *Trace) { t.Packets[3].Entity = 2 }, 3, "entity"},
		{"negative seq", func(t *Trace) { t.Packets[0].Seq = -1 }, 0, "seq"},
		{"NaN sent", func(t *Trace) { t.Packets[4].Sent = math.NaN() }, 4, "sent"},
		{"huge sent", func(t *Trace) { t.Packets[0].Sent = 2e10 }, 0, "sent"},
		{"unsorted", func(t *Trace) { t.Packets[4].Sent = 10.01 }, 4, "sent"},
		{"arrive before sent", func(t *Trace) { t.Packets[0].Arrive = 9.99 }, 0, "arrive"},
		{"arrive infinite", func(t *Trace) { t.Packets[9].Arrive = math.Inf(1) }, 9, "arrive"},
		{"delay too long", func(t *Trace) { t.Packets[9].Arrive = 30 }, 9, "arrive"},
		{"position NaN", func(t *Trace) { t.Packets[5].Pos[2] = math.NaN() }, 5, "z"},
		{"velocity huge", func(t *Trace) { t.Packets[5].Vel[0] = 1e8 }, 5, "vx"},
		{"rotation not unit", func(t *Trace) { t.Packets[2].Rot = geom.Quat{0, 0, 0, 2} }, 2, "qw"},
		{"seq goes back", func(t *Trace) { t.Packets[8].Seq = 1 }, 8, "seq"},
		{"copy at another time", func(t *Trace) { t.Packets[2].Seq = 0 }, 2, "sent"},
		{"copy of another state", func(t *Trace) { t.Packets[7].Vel[1] = 2 }, 7, "vy"},
		{"two sends at one time", func(t *Trace) {
			t.Packets[2].Sent, t.Packets[3].Sent = 10, 10
			t.Packets[2].Arrive, t.Packets[3].Arrive = 10.1, 10.1
		}, 2, "sent"},
	}
	for _, c := range cases {
		tr := traceTwo()
		c.edit(tr)
		err := tr.Validate()
		var te *TraceError
		if !errors.As(err, &te) {
			t.Errorf("%s: Validate() = %v, want a *TraceError", c.name, err)
			continue
		}
		if te.Index != c.index || te.Field != c.field {
			t.Errorf("%s: Validate() = %q (packet %d, field %q), want packet %d, field %q",
				c.name, err, te.Index, te.Field, c.index, c.field)
		}
	}
	// A rotation is only checked where recorded.
	tr := traceTwo()
	tr.Packets[0].Rot, tr.Packets[0].HasRot = geom.Quat{}, false
	if err := tr.Validate(); err != nil {
		t.Errorf("Validate() with no rotation = %v, want nil", err)
	}
}

func TestTraceSpanMaxSpeed(t *testing.T) {
	tr := traceTwo()
	tr.Packets[3].Vel = geom.Vec3{3, 4, 0}
	if got, want := tr.Span(), 0.15; math.Abs(got-want) > 1e-12 {
		t.Errorf("Span() = %v, want %v", got, want)
	}
	if got, want := tr.MaxSpeed(), 5.0; got != want {
		t.Errorf("MaxSpeed() = %v, want %v", got, want)
	}
}

// samePackets compares traces with NaN equal to NaN.
func samePackets(a, b []TracePacket) bool {
	return slices.EqualFunc(a, b, func(p, q TracePacket) bool {
		pa, qa := p.Arrive, q.Arrive
		p.Arrive, q.Arrive = 0, 0
		return p == q && (pa == qa || math.IsNaN(pa) && math.IsNaN(qa))
	})
}

func TestTraceFlatRoundTrip(t *testing.T) {
	s := Defaults()
	s.Entities, s.Duration, s.Loss, s.Duplicate = 3, 5, 0.1, 0.1
	syn, err := SyntheticTrace(s)
	if err != nil {
		t.Fatal(err)
	}
	norot := traceTwo()
	for i := range norot.Packets {
		norot.Packets[i].Rot, norot.Packets[i].HasRot = geom.Quat{}, false
	}
	for _, tr := range []*Trace{traceTwo(), syn, norot} {
		f := tr.AppendFlat(nil)
		if want := TraceFlatHeader + len(tr.Packets)*TraceFlatStride; len(f) != want {
			t.Fatalf("len(AppendFlat) = %d, want %d", len(f), want)
		}
		got, err := TraceFromFlat(f)
		if err != nil {
			t.Fatalf("TraceFromFlat(AppendFlat) = %v", err)
		}
		if got.Entities != tr.Entities || !samePackets(got.Packets, tr.Packets) {
			t.Errorf("TraceFromFlat(AppendFlat(%s)) differs from the trace", tr.Name)
		}
	}

	good := traceTwo().AppendFlat(nil)
	bad := []struct {
		name string
		edit func([]float64) []float64
	}{
		{"empty", func([]float64) []float64 { return nil }},
		{"version", func(f []float64) []float64 { f[0] = 2; return f }},
		{"fractional entities", func(f []float64) []float64 { f[1] = 1.5; return f }},
		{"too many packets", func(f []float64) []float64 { f[2] = TraceMaxPackets + 1; return f }},
		{"short", func(f []float64) []float64 { return f[:len(f)-1] }},
		{"fractional entity", func(f []float64) []float64 { f[TraceFlatHeader] = 0.5; return f }},
		{"hasRot 2", func(f []float64) []float64 { f[TraceFlatHeader+14] = 2; return f }},
		{"invalid trace", func(f []float64) []float64 { f[TraceFlatHeader+2] = math.Inf(-1); return f }},
	}
	for _, c := range bad {
		if _, err := TraceFromFlat(c.edit(slices.Clone(good))); err == nil {
			t.Errorf("TraceFromFlat(%s) = nil error, want one", c.name)
		}
	}
}

func TestSyntheticTrace(t *testing.T) {
	s := Defaults()
	s.Entities, s.Duration = 4, 10
	s.Loss, s.Duplicate = 0.2, 0.2
	tr, err := SyntheticTrace(s)
	if err != nil {
		t.Fatal(err)
	}
	if err := tr.Validate(); err != nil {
		t.Fatalf("SyntheticTrace: Validate() = %v", err)
	}
	// 201 sends (0 to 10 s at 20 Hz), each a lost row or one or two copies per entity.
	var lost, copies int
	for _, p := range tr.Packets {
		if p.Entity != 0 {
			continue
		}
		if math.IsNaN(p.Arrive) {
			lost++
		} else {
			copies++
		}
	}
	sends := tr.Packets[len(tr.Packets)-1].Seq + 1
	if sends != 201 {
		t.Errorf("sends = %d, want 201", sends)
	}
	if lost < 20 || lost > 60 || copies-(sends-lost) < 15 || copies-(sends-lost) > 60 {
		t.Errorf("lost %d of %d sends with %d copies: want about 20%% lost and 20%% duplicated", lost, sends, copies)
	}
	s.Entities = TraceMaxEntities
	if _, err := SyntheticTrace(s); err == nil {
		t.Error("SyntheticTrace(10000 entities for 10 s) = nil error, want over the packet limit")
	}
}
