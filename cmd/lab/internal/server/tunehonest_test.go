package server

import (
	"html"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"interplab/cmd/lab/internal/jobs"
	"interplab/engine/study"
)

// reviewBase is issue 22's case as a study's base ref: the mirror-30hz
// preset on a 120 ms link with 30 ms of jitter and 2% loss, short.
const reviewBase = "q:preset=mirror-30hz&latency=120ms&jitter=30ms&loss=2%25&duration=6&entities=2"

// reviewTune is a tuning of mirror on reviewBase with the bounds given.
func reviewTune(constraints string, budget int) string {
	return `{"technique":"mirror","base":"` + reviewBase + `","constraints":[` + constraints + `],"budget":` +
		map[bool]string{true: "1", false: "8"}[budget == 1] + `,"seed":1}`
}

// The review's bound, addedLatency ≤ 120 ms on a 120 ms link, is refused
// when the tuning is asked for, on its row, with the floor the network sets
// in ms.
func TestTuneRefusesABoundBelowTheFloor(t *testing.T) {
	_, srv := jobsTestServer(t)
	var e errorBody
	code := jobsPost(t, srv, "/api/tunes", reviewTune(`{"metric":"addedLatency","max":"120ms"}`, 8), &e)
	if code != http.StatusBadRequest || e.Field != "constraints[0].max" ||
		!strings.Contains(e.Error, "addedLatency cannot go below 123 ms on this link") || !strings.Contains(e.Error, "latency is 120 ms") {
		t.Errorf("addedLatency ≤ 120 ms on a 120 ms link: %d %+v, want 400 on constraints[0].max naming the floor", code, e)
	}
}

// When nothing meets the bounds, the page recommends nothing: no Apply, no
// export, no "recommended" on the chart; it lists the closest candidates
// with what each breaks, in units.
func TestTunePageWhenNothingMeetsTheBounds(t *testing.T) {
	s, srv := jobsTestServer(t)
	acc := jobsStart(t, srv, "/api/tunes", reviewTune(`{"metric":"addedLatency","max":"130ms"}`, 8))
	if end := jobsFollow(t, jobsDial(t, srv, acc)); end[len(end)-1].State != jobs.Done {
		t.Fatalf("tuning ended %+v", end[len(end)-1])
	}
	res, _ := s.jobs.Get(acc.ID).Result()
	if tr := res.(study.TuneResult); tr.Feasible || tr.Recommended {
		t.Fatalf("the review's mirror met addedLatency ≤ 130 ms: the test wants a case where nothing does")
	}
	_, body := get(t, srv.URL+acc.Page)
	page := html.UnescapeString(string(body))
	for _, bad := range []string{`id="apply"`, `class="export"`, `id="changes"`} {
		if strings.Contains(page, bad) {
			t.Errorf("nothing meets the bounds, but the page has %s", bad)
		}
	}
	for _, want := range []string{`data-verdict="infeasible"`, `id="no-apply"`, `id="closest"`, "ms > 130 ms bound, by "} {
		if !strings.Contains(page, want) {
			t.Errorf("nothing meets the bounds: the page lacks %q", want)
		}
	}
	if n := strings.Count(page, "ms > 130 ms bound, by "); n != 5 { // the base's first, then the 3 closest and the base in the table
		t.Errorf("%d breaches listed, want the base's first, then the 3 closest and the base's", n)
	}
	if b, v := strings.Index(page, `id="base-breaks"`), strings.Index(page, `id="verdict"`); b < 0 || b > v {
		t.Errorf("the base's breach is not said first: at %d, the verdict at %d", b, v)
	}
	var ch struct {
		Option struct {
			Series []struct {
				Name string `json:"name"`
			} `json:"series"`
		} `json:"option"`
	}
	sweepGetJSON(t, srv.URL+acc.Page+"/chart", &ch)
	for _, series := range ch.Option.Series {
		if series.Name == "recommended" {
			t.Error("the chart marks a recommendation, though there is none")
		}
	}
}

