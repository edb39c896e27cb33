package server

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"io/fs"
	"mime"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"interplab/cmd/lab/internal/export"
	"interplab/cmd/lab/internal/link"
	"interplab/cmd/lab/internal/store"
	"interplab/engine"
	"interplab/presets"
	"interplab/web"
)

// The wasm magic and version, then filler so the module compresses.
var testWasm = append([]byte("\x00asm\x01\x00\x00\x00"), bytes.Repeat([]byte("lab"), 4000)...)

var testAppJS = []byte(strings.Repeat("console.log('interp lab');\n", 200))

func gzipBytes(t testing.TB, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(b)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// errorBody is the API's error shape.
type errorBody struct {
	Error string `json:"error"`
	Field string `json:"field"`
}

// testAssets is a small asset tree; withWasm says whether the wasm was
// "built".
func testAssets(t testing.TB, withWasm bool) fstest.MapFS {
	assets := fstest.MapFS{
		"app.js":      {Data: testAppJS},
		"dist/README": {Data: []byte("built by make\n")},
	}
	// The real style sheets and the compare page's scripts: the
	// server-rendered pages (compare, sweep, tune) are laid out by them,
	// draw their charts with charts.js and tie the chooser with compare.js,
	// and the browser tests measure them.
	files, err := fs.Glob(web.FS, "*.css")
	if err != nil || len(files) == 0 {
		t.Fatalf("web's style sheets: %v", err)
	}
	files = append(files, "charts.js", "compare.js")
	for _, name := range files {
		b, err := fs.ReadFile(web.FS, name)
		if err != nil {
			t.Fatal(err)
		}
		assets[name] = &fstest.MapFile{Data: b}
	}
	if withWasm {
		assets["dist/lab.wasm.gz"] = &fstest.MapFile{Data: gzipBytes(t, testWasm)}
		assets["dist/wasm_exec.js"] = &fstest.MapFile{Data: []byte("// go wasm glue\n")}
	}
	return assets
}

// testServer is the lab's server of the real presets over assets, on a
// fresh store in dir opened at storeT0, with now as its clock (time.Now
// when nil). The server closes at the end of the test, then the store.
func testServer(t testing.TB, assets fs.FS, dir string, now func() time.Time) (*Server, *store.SQLite) {
	t.Helper()
	return testServerLimits(t, assets, dir, now, Limits{})
}

// testServerLimits is testServer with limits l.
func testServerLimits(t testing.TB, assets fs.FS, dir string, now func() time.Time, l Limits) (*Server, *store.SQLite) {
	t.Helper()
	list, err := presets.All()
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(dir, storeT0)
	if err != nil {
		t.Fatalf("store.Open: %v", err)
	}
	t.Cleanup(func() { st.Close() })
	s, err := New(Deps{Presets: list, Assets: assets, Store: st, Now: now, Limits: l})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s, st
}

// serve serves h until the end of the test.
func serve(t testing.TB, h http.Handler) *httptest.Server {
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	return ts
}

// newTestServer is a testServer on the test's own directory, served.
func newTestServer(t *testing.T, withWasm bool) (*Server, *httptest.Server) {
	t.Helper()
	s, _ := testServer(t, testAssets(t, withWasm), t.TempDir(), nil)
	return s, serve(t, s)
}

// get performs a GET with the given headers; Go's transport then neither
// adds Accept-Encoding nor decompresses unless told.
func get(t *testing.T, url string, header ...string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept-Encoding", "identity")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, body
}

func TestServePresets(t *testing.T) {
	_, ts := newTestServer(t, true)
	list, _ := presets.All()

	resp, body := get(t, ts.URL+"/api/presets")
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("GET /api/presets = %s %q", resp.Status, resp.Header.Get("Content-Type"))
	}
	var got []apiPreset
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatal(err)
	}
	if len(got) != len(list) {
		t.Fatalf("GET /api/presets: %d presets, want %d", len(got), len(list))
	}
	for i, p := range list {
		if got[i].Name != p.Name || got[i].Title != p.Title || !reflect.DeepEqual(got[i].Settings, p.Settings) {
			t.Errorf("preset %d = %+v, want %+v", i, got[i], p)
		}
	}

	resp, body = get(t, ts.URL+"/api/presets/wifi")
	var one apiPreset
	if err := json.Unmarshal(body, &one); err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET /api/presets/wifi = %s, %v", resp.Status, err)
	}
	wifi, _ := presets.Get("wifi")
	if one.Name != "wifi" || !reflect.DeepEqual(one.Settings, wifi.Settings) {
		t.Errorf("GET /api/presets/wifi = %+v, want %+v", one, wifi)
	}
	if want := link.Query("", wifi.Settings); one.Query != want {
		t.Errorf("wifi query = %q, want %q", one.Query, want)
	}

	resp, body = get(t, ts.URL+"/api/presets/mars")
	var e errorBody
	json.Unmarshal(body, &e)
	if resp.StatusCode != 404 || e.Field != "preset" || !strings.Contains(e.Error, `"mars"`) {
		t.Errorf("GET /api/presets/mars = %s %s, want 404 naming the preset", resp.Status, body)
	}
}

