package server

// The harness of the real-browser tests (browser_test.go): the real server
// handler (New) behind httptest.NewServer, Debian's headless Chromium
// driven by chromedp, and the WebAssembly module built from wasm/ for this
// run. Every request that does not go to the test server is blocked and
// fails the test; so does any console error or uncaught exception. A failing
// test leaves a screenshot in testout/.

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"math"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/fetch"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"interplab/cmd/lab/internal/link"
	"interplab/engine"
	"interplab/web"
)

const browserPath = "/usr/bin/chromium"

// browserTimeout bounds one test's browser session.
const browserTimeout = 90 * time.Second

var browserSetup struct {
	installOnce sync.Once
	installErr  error
	wasmOnce    sync.Once
	assets      fs.FS
	wasmErr     error
}

// browserInstalled makes sure Chromium is there, installing Debian's
// package when the test runs as root; otherwise it skips the test.
func browserInstalled(t testing.TB) {
	t.Helper()
	if testing.Short() {
		t.Skip("browser tests skipped in -short mode")
	}
	if _, err := os.Stat(browserPath); err == nil {
		return
	}
	if os.Geteuid() != 0 {
		t.Skipf("%s is missing and the test is not root, so it cannot install it: run apt-get install -y chromium", browserPath)
	}
	browserSetup.installOnce.Do(func() {
		cmd := exec.Command("sh", "-c", "apt-get update && apt-get install -y chromium")
		cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
		if out, err := cmd.CombinedOutput(); err != nil {
			browserSetup.installErr = fmt.Errorf("install chromium: %v\n%s", err, out)
		}
	})
	if browserSetup.installErr != nil {
		t.Fatal(browserSetup.installErr)
	}
}

// browserAssets returns package web's files with the WebAssembly module of
// this source tree, built now, so the test never runs a stale module.
func browserAssets(t testing.TB) fs.FS {
	t.Helper()
	browserSetup.wasmOnce.Do(func() {
		browserSetup.assets, browserSetup.wasmErr = buildBrowserAssets()
	})
	if browserSetup.wasmErr != nil {
		t.Fatal(browserSetup.wasmErr)
	}
	return browserSetup.assets
}

func buildBrowserAssets() (fs.FS, error) {
	dir, err := os.MkdirTemp("", "interplab-wasm")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	wasm := filepath.Join(dir, "lab.wasm")
	build := exec.Command("go", "build", "-trimpath", "-ldflags=-s", "-o", wasm, "interplab/wasm") // as make wasm builds it
	build.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	if out, err := build.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("build wasm: %v\n%s", err, out)
	}
	// As make wasm does: the page loads the module packdata packed.
	if out, err := exec.Command("go", "run", "interplab/wasm/packdata", wasm).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("pack wasm: %v\n%s", err, out)
	}
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return nil, fmt.Errorf("go env GOROOT: %v", err)
	}
	execJS, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(goroot)), "lib", "wasm", "wasm_exec.js"))
	if err != nil {
		return nil, err
	}
	raw, err := os.ReadFile(wasm)
	if err != nil {
		return nil, err
	}
	var gz bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression)
	zw.Write(raw)
	if err := zw.Close(); err != nil {
		return nil, err
	}

	files := fstest.MapFS{}
	err = fs.WalkDir(web.FS, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(web.FS, name)
		files[name] = &fstest.MapFile{Data: b}
		return err
	})
	if err != nil {
		return nil, err
	}
	files[web.WASMFile] = &fstest.MapFile{Data: gz.Bytes()}
	files["dist/wasm_exec.js"] = &fstest.MapFile{Data: execJS}
	return files, nil
}

// labTab is one browser tab on a test server.
type labTab struct {
	t   testing.TB
	ctx context.Context
	url string // the test server's base URL

	mu       sync.Mutex
	problems []string // console errors, exceptions and blocked requests
	allowed  []string // console errors the test expects, as substrings
}

// allow makes console errors containing text expected, not problems.
func (b *labTab) allow(text string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.allowed = append(b.allowed, text)
}

// openLab starts a server and a browser, and opens path in it. The page is
// ready (the engine created its run) when openLab returns.
func openLab(t testing.TB, path string) *labTab {
	t.Helper()
	return openLabOn(t, newBrowserServer(t), path)
}

// newBrowserServer returns the lab's server with this run's wasm.
func newBrowserServer(t testing.TB) *Server {
	t.Helper()
	browserInstalled(t)
	s, _ := testServer(t, browserAssets(t), t.TempDir(), nil)
	return s
}

