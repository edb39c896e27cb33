package templates

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// staticImport matches a module's static imports of its siblings:
// import … from './x.js' and import './x.js'.
var staticImport = regexp.MustCompile(`(?m)^\s*(?:import|export)\b[^'";]*?(?:from\s+)?'\./([a-z0-9_-]+\.js)'`)

// moduleClosure returns every module of dir that root imports, directly or
// through another, root excluded.
func moduleClosure(t *testing.T, dir, root string) []string {
	t.Helper()
	seen := map[string]bool{root: true}
	queue := []string{root}
	for len(queue) > 0 {
		name := queue[0]
		queue = queue[1:]
		src, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range staticImport.FindAllStringSubmatch(string(src), -1) {
			if !seen[m[1]] {
				seen[m[1]] = true
				queue = append(queue, m[1])
			}
		}
	}
	delete(seen, root)
	var out []string
	for m := range seen {
		out = append(out, m)
	}
	slices.Sort(out)
	return out
}

// TestPreloadsLabModules checks that the lab page's head preloads every
// module web/lab.js needs, and nothing else, so that a new import is not
// left to be found a round later.
func TestPreloadsLabModules(t *testing.T) {
	want := moduleClosure(t, filepath.Join("..", "web"), "lab.js")
	if !slices.Contains(want, "session.js") || !slices.Contains(want, "sync.js") {
		t.Fatalf("lab.js's imports as read here = %v: the reading misses some (session.js, and sync.js through it)", want)
	}
	doc := render(t, PageView{Params: nil})
	var got []string
	for _, n := range find(doc, func(n *html.Node) bool { v, _ := attr(n, "rel"); return n.Data == "link" && v == "modulepreload" }) {
		href, _ := attr(n, "href")
		got = append(got, strings.TrimPrefix(href, "/static/"))
	}
	if dup := len(got) - len(slices.Compact(slices.Sorted(slices.Values(got)))); dup > 0 {
		t.Errorf("the head preloads %d modules twice: %v", dup, got)
	}
	slices.Sort(got)
	got = slices.Compact(got)
	if !slices.Equal(got, want) {
		t.Errorf("modulepreload = %v,\nwant lab.js's imports %v", got, want)
	}
}