func TestServeParams(t *testing.T) {
	_, ts := newTestServer(t, true)
	resp, body := get(t, ts.URL+"/api/params")
	if resp.StatusCode != 200 {
		t.Fatalf("GET /api/params = %s", resp.Status)
	}
	var got []map[string]any
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatal(err)
	}
	params := engine.Params()
	if len(got) != len(params) {
		t.Fatalf("%d params, want %d", len(got), len(params))
	}
	kinds := []string{"float", "int", "bool", "enum", "set"}
	for i, p := range params {
		choices := []any{}
		for _, c := range p.Choices {
			choices = append(choices, c)
		}
		units := []any{}
		for _, u := range p.Units() {
			units = append(units, u)
		}
		// min, max, step and default in the stored unit; display is the
		// unit a plain typed number is in.
		display, scale := p.Display, p.Scale
		if p.Kind == engine.Float || p.Kind == engine.Int {
			display, scale = p.DisplayUnit()
		}
		want := map[string]any{
			"name": p.Name, "group": p.Group, "kind": kinds[p.Kind], "unit": p.Unit,
			"min": p.Min, "max": p.Max, "step": p.Step, "default": p.Default, "choices": choices,
			"doc": p.Doc, "display": display, "scale": scale, "restart": p.Restart, "units": units,
			"range": p.Range(), "defaultText": p.Format(p.Default),
		}
		if !reflect.DeepEqual(got[i], want) {
			t.Errorf("param %d = %v, want %v", i, got[i], want)
		}
	}
}

func TestServeExport(t *testing.T) {
	_, ts := newTestServer(t, true)
	p, _ := presets.Get("harbor-after")
	for _, name := range export.Formats() {
		s := p.Settings
		s.Loss = 0.02
		query := "&preset=harbor-after&loss=2"
		if tech := export.Technique(name); tech != "" && !slices.Contains(s.Techniques, tech) {
			// A library's export needs its technique selected.
			s.Techniques = append(slices.Clip(s.Techniques), tech)
			query += "&techniques=" + strings.Join(s.Techniques, ",")
		}
		resp, body := get(t, ts.URL+"/api/export?format="+name+query)
		if resp.StatusCode != 200 {
			t.Errorf("export %s = %s: %s", name, resp.Status, body)
			continue
		}
		want, _ := export.Render(name, export.Origin{Preset: "harbor-after"}, s)
		if got := resp.Header.Get("Content-Type"); got != want.ContentType {
			t.Errorf("export %s: Content-Type = %q, want %q", name, got, want.ContentType)
		}
		disp, params, err := mime.ParseMediaType(resp.Header.Get("Content-Disposition"))
		if err != nil || disp != "attachment" || params["filename"] != want.Name {
			t.Errorf("export %s: Content-Disposition = %q, want attachment; filename=%s", name, resp.Header.Get("Content-Disposition"), want.Name)
		}
		if !bytes.Equal(body, want.Body) {
			t.Errorf("export %s body differs from export.Render:\n%s", name, body)
		}
	}

	tests := []struct {
		query string
		field string
	}{
		{"format=json&loss=95", "loss"},
		{"format=cpp&jitterDist=cauchy", "jitterDist"},
		{"format=json&lost=10", "lost"},
		{"format=json&preset=mars", "preset"},
		{"format=json&tickRate=10", "sendRate"},
		{"format=yaml", "format"},
		{"loss=10", "format"},
	}
	for _, tt := range tests {
		resp, body := get(t, ts.URL+"/api/export?"+tt.query)
		var e errorBody
		if err := json.Unmarshal(body, &e); err != nil {
			t.Errorf("export?%s: body %q is not JSON: %v", tt.query, body, err)
		}
		if resp.StatusCode != 400 || e.Field != tt.field || e.Error == "" {
			t.Errorf("export?%s = %s %+v, want 400 with field %s", tt.query, resp.Status, e, tt.field)
		}
	}
}

