// Package goldentest pins long sequences of numbers to the bit in short
// golden files, for the engine's tests: natively, with GOAMD64=v3 (where
// the compiler may fuse multiply-adds) and under GOOS=js GOARCH=wasm the
// same files must match.
package goldentest

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Digest is an FNV-1a hash of float64 bit patterns that keeps the first
// few values in full, in an exact readable form.
type Digest struct {
	h     uint64
	n     int
	first []string
}

// NewDigest returns an empty digest.
func NewDigest() *Digest { return &Digest{h: 0xcbf29ce484222325} }

// Add adds xs, in order, to the digest.
func (d *Digest) Add(xs ...float64) {
	for _, x := range xs {
		b := math.Float64bits(x)
		for range 8 {
			d.h ^= b & 0xff
			d.h *= 0x100000001b3
			b >>= 8
		}
		if len(d.first) < 4 {
			d.first = append(d.first, strconv.FormatFloat(x, 'x', -1, 64))
		}
		d.n++
	}
}

// String returns the count, the hash and the first values.
func (d *Digest) String() string {
	return "n=" + strconv.Itoa(d.n) + " fnv=" + strconv.FormatUint(d.h, 16) + " first=" + strings.Join(d.first, ",")
}

// Check compares got with testdata/name, after rewriting the file with got
// when update is set (the tests' -update flag).
func Check(t testing.TB, name, got string, update bool) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update natively to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs:\ngot:\n%s\nwant:\n%s", path, got, want)
	}
}
