// Package web holds the lab page's static assets: the JavaScript modules,
// the style sheet, and the WebAssembly build output in dist/.
//
// The page (templates.Page) expects FS mounted at /static/, and the module
// at /lab.wasm:
//
//	/static/lab.js, /static/*.js   ES modules, no bundler
//	/static/style.css
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
