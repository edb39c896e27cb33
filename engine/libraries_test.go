package engine_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"interplab/engine"
)

// sources reads the module's files that the rule of the project's
// before-stop hook looks at, by their path from root: Go, JavaScript, templ
// and CSS sources, leaving out tests, testdata, presets, docs, generated
// templ code, the game-side clients and build outputs (web/dist).
func sources(t *testing.T, root string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := filepath.ToSlash(strings.TrimPrefix(path, root+string(filepath.Separator)))
		if d.IsDir() {
			if (strings.HasPrefix(d.Name(), ".") && path != root) || d.Name() == "testdata" ||
				slices.Contains([]string{"presets", "docs", "clients", "web/dist"}, rel) {
				return filepath.SkipDir
			}
			return nil
		}
		name := d.Name()
		if !slices.Contains([]string{".go", ".js", ".templ", ".css"}, filepath.Ext(name)) ||
			strings.HasSuffix(name, "_test.go") || strings.HasSuffix(name, "_templ.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		out[rel] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// naming lists the files of src outside engine/technique/<lib>/ that name
// library lib (its folder's name, case-insensitive), sorted.
func naming(src map[string][]byte, lib string) []string {
	word := regexp.MustCompile("(?i)" + regexp.QuoteMeta(lib))
	var out []string
	for rel, b := range src {
		if !strings.HasPrefix(rel, "engine/technique/"+lib+"/") && word.Match(b) {
			out = append(out, rel)
		}
	}
	slices.Sort(out)
	return out
}

// TestLibraryIsOneFolder lists, for every library technique, the files
// outside its folder that name it, and holds the libraries that came in
// through the technique list alone to it: lightyear and ioquake3 are named
// by the engine's list (engine/techniques.go) and nowhere else but presets,
// docs and tests. The README's table states every library's count; this
// test keeps it true. (The count is of files that contain the name, so the
// older libraries with everyday names, source and mirror, count the words
// too.)
func TestLibraryIsOneFolder(t *testing.T) {
	if runtime.GOOS == "js" {
		t.Skip("the module's files are not on the WebAssembly test's file system")
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	src := sources(t, root)
	checked := map[string]bool{}
	for _, tech := range engine.TechniqueNames {
		if !engine.LibraryTechnique(tech) {
			continue
		}
		lib := engine.TechniqueGroup(tech) // its folder: engine/technique/<group>
		if _, err := os.Stat(filepath.Join(root, "engine", "technique", lib)); err != nil {
			t.Errorf("%s: no folder engine/technique/%s: %v", tech, lib, err)
			continue
		}
		files := naming(src, lib)
		t.Logf("%s: %d files outside engine/technique/%s/: %s", lib, len(files), lib, strings.Join(files, " "))
		checked[lib] = true
		if lib == "lightyear" || lib == "ioquake3" {
			if want := []string{"engine/techniques.go"}; !slices.Equal(files, want) {
				t.Errorf("%s is named outside its folder in %v, want only the engine's list %v", lib, files, want)
			}
		}
		row := regexp.MustCompile("(?m)^\\| `" + regexp.QuoteMeta(lib) + "` \\| ([0-9]+) \\|").FindSubmatch(readme)
		if row == nil {
			t.Errorf("README.md states no count for %s: want a row | `%s` | %d | in its table of where libraries are named", lib, lib, len(files))
		} else if n, _ := strconv.Atoi(string(row[1])); n != len(files) {
			t.Errorf("README.md says %s is named in %d files outside its folder; it is %d", lib, n, len(files))
		}
	}
	for _, lib := range []string{"lightyear", "ioquake3"} {
		if !checked[lib] {
			t.Errorf("%s is not a library technique of the engine's list", lib)
		}
	}
}
