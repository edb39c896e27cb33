package templates

import (
	"bytes"
	"context"
	"slices"
	"testing"

	"github.com/a-h/templ"
	"golang.org/x/net/html"
)

// headRequests renders Page(v) with a request's nonce and returns its head's
// scripts and links in order, each as "rel url" (an inline script as
// "inline nonce=N" and its text), the icon (a data: URL) left out.
func headRequests(t *testing.T, v PageView, nonce string) (got []string, inline string) {
	t.Helper()
	var buf bytes.Buffer
	if err := Page(v).Render(templ.WithNonce(context.Background(), nonce), &buf); err != nil {
		t.Fatal(err)
	}
	doc, err := html.Parse(&buf)
	if err != nil {
		t.Fatal(err)
	}
	head := find(doc, func(n *html.Node) bool { return n.Data == "head" })
	if len(head) != 1 {
		t.Fatalf("%d heads, want 1", len(head))
	}
	for _, n := range find(head[0], func(n *html.Node) bool { return n.Data == "script" || n.Data == "link" }) {
		rel, _ := attr(n, "rel")
		url, ok := attr(n, "src")
		if !ok {
			url, _ = attr(n, "href")
		}
		switch {
		case rel == "icon":
			continue // a data: URL, no request
		case n.Data == "script" && url == "":
			n2, _ := attr(n, "nonce")
			got = append(got, "inline nonce="+n2)
			if n.FirstChild != nil {
				inline += n.FirstChild.Data
			}
			continue
		}
		if b, _ := attr(n, "blocking"); b != "" {
			url += " blocking=" + b
		}
		if typ, _ := attr(n, "type"); typ != "" {
			url += " type=" + typ
		}
		got = append(got, rel+" "+url)
	}
	return got, inline
}

// TestHeadRequests checks what the lab page's head asks for, in order:
// boot.js first, inline with the request's nonce (it starts the engine's
// worker, which fetches /lab.wasm, the download the first frame waits
// for), then Go's wasm_exec.js, the style sheets as one and lab.js's
// modules as one, which blocks rendering, and nothing else. Each request
// more waited on the browser's six connections: the head once asked for
// 26 files (four style sheets and 19 modules among them), and the worker's
// script and /lab.wasm queued behind them. Without boot.js's text (or with
// text that cannot be inlined) the page asks for /static/boot.js.
func TestHeadRequests(t *testing.T) {
	const boot = "{ globalThis.interplabBoot = 1; }"
	rest := []string{
		" /static/dist/wasm_exec.js",
		"stylesheet /static/bundle/lab.css",
		" /static/bundle/lab.js blocking=render type=module",
	}
	for _, c := range []struct {
		name, boot, inline string
		first              string
	}{
		{"inline", boot, boot, "inline nonce=n0nce"},
		{"no text", "", "", " /static/boot.js"},
		{"cannot be inlined", "x = '</SCRIPT>';", "", " /static/boot.js"},
		{"comment opener", "x = '<!--';", "", " /static/boot.js"},
	} {
		got, inline := headRequests(t, PageView{BootScript: c.boot}, "n0nce")
		if want := append([]string{c.first}, rest...); !slices.Equal(got, want) {
			t.Errorf("%s: the head asks for (rel url)\n%q,\nwant\n%q", c.name, got, want)
		}
		if inline != c.inline {
			t.Errorf("%s: the inline script is %q, want %q", c.name, inline, c.inline)
		}
	}
}
