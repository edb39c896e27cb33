package server

import (
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
)

// TestReplayPageView checks what the server makes of /?trace=NAME links.
func TestReplayPageView(t *testing.T) {
	s, _ := compareTraceServer(t)
	_, tr, err := s.store.LoadTrace("sample-4g")
	if err != nil {
		t.Fatal(err)
	}
	sendRate := tr.Network().SendRate
	tests := []struct {
		name, query string
		wantTrace   string
		wantErrors  []string // substrings, one per error, in order
	}{
		{"sample", "trace=sample-4g&latency=50", "sample-4g", nil},
		{"unknown", "trace=nope&latency=50", "", []string{"trace = \"nope\""}},
		{"twice", "trace=sample-4g&trace=sample-lan", "", []string{"one trace"}},
		{"fixed set", "trace=sample-4g&entities=30", "sample-4g", []string{"entities = \"30\" is not allowed: want no value: a replay takes it from its trace"}},
	}
	for _, tt := range tests {
		v := s.pageView(httptest.NewRequest("GET", "/?"+tt.query, nil))
		if v.Trace != tt.wantTrace {
			t.Errorf("%s: Trace = %q, want %q", tt.name, v.Trace, tt.wantTrace)
		}
		if len(v.Errors) != len(tt.wantErrors) {
			t.Errorf("%s: errors %q, want %d", tt.name, v.Errors, len(tt.wantErrors))
			continue
		}
		for i, w := range tt.wantErrors {
			if !strings.Contains(v.Errors[i], w) {
				t.Errorf("%s: error %q, want %q in it", tt.name, v.Errors[i], w)
			}
		}
		if tt.wantTrace == "" {
			continue
		}
		if v.Settings.Entities != tr.Entities || v.Settings.SendRate != sendRate {
			t.Errorf("%s: shows entities %d, sendRate %g; want the trace's %d, %g", tt.name,
				v.Settings.Entities, v.Settings.SendRate, tr.Entities, sendRate)
		}
		if v.Settings.Latency != 0.05 && tt.name == "sample" {
			t.Errorf("%s: latency %g, want the link's 50 ms", tt.name, v.Settings.Latency)
		}
		if v.TraceFixed != "entities,sendRate" || v.TraceIgnored != "latency,jitter,jitterDist,loss,lossModel,burstLength,duplicate,seed,motion" {
			t.Errorf("%s: TraceFixed = %q, TraceIgnored = %q", tt.name, v.TraceFixed, v.TraceIgnored)
		}
		if strings.Contains(v.Query, "trace=") {
			t.Errorf("%s: Query %q names the trace: it feeds exports and jobs, which take settings only", tt.name, v.Query)
		}
	}
}

// TestTracesPageReplayLinks follows each trace's "Replay in lab" and
// "Compare" links from the traces page.
func TestTracesPageReplayLinks(t *testing.T) {
	_, base := compareTraceServer(t)
	get := func(path string) (int, string) {
		t.Helper()
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	status, page := get("/traces")
	if status != 200 {
		t.Fatalf("GET /traces = %d", status)
	}
	for _, name := range []string{"sample-lan", "sample-4g"} {
		replay := regexp.MustCompile(`<tr data-name="` + name + `">.*?href="([^"]*)">Replay in lab</a>.*?class="compare" href="([^"]*)"`).
			FindStringSubmatch(strings.ReplaceAll(page, "\n", " "))
		if replay == nil {
			t.Errorf("GET /traces: no Replay in lab and Compare links for %s", name)
			continue
		}
		lab, cmp := html.UnescapeString(replay[1]), html.UnescapeString(replay[2])
		if lab != "/?trace="+name {
			t.Errorf("%s: Replay in lab links to %s", name, lab)
		}
		status, body := get(lab)
		if status != 200 || !strings.Contains(body, `id="trace-banner"`) || !strings.Contains(body, `data-trace="`+name+`"`) {
			t.Errorf("GET %s = %d without the banner of %s", lab, status, name)
		}
		status, body = get(cmp)
		if status != 200 || !strings.Contains(body, name+" replay, ") {
			t.Errorf("GET %s = %d, want the comparison of %s's replays", cmp, status, name)
		}
	}
}
