// Package peertest reads, for the tests of the library techniques and of
// the engines' network simulators, the cases recorded from the real
// libraries that pin them.
package peertest

import (
	"compress/gzip"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// Decode decodes every case in dir (gzip-compressed JSON, *.json.gz, as
// copied from the real libraries' goldens) into a T, in file order, with
// the files' paths. It fails the test when there is none.
func Decode[T any](t testing.TB, dir string) (paths []string, cases []*T) {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "*.json.gz"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no cases in %s (%v)", dir, err)
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
