package server

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// TestAPIParamsGolden holds GET /api/params to the bytes in testdata: the
// parameter table's order, names, units, ranges, defaults and docs are the
// vocabulary of every saved session, link and script, so no change inside
// the engine may move them. A deliberate change to the table rewrites the
// file with go test -run APIParamsGolden -update.
func TestAPIParamsGolden(t *testing.T) {
	_, ts := newTestServer(t, false)
	resp, body := get(t, ts.URL+"/api/params")
	if resp.StatusCode != 200 {
		t.Fatalf("GET /api/params = %s", resp.Status)
	}
	golden := filepath.Join("testdata", "api-params.golden.json")
	if *update {
		if err := os.WriteFile(golden, body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(body, want) {
		t.Errorf("GET /api/params differs from %s (%d bytes, want %d)", golden, len(body), len(want))
	}
}
