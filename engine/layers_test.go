package engine_test

import (
	"os/exec"
	"path"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// layers is the engine's layout from the bottom up: each package (a
// pattern ending in /* stands for every package one level below) with the
// module packages it may import. Anything else it imports must come from
// the standard library. A lower package never imports a higher one, a
// technique never imports another technique nor the simulation, and the
// studies use only what engine exports.
var layers = []struct {
	pkg string
	may []string
}{
	{lGeom, nil},
	{lParam, nil},
	{"interplab/engine/internal/goldentest", nil}, // the tests' golden files of numbers
	{"interplab/engine/internal/peertest", nil},   // the libraries' and netsim's tests read their recorded cases with it
	{lTechnique, []string{lGeom, lParam}},
	{lTools, []string{lTechnique, lParam}}, // the libraries' exports and case decoder, outside lab.wasm
	{lTechnique + "/*", []string{lTechnique, lTools, lGeom, lParam}},
	{lNetsim, []string{lGeom, lParam}},
	{lMotion, []string{lGeom}},
	{lEngine, []string{lTechnique, lTechnique + "/*", lNetsim, lMotion, lGeom, lParam}},
	{lEngine + "/study", []string{lEngine, lTechnique, lNetsim, lMotion, lGeom, lParam}},
	{lEngine + "/fit", []string{lEngine, lEngine + "/study", lNetsim, lMotion, lGeom, lParam}},
}

// The engine's packages, as the table names them.
const (
	lEngine    = "interplab/engine"
	lTechnique = "interplab/engine/technique"
	lTools     = "interplab/engine/technique/tools"
	lNetsim    = "interplab/engine/netsim"
	lMotion    = "interplab/engine/motion"
	lGeom      = "interplab/engine/geom"
	lParam     = "interplab/engine/param"
)

// TestLayers holds the engine to its layers, reading each package's
// imports with go list, so that the layout cannot erode: a package that
// reaches up, or a new package not placed in the table, fails here.
func TestLayers(t *testing.T) {
	if runtime.GOOS == "js" {
		t.Skip("go list does not run under WebAssembly")
	}
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "interplab/engine/...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for line := range strings.Lines(strings.TrimSpace(string(out))) {
		f := strings.Fields(line)
		pkg, imports := f[0], f[1:]
		i := slices.IndexFunc(layers, func(l struct {
			pkg string
			may []string
		}) bool {
			return matchLayer(l.pkg, pkg)
		})
		if i < 0 {
			t.Errorf("%s is in no layer: place it in the table of layers_test.go", pkg)
			continue
		}
		for _, imp := range imports {
			if !strings.HasPrefix(imp, "interplab/") && imp != "interplab" {
				continue // the standard library
			}
			if !slices.ContainsFunc(layers[i].may, func(m string) bool { return matchLayer(m, imp) }) {
				t.Errorf("%s imports %s: its layer allows only %v", pkg, imp, layers[i].may)
			}
		}
	}
}

// matchLayer tells whether pkg is pattern, or, for a pattern ending in
// /*, a package one level below it.
func matchLayer(pattern, pkg string) bool {
	if dir, ok := strings.CutSuffix(pattern, "/*"); ok {
		return path.Dir(pkg) == dir
	}
	return pattern == pkg
}
