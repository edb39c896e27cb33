package server

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"interplab/cmd/lab/internal/compare"
	"interplab/cmd/lab/internal/store"
	"interplab/engine"
	"interplab/web"
)

// compareTestServer is the lab's server with the test resolver for its
// comparison refs.
func compareTestServer(t *testing.T) *httptest.Server {
	t.Helper()
	s, srv := newTestServer(t, false)
	s.resolveRef = func(ref string) (compare.Variant, error) {
		label, settings, err := compareTestResolve(ref)
		return compare.Variant{Label: label, Settings: settings}, err
	}
	return srv
}

// compareTestGet fetches path with the given Accept header and returns the
// response and its body.
func compareTestGet(t *testing.T, srv *httptest.Server, path, accept string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest("GET", srv.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, body
}

func compareTestQuery(refs ...string) string {
	return url.Values{"v": refs}.Encode()
}

const compareTestHTML = "text/html,application/xhtml+xml;q=0.9,*/*;q=0.8"

// The page renders every chart, loads ECharts from the lab and from
// nowhere else, and the lab serves that file.
func TestComparePage(t *testing.T) {
	srv := compareTestServer(t)
	resp, body := compareTestGet(t, srv, "/compare?"+compareTestQuery("preset:wifi", "preset:4g", "preset:lan"), compareTestHTML)
	page := string(body)
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("GET /compare = %d %s, want 200 text/html:\n%s", resp.StatusCode, resp.Header.Get("Content-Type"), page)
	}
	scripts := regexp.MustCompile(`<script src="([^"]*)"`).FindAllStringSubmatch(page, -1)
	var srcs []string
	for _, m := range scripts {
		srcs = append(srcs, m[1])
	}
	if want := []string{"/static/vendor/echarts/echarts.min.js", "/static/charts.js"}; !slices.Equal(srcs, want) {
		t.Errorf("page scripts = %q, want only %q", srcs, want)
	}
	if m := regexp.MustCompile(`(?i)https?:`).FindString(page); m != "" {
		t.Errorf("page mentions %q: want no absolute URL, every asset served by the lab", m)
	}
	ids := []string{"compare-latency"}
	for _, tech := range engine.Defaults().Techniques { // the presets compared run the defaults
		ids = append(ids, "compare-error-"+tech)
	}
	for _, m := range []string{"errP95", "addedLatency", "underrunRounds", "snaps"} { // the bar charts
		ids = append(ids, "compare-metric-"+m)
	}
	for _, id := range ids {
		if !strings.Contains(page, `<div class="chart" id="`+id+`">`) || !strings.Contains(page, `getElementById("`+id+`")`) {
			t.Errorf("page lacks chart %s", id)
		}
	}
	for _, chart := range []string{"error", "metrics", "latency"} {
		href := `href="/compare.csv?chart=` + chart + `&amp;v=preset%3Awifi&amp;v=preset%3A4g&amp;v=preset%3Alan"`
		if !strings.Contains(page, href) {
			t.Errorf("page lacks the CSV link %s", href)
		}
	}
	// One table row per variant × technique: 5 + 2 + 5.
	if n := strings.Count(page, "<tr><td>"); n != 12 {
		t.Errorf("metrics table has %d rows, want 12", n)
	}

	resp, js := compareTestGet(t, srv, "/static/vendor/echarts/echarts.min.js", "")
	want, err := fs.ReadFile(web.Vendor, "echarts/echarts.min.js")
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 || !bytes.Equal(js, want) || len(js) < 500_000 {
		t.Errorf("GET echarts.min.js = %d, %d bytes, want 200 and the vendored file (%d bytes)", resp.StatusCode, len(js), len(want))
	}
	for _, name := range []string{"echarts/LICENSE", "echarts/NOTICE"} {
		if _, err := fs.Stat(web.Vendor, name); err != nil {
			t.Errorf("web.Vendor lacks %s: %v", name, err)
		}
	}
}

