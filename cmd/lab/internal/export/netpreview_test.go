package export

import (
	"net/url"
	"slices"
	"testing"

	"interplab/engine/netsim"
)

// TestNetSimOfEveryModel: every engine simulator the engine models has the
// network export it plays, and no other format claims one.
func TestNetSimOfEveryModel(t *testing.T) {
	var got []string
	for _, f := range Formats() {
		if n := NetSim(f); n != "" {
			if !slices.Contains(netsim.Simulators, n) {
				t.Errorf("NetSim(%s) = %q, not a netSim choice (%v)", f, n, netsim.Simulators)
			}
			got = append(got, n)
		}
	}
	slices.Sort(got)
	want := slices.Clone(netsim.Simulators[1:])
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("network exports with a model: %v, want one for each of %v", got, want)
	}
}

// TestPreviewURL: the comparison runs the same query twice, the second over
// the simulator.
func TestPreviewURL(t *testing.T) {
	for _, tt := range []struct{ query, a, b string }{
		{"preset=wifi&loss=0.02", "q:preset=wifi&loss=0.02", "q:preset=wifi&loss=0.02&netSim=mirror"},
		{"", "q:", "q:netSim=mirror"},
	} {
		u, err := url.Parse(PreviewURL("mirror", tt.query))
		if err != nil || u.Path != "/compare" {
			t.Fatalf("PreviewURL = %v, %v", u, err)
		}
		if v := u.Query()["v"]; !slices.Equal(v, []string{tt.a, tt.b}) {
			t.Errorf("PreviewURL(mirror, %q) variants %q, want %q and %q", tt.query, v, tt.a, tt.b)
		}
	}
}