func TestServePage(t *testing.T) {
	s, ts := newTestServer(t, true)
	resp, body := get(t, ts.URL+"/?preset=wifi&loss=95&bogus=1&displayBehind=120")
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") || len(body) == 0 {
		t.Fatalf("GET / = %s %q, %d bytes", resp.Status, resp.Header.Get("Content-Type"), len(body))
	}
	resp, _ = get(t, ts.URL+"/nope")
	if resp.StatusCode != 404 {
		t.Errorf("GET /nope = %s, want 404", resp.Status)
	}

	wifi, _ := presets.Get("wifi")
	v := s.pageView(httptest.NewRequest("GET", "/?preset=wifi&loss=95&bogus=1&displayBehind=120", nil))
	if v.Preset != "wifi" || v.Settings.Loss != wifi.Settings.Loss || v.Settings.DisplayBehind != 0.12 {
		t.Errorf("pageView: preset %q, loss %v, displayBehind %v; want wifi, %v, 0.12", v.Preset, v.Settings.Loss, v.Settings.DisplayBehind, wifi.Settings.Loss)
	}
	if len(v.Errors) != 2 || !strings.Contains(v.Errors[0], "loss") || !strings.Contains(v.Errors[1], "bogus") {
		t.Errorf("pageView errors = %q, want one for loss and one for bogus", v.Errors)
	}
	if v.Query != "preset=wifi&displayBehind=120ms" {
		t.Errorf("pageView query = %q, want the valid state preset=wifi&displayBehind=120ms", v.Query)
	}
	if len(v.Params) != len(engine.Params()) || len(v.Presets) == 0 || v.Presets[0].Name != "epic-seed" {
		t.Errorf("pageView: %d params, presets %v", len(v.Params), v.Presets)
	}

	v = s.pageView(httptest.NewRequest("GET", "/?loss=%zz&delay=200", nil))
	if len(v.Errors) != 1 || !strings.Contains(v.Errors[0], "malformed") || v.Settings.Delay != 0.2 {
		t.Errorf("pageView of a malformed link: errors %q, delay %v; want one malformed error and delay 0.2", v.Errors, v.Settings.Delay)
	}
	v = s.pageView(httptest.NewRequest("GET", "/", nil))
	if len(v.Errors) != 0 || v.Preset != "" || v.Query != "" || !reflect.DeepEqual(v.Settings, engine.Defaults()) {
		t.Errorf("pageView(/) = %+v, want the defaults and no errors", v)
	}
}

func TestServeGzip(t *testing.T) {
	_, ts := newTestServer(t, true)
	for _, path := range []string{"/", "/api/params", "/static/app.js"} {
		resp, body := get(t, ts.URL+path, "Accept-Encoding", "gzip, deflate")
		if resp.Header.Get("Content-Encoding") != "gzip" {
			t.Errorf("GET %s with gzip: Content-Encoding = %q", path, resp.Header.Get("Content-Encoding"))
			continue
		}
		zr, err := gzip.NewReader(bytes.NewReader(body))
		if err != nil {
			t.Errorf("GET %s: %v", path, err)
			continue
		}
		plain, err := io.ReadAll(zr)
		if err != nil {
			t.Errorf("GET %s: %v", path, err)
		}
		_, identity := get(t, ts.URL+path)
		if !bytes.Equal(plain, identity) {
			t.Errorf("GET %s: gzipped body differs from the plain one", path)
		}
		if !strings.Contains(resp.Header.Get("Vary"), "Accept-Encoding") {
			t.Errorf("GET %s: Vary = %q", path, resp.Header.Get("Vary"))
		}
	}
	resp, _ := get(t, ts.URL+"/api/params", "Accept-Encoding", "gzip;q=0")
	if resp.Header.Get("Content-Encoding") != "" {
		t.Errorf("gzip;q=0: Content-Encoding = %q, want none", resp.Header.Get("Content-Encoding"))
	}
}

