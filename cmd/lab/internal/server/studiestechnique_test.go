package server

import (
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// The tuner, the sweep and the population pages opened from a Mirror lab
// start on mirror, listed first; the population page checks mirror alone
// and lists epic and buffer right after it, unchecked: the comparison the
// lab page's "Compare with the lab's techniques" adds, which a library's
// preset (running the library alone) no longer carries. From the lab's
// own settings they start on the buffer, as before.
func TestStudiesStartOnTheLabsTechnique(t *testing.T) {
	_, srv := jobsTestServer(t)
	selected := regexp.MustCompile(`<option value="([^"]*)"[^>]*selected`)
	first := regexp.MustCompile(`name="technique" data-field="technique"><option value="([^"]*)"`)
	for _, tt := range []struct{ base, want string }{
		{"q:" + url.QueryEscape("preset=mirror-30hz&latency=120ms"), "mirror"},
		{"preset:ngo-defaults", "ngo"},
		{"preset:harbor-before", "buffer"},
		{"", "buffer"},
	} {
		for _, page := range []string{"/tune", "/sweep"} {
			_, body := get(t, srv.URL+page+"?base="+tt.base)
			if m := selected.FindSubmatch(body); m == nil || string(m[1]) != tt.want {
				t.Errorf("%s?base=%s selects %q, want %s", page, tt.base, m, tt.want)
			}
			if m := first.FindSubmatch(body); m == nil || string(m[1]) != tt.want {
				t.Errorf("%s?base=%s lists %q first, want %s", page, tt.base, m, tt.want)
			}
		}
		_, body := get(t, srv.URL+"/population?base="+tt.base)
		boxes := regexp.MustCompile(`name="techniques" value="([^"]*)"( checked)?`).FindAllSubmatch(body, -1)
		if len(boxes) == 0 || string(boxes[0][1]) != tt.want || len(boxes[0][2]) == 0 {
			t.Errorf("/population?base=%s: first box %q, want %s checked", tt.base, boxes[:min(1, len(boxes))], tt.want)
		}
		for _, b := range boxes[1:] {
			if len(b[2]) > 0 {
				t.Errorf("/population?base=%s checks %s besides %s", tt.base, b[1], tt.want)
			}
		}
	}
	_, body := get(t, srv.URL+"/population?base=preset:mirror-30hz")
	order := regexp.MustCompile(`name="techniques" value="([^"]*)"`).FindAllSubmatch(body, 3)
	if len(order) != 3 || string(order[1][1]) != "epic" || string(order[2][1]) != "buffer" {
		t.Errorf("/population?base=preset:mirror-30hz lists %q first, want mirror, then the lab's comparison, epic and buffer", order)
	}
	_, body = get(t, srv.URL+"/sweep?base=preset:mirror-30hz")
	// Not on bufferTimeMultiplier, which Mirror's dynamic adjustment (on in
	// the preset) ignores: a flat line (issue 29). The first knob that acts.
	if !strings.Contains(string(body), `<option value="mirror.dynamicAdjustmentTolerance" selected`) {
		t.Error("the sweep from a Mirror lab does not start on mirror's first knob that acts, dynamicAdjustmentTolerance")
	}
	_, body = get(t, srv.URL+"/tune?base=preset:mirror-30hz&technique=buffer")
	if m := selected.FindSubmatch(body); m == nil || string(m[1]) != "buffer" {
		t.Errorf("/tune?technique=buffer selects %q, want the technique asked for", m)
	}
}

// The exports a tuning or a population run offers are those of the
// technique studied: a Mirror designer gets the Mirror export, not the C++
// header of the epic that runs beside mirror in the preset.
func TestStudiesExportThePrimaryTechnique(t *testing.T) {
	_, srv := jobsTestServer(t)
	acc := jobsStart(t, srv, "/api/tunes", `{"technique":"mirror","base":"preset:mirror-30hz","budget":4,"seed":2}`)
	jobsFollow(t, jobsDial(t, srv, acc))
	_, body := get(t, srv.URL+acc.Page)
	if !strings.Contains(string(body), `id="apply"`) {
		t.Fatal("the mirror tuning recommends nothing: the test wants one that does")
	}
	if !strings.Contains(string(body), "format=mirror&") || strings.Contains(string(body), "format=cpp&") {
		t.Error("the mirror tuning's page does not offer the Mirror export alone among the techniques'")
	}
	acc = jobsStart(t, srv, "/api/populations", `{"base":"preset:mirror-30hz","population":"lan-tournament","entities":2,"rounds":1,"round":5}`)
	jobsFollow(t, jobsDial(t, srv, acc))
	_, body = get(t, srv.URL+acc.Page)
	if !strings.Contains(string(body), "format=mirror&") || strings.Contains(string(body), "format=cpp&") {
		t.Error("the population run of mirror-30hz does not offer the Mirror export alone among the techniques'")
	}
	if !strings.Contains(string(body), "<th>mirror</th>") || strings.Contains(string(body), "<th>buffer</th>") {
		t.Error("a population run of mirror-30hz that names no technique does not run mirror alone")
	}
}
