package server

import (
	"html"
	"regexp"
	"strings"
	"testing"

	"interplab/cmd/lab/internal/export"
)

// TestExportPreviewLinks: beside each network export whose engine simulator
// the lab models, the lab page links the comparison of the page's settings
// over the lab's network and over that simulator playing the export; the
// comparison runs both and shows every technique's metrics for each, labelled
// by the network. Source's fake lag, not modelled, has no such link.
func TestExportPreviewLinks(t *testing.T) {
	_, srv := newTestServer(t, false)
	resp, body := compareTestGet(t, srv, "/?preset=wifi&duration=5", compareTestHTML)
	if resp.StatusCode != 200 {
		t.Fatalf("GET / = %d", resp.StatusCode)
	}
	page := string(body)
	if strings.Contains(page, `id="preview-source-network"`) {
		t.Error("the page offers a preview of Source's fake lag, which the lab does not model")
	}
	for _, sim := range []string{"mirror", "unity", "unreal"} {
		m := regexp.MustCompile(`<a class="export-preview" id="preview-` + sim + `-network" data-netsim="` + sim + `" href="([^"]+)"`).FindStringSubmatch(page)
		if m == nil {
			t.Errorf("the page has no preview link for %s-network", sim)
			continue
		}
		href := html.UnescapeString(m[1])
		if !strings.Contains(href, "netSim%3D"+sim) || !strings.Contains(href, "preset%3Dwifi") {
			t.Errorf("preview link for %s = %s: want the page's query with and without netSim=%s", sim, href, sim)
		}
		resp, cmp := compareTestGet(t, srv, href, compareTestHTML)
		text := string(cmp)
		if resp.StatusCode != 200 {
			t.Fatalf("GET %s = %d:\n%s", href, resp.StatusCode, text)
		}
		if !strings.Contains(text, "over "+sim+"&#39;s simulator") {
			t.Errorf("the comparison does not name %s's simulator as a variant", sim)
		}
		// Every technique of each run is a row of the metrics table: the
		// lab's network, the simulator and its other versions (Unity
		// Transport 2.6+ beside 2.3-2.5).
		nets := 2 + len(export.NetSimVersions(sim))
		if n := strings.Count(text, "<tr><td>"); n != nets*5 {
			t.Errorf("the comparison's metrics table has %d rows, want %d (5 techniques × %d networks)", n, nets*5, nets)
		}
		for _, v := range export.NetSimVersions(sim) {
			if !strings.Contains(text, "over "+v+"&#39;s simulator") {
				t.Errorf("the comparison does not name %s's simulator as a variant", v)
			}
		}
	}
}