func TestServeStatic(t *testing.T) {
	_, ts := newTestServer(t, true)
	resp, body := get(t, ts.URL+"/static/app.js")
	if resp.StatusCode != 200 || !bytes.Equal(body, testAppJS) || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/javascript") {
		t.Fatalf("GET /static/app.js = %s %q", resp.Status, resp.Header.Get("Content-Type"))
	}
	etag := resp.Header.Get("ETag")
	if etag == "" || resp.Header.Get("Cache-Control") != "no-cache" {
		t.Errorf("app.js: ETag %q, Cache-Control %q", etag, resp.Header.Get("Cache-Control"))
	}
	resp, body = get(t, ts.URL+"/static/app.js", "If-None-Match", etag)
	if resp.StatusCode != 304 || len(body) != 0 {
		t.Errorf("revalidate app.js = %s with %d bytes, want 304", resp.Status, len(body))
	}
	resp, _ = get(t, ts.URL+"/static/style.css")
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/css") {
		t.Errorf("style.css Content-Type = %q", resp.Header.Get("Content-Type"))
	}
	resp, _ = get(t, ts.URL+"/static/nope.js")
	if resp.StatusCode != 404 {
		t.Errorf("GET /static/nope.js = %s, want 404", resp.Status)
	}
	resp, _ = get(t, ts.URL+"/static/dist/wasm_exec.js")
	if resp.StatusCode != 200 {
		t.Errorf("GET /static/dist/wasm_exec.js = %s, want 200", resp.Status)
	}
}

func TestServeWasm(t *testing.T) {
	_, ts := newTestServer(t, true)
	resp, body := get(t, ts.URL+"/lab.wasm", "Accept-Encoding", "gzip")
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/wasm" || resp.Header.Get("Content-Encoding") != "gzip" {
		t.Fatalf("GET /lab.wasm = %s, %q, %q", resp.Status, resp.Header.Get("Content-Type"), resp.Header.Get("Content-Encoding"))
	}
	zr, err := gzip.NewReader(bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if plain, _ := io.ReadAll(zr); !bytes.Equal(plain, testWasm) {
		t.Errorf("gzipped /lab.wasm does not decompress to the module")
	}
	resp, body = get(t, ts.URL+"/lab.wasm")
	if resp.Header.Get("Content-Encoding") != "" || !bytes.Equal(body, testWasm) {
		t.Errorf("GET /lab.wasm without gzip: encoding %q, %d bytes; want the plain module (%d bytes)",
			resp.Header.Get("Content-Encoding"), len(body), len(testWasm))
	}
	resp, _ = get(t, ts.URL+"/lab.wasm", "If-None-Match", resp.Header.Get("ETag"))
	if resp.StatusCode != 304 {
		t.Errorf("revalidate /lab.wasm = %s, want 304", resp.Status)
	}

	_, ts = newTestServer(t, false)
	for _, path := range []string{"/lab.wasm", "/static/dist/wasm_exec.js"} {
		resp, body = get(t, ts.URL+path)
		if resp.StatusCode != 503 || !strings.Contains(string(body), "wasm not built: run make") {
			t.Errorf("GET %s unbuilt = %s %q, want 503 saying how to build", path, resp.Status, body)
		}
	}

	list, _ := presets.All()
	st, err := store.Open(t.TempDir(), storeT0)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := New(Deps{Presets: list, Assets: fstest.MapFS{"dist/lab.wasm.gz": {Data: []byte("not gzip")}}, Store: st}); err == nil {
		t.Error("New with a corrupt lab.wasm.gz: error = nil, want one")
	}
	if _, err := New(Deps{Presets: list, Assets: testAssets(t, true)}); err == nil {
		t.Error("New without a store: error = nil, want one")
	}
}

func TestServeMethodsAndUnknownAPI(t *testing.T) {
	_, ts := newTestServer(t, true)
	// POST /api/presets saves a custom preset; PUT has no route.
	put, _ := http.NewRequest("PUT", ts.URL+"/api/presets", strings.NewReader("{}"))
	put.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(put)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("PUT /api/presets = %s, want 405", resp.Status)
	}
	resp, body := get(t, ts.URL+"/api/nope")
	var e errorBody
	if json.Unmarshal(body, &e) != nil || resp.StatusCode != 404 {
		t.Errorf("GET /api/nope = %s %q, want a 404 JSON error", resp.Status, body)
	}
	req, _ := http.NewRequest("HEAD", ts.URL+"/", nil)
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("HEAD / = %s, want 200", resp.Status)
	}
}

func TestServeShutsDown(t *testing.T) {
	s, _ := newTestServer(t, false)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln) }()
	resp, err := http.Get("http://" + ln.Addr().String() + "/api/presets/lan")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET before shutdown = %v, %v", resp, err)
	}
	resp.Body.Close()
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Serve = %v, want nil after a graceful shutdown", err)
		}
	case <-time.After(shutdownTimeout + time.Second):
		t.Fatal("Serve did not return after cancel")
	}
	if conn, err := net.Dial("tcp", ln.Addr().String()); err == nil {
		conn.Close()
		t.Error("server still accepts connections after shutdown")
	}
}
