// Package static serves the lab's embedded files (package web's). They
// are embedded, so they are read, hashed and compressed once at start.
// Their URLs carry no fingerprint, so they are served with Cache-Control:
// no-cache and an ETag: a reload revalidates each with a cheap 304 and
// never runs stale code. The WebAssembly module, built by make, is served
// precompressed, and a 503 says how to build it while it is missing.
package static

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"slices"
	"strconv"
	"strings"

	"interplab/cmd/lab/internal/jsonapi"
)

// NotBuilt is the answer for the wasm and its glue before make built them.
const NotBuilt = "wasm not built: run make"

// wasmOutputs are the files under the assets' dist/ that make wasm writes:
// missing, they are a 503 saying how to build them, not a 404.
var wasmOutputs = []string{"dist/wasm_exec.js", "dist/lab.wasm.gz"}

// asset is one file ready to serve.
type asset struct {
	body        []byte // as stored
	gz          []byte // gzip of body when that is smaller; nil otherwise
	etag        string
	contentType string
}

func newAsset(name string, body []byte) *asset {
	a := &asset{body: body, etag: assetETag(body), contentType: assetContentType(name, body)}
	if assetCompressible(a.contentType) {
		var b bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
		zw.Write(body)
		zw.Close()
		if b.Len() < len(body) {
			a.gz = b.Bytes()
		}
	}
	return a
}

func assetETag(body []byte) string {
	sum := sha256.Sum256(body)
	return `"` + hex.EncodeToString(sum[:12]) + `"`
}

func assetContentType(name string, body []byte) string {
	// A source map is JSON (the Source Map spec, §"Linking generated code");
	// Go's table and the machine's mime.types do not know .map.
	if path.Ext(name) == ".map" {
		return "application/json"
	}
	if t := mime.TypeByExtension(path.Ext(name)); t != "" {
		return t
	}
	return http.DetectContentType(body)
}

func assetCompressible(contentType string) bool {
	t, _, _ := strings.Cut(contentType, ";")
	switch t {
	case "text/javascript", "application/javascript", "application/json", "image/svg+xml", "application/manifest+json":
		return true
	}
	return strings.HasPrefix(t, "text/")
}

// serve writes a with its validators, gzipped when the client accepts it.
func (a *asset) serve(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Type", a.contentType)
	h.Set("ETag", a.etag)
	h.Set("Cache-Control", "no-cache")
	if a.gz != nil {
		h.Add("Vary", "Accept-Encoding")
	}
	if assetNotModified(r, a.etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	body := a.body
	if a.gz != nil && jsonapi.AcceptsGzip(r.Header.Get("Accept-Encoding")) {
		h.Set("Content-Encoding", "gzip")
		body = a.gz
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.Write(body)
}

// assetNotModified reports whether r's If-None-Match holds etag.
func assetNotModified(r *http.Request, etag string) bool {
	for _, t := range strings.Split(r.Header.Get("If-None-Match"), ",") {
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t == etag || t == "*" {
			return true
		}
	}
	return false
}

// Files serves every file of an fs.FS by its slash path.
type Files struct {
	files map[string]*asset
}

// Load reads every file of fsys.
func Load(fsys fs.FS) (*Files, error) {
	set := &Files{files: map[string]*asset{}}
	err := fs.WalkDir(fsys, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		body, err := fs.ReadFile(fsys, name)
		if err != nil {
			return err
		}
		set.files[name] = newAsset(name, body)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("load web assets: %w", err)
	}
	return set, nil
}

// Add serves body as the file name, in place of any file of that name:
// a file the server builds from the others (a bundle).
func (s *Files) Add(name string, body []byte) {
	s.files[name] = newAsset(name, body)
}

func (s *Files) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	a, ok := s.files[r.URL.Path]
	switch {
	case ok:
		a.serve(w, r)
	case slices.Contains(wasmOutputs, r.URL.Path):
		// The wasm build's outputs come from make.
		http.Error(w, NotBuilt, http.StatusServiceUnavailable)
	default:
		http.NotFound(w, r)
	}
}

// Wasm serves the precompressed WebAssembly module: as is, with
// Content-Encoding: gzip, to clients that accept gzip, decompressed on the
// fly to the others, and a 503 saying how to build it when it is missing.
type Wasm struct {
	gz   []byte // nil when not built
	etag string
}

// LoadWasm reads the gzipped module at name; a missing or empty file (the
// committed placeholder) means not built, anything else must be gzip.
func LoadWasm(fsys fs.FS, name string) (Wasm, error) {
	gz, err := fs.ReadFile(fsys, name)
	if err != nil || len(gz) == 0 {
		return Wasm{}, nil
	}
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err == nil {
		var magic [4]byte
		if _, err = io.ReadFull(zr, magic[:]); err == nil && string(magic[:]) != "\x00asm" {
			err = fmt.Errorf("not a WebAssembly module")
		}
	}
	if err != nil {
		return Wasm{}, fmt.Errorf("load %s: %w", name, err)
	}
	return Wasm{gz: gz, etag: assetETag(gz)}, nil
}

// Built reports whether the module was built.
func (a Wasm) Built() bool { return a.gz != nil }

func (a Wasm) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !a.Built() {
		http.Error(w, NotBuilt, http.StatusServiceUnavailable)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "application/wasm")
	h.Set("ETag", a.etag)
	h.Set("Cache-Control", "no-cache")
	h.Add("Vary", "Accept-Encoding")
	if assetNotModified(r, a.etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	if jsonapi.AcceptsGzip(r.Header.Get("Accept-Encoding")) {
		h.Set("Content-Encoding", "gzip")
		h.Set("Content-Length", strconv.Itoa(len(a.gz)))
		w.Write(a.gz)
		return
	}
	zr, err := gzip.NewReader(bytes.NewReader(a.gz)) // checked by LoadWasm
	if err != nil {
		http.Error(w, "lab.wasm: "+err.Error(), http.StatusInternalServerError)
		return
	}
	io.Copy(w, zr)
}