// With nothing better than the base (a budget of one evaluates it alone),
// the page says to keep the settings and offers nothing to apply or export.
func TestTunePageKeepsTheBase(t *testing.T) {
	_, srv := jobsTestServer(t)
	acc := jobsStart(t, srv, "/api/tunes", reviewTune(`{"metric":"extraLatency","max":"300ms"}`, 1))
	jobsFollow(t, jobsDial(t, srv, acc))
	_, body := get(t, srv.URL+acc.Page)
	page := string(body)
	if !strings.Contains(page, "Keep your settings, nothing tried beats them") || strings.Contains(page, `id="apply"`) ||
		strings.Contains(page, `class="export"`) {
		t.Errorf("a tuning of the base alone: the page does not say to keep the settings, or offers Apply or an export")
	}
}

// The tuner form opens with a bound that can be met on any link, in
// extraLatency, and shows what the base's network allows the chosen
// technique's added latency.
func TestTuneFormBoundAndFloor(t *testing.T) {
	_, srv := jobsTestServer(t)
	_, body := get(t, srv.URL+"/tune?base="+url.QueryEscape(reviewBase))
	page := html.UnescapeString(string(body))
	for _, want := range []string{
		`<option value="extraLatency" data-scale="1000" data-display="ms" selected>extraLatency (ms)</option>`,
		`data-field="constraints[0].max" type="text" inputmode="decimal" spellcheck="false" value="60"`,
		// What mirror's knobs reach on this link, and what no setting can
		// beat (the bound refused below).
		"On this link mirror's addedLatency goes no lower than 180 ms (the least a search of its settings reaches; whatever they are it cannot go below 123 ms",
		`data-floor="On this link buffer's addedLatency goes no lower than 116 ms (the least a search of its settings reaches; whatever they are it cannot go below 107 ms`,
		`<option value="epic" data-floor="">`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the tune form from the review's lab lacks %q", want)
		}
	}
}

// When the base breaks a bound the page says so first, before any verdict
// (never "Keep your settings" above it), and offers the cheapest setting
// that meets the bounds over the seed set, with its metrics beside the
// base's and an "Open in the lab" link to it.
func TestTunePageBaseBreaksFirst(t *testing.T) {
	_, srv := jobsTestServer(t)
	acc := jobsStart(t, srv, "/api/tunes", `{"technique":"buffer","base":"`+reviewBase+
		`","constraints":[{"metric":"extraLatency","max":"50ms"}],"budget":24,"seed":1}`)
	if end := jobsFollow(t, jobsDial(t, srv, acc)); end[len(end)-1].State != jobs.Done {
		t.Fatalf("tuning ended %+v", end[len(end)-1])
	}
	_, body := get(t, srv.URL+acc.Page)
	page := html.UnescapeString(string(body))
	breaks, verdict := strings.Index(page, `id="base-breaks"`), strings.Index(page, `id="verdict"`)
	if breaks < 0 || verdict < 0 || breaks > verdict {
		t.Fatalf("the base breaks extraLatency ≤ 50 ms: base-breaks at %d, the verdict at %d; want the breach said first", breaks, verdict)
	}
	if strings.Contains(page, "Keep your settings") || !strings.Contains(page, `data-verdict="meets"`) ||
		!strings.Contains(page, "The cheapest setting found that meets them: cost ") || !strings.Contains(page, "over run seeds 2–6") {
		t.Errorf("the verdict does not offer the cheapest setting that meets the bound over the seed set:\n%s", page[verdict:min(len(page), verdict+600)])
	}
	i := strings.Index(page, `id="open-best"`)
	if i < 0 {
		t.Fatalf("no Open in the lab link")
	}
	link := page[strings.LastIndex(page[:i], "<a "):]
	link = link[:strings.Index(link, "</a>")]
	if !strings.Contains(link, `href="/?`) || !strings.Contains(link, "delay=") || !strings.Contains(link, "Open in the lab") {
		t.Errorf("the Open in the lab link = %s; want the lab with the tuned delay", link)
	}
	if !strings.Contains(page, "<th>meets them</th>") {
		t.Errorf("the metrics table has no column for the setting that meets the bounds")
	}
}
