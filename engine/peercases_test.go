package engine

import (
	"compress/gzip"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// decodePeerCases decodes every case under testdata/peers/lib (gzip-compressed
// JSON, as copied from the real libraries' goldens) into a T, in file order,
// with the files' paths.
func decodePeerCases[T any](t testing.TB, lib string) (paths []string, cases []*T) {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("testdata", "peers", lib, "*.json.gz"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no %s cases under testdata/peers/%s (%v)", lib, lib, err)
	}
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		zr, err := gzip.NewReader(f)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		c := new(T)
		err = json.NewDecoder(zr).Decode(c)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		cases = append(cases, c)
	}
	return paths, cases
}
