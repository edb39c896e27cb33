// Package web holds the lab page's static assets: the JavaScript modules,
// the style sheet, and the WebAssembly build output in dist/.
//
// The page (templates.Page) expects FS mounted at /static/, and the module
// at /lab.wasm:
//
//	/static/bundle/lab.js          LabModule (lab.js) and every module it
//	                               imports, bundled into one ES module by the
//	                               server from FS when it starts (esbuild),
//	                               with its source map, bundle/lab.js.map
//	/static/bundle/lab.css         LabStyles, one after the other
//	/static/*.js, /static/*.css    each file as it is: the modules unbundled
//	                               (the other pages and the workers load them)
//	/static/dist/wasm_exec.js      copied from $(go env GOROOT)/lib/wasm by the build
//	/lab.wasm                      the bytes of WASM(), which are gzip-compressed:
//	                               served with Content-Type: application/wasm
//	                               and Content-Encoding: gzip
//
// dist/lab.wasm.gz and dist/wasm_exec.js are build outputs (make wasm), not
// committed; without them the package still compiles and WASM reports what
// is missing.
package web

import (
	"embed"
	"errors"
	"io/fs"
)

//go:embed *.js *.css all:dist
var files embed.FS

// FS is the static assets, rooted at this directory: lab.js, style.css,
// dist/wasm_exec.js and so on.
var FS fs.FS = files

// The lab page's bundles: what the server builds from FS and where it
// serves them under /static/. The page (templates.Page) asks for these,
// not for the files they are made of: a page of many modules and sheets
// waited on the browser's few connections for each, ahead of the engine's
// worker and /lab.wasm.
const (
	LabModule = "lab.js"         // the lab page's module, bundled with everything it imports
	LabBundle = "bundle/lab.js"  // the bundle; its source map is LabBundle+".map"
	LabStyle  = "bundle/lab.css" // LabStyles, one after the other
)

// LabStyles are the lab page's style sheets, in the order they cascade.
var LabStyles = []string{"style.css", "session.css", "ab.css", "presets.css"}

// WASMFile is the path in FS of the gzip-compressed WebAssembly module.
const WASMFile = "dist/lab.wasm.gz"

// WASM returns the gzip-compressed bytes of the lab's WebAssembly module,
// or an error when the module was not built before the binary.
func WASM() ([]byte, error) {
	b, err := fs.ReadFile(FS, WASMFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, errors.New("web: " + WASMFile + " was not built: run make wasm, then rebuild")
	}
	if err != nil {
		return nil, err
	}
	return b, nil
}
