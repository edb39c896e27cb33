package main

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
)

// Assets are embedded, so they are read, hashed and compressed once at
// start. Their URLs carry no fingerprint, so they are served with
// Cache-Control: no-cache and an ETag: a reload revalidates each with a cheap
// 304 and never runs stale code.

// wasmNotBuilt is the answer for the wasm and its glue before make built them.
const wasmNotBuilt = "wasm not built: run make"

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
	if a.gz != nil && acceptsGzip(r.Header.Get("Accept-Encoding")) {
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

// assetSet serves every file of an fs.FS by its slash path.
type assetSet struct {
	files map[string]*asset
}

func loadAssets(fsys fs.FS) (*assetSet, error) {
	set := &assetSet{files: map[string]*asset{}}
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

func (s *assetSet) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	a, ok := s.files[r.URL.Path]
	switch {
	case ok:
		a.serve(w, r)
	case slices.Contains(wasmOutputs, r.URL.Path):
		// The wasm build's outputs come from make.
		http.Error(w, wasmNotBuilt, http.StatusServiceUnavailable)
	default:
		http.NotFound(w, r)
	}
}

// wasmAsset serves the precompressed WebAssembly module: as is, with
// Content-Encoding: gzip, to clients that accept gzip, decompressed on the
// fly to the others, and a 503 saying how to build it when it is missing.
type wasmAsset struct {
	gz   []byte // nil when not built
	etag string
}

// loadWasm reads the gzipped module at name; a missing or empty file (the
// committed placeholder) means not built, anything else must be gzip.
func loadWasm(fsys fs.FS, name string) (wasmAsset, error) {
	gz, err := fs.ReadFile(fsys, name)
	if err != nil || len(gz) == 0 {
		return wasmAsset{}, nil
	}
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err == nil {
		var magic [4]byte
		if _, err = io.ReadFull(zr, magic[:]); err == nil && string(magic[:]) != "\x00asm" {
			err = fmt.Errorf("not a WebAssembly module")
		}
	}
	if err != nil {
		return wasmAsset{}, fmt.Errorf("load %s: %w", name, err)
	}
	return wasmAsset{gz: gz, etag: assetETag(gz)}, nil
}

func (a wasmAsset) built() bool { return a.gz != nil }

func (a wasmAsset) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !a.built() {
		http.Error(w, wasmNotBuilt, http.StatusServiceUnavailable)
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
	if acceptsGzip(r.Header.Get("Accept-Encoding")) {
		h.Set("Content-Encoding", "gzip")
		h.Set("Content-Length", strconv.Itoa(len(a.gz)))
		w.Write(a.gz)
		return
	}
	zr, err := gzip.NewReader(bytes.NewReader(a.gz)) // checked by loadWasm
	if err != nil {
		http.Error(w, "lab.wasm: "+err.Error(), http.StatusInternalServerError)
		return
	}
	io.Copy(w, zr)
}

// acceptsGzip reports whether an Accept-Encoding header value allows gzip:
// listed as gzip or *, without q=0.
func acceptsGzip(header string) bool {
	for _, part := range strings.Split(header, ",") {
		coding, params, _ := strings.Cut(part, ";")
		coding = strings.ToLower(strings.TrimSpace(coding))
		if coding != "gzip" && coding != "*" {
			continue
		}
		q := 1.0
		for _, p := range strings.Split(params, ";") {
			k, v, _ := strings.Cut(strings.TrimSpace(p), "=")
			if strings.EqualFold(k, "q") {
				if f, err := strconv.ParseFloat(v, 64); err == nil {
					q = f
				}
			}
		}
		if q > 0 {
			return true
		}
	}
	return false
}

// gzipResponses compresses h's responses for clients that accept gzip.
// For the dynamic responses (the page and the API); the embedded assets are
// compressed once at start instead.
func gzipResponses(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Add("Vary", "Accept-Encoding")
		if r.Method == http.MethodHead || !acceptsGzip(r.Header.Get("Accept-Encoding")) {
			h.ServeHTTP(w, r)
			return
		}
		gw := &gzipWriter{ResponseWriter: w}
		defer gw.close()
		h.ServeHTTP(gw, r)
	})
}

// gzipWriter compresses what a handler writes, unless the response has no
// body or is already encoded.
type gzipWriter struct {
	http.ResponseWriter
	zw          *gzip.Writer
	wroteHeader bool
}

func (g *gzipWriter) WriteHeader(code int) {
	if g.wroteHeader {
		return
	}
	g.wroteHeader = true
	h := g.Header()
	if code >= 200 && code != http.StatusNoContent && code != http.StatusNotModified && h.Get("Content-Encoding") == "" {
		h.Del("Content-Length")
		h.Set("Content-Encoding", "gzip")
		g.zw = gzip.NewWriter(g.ResponseWriter)
	}
	g.ResponseWriter.WriteHeader(code)
}

func (g *gzipWriter) Write(p []byte) (int, error) {
	if !g.wroteHeader {
		if g.Header().Get("Content-Type") == "" {
			// Sniff the plain bytes; net/http would sniff the gzipped ones.
			g.Header().Set("Content-Type", http.DetectContentType(p))
		}
		g.WriteHeader(http.StatusOK)
	}
	if g.zw == nil {
		return g.ResponseWriter.Write(p)
	}
	return g.zw.Write(p)
}

func (g *gzipWriter) close() {
	if g.zw != nil {
		g.zw.Close()
	}
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (g *gzipWriter) Unwrap() http.ResponseWriter { return g.ResponseWriter }
