//go:build !js

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// goBuild runs go with args and -o out before pkg under GOOS=js
// GOARCH=wasm and returns the module it writes.
func goBuild(t *testing.T, out, pkg string, args ...string) []byte {
	t.Helper()
	args = append(args, "-o", out, pkg)
	cmd := exec.Command("go", args...)
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, b)
	}
	m, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestPackLab packs lab.wasm as make wasm builds it: the memory it starts
// with and every other section are unchanged, and the segments are few.
func TestPackLab(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the module")
	}
	in := goBuild(t, filepath.Join(t.TempDir(), "lab.wasm"), "interplab/wasm", "build", "-trimpath", "-ldflags=-s")
	out, err := Pack(in)
	if err != nil {
		t.Fatal(err)
	}
	inMem, inSegs, inOthers := memory(t, in)
	outMem, outSegs, outOthers := memory(t, out)
	if !bytes.Equal(inMem, outMem) {
		t.Error("the packed lab.wasm starts with other memory than lab.wasm")
	}
	if !slices.EqualFunc(inOthers, outOthers, bytes.Equal) {
		t.Error("Pack changed a section of lab.wasm other than data")
	}
	if outSegs > 100 {
		t.Errorf("the packed lab.wasm has %d data segments (from %d), want at most 100", outSegs, inSegs)
	}
	t.Logf("lab.wasm: %d data segments, %d bytes; packed: %d segments, %d bytes", inSegs, len(in), outSegs, len(out))
}

// TestPackedModuleRuns packs the wasm package's test binary and runs its
// golden tests in Node as make test-wasm does: the lab's adapter gives the
// same numbers from the packed module, in runs and replays.
func TestPackedModuleRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the wasm package's tests")
	}
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatal(err)
	}
	execWasm := filepath.Join(strings.TrimSpace(string(goroot)), "lib", "wasm", "go_js_wasm_exec")
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("no node to run the module in")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "wasm.test")
	out, err := Pack(goBuild(t, bin, "interplab/wasm", "test", "-c"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, out, 0o755); err != nil {
		t.Fatal(err)
	}
	run := exec.Command(execWasm, bin, "-test.count=1", "-test.v", "-test.run=^TestWasm(Golden|ReplayGolden|Errors)$")
	run.Dir = filepath.Join("..") // the wasm package's directory, for its testdata
	b, err := run.CombinedOutput()
	if err != nil || !bytes.Contains(b, []byte("PASS")) {
		t.Fatalf("the packed test binary of interplab/wasm: %v\n%s", err, b)
	}
	t.Logf("%s", b)
}
