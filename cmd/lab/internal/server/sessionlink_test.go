package server

import (
	"html"
	"regexp"
	"strings"
	"testing"

	"interplab/cmd/lab/internal/store"
	"interplab/engine"
)

// TestSessionLinkErrors opens a session with a query the page cannot use:
// one that does not decode and values the engine refuses. Each is listed in
// the page's banner for link errors, never dropped silently, and what
// could be read is still applied.
func TestSessionLinkErrors(t *testing.T) {
	ts, st, e := newPagesServer(t)
	sess, err := st.Create(store.Draft{Name: "link errors", Settings: engine.Defaults()}, e.clock())
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		query string
		want  []string // in the banner
		edits string   // data-edits: what is applied
	}{
		{"latency=%ZZ", []string{"malformed link", "%ZZ"}, ""},
		{"loss=2%25&latency=%ZZ", []string{"malformed link"}, "loss=2%25"},
		{"loss=abc", []string{"loss"}, ""},
		{"latency=5s", []string{"latency", "want [0, 1"}, ""},
		{"nope=1", []string{"nope"}, ""},
	}
	banner := regexp.MustCompile(`(?s)<div id="errors"[^>]*>(.*?)</div>`)
	edits := regexp.MustCompile(`data-edits="([^"]*)"`)
	for _, c := range cases {
		resp, body := get(t, ts.URL+"/s/"+sess.ID+"?"+c.query, "Accept", "text/html")
		if resp.StatusCode != 200 {
			t.Errorf("GET /s/ID?%s = %s, want the page", c.query, resp.Status)
			continue
		}
		m := banner.FindSubmatch(body)
		if m == nil || strings.Contains(string(m[0]), " hidden") {
			t.Errorf("GET /s/ID?%s: the link-error banner is hidden or missing", c.query)
			continue
		}
		text := html.UnescapeString(string(m[1]))
		for _, w := range c.want {
			if !strings.Contains(text, w) {
				t.Errorf("GET /s/ID?%s: banner %q, want it to mention %q", c.query, text, w)
			}
		}
		if g := edits.FindSubmatch(body); g == nil || html.UnescapeString(string(g[1])) != c.edits {
			t.Errorf("GET /s/ID?%s: data-edits = %q, want %q", c.query, g, c.edits)
		}
	}
}

// TestBrowserSessionLinkErrors: in the browser, a session link that does
// not decode is reported once the page has started: in the banner for link
// errors when nothing else was asked, in the notice of the edits applied
// (which clear the banner) when something was.
func TestBrowserSessionLinkErrors(t *testing.T) {
	browserInstalled(t)
	srv, st := testServer(t, browserAssets(t), t.TempDir(), nil)
	sess, err := st.Create(store.Draft{Name: "link errors", Settings: engine.Defaults()}, storeT0)
	if err != nil {
		t.Fatal(err)
	}
	b := openLabOn(t, srv, "/s/"+sess.ID+"?latency=%ZZ")
	var got struct {
		Hidden         bool
		Errors, Notice string
	}
	const read = `({Hidden: document.getElementById('errors').hidden, Errors: document.getElementById('error-list').textContent,
		Notice: document.getElementById('edits-notice').textContent})`
	b.eval(read, &got)
	if got.Hidden || !strings.Contains(got.Errors, `malformed link: invalid URL escape "%ZZ"`) {
		t.Errorf("/s/ID?latency=%%ZZ: banner hidden %v, %q; want it shown, naming the malformed link", got.Hidden, got.Errors)
	}
	b.navigate("/s/" + sess.ID + "?loss=2%25&latency=%ZZ")
	b.eval(read, &got)
	if !strings.Contains(got.Notice, "loss = 2 %") || !strings.Contains(got.Notice, `Not applied: malformed link: invalid URL escape "%ZZ"`) {
		t.Errorf("/s/ID?loss=2%%25&latency=%%ZZ: notice %q; want loss applied and the malformed link named", got.Notice)
	}
}
