package static

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
)

func TestBundleModule(t *testing.T) {
	fsys := fstest.MapFS{
		"main.js":     {Data: []byte("import { a } from './a.js';\nimport './sub/b.js';\nconsole.log(a);\n")},
		"a.js":        {Data: []byte("export const a = 'from a';\n")},
		"sub/b.js":    {Data: []byte("import { a } from '../a.js';\nglobalThis.b = a + ' via b';\n")},
		"unused.js":   {Data: []byte("export const unused = 'never imported';\n")},
		"other.css":   {Data: []byte("body { color: red; }\n")},
		"bundle/x.js": {Data: []byte("// a file already where the bundle goes is no input\n")},
	}
	js, sourceMap, err := BundleModule(fsys, "main.js", "bundle/main.js")
	if err != nil {
		t.Fatal(err)
	}
	src := string(js)
	for _, want := range []string{"'from a'", "' via b'", "console.log(a)", "//# sourceMappingURL=main.js.map"} {
		if !strings.Contains(strings.ReplaceAll(src, `"`, `'`), want) {
			t.Errorf("the bundle lacks %s:\n%s", want, src)
		}
	}
	if strings.Contains(src, "import ") || strings.Contains(src, "never imported") {
		t.Errorf("the bundle still imports, or holds a module nothing imports:\n%s", src)
	}
	var m struct {
		Sources        []string `json:"sources"`
		SourcesContent []string `json:"sourcesContent"`
	}
	if err := json.Unmarshal(sourceMap, &m); err != nil {
		t.Fatalf("source map: %v", err)
	}
	// Relative to bundle/, so that /static/bundle/main.js.map names
	// /static/a.js and so on.
	if want := []string{"../a.js", "../main.js", "../sub/b.js"}; !slices.Equal(slices.Sorted(slices.Values(m.Sources)), want) {
		t.Errorf("source map sources = %q, want %q", m.Sources, want)
	}
	if i := slices.Index(m.Sources, "../a.js"); i < 0 || i >= len(m.SourcesContent) || m.SourcesContent[i] != string(fsys["a.js"].Data) {
		t.Errorf("the source map does not hold a.js as it is")
	}
}

// TestBundleModuleErrors checks that what cannot be bundled is an error
// naming the file and its line.
func TestBundleModuleErrors(t *testing.T) {
	for _, c := range []struct {
		name string
		fsys fstest.MapFS
		want []string
	}{
		{"syntax", fstest.MapFS{
			"main.js": {Data: []byte("import { a } from './a.js';\nconsole.log(a);\n")},
			"a.js":    {Data: []byte("// a.js\n\nexport const a = (1;\n")},
		}, []string{"bundle main.js: ", "a.js:3:"}},
		{"missing module", fstest.MapFS{
			"main.js": {Data: []byte("// main\nimport { a } from './gone.js';\n")},
		}, []string{"main.js:2:", "gone.js"}},
		{"missing export", fstest.MapFS{
			"main.js": {Data: []byte("import { b } from './a.js';\nconsole.log(b);\n")},
			"a.js":    {Data: []byte("export const a = 1;\n")},
		}, []string{"main.js:1:", `"b"`}},
		{"bare import", fstest.MapFS{
			"main.js": {Data: []byte("import x from 'lodash';\n")},
		}, []string{"main.js:1:", "lodash", "only relative imports"}},
		{"outside", fstest.MapFS{
			"main.js": {Data: []byte("import x from '../../etc/x.js';\n")},
		}, []string{"main.js:1:", "outside the assets"}},
	} {
		_, _, err := BundleModule(c.fsys, "main.js", "bundle/main.js")
		if err == nil {
			t.Errorf("%s: bundled, want an error", c.name)
			continue
		}
		t.Logf("%s: %v", c.name, err)
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q, want it to name %q", c.name, err, w)
			}
		}
	}
}

func TestConcatStyles(t *testing.T) {
	fsys := fstest.MapFS{
		"a.css": {Data: []byte("a { color: red; }\n")},
		"b.css": {Data: []byte("b { color: blue; }")},
		"i.css": {Data: []byte("/* i */\n@import url(a.css);\n")},
	}
	got, err := ConcatStyles(fsys, []string{"b.css", "a.css"})
	if err != nil {
		t.Fatal(err)
	}
	if want := "/* b.css */\nb { color: blue; }\n/* a.css */\na { color: red; }\n"; string(got) != want {
		t.Errorf("ConcatStyles = %q, want %q", got, want)
	}
	if _, err := ConcatStyles(fsys, []string{"a.css", "i.css"}); err == nil || !strings.Contains(err.Error(), "i.css:2: @import") {
		t.Errorf("ConcatStyles with an @import: %v, want an error naming i.css:2", err)
	}
	if _, err := ConcatStyles(fsys, []string{"a.css", "gone.css"}); err == nil || !strings.Contains(err.Error(), "gone.css") {
		t.Errorf("ConcatStyles with a missing sheet: %v, want an error naming it", err)
	}
}
