package templates

import (
	"slices"
	"testing"

	"golang.org/x/net/html"
)

// TestHeadRequests checks what the lab page's head asks for, in order:
// boot.js first (it starts the engine's worker, which fetches /lab.wasm,
// the download the first frame waits for), then Go's wasm_exec.js, the
// style sheets as one and lab.js's modules as one, and nothing else. Each
// request more waited on the browser's six connections: the head once
// asked for 26 files (four style sheets and 19 modules among them), and
// the worker's script and /lab.wasm queued behind them.
func TestHeadRequests(t *testing.T) {
	doc := render(t, PageView{Params: nil})
	head := find(doc, func(n *html.Node) bool { return n.Data == "head" })
	if len(head) != 1 {
		t.Fatalf("%d heads, want 1", len(head))
	}
	var got []string
	for _, n := range find(head[0], func(n *html.Node) bool { return n.Data == "script" || n.Data == "link" }) {
		rel, _ := attr(n, "rel")
		if rel == "icon" {
			continue // a data: URL, no request
		}
		url, ok := attr(n, "src")
		if !ok {
			url, _ = attr(n, "href")
		}
		got = append(got, rel+" "+url)
	}
	want := []string{
		" /static/boot.js",
		" /static/dist/wasm_exec.js",
		"stylesheet /static/bundle/lab.css",
		" /static/bundle/lab.js",
	}
	if !slices.Equal(got, want) {
		t.Errorf("the head asks for (rel url)\n%q,\nwant\n%q", got, want)
	}
	for _, n := range find(head[0], func(n *html.Node) bool { v, _ := attr(n, "src"); return v == "/static/bundle/lab.js" }) {
		if typ, _ := attr(n, "type"); typ != "module" {
			t.Errorf("the bundle's script has type %q, want module", typ)
		}
		if b, _ := attr(n, "blocking"); b != "render" {
			t.Errorf("the bundle's script has blocking=%q, want render (the page is first painted with its first frame)", b)
		}
	}
}
