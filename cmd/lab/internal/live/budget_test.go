package live

import (
	"testing"
	"time"
)

func TestBucket(t *testing.T) {
	t0 := time.Unix(1000, 0)
	tests := []struct {
		name  string
		after []time.Duration // the time of each take, from t0
		want  []bool
	}{
		{"burst then dry", []time.Duration{0, 0, 0, 0}, []bool{true, true, true, false}},
		{"refills at the rate", []time.Duration{0, 0, 0, 0, 100 * time.Millisecond, 100 * time.Millisecond},
			[]bool{true, true, true, false, true, false}},
		{"never above the burst", []time.Duration{time.Hour, time.Hour, time.Hour, time.Hour}, []bool{true, true, true, false}},
		{"a clock going back gives nothing", []time.Duration{time.Second, 0, 0, 0, 0}, []bool{true, true, true, false, false}},
	}
	for _, tt := range tests {
		b := newBucket(10, 3, t0) // 10 a second, burst 3
		for i, d := range tt.after {
			if got := b.take(t0.Add(d)); got != tt.want[i] {
				t.Errorf("%s: take %d at +%v = %v, want %v", tt.name, i, d, got, tt.want[i])
			}
		}
	}
}