// openLabOn serves h, starts a browser and opens path in it, as openLab.
func openLabOn(t testing.TB, h http.Handler, path string) *labTab {
	t.Helper()
	browserInstalled(t)
	b := startChromium(t, newLoopbackServer(t, h), browserTimeout)
	b.navigate(path)
	return b
}

// newLoopbackServer serves h on a loopback port for the test and returns
// its base URL.
func newLoopbackServer(t testing.TB, h http.Handler) string {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}

// chromiumOptions are the options every test's Chromium starts with: the
// test's own binary and an empty profile in dir, no GPU, nothing that
// reaches the network on its own, a 1600×1000 window.
func chromiumOptions(dir string) []chromedp.ExecAllocatorOption {
	return append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(browserPath),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.NoFirstRun,
		chromedp.UserDataDir(dir),
		chromedp.WindowSize(1600, 1000),
	)
}

// startChromium starts a browser with a tab on base (the test server) that
// has opened nothing yet, for at most timeout.
func startChromium(t testing.TB, base string, timeout time.Duration) *labTab {
	t.Helper()
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), chromiumOptions(t.TempDir())...)
	t.Cleanup(cancelAlloc)
	ctx, cancelTab := chromedp.NewContext(actx)
	t.Cleanup(cancelTab)
	ctx, cancelTimeout := context.WithTimeout(ctx, timeout)
	t.Cleanup(cancelTimeout)
	return attachTab(t, ctx, base, "")
}

// newTab opens path in another tab of b's browser.
func (b *labTab) newTab(path string) *labTab {
	b.t.Helper()
	ctx, cancel := chromedp.NewContext(b.ctx)
	b.t.Cleanup(cancel)
	return attachTab(b.t, ctx, b.url, path)
}

// attachTab starts watching the tab of ctx (blocked requests, console
// errors) and opens path in it (with path "", nothing).
func attachTab(t testing.TB, ctx context.Context, base, path string) *labTab {
	t.Helper()
	tab := &labTab{t: t, ctx: ctx, url: base}
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	tab.blockOutside()
	messages := chromedp.Console(ctx)
	go func() {
		for m, err := range messages {
			if err != nil {
				return
			}
			if m.Type == chromedp.ConsoleError || m.Type == chromedp.ConsoleException {
				tab.problem("console %s: %s", m.Type, m)
			}
		}
	}()
	// The browser's own complaints, such as a script or a style the
	// Content-Security-Policy refused, are log entries, not console calls.
	entries := chromedp.Events(ctx, cdplog.EntryAdded)
	if _, err := chromedp.Call(ctx, cdplog.Enable, cdp.Empty{}); err != nil {
		t.Fatalf("Log.enable: %v", err)
	}
	go func() {
		for ev, err := range entries {
			if err != nil {
				return
			}
			if e := ev.Entry; e != nil && e.Level == cdplog.EntryLevelError && e.Source == cdplog.EntrySourceSecurity {
				tab.problem("browser %s error: %s (%s)", e.Source, e.Text, e.URL)
			}
		}
	}()
	// Runs before the cancels above (cleanups run last first).
	t.Cleanup(tab.finish)
	if path != "" {
		tab.navigate(path)
	}
	return tab
}

// blockOutside pauses every request of the tab and lets through only those
// to the test server.
func (b *labTab) blockOutside() {
	paused := chromedp.Events(b.ctx, fetch.RequestPaused)
	if _, err := chromedp.Call(b.ctx, fetch.Enable, fetch.EnableParams{
		Patterns: []*fetch.RequestPattern{{URLPattern: "*"}},
	}); err != nil {
		b.t.Fatalf("Fetch.enable: %v", err)
	}
	go func() {
		for ev, err := range paused {
			if err != nil {
				return
			}
			if strings.HasPrefix(ev.Request.URL, b.url+"/") {
				chromedp.Call(b.ctx, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: ev.RequestID})
				continue
			}
			b.problem("request outside the test server: %s", ev.Request.URL)
			chromedp.Call(b.ctx, fetch.FailRequest, fetch.FailRequestParams{
				RequestID: ev.RequestID, ErrorReason: network.ErrorReasonBlockedByClient,
			})
		}
	}()
}

func (b *labTab) problem(format string, args ...any) {
	b.mu.Lock()
	defer b.mu.Unlock()
	p := fmt.Sprintf(format, args...)
	for _, a := range b.allowed {
		if strings.Contains(p, a) {
			return
		}
	}
	b.problems = append(b.problems, p)
}

