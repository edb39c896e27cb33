package engine

import "testing"

func TestPrimaryTechnique(t *testing.T) {
	tests := []struct {
		name  string
		techs []string
		want  string
	}{
		{"lab defaults", Defaults().Techniques, TechBuffer},
		{"epic and hermite", []string{TechEPIC, TechHermite}, TechEPIC},
		{"mirror preset", []string{TechEPIC, TechBuffer, "mirror"}, "mirror"},
		{"library listed last of two", []string{TechBuffer, "ngo", "source"}, "ngo"},
		{"snap has nothing to tune", []string{TechSnap, TechHermite}, TechHermite},
		{"snap alone", []string{TechSnap}, TechBuffer},
		{"none", nil, TechBuffer},
	}
	for _, tt := range tests {
		s := Defaults()
		s.Techniques = tt.techs
		if got := s.PrimaryTechnique(); got != tt.want {
			t.Errorf("%s: PrimaryTechnique(%v) = %q, want %q", tt.name, tt.techs, got, tt.want)
		}
	}
}
