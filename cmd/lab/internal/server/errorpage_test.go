package server

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"interplab/cmd/lab/internal/store"
	"interplab/engine"
)

// TestErrorPages opens every page route of the route table with an id,
// name or revision that does not exist, and a few paths no route takes:
// each answers an HTML page with the status, what went wrong and a link
// back, never the API's JSON or a plain-text 404. The API's own paths keep
// answering JSON.
func TestErrorPages(t *testing.T) {
	srv, st := testServer(t, testAssets(t, false), t.TempDir(), nil)
	ts := serve(t, srv)
	sess, err := st.Create(store.Draft{Name: "errors", Settings: engine.Defaults()}, storeT0)
	if err != nil {
		t.Fatal(err)
	}

	type page struct {
		path   string
		status int
		back   string // a link the page must have besides the fresh lab
	}
	var pages []page
	for _, pattern := range srv.routePatterns() {
		if !pageRoute(pattern) || !strings.Contains(strings.ReplaceAll(pattern, "{$}", ""), "{") {
			continue
		}
		path := strings.TrimPrefix(pattern, "GET ")
		if strings.Contains(path, "{rev}") {
			path = strings.ReplaceAll(path, "{id}", sess.ID) // a session that exists, a revision that does not
		}
		path = strings.NewReplacer("{id}", "nope", "{name}", "nope", "{rev}", "999").Replace(path)
		back := "/" + strings.Split(path, "/")[1]
		if strings.HasPrefix(path, "/s/") {
			back = "/sessions"
		}
		pages = append(pages, page{path, http.StatusNotFound, back})
	}
	if len(pages) < 8 {
		t.Fatalf("only %d page routes with a parameter: %v", len(pages), pages)
	}
	pages = append(pages,
		page{"/traces/nope", http.StatusNotFound, "/traces"},
		page{"/tune/nope/more", http.StatusNotFound, "/tune"},
		page{"/s/" + sess.ID + "/r/999", http.StatusNotFound, "/sessions"},
		page{"/nope", http.StatusNotFound, ""},
		page{"/compare/nope", http.StatusNotFound, "/compare"},
	)
	for _, p := range pages {
		resp, body := get(t, ts.URL+p.path, "Accept", "text/html")
		text := string(body)
		if resp.StatusCode != p.status || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
			t.Errorf("GET %s = %s, %s; want %d, an HTML page", p.path, resp.Status, resp.Header.Get("Content-Type"), p.status)
			continue
		}
		for _, want := range []string{`role="alert"`, `data-status="404"`, `href="/">A fresh lab</a>`} {
			if !strings.Contains(text, want) {
				t.Errorf("GET %s: the page has no %s", p.path, want)
			}
		}
		if p.back != "" && !strings.Contains(text, `href="`+p.back+`"`) {
			t.Errorf("GET %s: the page has no link back to %s", p.path, p.back)
		}
		if strings.Contains(text, `"error":`) {
			t.Errorf("GET %s: the page shows the API's JSON: %s", p.path, text)
		}
	}

	// A page's path with a method it does not take: 405, and what to use.
	req, _ := http.NewRequest(http.MethodDelete, ts.URL+"/tune", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") == "" ||
		!strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
		t.Errorf("DELETE /tune = %s %s, Allow %q; want a 405 HTML page naming the methods", resp.Status, resp.Header.Get("Content-Type"), resp.Header.Get("Allow"))
	}

	// The API answers JSON, whoever asks.
	for _, path := range []string{"/api/nope", "/api/jobs/nope", "/api/sessions/nope", "/api/traces/nope", "/ws/jobs/nope", "/ws/nope"} {
		resp, body := get(t, ts.URL+path, "Accept", "text/html")
		var e errorBody
		if resp.StatusCode != http.StatusNotFound || json.Unmarshal(body, &e) != nil || e.Error == "" {
			t.Errorf("GET %s = %s %q, want a 404 in the API's JSON", path, resp.Status, body)
		}
	}
}