// finish fails the test on any console error or blocked request, and saves
// a screenshot of a failed test to testout/.
func (b *labTab) finish() {
	b.mu.Lock()
	for _, p := range b.problems {
		b.t.Errorf("%s", p)
	}
	b.mu.Unlock()
	if !b.t.Failed() || b.ctx.Err() != nil {
		return
	}
	png, err := chromedp.Run(b.ctx, chromedp.CaptureScreenshot())
	if err != nil {
		b.t.Logf("screenshot: %v", err)
		return
	}
	name := filepath.Join("testout", strings.NewReplacer("/", "_", " ", "_").Replace(b.t.Name())+".png")
	if err := os.MkdirAll("testout", 0o755); err == nil {
		if err := os.WriteFile(name, png, 0o644); err == nil {
			b.t.Logf("screenshot: %s", name)
		}
	}
}

// navigate opens path and waits until the page's engine is running. The
// "which library?" picker a first visit shows is dismissed (as Escape
// does); TestBrowserLibraryPicker opens it with navigateFirst.
func (b *labTab) navigate(path string) {
	b.t.Helper()
	b.navigateFirst(path)
	b.eval(`(() => { const d = document.getElementById('library-start'); if (d && d.open) d.close(''); return true })()`, nil)
}

// navigateFirst opens path as a first visit and waits until the page's
// engine is running.
func (b *labTab) navigateFirst(path string) {
	b.t.Helper()
	if err := chromedp.Do(b.ctx, chromedp.Navigate(b.url+path)); err != nil {
		b.t.Fatalf("navigate %s: %v", path, err)
	}
	b.waitReady()
}

func (b *labTab) waitReady() {
	b.t.Helper()
	// poll, not chromedp.Poll: an evaluation in a context that a
	// navigation just destroyed is retried, not an error.
	if !b.poll(`document.documentElement.dataset.ready === "1" && !!globalThis.lab`, 30*time.Second) {
		b.t.Fatalf("page not ready within 30 s")
	}
}

// eval evaluates a JavaScript expression and decodes its JSON value into out
// (which may be nil).
func (b *labTab) eval(expr string, out any) {
	b.t.Helper()
	raw, err := chromedp.Run(b.ctx, chromedp.Evaluate[[]byte](expr, chromedp.EvalAwaitPromise))
	if err != nil {
		b.t.Fatalf("eval %s: %v", expr, err)
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			b.t.Fatalf("eval %s: decode %s: %v", expr, raw, err)
		}
	}
}

func (b *labTab) do(actions ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	if err := chromedp.Do(b.ctx, actions...); err != nil {
		b.t.Fatal(err)
	}
}

// location returns the page's address without the server's origin.
func (b *labTab) location() string {
	b.t.Helper()
	var loc string
	b.eval(`location.pathname + location.search`, &loc)
	return loc
}

// controlsJS reads every control of the page as the text form of its value
// (a slider's or number input's value is a number in the stored unit).
const controlsJS = `(() => {
	const out = {};
	for (const el of document.querySelectorAll('#controls [name]')) {
		if (el.name === 'techniques') {
			out.techniques = out.techniques ?? [];
			if (el.checked) out.techniques.push(el.value);
		} else if (el.type === 'checkbox') {
			out[el.name] = String(el.checked);
		} else {
			out[el.name] = el.value;
		}
	}
	out.techniques = out.techniques.join(',');
	return out;
})()`

// controls returns the settings the page's controls show.
func (b *labTab) controls() engine.Settings {
	b.t.Helper()
	var text map[string]string
	b.eval(controlsJS, &text)
	s, errs := settingsOfControls(text)
	for _, err := range errs {
		b.t.Error(err)
	}
	return s
}

// pageMetrics returns the page's metrics: technique → field → value; a nil
// value is a NaN (JSON has no NaN).
func (b *labTab) pageMetrics() map[string]map[string]*float64 {
	b.t.Helper()
	var m map[string]map[string]*float64
	b.eval(`lab.metrics()`, &m)
	return m
}

// settingsMismatch lists the parameters whose values differ between got and
// want, beyond a tolerance of a thousandth of the slider step.
func settingsMismatch(got, want engine.Settings) []string {
	var diffs []string
	for _, p := range engine.Params() {
		g, w := p.Get(&got), p.Get(&want)
		if math.Abs(g-w) > p.Step*1e-3 {
			diffs = append(diffs, fmt.Sprintf("%s = %s, want %s", p.Name, p.Format(g), p.Format(w)))
		}
	}
	return diffs
}

// settingsFromLink restores the settings of a share link as the server does.
func settingsFromLink(t testing.TB, share string) (string, engine.Settings) {
	t.Helper()
	u, err := url.Parse(share)
	if err != nil {
		t.Fatal(err)
	}
	preset, s, errs := link.Parse(u.Query())
	if len(errs) > 0 {
		t.Fatalf("link %s: %v", share, errs)
	}
	return preset, s
}
