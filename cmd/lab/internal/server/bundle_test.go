package server

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"interplab/web"
)

// staticImport matches a module's static imports of its siblings:
// import … from './x.js' and import './x.js'.
var staticImport = regexp.MustCompile(`(?m)^\s*(?:import|export)\b[^'";]*?(?:from\s+)?'\./([a-z0-9_-]+\.js)'`)

// moduleClosure returns root and every module of fsys it imports,
// directly or through another, read with a regular expression (not the
// bundler), sorted.
func moduleClosure(t *testing.T, fsys fs.FS, root string) []string {
	t.Helper()
	seen := map[string]bool{root: true}
	queue := []string{root}
	for len(queue) > 0 {
		name := queue[0]
		queue = queue[1:]
		src, err := fs.ReadFile(fsys, name)
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
	return slices.Sorted(func(yield func(string) bool) {
		for m := range seen {
			if !yield(m) {
				return
			}
		}
	})
}

// TestServeLabBundles checks the lab page's bundles as the server builds
// them from package web's files: the script holds lab.js and every module
// it imports (its source map names each, relative to the bundle, with its
// text), the style sheet is the page's sheets in order, and both are
// served like the other static files: an ETag, a 304 on revalidation,
// gzip.
func TestServeLabBundles(t *testing.T) {
	s, _ := testServer(t, web.FS, t.TempDir(), nil)
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)

	want := moduleClosure(t, web.FS, web.LabModule)
	if !slices.Contains(want, "session.js") || !slices.Contains(want, "sync.js") {
		t.Fatalf("lab.js's imports as read here = %v: the reading misses some (session.js, and sync.js through it)", want)
	}
	resp, js := get(t, ts.URL+"/static/"+web.LabBundle)
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/javascript") {
		t.Fatalf("GET /static/%s = %s %q", web.LabBundle, resp.Status, resp.Header.Get("Content-Type"))
	}
	if bytes.Contains(js, []byte("\nimport ")) || !bytes.HasSuffix(bytes.TrimSpace(js), []byte("//# sourceMappingURL=lab.js.map")) {
		t.Errorf("the bundle imports a module, or does not end by naming its source map")
	}
	resp, body := get(t, ts.URL+"/static/"+web.LabBundle+".map")
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("GET the source map = %s %q, want 200 application/json", resp.Status, resp.Header.Get("Content-Type"))
	}
	var m struct {
		Sources        []string `json:"sources"`
		SourcesContent []string `json:"sourcesContent"`
	}
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatal(err)
	}
	var got []string
	for i, src := range m.Sources {
		name, ok := strings.CutPrefix(src, "../") // bundle/lab.js.map names /static/x.js ../x.js
		if !ok {
			t.Errorf("source %q, want it relative to /static/bundle/", src)
			continue
		}
		got = append(got, name)
		if text, err := fs.ReadFile(web.FS, name); err != nil || i >= len(m.SourcesContent) || m.SourcesContent[i] != string(text) {
			t.Errorf("the source map's text of %s is not the file's (%v)", name, err)
		}
	}
	if slices.Sort(got); !slices.Equal(got, want) {
		t.Errorf("the bundle is made of %v,\nwant lab.js and its imports %v", got, want)
	}

	resp, _ = get(t, ts.URL+"/static/"+web.LabBundle)
	etag := resp.Header.Get("ETag")
	if etag == "" || resp.Header.Get("Cache-Control") != "no-cache" {
		t.Errorf("the bundle: ETag %q, Cache-Control %q", etag, resp.Header.Get("Cache-Control"))
	}
	if resp, body := get(t, ts.URL+"/static/"+web.LabBundle, "If-None-Match", etag); resp.StatusCode != 304 || len(body) != 0 {
		t.Errorf("revalidate the bundle = %s with %d bytes, want 304", resp.Status, len(body))
	}
	if resp, body := get(t, ts.URL+"/static/"+web.LabBundle, "Accept-Encoding", "gzip"); resp.Header.Get("Content-Encoding") != "gzip" || len(body) >= len(js)/2 {
		t.Errorf("the bundle with gzip: Content-Encoding %q, %d bytes of %d", resp.Header.Get("Content-Encoding"), len(body), len(js))
	}

	resp, css := get(t, ts.URL+"/static/"+web.LabStyle)
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/css") {
		t.Fatalf("GET /static/%s = %s %q", web.LabStyle, resp.Status, resp.Header.Get("Content-Type"))
	}
	at := 0
	for _, name := range web.LabStyles {
		sheet, err := fs.ReadFile(web.FS, name)
		if err != nil {
			t.Fatal(err)
		}
		i := bytes.Index(css[at:], sheet)
		if i < 0 {
			t.Errorf("the page's style sheet does not hold %s after the sheets before it", name)
			continue
		}
		at += i + len(sheet)
	}
}

// TestNewRefusesBrokenBundle checks that a lab whose page's modules cannot
// be bundled does not start (lab serve returns New's error), and that the
// error says which file and line.
func TestNewRefusesBrokenBundle(t *testing.T) {
	assets := testAssets(t, false)
	assets[web.LabModule] = &fstest.MapFile{Data: []byte("// @ts-check\nimport { View } from './view.js';\nnew View();\n")}
	assets["view.js"] = &fstest.MapFile{Data: []byte("// @ts-check\nexport class View {\n  draw() { return 1 +; }\n}\n")}
	d := freshDeps(t)
	d.Assets = assets
	s, err := New(d)
	if err == nil {
		t.Fatalf("New with a syntax error in view.js = %v, want an error", s)
	}
	if !strings.Contains(err.Error(), "view.js:3:") {
		t.Errorf("New: %v, want the error to name view.js and its line 3", err)
	}
}
