package server

import (
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"interplab/cmd/lab/internal/export"
	"interplab/cmd/lab/internal/jobs"
	"interplab/cmd/lab/internal/link"
	"interplab/cmd/lab/internal/store"
	"interplab/engine"
	"interplab/presets"
)

// exportHeading returns the first lines of an export.
func exportHeading(t *testing.T, srv string, path string) (int, string) {
	t.Helper()
	resp, body := get(t, srv+path)
	text := string(body)
	if i := strings.Index(text, "\n\n"); i > 0 {
		text = text[:i]
	}
	return resp.StatusCode, text
}

// TestExportHeadingSays: the exports offered on a session page, a tuning's
// page and a preset's lab say where their values come from.
func TestExportHeadingSays(t *testing.T) {
	srv, st := testServer(t, testAssets(t, false), t.TempDir(), nil)
	ts := serve(t, srv)
	s := engine.Defaults()
	s.Latency = 0.08
	sess, err := st.Create(store.Draft{Name: "Harbor", Settings: s}, storeT0)
	if err != nil {
		t.Fatal(err)
	}

	// The session page's export links name the session and its revision.
	_, page := get(t, ts.URL+"/s/"+sess.ID)
	m := regexp.MustCompile(`id="export-netem"[^>]*href="([^"]*)"`).FindSubmatch(page)
	if m == nil {
		t.Fatalf("the session page has no netem export")
	}
	link := html.UnescapeString(string(m[1]))
	if code, head := exportHeading(t, ts.URL, link); code != 200 || !strings.Contains(head, `(session "Harbor" rev 1)`) {
		t.Errorf("the session page's export %s = %d, heading:\n%s\nwant it to name session \"Harbor\" rev 1", link, code, head)
	}
	// Edited since: it says so.
	if code, head := exportHeading(t, ts.URL, "/api/export?format=netem&latency=90ms&from=session:"+sess.ID+"@1"); code != 200 ||
		!strings.Contains(head, `(session "Harbor" rev 1, with unsaved changes)`) {
		t.Errorf("an edited session's export = %d, heading:\n%s\nwant it to say the changes are unsaved", code, head)
	}
	for _, from := range []string{"session:" + sess.ID + "@9", "session:nope@1", "tune:", "tune:a/b", "preset:wifi"} {
		resp, body := get(t, ts.URL+"/api/export?format=netem&from="+url.QueryEscape(from))
		var e errorBody
		if resp.StatusCode/100 != 4 || !strings.Contains(string(body), `"field": "from"`) {
			t.Errorf("export from=%s = %s %s, want a 4xx on field from", from, resp.Status, body)
		}
		_ = e
	}

	// A preset's lab names the preset; the defaults only when they are.
	if _, head := exportHeading(t, ts.URL, "/api/export?format=netem&preset=wifi"); !strings.Contains(head, `(preset "wifi")`) {
		t.Errorf("preset export heading:\n%s\nwant preset \"wifi\"", head)
	}
	if _, head := exportHeading(t, ts.URL, "/api/export?format=netem&loss=2%25"); strings.Contains(head, "(the lab's defaults)") {
		t.Errorf("export of changed settings says they are the defaults:\n%s", head)
	}

	// A tuning's exports (offered only for a recommendation) say the values
	// are tuned, and by which tuning.
	acc := jobsStart(t, ts, "/api/tunes", tunePageBody)
	if end := jobsFollow(t, jobsDial(t, ts, acc)); end[len(end)-1].State != jobs.Done {
		t.Fatalf("tuning ended %+v", end[len(end)-1])
	}
	_, page = get(t, ts.URL+acc.Page)
	m = regexp.MustCompile(`href="(/api/export\?format=netem&[^"]*)"`).FindSubmatch(page)
	if m == nil {
		t.Fatal("no netem export on the tuning's page")
	}
	link = html.UnescapeString(string(m[1]))
	if code, head := exportHeading(t, ts.URL, link); code != 200 || !strings.Contains(head, "(tuned: tuning "+acc.ID+`, from preset "harbor-before")`) {
		t.Errorf("the tuning's export %s = %d, heading:\n%s\nwant it to say tuned by %s", link, code, head, acc.ID)
	}
	_ = http.StatusOK
}

// TestSessionPageExportLinks: a session page's export bar, as the server
// renders it, has all three of its features on the session's settings:
// the library's export first and marked (lib-page), each export naming the
// session's revision (from=), and the "vs" previews comparing the
// session's settings, not the defaults', over the engine's simulator.
func TestSessionPageExportLinks(t *testing.T) {
	srv, st := testServer(t, testAssets(t, false), t.TempDir(), nil)
	ts := serve(t, srv)
	p, err := presets.Get("mirror-30hz")
	if err != nil {
		t.Fatal(err)
	}
	s := p.Settings
	s.Latency = 0.08
	sess, err := st.Create(store.Draft{Name: "Harbor", Settings: s}, storeT0)
	if err != nil {
		t.Fatal(err)
	}
	_, page := get(t, ts.URL+"/s/"+sess.ID)
	links := regexp.MustCompile(`<a class="(export[^"]*)" id="([^"]*)"[^>]*href="([^"]*)"`).FindAllSubmatch(page, -1)
	if len(links) == 0 {
		t.Fatal("the session page has no export links")
	}
	if class, id := string(links[0][1]), string(links[0][2]); id != "export-mirror" || class != "export primary" {
		t.Errorf("the first export is %s (class %q), want export-mirror marked primary", id, class)
	}
	query := link.Query("mirror-30hz", s)
	from := "from=" + url.QueryEscape("session:"+sess.ID+"@1")
	previews := 0
	for _, l := range links {
		class, id, href := string(l[1]), string(l[2]), html.UnescapeString(string(l[3]))
		switch class {
		case "export-preview":
			previews++
			if want := export.PreviewURL(export.NetSim(strings.TrimPrefix(id, "preview-")), query); href != want {
				t.Errorf("%s = %s, want %s (the session's settings)", id, href, want)
			}
		default:
			if !strings.Contains(href, "&"+query+"&") || !strings.HasSuffix(href, from) {
				t.Errorf("%s = %s, want the session's settings (%s) and %s", id, href, query, from)
			}
		}
	}
	if previews == 0 {
		t.Error("the session page has no vs previews")
	}
}
