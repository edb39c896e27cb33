package jsonapi

import "testing"

func TestAcceptsGzip(t *testing.T) {
	tests := []struct {
		header string
		want   bool
	}{
		{"", false}, {"gzip", true}, {"deflate, gzip;q=0.5", true}, {"GZIP", true}, {"gzip;q=0", false},
		{"identity", false}, {"*", true}, {"br, *;q=0", false}, {"x-gzip", false},
	}
	for _, tt := range tests {
		if got := AcceptsGzip(tt.header); got != tt.want {
			t.Errorf("AcceptsGzip(%q) = %v, want %v", tt.header, got, tt.want)
		}
	}
}
