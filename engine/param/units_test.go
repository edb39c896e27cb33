package param

import "testing"

func TestReadable(t *testing.T) {
	tests := []struct {
		x    float64
		sig  int
		want string
	}{
		{2761734960, 4, "2761734960"},
		{4294967295, 3, "4294967295"},
		{100000, 3, "100000"},
		{0.2, 4, "0.2"},
		{0.0186, 4, "0.0186"},
		{49.61234567, 4, "49.61"},
		{1234.5, 3, "1235"},
		{1234.4, 3, "1234"},
		{0.125, 2, "0.13"},
		{-0.125, 2, "-0.13"},
		{999.96, 4, "1000"},
		{0.099996, 4, "0.1"},
		{0.00012345, 3, "0.000123"},
		{0.00012355, 3, "0.000124"},
		{-1, 3, "-1"},
		{-0.00012345, 3, "-0.000123"},
		{0.30000000000000004, 6, "0.3"},
		{0, 3, "0"},
		{-1e-12, 3, "-1e-12"},
	}
	for _, tt := range tests {
		if got := Readable(tt.x, tt.sig); got != tt.want {
			t.Errorf("Readable(%v, %d) = %q, want %q", tt.x, tt.sig, got, tt.want)
		}
	}
}

// TestParseTypedUnit: a ratio takes x for × (3x, as keyboards type it),
// and a value out of range typed in another unit than the display's gets
// the range in the unit typed (150% of a plain fraction: [0, 100] %).
func TestParseTypedUnit(t *testing.T) {
	type S struct{ V float64 }
	ratio := Param[*S]{Name: "mult", Kind: Float, Unit: "send intervals", Display: "×", Scale: 1, Min: 0, Max: 10,
		Read: func(s *S) float64 { return s.V }, Write: func(s *S, v float64) { s.V = v }}
	frac := Param[*S]{Name: "speed", Kind: Float, Unit: "fraction", Min: 0, Max: 1,
		Read: func(s *S) float64 { return s.V }, Write: func(s *S, v float64) { s.V = v }}
	lat := Param[*S]{Name: "latency", Kind: Float, Unit: "s", Display: "ms", Scale: 1000, Min: 0, Max: 1,
		Read: func(s *S) float64 { return s.V }, Write: func(s *S, v float64) { s.V = v }}
	for _, tt := range []struct {
		p    *Param[*S]
		text string
		want float64
	}{
		{&ratio, "3x", 3}, {&ratio, "1.5X", 1.5}, {&ratio, "3×", 3}, {&ratio, "3", 3},
		{&frac, "5%", 0.05}, {&frac, "0.05", 0.05},
	} {
		if got, err := tt.p.Parse(tt.text); err != nil || got != tt.want {
			t.Errorf("%s.Parse(%q) = %v, %v; want %v", tt.p.Name, tt.text, got, err, tt.want)
		}
	}
	for _, tt := range []struct {
		p    *Param[*S]
		text string
		want string
	}{
		{&frac, "150%", `speed = "150%" is not allowed: want [0, 100] %, that is [0, 1]`},
		{&lat, "2s", `latency = "2s" is not allowed: want [0, 1] s, that is [0, 1000] ms`},
		{&lat, "2000", `latency = "2000" is not allowed: want [0, 1000] ms`},
		{&ratio, "11x", `mult = "11x" is not allowed: want [0×, 10×]`},
		{&ratio, "0x3", `mult = "0x3" is not allowed: want [0×, 10×] (a plain number in ×, or with a unit: ×)`},
	} {
		_, err := tt.p.Parse(tt.text)
		if err == nil || err.Error() != tt.want {
			t.Errorf("%s.Parse(%q) error = %v, want %s", tt.p.Name, tt.text, err, tt.want)
		}
	}
}
