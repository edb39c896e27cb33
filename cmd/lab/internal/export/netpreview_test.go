package export

import (
	"net/url"
	"slices"
	"strings"
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
			got = append(got, NetSimVersions(n)...)
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
	for _, tt := range []struct {
		sim, query string
		want       []string
	}{
		{"mirror", "preset=wifi&loss=0.02", []string{"q:preset=wifi&loss=0.02", "q:preset=wifi&loss=0.02&netSim=mirror"}},
		{"mirror", "", []string{"q:", "q:netSim=mirror"}},
		// Unity Transport 2.3-2.5 and 2.6+ side by side.
		{"unity", "preset=wifi", []string{"q:preset=wifi", "q:preset=wifi&netSim=unity", "q:preset=wifi&netSim=unity-2.6"}},
	} {
		u, err := url.Parse(PreviewURL(tt.sim, tt.query))
		if err != nil || u.Path != "/compare" {
			t.Fatalf("PreviewURL = %v, %v", u, err)
		}
		if v := u.Query()["v"]; !slices.Equal(v, tt.want) {
			t.Errorf("PreviewURL(%s, %q) variants %q, want %q", tt.sim, tt.query, v, tt.want)
		}
	}
}

// TestQAEveryNetworkExport: every network export says for which engine
// versions and build kinds it holds.
func TestQAEveryNetworkExport(t *testing.T) {
	for _, tt := range []struct{ format, want string }{
		{"unity-network", "Transport 2.6"},
		{"unity-network", "UNITY_MP_TOOLS_NETSIM_ENABLED_IN_RELEASE"},
		{"mirror-network", "c885a6a4"},
		{"unreal-network", "shipping"},
		{"source-network", "(n+1)/101"},
		{"netem", "netem"},
	} {
		if qa := QA(tt.format); !strings.Contains(qa, tt.want) {
			t.Errorf("QA(%s) = %q, want it to mention %q", tt.format, qa, tt.want)
		}
	}
}
