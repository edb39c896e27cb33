package server

import (
	"encoding/csv"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"interplab/cmd/lab/internal/compare"
	"interplab/cmd/lab/internal/link"
	"interplab/cmd/lab/internal/traceio"
	"interplab/engine"
	"interplab/presets"
)

// compareTraceServer is the lab's server with a fresh store, so that trace
// refs resolve.
func compareTraceServer(t *testing.T) (*Server, string) {
	t.Helper()
	s, srv := newTestServer(t, false)
	return s, srv.URL
}

// compareTraceCSV fetches one chart's CSV for refs.
func compareTraceCSV(t *testing.T, base, chart string, refs ...string) [][]string {
	t.Helper()
	resp, err := http.Get(base + "/compare.csv?" + url.Values{"v": refs, "chart": {chart}}.Encode())
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	rows, err := csv.NewReader(resp.Body).ReadAll()
	if resp.StatusCode != http.StatusOK || err != nil {
		t.Fatalf("GET compare.csv %s %v: status %d, %v %v", chart, refs, resp.StatusCode, rows, err)
	}
	return rows
}

// A trace ref charts the trace's replay: the chart data are
// engine.RunTraceSeries's for the trace and the ref's settings, bit for
// bit, and a synthetic variant beside it stays engine.RunSeries's.
func TestCompareTraceRef(t *testing.T) {
	s, base := compareTraceServer(t)
	_, tr, err := s.store.LoadTrace("sample-4g")
	if err != nil {
		t.Fatal(err)
	}
	before, err := presets.Get("harbor-before")
	if err != nil {
		t.Fatal(err)
	}
	after, err := presets.Get("harbor-after")
	if err != nil {
		t.Fatal(err)
	}
	refs := []string{"trace:sample-4g@preset:harbor-before", "trace:sample-4g@preset:harbor-after", "preset:harbor-after"}
	// The comparison gives every variant the first's scenario.
	afterSet := after.Settings
	for _, p := range compare.Scenario() {
		p.Set(&afterSet, p.Get(&before.Settings))
	}
	step := compare.Step(before.Settings.Duration)
	var want []engine.Result
	for i, set := range []engine.Settings{before.Settings, afterSet, afterSet} {
		var r engine.Result
		if i < 2 {
			r, err = engine.RunTraceSeries(tr, set, step)
		} else {
			r, err = engine.RunSeries(set, step)
		}
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, r)
	}
	if got, w := want[0].Settings.Entities, tr.Entities; got != w {
		t.Fatalf("RunTraceSeries ran %d entities, want the trace's %d", got, w)
	}
	num := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

	rows := compareTraceCSV(t, base, compare.CSVMetrics, refs...)
	wantLabels := []string{"sample-4g replay, " + before.Title, "sample-4g replay, " + after.Title, after.Title}
	k := 1
	for i, r := range want {
		for _, tech := range r.Techniques {
			if k >= len(rows) {
				t.Fatalf("metrics CSV has %d rows, want one per variant and technique", len(rows))
			}
			row := rows[k]
			k++
			if row[0] != wantLabels[i] || row[1] != tech.Name {
				t.Errorf("metrics row %d = %s / %s, want %s / %s", k-1, row[0], row[1], wantLabels[i], tech.Name)
				continue
			}
			if row[2] != strconv.Itoa(tech.Metrics.Frames) {
				t.Errorf("%s %s frames = %s, want %d", row[0], row[1], row[2], tech.Metrics.Frames)
			}
			for j, v := range tech.Metrics.Values(nil) {
				if row[3+j] != num(v) {
					t.Errorf("%s %s %s = %s, want %s", row[0], row[1], engine.MetricFields[j].Name, row[3+j], num(v))
				}
			}
		}
	}
	if k != len(rows) {
		t.Errorf("metrics CSV has %d rows, want %d", len(rows), k)
	}

	// The error over time: the trace variant's column is its series.
	rows = compareTraceCSV(t, base, compare.CSVError, refs[0], refs[2])
	col := -1
	name := want[0].Techniques[0].Name
	for j, h := range rows[0] {
		if h == wantLabels[0]+" / "+name+" (m)" {
			col = j
		}
	}
	if col < 0 {
		t.Fatalf("error CSV head %v has no column for %s / %s", rows[0], wantLabels[0], name)
	}
	series := want[0].Techniques[0].Series
	if len(series) == 0 || len(rows) < len(series)+1 {
		t.Fatalf("error CSV has %d rows for a series of %d windows", len(rows)-1, len(series))
	}
	for w, v := range series {
		if got := rows[1+w][col]; got != num(v) {
			t.Errorf("window %d of %s: %s, want %s", w, name, got, num(v))
			break
		}
	}
	for _, row := range rows[1+len(series):] {
		if row[col] != "" {
			t.Errorf("the replay of a %g s trace has an error after its end: %v", tr.Span(), row)
			break
		}
	}
}

// TestCompareTraceRefErrors checks the refusals of trace refs.
func TestCompareTraceRefErrors(t *testing.T) {
	_, base := compareTraceServer(t)
	tests := []struct {
		ref, want string
	}{
		{"trace:no-such", "trace no-such"},
		{"trace:sample-lan@preset:nope", "trace sample-lan: no preset"},
		{"trace:sample-lan@trace:sample-4g", "want preset:NAME"},
	}
	for _, tt := range tests {
		resp, err := http.Get(base + "/compare.csv?" + url.Values{"v": {tt.ref, "preset:lan"}, "chart": {"metrics"}}.Encode())
		if err != nil {
			t.Fatal(err)
		}
		var body strings.Builder
		buf := make([]byte, 4096)
		n, _ := resp.Body.Read(buf)
		body.Write(buf[:n])
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(body.String(), tt.want) {
			t.Errorf("compare %s: %d %s, want 400 with %q", tt.ref, resp.StatusCode, body.String(), tt.want)
		}
	}
}

// TestCompareTraceDerived checks trace:NAME alone: the trace's own derived
// settings, and a run cache that tells a trace's replay from a synthetic
// run of the same settings.
func TestCompareTraceDerived(t *testing.T) {
	s, base := compareTraceServer(t)
	_, tr, err := s.store.LoadTrace("sample-lan")
	if err != nil {
		t.Fatal(err)
	}
	set, _ := traceio.Settings(tr, engine.Defaults())
	r, err := engine.RunTrace(tr, set)
	if err != nil {
		t.Fatal(err)
	}
	q := "q:" + link.Query("", set)
	rows := compareTraceCSV(t, base, compare.CSVMetrics, "trace:sample-lan", q)
	if rows[1][0] != "sample-lan replay" || rows[1][2] != strconv.Itoa(r.Techniques[0].Metrics.Frames) {
		t.Errorf("first row %v, want the sample-lan replay with %d frames", rows[1], r.Techniques[0].Metrics.Frames)
	}
	last := rows[len(rows)-1]
	if last[2] == rows[1][2] {
		t.Errorf("the synthetic run of the same settings has the replay's %s frames: the cache mixed them up", last[2])
	}
}