// A label is the user's text (a session name): it reaches the page escaped,
// in HTML and in the charts' scripts alike.
func TestComparePageEscapes(t *testing.T) {
	srv := compareTestServer(t)
	evil := `</script><script>alert(1)</script><b x="`
	resp, body := compareTestGet(t, srv, "/compare?"+compareTestQuery("label:"+evil, "preset:lan"), compareTestHTML)
	page := string(body)
	if resp.StatusCode != 200 {
		t.Fatalf("GET /compare = %d, want 200:\n%s", resp.StatusCode, page)
	}
	if strings.Contains(page, "alert(1)</script>") || strings.Contains(page, `<b x="`) {
		t.Errorf("the label reached the page unescaped:\n%s", page)
	}
	if !strings.Contains(page, `\u003c/script\u003e\u003cscript\u003ealert(1)`) {
		t.Error("the charts' options lack the label escaped as JSON (\\u003c)")
	}
	if !strings.Contains(page, "&lt;/script&gt;&lt;script&gt;alert(1)") {
		t.Error("the variant list lacks the label escaped as HTML")
	}
}

// The CSVs hold the run's numbers, every digit, in SI units.
func TestCompareCSV(t *testing.T) {
	srv := compareTestServer(t)
	refs := []string{"preset:wifi", "preset:4g"}
	ps := compareTestPresets()
	var want []engine.Result
	for _, name := range []string{"wifi", "4g"} {
		s, first := ps[name], ps["wifi"]
		for _, p := range compare.Scenario() { // the comparison runs every variant on the first's scenario
			p.Set(&s, p.Get(&first))
		}
		r, err := engine.RunSeries(s, 0.1)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, r)
	}
	labels := []string{"wifi", "4g"}
	get := func(chart string) [][]string {
		resp, body := compareTestGet(t, srv, "/compare.csv?"+compareTestQuery(refs...)+"&chart="+chart, "")
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/csv; charset=utf-8" ||
			!strings.Contains(resp.Header.Get("Content-Disposition"), "compare-"+chart+".csv") {
			t.Fatalf("GET /compare.csv chart=%s = %d %v:\n%s", chart, resp.StatusCode, resp.Header, body)
		}
		rows, err := csv.NewReader(bytes.NewReader(body)).ReadAll()
		if err != nil {
			t.Fatalf("chart=%s: %v", chart, err)
		}
		return rows
	}
	num := func(s string) float64 {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatalf("cell %q: %v", s, err)
		}
		return v
	}

	rows := get("metrics")
	if len(rows) != 1+5+2 || rows[0][3] != "errRMS (m)" || rows[0][7] != "addedLatency (s)" {
		t.Fatalf("metrics CSV: %d rows, header %q", len(rows), rows[0])
	}
	r := 1
	for i, res := range want {
		for _, tr := range res.Techniques {
			row := rows[r]
			r++
			vals := tr.Metrics.Values(nil)
			if row[0] != labels[i] || row[1] != tr.Name || num(row[2]) != float64(tr.Metrics.Frames) {
				t.Errorf("metrics row %q: want %s %s %d frames", row[:3], labels[i], tr.Name, tr.Metrics.Frames)
			}
			for k, v := range vals {
				if got := num(row[3+k]); got != v {
					t.Errorf("metrics %s %s %s = %v, want %v", labels[i], tr.Name, engine.MetricFields[k].Name, got, v)
				}
			}
		}
	}

	rows = get("latency")
	if len(rows) != 1+5+2 {
		t.Fatalf("latency CSV: %d rows, want 8", len(rows))
	}
	r = 1
	for i, res := range want {
		for _, tr := range res.Techniques {
			row := rows[r]
			r++
			if row[0] != labels[i] || row[1] != tr.Name || num(row[2]) != tr.Metrics.AddedLatency || num(row[3]) != tr.Metrics.ErrP95 {
				t.Errorf("latency row %q: want %s %s %v %v", row, labels[i], tr.Name, tr.Metrics.AddedLatency, tr.Metrics.ErrP95)
			}
		}
	}

	rows = get("error")
	// Columns: start, end, then by technique the variants that ran it.
	var cols [][]float64
	head := []string{"start (s)", "end (s)"}
	for _, tech := range engine.TechniqueNames {
		for i, res := range want {
			for _, tr := range res.Techniques {
				if tr.Name == tech {
					head = append(head, labels[i]+" / "+tech+" (m)")
					cols = append(cols, tr.Series)
				}
			}
		}
	}
	if strings.Join(rows[0], ",") != strings.Join(head, ",") {
		t.Fatalf("error CSV header = %q, want %q", rows[0], head)
	}
	if len(rows) != 1+100 {
		t.Fatalf("error CSV: %d rows, want 101 (100 windows of 0.1 s)", len(rows))
	}
	for w, row := range rows[1:] {
		if start, end := num(row[0]), num(row[1]); start != float64(w)*0.1 || end != min(float64(w+1)*0.1, 10) {
			t.Errorf("error row %d: window [%v, %v], want [%v, %v]", w, start, end, float64(w)*0.1, float64(w+1)*0.1)
		}
		for k, col := range cols {
			if got := num(row[2+k]); got != col[w] {
				t.Errorf("error row %d %s = %v, want %v", w, head[2+k], got, col[w])
			}
		}
	}
}

