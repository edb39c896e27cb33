package static

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"
)

var testJS = []byte(strings.Repeat("console.log('interp lab');\n", 200))

func gz(t *testing.T, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(b)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// fetch serves a GET of path by h, with the request headers given as
// name, value, ...
func fetch(h http.Handler, path string, header ...string) (*http.Response, []byte) {
	req := httptest.NewRequest("GET", path, nil)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Result(), rec.Body.Bytes()
}

func TestFiles(t *testing.T) {
	files, err := Load(fstest.MapFS{"app.js": {Data: testJS}, "dist/README": {Data: []byte("built by make\n")}})
	if err != nil {
		t.Fatal(err)
	}
	srv := http.StripPrefix("/", files)

	resp, body := fetch(srv, "/app.js")
	if resp.StatusCode != 200 || !bytes.Equal(body, testJS) || resp.Header.Get("Cache-Control") != "no-cache" {
		t.Fatalf("GET app.js = %s, %d bytes, Cache-Control %q", resp.Status, len(body), resp.Header.Get("Cache-Control"))
	}
	if resp, _ := fetch(srv, "/app.js", "If-None-Match", resp.Header.Get("ETag")); resp.StatusCode != 304 {
		t.Errorf("revalidate app.js = %s, want 304", resp.Status)
	}
	resp, body = fetch(srv, "/app.js", "Accept-Encoding", "gzip")
	zr, err := gzip.NewReader(bytes.NewReader(body))
	if err != nil || resp.Header.Get("Content-Encoding") != "gzip" {
		t.Fatalf("app.js with gzip: Content-Encoding %q, %v", resp.Header.Get("Content-Encoding"), err)
	}
	if plain, _ := io.ReadAll(zr); !bytes.Equal(plain, testJS) {
		t.Error("gzipped app.js does not decompress to the file")
	}
	for path, want := range map[string]int{"/nope.js": 404, "/dist/x": 404, "/dist/wasm_exec.js": 503, "/dist/lab.wasm.gz": 503} {
		if resp, body := fetch(srv, path); resp.StatusCode != want || want == 503 && !strings.Contains(string(body), NotBuilt) {
			t.Errorf("GET %s = %s %q, want %d", path, resp.Status, body, want)
		}
	}
}

func TestWasm(t *testing.T) {
	module := append([]byte("\x00asm\x01\x00\x00\x00"), bytes.Repeat([]byte("lab"), 1000)...)
	w, err := LoadWasm(fstest.MapFS{"lab.wasm.gz": {Data: gz(t, module)}}, "lab.wasm.gz")
	if err != nil || !w.Built() {
		t.Fatalf("LoadWasm = %v, built %v", err, w.Built())
	}
	srv := w
	resp, _ := fetch(srv, "/lab.wasm", "Accept-Encoding", "gzip")
	if resp.Header.Get("Content-Encoding") != "gzip" || resp.Header.Get("Content-Type") != "application/wasm" {
		t.Errorf("with gzip: %q, %q", resp.Header.Get("Content-Encoding"), resp.Header.Get("Content-Type"))
	}
	if _, plain := fetch(srv, "/lab.wasm"); !bytes.Equal(plain, module) {
		t.Error("without gzip: not the plain module")
	}
	if resp, _ := fetch(srv, "/lab.wasm", "If-None-Match", resp.Header.Get("ETag")); resp.StatusCode != 304 {
		t.Errorf("revalidate = %s, want 304", resp.Status)
	}

	unbuilt, err := LoadWasm(fstest.MapFS{}, "lab.wasm.gz")
	if err != nil || unbuilt.Built() {
		t.Fatalf("LoadWasm of nothing = %v, built %v; want not built, no error", err, unbuilt.Built())
	}
	rec := httptest.NewRecorder()
	unbuilt.ServeHTTP(rec, httptest.NewRequest("GET", "/lab.wasm", nil))
	if rec.Code != 503 || !strings.Contains(rec.Body.String(), NotBuilt) {
		t.Errorf("unbuilt = %d %q, want 503 saying how to build", rec.Code, rec.Body)
	}
	if _, err := LoadWasm(fstest.MapFS{"lab.wasm.gz": {Data: []byte("not gzip")}}, "lab.wasm.gz"); err == nil {
		t.Error("LoadWasm of a corrupt module: no error")
	}
	if _, err := LoadWasm(fstest.MapFS{"lab.wasm.gz": {Data: gz(t, []byte("not wasm at all"))}}, "lab.wasm.gz"); err == nil {
		t.Error("LoadWasm of gzip that is no module: no error")
	}
}
