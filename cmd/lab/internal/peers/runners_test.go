package peers

import (
	"maps"
	"path/filepath"
	"slices"
	"testing"
)

// TestRunnersReproduceLibraries checks, through Runners as `lab peers
// check` does, every case the library techniques keep in their testdata:
// each must be read by its library's runner and reproduced within
// Tolerance, pos null-ness exactly.
func TestRunnersReproduceLibraries(t *testing.T) {
	c := &Checker{Runners: Runners()}
	libs := slices.Sorted(maps.Keys(c.Runners))
	if want := []string{"geckos", "ioquake3", "lightyear", "mirror", "ngo", "source"}; !slices.Equal(libs, want) {
		t.Errorf("Runners() has %v, want %v", libs, want)
	}
	for _, lib := range libs {
		files, err := Files([]string{filepath.Join("..", "..", "..", "..", "engine", "technique", lib, "testdata")})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, f := range files {
			r := c.Check(f)
			if r.Library != lib && r.Err == nil {
				continue // another kind of file of the testdata
			}
			n++
			if !r.OK() {
				t.Errorf("%s: %s: first differs at frame %d: %s (%v)", lib, filepath.Base(f), r.FirstDiff, r.Why, r.Err)
			}
		}
		if n < 10 {
			t.Errorf("%s: %d cases checked, want at least the 10 public ones", lib, n)
		}
	}
}
