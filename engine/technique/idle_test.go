package technique

import "testing"

func TestIdleSpansCovers(t *testing.T) {
	// A sender at 10 Hz: moves at 0 and 0.1, still from 0.2 to 0.6 (the
	// snapshot of 0.4 lost), moves again at 0.7, still at 0.8.
	var s IdleSpans
	s.Moved(0)
	s.Moved(0.1)
	s.Still(0.2)
	s.Still(0.3)
	s.Still(0.5)
	s.Still(0.3) // late: ignored
	tests := []struct {
		name string
		at   float64
		want bool
	}{
		{"at the last change", 0.1, false},
		{"after the last change", 0.15, true},
		{"across a lost still snapshot", 0.4, true},
		{"at the newest still snapshot", 0.5, true},
		{"past the newest snapshot received", 0.55, false},
		{"before the last change", 0.05, false},
	}
	for _, tt := range tests {
		if got := s.Covers(tt.at); got != tt.want {
			t.Errorf("open span: %s: Covers(%v) = %v, want %v", tt.name, tt.at, got, tt.want)
		}
	}

	s.Moved(0.7) // closes the span before 0.7
	s.Still(0.8)
	closed := []struct {
		name string
		at   float64
		want bool
	}{
		{"inside the closed span", 0.3, true},
		{"between the last still snapshot and the change", 0.65, true},
		{"at the change", 0.7, false},
		{"in the new open span", 0.75, true},
		{"past the newest", 0.85, false},
	}
	for _, tt := range closed {
		if got := s.Covers(tt.at); got != tt.want {
			t.Errorf("after a change: %s: Covers(%v) = %v, want %v", tt.name, tt.at, got, tt.want)
		}
	}

	// A change after a change keeps the last non-empty span.
	s.Moved(0.9)
	s.Moved(1.0)
	if !s.Covers(0.85) || s.Covers(0.95) {
		t.Errorf("after two changes: Covers(0.85) = %v, Covers(0.95) = %v, want true, false", s.Covers(0.85), s.Covers(0.95))
	}

	var zero IdleSpans
	if zero.Covers(0) || zero.Covers(1) {
		t.Error("the zero IdleSpans covers a time, want none")
	}
}