// compareTestError decodes a JSON error body.
func compareTestError(t *testing.T, body []byte) (msg, field string) {
	t.Helper()
	var e struct{ Error, Field string }
	if err := json.Unmarshal(body, &e); err != nil {
		t.Fatalf("error body %q: %v", body, err)
	}
	return e.Error, e.Field
}

func TestCompareBadRequests(t *testing.T) {
	srv := compareTestServer(t)
	nine := make([]string, 9)
	for i := range nine {
		nine[i] = "q:seed=" + strconv.Itoa(i+1)
	}
	cases := []struct {
		name      string
		path      string
		wantField string
		wantMsg   string
	}{
		{"no variant", "/compare", "v", "compare 0 variants: want 2 to 8"},
		{"one variant", "/compare?" + compareTestQuery("preset:lan"), "v", "compare 1 variants"},
		{"blank rows do not count", "/compare?" + compareTestQuery("preset:lan", " ", ""), "v", "compare 1 variants"},
		{"nine variants", "/compare?" + compareTestQuery(nine...), "v", "compare 9 variants: want 2 to 8"},
		{"unknown preset", "/compare?" + compareTestQuery("preset:lan", "preset:nope"), "v", `variant 2 (preset:nope): no preset "nope"`},
		{"bad setting", "/compare?" + compareTestQuery("q:loss=95", "preset:lan"), "v", `variant 1 (q:loss=95): loss = "95" is not allowed: want [0, 90] %`},
		{"long ref", "/compare?" + compareTestQuery("preset:lan", "q:"+strings.Repeat("a", 5000)), "v", "want at most 4096"},
		{"too much work", "/compare?" + compareTestQuery("q:entities=10000&duration=3600", "preset:lan"), "entities", "lower entities or duration"},
		{"csv without chart", "/compare.csv?" + compareTestQuery("preset:lan", "preset:wifi"), "chart", `chart = "": want error, metrics or latency`},
		{"csv bad chart", "/compare.csv?" + compareTestQuery("preset:lan", "preset:wifi") + "&chart=pie", "chart", `chart = "pie"`},
		{"csv one variant", "/compare.csv?" + compareTestQuery("preset:lan") + "&chart=error", "v", "compare 1 variants"},
	}
	for _, tc := range cases {
		resp, body := compareTestGet(t, srv, tc.path, "")
		if resp.StatusCode != 400 || resp.Header.Get("Content-Type") != "application/json" {
			t.Errorf("%s: GET %s = %d %s, want 400 JSON", tc.name, tc.path, resp.StatusCode, resp.Header.Get("Content-Type"))
			continue
		}
		msg, field := compareTestError(t, body)
		if field != tc.wantField || !strings.Contains(msg, tc.wantMsg) {
			t.Errorf("%s: error %q (field %q), want %q (field %q)", tc.name, msg, field, tc.wantMsg, tc.wantField)
		}
	}

	// A browser gets the page, with the error above the form that holds the refs.
	resp, body := compareTestGet(t, srv, "/compare?"+compareTestQuery("preset:lan", "preset:nope"), compareTestHTML)
	page := string(body)
	if resp.StatusCode != 400 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("browser GET with a bad ref = %d %s, want 400 HTML", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	for _, want := range []string{`role="alert" data-field="v">variant 2 (preset:nope): no preset &#34;nope&#34;</p>`,
		`name="v" value="preset:nope"`, `name="v" value="preset:lan"`} {
		if !strings.Contains(page, want) {
			t.Errorf("error page lacks %s:\n%s", want, page)
		}
	}
	if strings.Contains(page, "echarts") || strings.Contains(page, "charts.js") {
		t.Error("error page loads the chart scripts, want none: it has no chart")
	}
	if !strings.Contains(page, `<script type="module" src="/static/compare.js">`) {
		t.Error("error page lacks the chooser's script")
	}
	if n := strings.Count(page, `name="v"`); n != compare.MaxVariants {
		t.Errorf("error page form has %d rows, want %d", n, compare.MaxVariants)
	}
}

// A label a spreadsheet would run as a formula is defused in the CSV.
func TestCompareCSVFormula(t *testing.T) {
	srv := compareTestServer(t)
	_, body := compareTestGet(t, srv, "/compare.csv?"+compareTestQuery("label:=HYPERLINK(1)", "preset:lan")+"&chart=latency", "")
	rows, err := csv.NewReader(bytes.NewReader(body)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if got := rows[1][0]; got != "'=HYPERLINK(1)" {
		t.Errorf("label cell = %q, want '=HYPERLINK(1)", got)
	}
}

// Requests at once share the cores and the cache and get the same answer.
func TestCompareConcurrent(t *testing.T) {
	srv := compareTestServer(t)
	path := "/compare.csv?" + compareTestQuery("preset:lan", "q:seed=77&loss=10", "q:seed=78") + "&chart=metrics"
	const n = 8
	bodies := make([][]byte, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			req, err := http.NewRequest("GET", srv.URL+path, nil)
			if err != nil {
				t.Error(err)
				return
			}
			resp, err := srv.Client().Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			defer resp.Body.Close()
			bodies[i], err = io.ReadAll(resp.Body)
			if err != nil || resp.StatusCode != 200 {
				t.Errorf("request %d: %d, %v", i, resp.StatusCode, err)
			}
		})
	}
	wg.Wait()
	for i := 1; i < n; i++ {
		if !bytes.Equal(bodies[i], bodies[0]) {
			t.Errorf("request %d got another CSV than request 0:\n%s\nvs\n%s", i, bodies[i], bodies[0])
		}
	}
}

