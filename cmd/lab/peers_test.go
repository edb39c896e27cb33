package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestPeersCheck: lab peers check replays the committed library cases and
// passes them all; a tolerance no case can meet fails them, exit 1; bad
// usage is 2.
func TestPeersCheck(t *testing.T) {
	// Each library technique's cases are in its package's testdata.
	dir := filepath.Join("..", "..", "engine", "technique")
	files, _ := filepath.Glob(filepath.Join(dir, "*", "testdata", "*.json.gz"))
	if len(files) == 0 {
		t.Fatal("no library cases under engine/technique/*/testdata")
	}
	code, out, errs := labRun("peers", "check", dir)
	if code != 0 || strings.Count(out, "\n") < len(files) {
		t.Fatalf("lab peers check = %d, %d lines for %d cases:\n%s%s", code, strings.Count(out, "\n"), len(files), out, errs)
	}
	if code, out, _ := labRun("peers", "check", "-tol", "1e-15", dir); code != 1 {
		t.Errorf("lab peers check -tol 1e-15 = %d, want 1 (no replay is exact to 1e-15 m):\n%s", code, out)
	}
	netsim := filepath.Join("..", "..", "engine", "netsim", "testdata", "mirror-latencysim")
	code, out, errs = labRun("peers", "check", netsim)
	if code != 0 || !strings.Contains(out, "[mirror-latencysim]") || !strings.Contains(out, "10 of 10 cases reproduced") {
		t.Fatalf("lab peers check %s = %d:\n%s%s", netsim, code, out, errs)
	}
	for _, args := range [][]string{{"peers"}, {"peers", "frobnicate"}, {"peers", "check"}, {"peers", "check", "-tol", "2", dir}, {"peers", "check", "-tol-time", "0", netsim}} {
		if code, _, _ := labRun(args...); code != 2 {
			t.Errorf("lab %s = %d, want 2", strings.Join(args, " "), code)
		}
	}
}
