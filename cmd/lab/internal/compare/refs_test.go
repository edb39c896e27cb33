package compare

import "testing"

// TestQueryRefTypedPercent: a q: base as a person types it, with a bare %
// (loss=1%), reads as the same query copied from a link (loss=1%25),
// where it was refused as a bad URL escape.
func TestQueryRefTypedPercent(t *testing.T) {
	var r Resolver
	for _, ref := range []string{"q:preset=mirror-30hz&loss=1%", "q:preset=mirror-30hz&loss=1%25", "q:loss=1%&jitter=20ms"} {
		_, s, err := r.Settings(ref)
		if err != nil {
			t.Errorf("Settings(%q) = %v", ref, err)
			continue
		}
		if s.Loss != 0.01 {
			t.Errorf("Settings(%q): loss = %v, want 0.01", ref, s.Loss)
		}
	}
	if _, _, err := r.Settings("q:loss=1%zz"); err == nil {
		t.Errorf(`Settings("q:loss=1%%zz") = nil error, want loss refused`)
	}
}