// TestComparePageChooser: every row of the compare form picks from the
// presets, the saved sessions and their revisions, and the traces.
func TestComparePageChooser(t *testing.T) {
	s, srv := jobsTestServer(t)
	first, err := s.store.Create(store.Draft{Name: "playtest <b>", Settings: engine.Defaults()}, storeT0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.store.Update(first.ID, storeT0.Add(time.Minute), func(prev store.Revision) (store.Draft, error) {
		return store.Draft{Name: prev.Name, Notes: "a second revision", Settings: prev.Settings}, nil // a save that changes nothing makes none
	}); err != nil {
		t.Fatal(err)
	}
	_, body := compareTestGet(t, srv, "/compare", compareTestHTML)
	page := string(body)
	if strings.Count(page, `<select class="ref-pick"`) < 2 || !strings.Contains(page, `<optgroup label="Presets">`) ||
		!strings.Contains(page, `<optgroup label="Saved sessions and revisions">`) || !strings.Contains(page, `<optgroup label="Recorded traces`) {
		t.Fatalf("the compare rows have no grouped chooser:\n%s", page)
	}
	for _, want := range []string{`value="preset:wifi"`, `value="session:` + first.ID + `"`, `value="session:` + first.ID + `@1"`,
		`value="trace:sample-lan"`, "playtest &lt;b&gt;"} {
		if !strings.Contains(page, want) {
			t.Errorf("the chooser lacks %s", want)
		}
	}
}

// The navigation's link opens the compare page with no refs: an empty form,
// 200, no error; the API still answers 400 to a request with no variants.
func TestComparePageEmpty(t *testing.T) {
	srv := compareTestServer(t)
	resp, body := compareTestGet(t, srv, "/compare", compareTestHTML)
	page := string(body)
	if resp.StatusCode != 200 || strings.Contains(page, `role="alert"`) {
		t.Errorf("GET /compare (HTML) = %d, alert %v; want 200 and an empty form", resp.StatusCode, strings.Contains(page, `role="alert"`))
	}
	if n := strings.Count(page, `name="v"`); n != compare.MaxVariants {
		t.Errorf("the empty form has %d rows, want %d", n, compare.MaxVariants)
	}
	if resp, _ := compareTestGet(t, srv, "/compare", "application/json"); resp.StatusCode != 400 {
		t.Errorf("GET /compare (JSON) = %d, want 400", resp.StatusCode)
	}
}
