package param

import (
	"errors"
	"slices"
	"testing"
)

// knobs is a settings struct of the tests' own, with one field of each kind.
type knobs struct {
	Wait  float64 // s
	Count int
	On    bool
	Shape string
	Mask  uint64
}

var shapes = []string{"round", "square", "flat"}

var knobRows = []Param[*knobs]{
	{Name: "wait", Group: "g", Unit: "s", Min: 0, Max: 1, Step: 0.001, Default: 0.05, Display: "ms", Scale: 1000,
		Doc:   "A time shown in ms.",
		Read:  func(k *knobs) float64 { return k.Wait },
		Write: func(k *knobs, v float64) { k.Wait = v }},
	{Name: "count", Group: "g", Kind: Int, Unit: "packets", Min: 1, Max: 10, Step: 1, Default: 3, Display: "packets", Scale: 1,
		Doc:   "A count.",
		Read:  func(k *knobs) float64 { return float64(k.Count) },
		Write: func(k *knobs, v float64) { k.Count = int(v) }},
	{Name: "on", Group: "g", Kind: Bool, Max: 1, Step: 1, Default: 1,
		Doc:   "A switch.",
		Read:  func(k *knobs) float64 { return FromBool(k.On) },
		Write: func(k *knobs, v float64) { k.On = v != 0 }},
	EnumOf(Param[*knobs]{Name: "shape", Group: "g", Default: 1, Choices: shapes, Doc: "A choice."},
		func(k *knobs) *string { return &k.Shape }),
	{Name: "mask", Group: "g", Kind: Set, Min: 1, Max: 7, Step: 1, Default: 5, Choices: shapes,
		Doc:   "Some of the choices.",
		Read:  func(k *knobs) float64 { return float64(k.Mask) },
		Write: func(k *knobs, v float64) { k.Mask = uint64(v) }},
}

// outer embeds knobs, as the engine's Settings embeds a group's struct.
type outer struct {
	Before int
	knobs
}

func TestDefaultsAndText(t *testing.T) {
	var k knobs
	SetDefaults(knobRows, &k)
	if want := (knobs{Wait: 0.05, Count: 3, On: true, Shape: "square", Mask: 5}); k != want {
		t.Fatalf("SetDefaults gives %+v, want %+v", k, want)
	}
	tests := []struct{ name, text string }{
		{"wait", "50ms"}, {"count", "3"}, {"on", "true"}, {"shape", "square"}, {"mask", "round,flat"},
	}
	for _, tt := range tests {
		p, ok := Find(knobRows, tt.name)
		if !ok {
			t.Fatalf("Find(%q) found nothing", tt.name)
		}
		if got := p.Text(&k); got != tt.text {
			t.Errorf("%s.Text = %q, want %q", tt.name, got, tt.text)
		}
		v, err := p.Parse(tt.text)
		if err != nil || v != p.Get(&k) {
			t.Errorf("%s.Parse(%q) = %v, %v, want %v", tt.name, tt.text, v, err, p.Get(&k))
		}
	}
}

func TestParseRefusesWithFieldAndRange(t *testing.T) {
	wait, _ := Find(knobRows, "wait")
	_, err := wait.Parse("2000")
	var fe *FieldError
	if !errors.As(err, &fe) || fe.Field != "wait" || fe.Allowed != "[0, 1000] ms" {
		t.Fatalf(`Parse("2000") = %v, want a FieldError on wait in [0, 1000] ms`, err)
	}
	if got, want := err.Error(), `wait = "2000" is not allowed: want [0, 1000] ms`; got != want {
		t.Errorf("error = %q, want %q", got, want)
	}
	if v, err := wait.Parse("0.12s"); err != nil || v != 0.12 {
		t.Errorf(`Parse("0.12s") = %v, %v, want 0.12`, v, err)
	}
	count, _ := Find(knobRows, "count")
	if err := count.Set(&knobs{}, 2.5); err == nil || err.Error() != `count = "2.5" is not allowed: want a whole number in [1, 10] packets` {
		t.Errorf("Set(2.5) = %v", err)
	}
	shape, _ := Find(knobRows, "shape")
	k := knobs{Shape: "oval"}
	if i, txt := shape.Choice(&k), shape.Text(&k); i != -1 || txt != "oval" {
		t.Errorf("an unknown choice reads as %d, %q; want -1, oval", i, txt)
	}
}

func TestLift(t *testing.T) {
	rows := Lift(knobRows, func(o *outer) *knobs { return &o.knobs })
	var o outer
	SetDefaults(rows, &o)
	var k knobs
	SetDefaults(knobRows, &k)
	if o.Before != 0 || o.knobs != k {
		t.Fatalf("SetDefaults of the lifted rows gives %+v", o)
	}
	shape, _ := Find(rows, "shape")
	if err := shape.Set(&o, 2); err != nil || o.Shape != "flat" || shape.EnumValue(&o) != "flat" {
		t.Errorf("lifted shape.Set(2) = %v, shape %q", err, o.Shape)
	}
	for i := range rows {
		if rows[i].Name != knobRows[i].Name || rows[i].Range() != knobRows[i].Range() {
			t.Errorf("lifted row %d = %s %s, want %s %s", i, rows[i].Name, rows[i].Range(), knobRows[i].Name, knobRows[i].Range())
		}
	}
}

func TestSuggest(t *testing.T) {
	if got := Suggest(knobRows, "wiat", 2); !slices.Equal(got, []string{"wait"}) {
		t.Errorf("Suggest(wiat) = %v, want [wait]", got)
	}
	if err := Unknown(knobRows, "shap", "x"); err.Allowed != "a parameter name (see lab params or /api/params); did you mean shape?" {
		t.Errorf("Unknown(shap) = %q", err.Allowed)
	}
}
