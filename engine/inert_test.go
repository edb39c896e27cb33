package engine

import (
	"reflect"
	"testing"
)

// TestInertRulesHold checks every declared param.Inert rule against the
// code: with the rule's condition in force, the knob at its least and at
// its greatest value gives the very same metrics, on a link with jitter,
// loss and reordering and on stop-and-go motion (so send-on-change and
// buffer resets happen).
func TestInertRulesHold(t *testing.T) {
	checked := 0
	for i := range Params() {
		p := &Params()[i]
		for _, r := range p.Inert {
			tech := ""
			for _, n := range TechniqueNames {
				if TechniqueGroup(n) == p.Group {
					tech = n
					break
				}
			}
			if tech == "" {
				t.Fatalf("%s: no technique has group %q", p.Name, p.Group)
			}
			run := func(v float64) (Metrics, bool) {
				s := Defaults()
				s.Techniques = []string{tech}
				s.Entities, s.Duration, s.Motion = 3, 20, "stopgo"
				s.Latency, s.Jitter, s.Loss, s.Reorder = 0.06, 0.02, 0.03, 0.05
				if r.When != "" {
					w, ok := Lookup(r.When)
					if !ok {
						t.Fatalf("%s: rule names %q, not a parameter", p.Name, r.When)
					}
					w.Write(&s, r.From)
				}
				p.Write(&s, v)
				res, err := Run(s)
				if err != nil {
					return Metrics{}, false // a constraint between rows refuses v here
				}
				return res.Techniques[0].Metrics, true
			}
			// The extremes, or the default where a constraint between
			// rows (Source's min < max offset) refuses one.
			var vals []float64
			var ms []Metrics
			for _, v := range []float64{p.Min, p.Default, p.Max} {
				if m, ok := run(v); ok {
					vals, ms = append(vals, v), append(ms, m)
				}
			}
			if len(vals) < 2 || vals[0] == vals[len(vals)-1] {
				t.Fatalf("%s: runs at only %v; want two values to compare", p.Name, vals)
			}
			for k := 1; k < len(ms); k++ {
				if !reflect.DeepEqual(ms[0], ms[k]) {
					t.Errorf("%s is declared inert when %s = %v (%s), but %s = %v and = %v give different metrics:\n%+v\n%+v",
						p.Name, r.When, r.From, r.Why, p.Name, vals[0], vals[k], ms[0], ms[k])
				}
			}
			checked++
		}
	}
	if checked < 10 {
		t.Errorf("checked %d inert rules, want every library's (at least 10)", checked)
	}
}

// TestSettingsInert: Mirror's bufferTimeMultiplier is inert while
// dynamicAdjustment is on (Mirror's default) and acts when it is off.
func TestSettingsInert(t *testing.T) {
	s := Defaults()
	if got := s.Inert("mirror.bufferTimeMultiplier"); got == "" {
		t.Errorf("Inert(mirror.bufferTimeMultiplier) with dynamicAdjustment on = \"\", want a reason")
	}
	s.MirrorSettings.DynamicAdjustment = false
	if got := s.Inert("mirror.bufferTimeMultiplier"); got != "" {
		t.Errorf("Inert(mirror.bufferTimeMultiplier) with dynamicAdjustment off = %q, want \"\"", got)
	}
	if got := s.Inert("mirror.dynamicAdjustmentTolerance"); got == "" {
		t.Errorf("Inert(mirror.dynamicAdjustmentTolerance) with dynamicAdjustment off = \"\", want a reason")
	}
	if got := s.Inert("latency"); got != "" {
		t.Errorf("Inert(latency) = %q, want \"\"", got)
	}
}

// TestCanonicalizeInert: a tuned knob that does nothing in a candidate
// keeps the base's value, so the tuner does not try it twice; one that
// acts keeps the candidate's.
func TestCanonicalizeInert(t *testing.T) {
	base := Defaults()
	base.Techniques = []string{TechMirror}
	s := base
	s.MirrorSettings.BufferTimeMultiplier = 5 // inert: dynamicAdjustment is on
	Canonicalize(TechMirror, &s, &base)
	if s.MirrorSettings.BufferTimeMultiplier != base.MirrorSettings.BufferTimeMultiplier {
		t.Errorf("dynamicAdjustment on: bufferTimeMultiplier = %v after Canonicalize, want base's %v",
			s.MirrorSettings.BufferTimeMultiplier, base.MirrorSettings.BufferTimeMultiplier)
	}
	s.MirrorSettings.BufferTimeMultiplier, s.MirrorSettings.DynamicAdjustment = 5, false
	Canonicalize(TechMirror, &s, &base)
	if s.MirrorSettings.BufferTimeMultiplier != 5 {
		t.Errorf("dynamicAdjustment off: bufferTimeMultiplier = %v after Canonicalize, want 5 (it acts)", s.MirrorSettings.BufferTimeMultiplier)
	}
	if s.MirrorSettings.DynamicAdjustmentTolerance != base.MirrorSettings.DynamicAdjustmentTolerance {
		t.Errorf("dynamicAdjustment off: tolerance changed")
	}
}
