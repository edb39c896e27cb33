package server

// WebKit, Safari's engine, for the real-browser tests of every engine
// (engines_browser_test.go): Debian's WebKitGTK MiniBrowser under its
// WebKitWebDriver, in an Xvfb display of the test's own, driven over
// WebDriver classic (JSON over HTTP). The browser's proxy is a loopback
// listener that fails the test for any request it is sent: every address
// but the test server's goes there. WebDriver classic has no log events, so
// the page's errors are caught by listeners put in the page as soon as
// it has loaded (a script that fails before that leaves the lab not ready,
// which fails the test too).

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

const (
	webkitDriverPath = "/usr/bin/WebKitWebDriver"
	xvfbPath         = "/usr/bin/Xvfb"
)

// webkitTab is the one tab of a WebKitGTK browser on a test server.
type webkitTab struct {
	t     testing.TB
	ctx   context.Context
	url   string // the test server's base URL
	wd    string // the driver's session URL
	probs *problems
}

// errorsJS puts listeners for the page's errors in the page, once.
const errorsJS = `if (!window.__labErrors) {
	window.__labErrors = [];
	addEventListener('error', (e) => window.__labErrors.push('page error: ' + e.message + ' (' + e.filename + ':' + e.lineno + ')'));
	addEventListener('unhandledrejection', (e) => window.__labErrors.push('unhandled rejection: ' + (e.reason && e.reason.stack || e.reason)));
	const error = console.error;
	console.error = (...a) => { window.__labErrors.push('console error: ' + a.join(' ')); error.apply(console, a); };
}`

// openWebKit starts Xvfb, WebKitWebDriver and a browser session with a tab
// on base (the test server).
func openWebKit(t testing.TB, base string) *webkitTab {
	t.Helper()
	return openWebKitEnv(t, base)
}

// webkitNoCompositing is the environment variable that turns WebKitGTK's
// accelerated compositing off: the page is painted into the window's
// surface by the CPU instead of composited in OpenGL, which on a machine
// without a GPU (Mesa's llvmpipe) costs the whole window every changed
// frame. It is the closest this machine gets to a Mac's Safari, whose
// compositing costs its GPU, not its CPU. No page can ask for it.
const webkitNoCompositing = "WEBKIT_DISABLE_COMPOSITING_MODE=1"

// openWebKitEnv is openWebKit with env (NAME=value entries) added to the
// driver's environment, and so to the browser's, which the driver starts.
func openWebKitEnv(t testing.TB, base string, env ...string) *webkitTab {
	t.Helper()
	enginesInstalled(t, "webkit")
	ctx, cancel := context.WithTimeout(context.Background(), engineTimeout)
	t.Cleanup(cancel)
	tab := &webkitTab{t: t, ctx: ctx, url: base, probs: &problems{}}
	display := startXvfb(t)

	proxy := reportingProxy(t, tab.probs, "webkit")
	// WebKitWebDriver now and then never answers the new session on a loaded
	// machine (seen once in a full run: the POST hung for 7 minutes while the
	// same test alone took 36 s): each try is bounded, and a stuck driver is
	// killed and replaced by a fresh one.
	var (
		sess struct {
			SessionID    string `json:"sessionId"`
			Capabilities struct {
				BrowserVersion string `json:"browserVersion"`
			} `json:"capabilities"`
		}
		root string
		errs []string
	)
	for try := 1; ; try++ {
		var out string
		var err error
		root, out, err = startWebKitSession(t, ctx, display, proxy, env, &sess)
		if err == nil {
			break
		}
		errs = append(errs, fmt.Sprintf("try %d: %v\n%s", try, err, out))
		if try == 3 {
			t.Fatalf("webkit session:\n%s", strings.Join(errs, "\n"))
		}
		t.Logf("webkit session, try %d: %v; starting the driver again", try, err)
	}
	t.Logf("WebKitGTK %s", sess.Capabilities.BrowserVersion)
	tab.wd = root + "/session/" + sess.SessionID
	t.Cleanup(func() {
		tab.takeErrors()
		tab.probs.report(t)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		wdCall(ctx, "DELETE", tab.wd, nil, nil)
	})
	tab.must("POST", "/timeouts", map[string]any{"script": 60000, "pageLoad": 60000})
	return tab
}

// startWebKitSession starts WebKitWebDriver on display, with env added to
// its environment, and opens a browser session through proxy into sess,
// within 90 s. It returns the driver's
// URL and, on failure, the driver's output; a driver that failed is killed.
func startWebKitSession(t testing.TB, ctx context.Context, display, proxy string, env []string, sess any) (root, out string, err error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 90*time.Second)
	defer cancel()
	// A free port for the driver: the kernel's choice, released just before.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", "", err
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	drv := exec.Command(webkitDriverPath, "--host=127.0.0.1", "--port="+strconv.Itoa(port))
	drv.Env = append(append(os.Environ(), env...), "DISPLAY="+display)
	drvOut := &lockedBuffer{}
	drv.Stdout, drv.Stderr = drvOut, drvOut
	if err := drv.Start(); err != nil {
		return "", "", fmt.Errorf("start WebKitWebDriver: %v", err)
	}
	stop := func() {
		drv.Process.Kill()
		drv.Wait()
	}
	root = "http://127.0.0.1:" + strconv.Itoa(port)
	if !waitFor(ctx, func() bool {
		r, err := http.Get(root + "/status")
		if err == nil {
			r.Body.Close()
		}
		return err == nil
	}, 30*time.Second) {
		stop()
		return "", drvOut.String(), fmt.Errorf("WebKitWebDriver did not answer in 30 s")
	}
	if err := wdCall(ctx, "POST", root+"/session", map[string]any{"capabilities": map[string]any{"alwaysMatch": map[string]any{
		"webkitgtk:browserOptions": map[string]any{"args": []string{"--automation"}},
		"proxy": map[string]any{
			"proxyType": "manual", "httpProxy": proxy, "sslProxy": proxy,
			"noProxy": []string{"127.0.0.1"},
		},
	}}}, sess); err != nil {
		stop()
		return "", drvOut.String(), err
	}
	t.Cleanup(stop)
	return root, "", nil
}

// lockedBuffer is a bytes.Buffer a child process writes while the test
// reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// startXvfb starts an X display of the test's own and returns its name.
func startXvfb(t testing.TB) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	x := exec.Command(xvfbPath, "-displayfd", "3", "-screen", "0", "1600x1000x24", "-nolisten", "tcp")
	x.ExtraFiles = []*os.File{w}
	if err := x.Start(); err != nil {
		t.Fatalf("start Xvfb: %v", err)
	}
	w.Close()
	t.Cleanup(func() {
		x.Process.Kill()
		x.Wait()
	})
	line := make(chan string, 1)
	go func() {
		s, _ := bufio.NewReader(r).ReadString('\n')
		line <- strings.TrimSpace(s)
		r.Close()
	}()
	select {
	case n := <-line:
		if n == "" {
			t.Fatal("Xvfb did not say its display")
		}
		return ":" + n
	case <-time.After(30 * time.Second):
		t.Fatal("Xvfb did not start in 30 s")
	}
	return ""
}

// wdCall sends one WebDriver command and decodes its value into out.
func wdCall(ctx context.Context, method, url string, body, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var r struct {
		Value json.RawMessage `json:"value"`
	}
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return fmt.Errorf("%s %s: %d %s", method, url, resp.StatusCode, raw)
	}
	if resp.StatusCode != http.StatusOK {
		var e struct{ Error, Message string }
		json.Unmarshal(r.Value, &e)
		return fmt.Errorf("%s %s: %s: %s", method, url, e.Error, e.Message)
	}
	if out != nil {
		return json.Unmarshal(r.Value, out)
	}
	return nil
}

func (b *webkitTab) must(method, path string, body any) {
	b.t.Helper()
	if err := wdCall(b.ctx, method, b.wd+path, body, nil); err != nil {
		b.t.Fatalf("webkit: %v", err)
	}
}

func (b *webkitTab) engine() string { return "webkit" }

func (b *webkitTab) allow(text string) { b.probs.allow(text) }

func (b *webkitTab) takeProblems() []string {
	b.takeErrors()
	return b.probs.take()
}

func (b *webkitTab) context() context.Context { return b.ctx }

// load opens path, waits for the document to load and puts the error
// listeners in it (after collecting the last page's).
func (b *webkitTab) load(path string) {
	b.t.Helper()
	b.takeErrors()
	b.must("POST", "/url", map[string]any{"url": b.url + path})
	b.must("POST", "/execute/sync", map[string]any{"script": errorsJS, "args": []any{}})
}

// takeErrors moves the page's errors to the test's problems.
func (b *webkitTab) takeErrors() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var errs []string
	if wdCall(ctx, "POST", b.wd+"/execute/sync", map[string]any{
		"script": `const e = window.__labErrors || []; window.__labErrors = window.__labErrors && []; return e;`, "args": []any{},
	}, &errs) != nil {
		return
	}
	for _, e := range errs {
		b.probs.add("webkit %s", e)
	}
}

func (b *webkitTab) evalJSON(ctx context.Context, expr string) ([]byte, error) {
	var v any
	err := wdCall(ctx, "POST", b.wd+"/execute/async", map[string]any{
		"script": "const done = arguments[arguments.length - 1];\n" + jsonOf(expr) +
			".then(done, (e) => done({evalError: String(e && e.stack || e)}));",
		"args": []any{},
	}, &v)
	if err != nil {
		return nil, err
	}
	switch v := v.(type) {
	case string:
		return []byte(v), nil
	case map[string]any:
		return nil, fmt.Errorf("exception: %v", v["evalError"])
	}
	return nil, fmt.Errorf("unexpected value %v", v)
}

// viewport sizes the window so that the page gets w×h CSS pixels: the
// window's own bars take what the page's inner size says they do. The
// window manager applies a size a little later, on a loaded machine up to
// about a second, so each try reads the inner size until it stops changing.
func (b *webkitTab) viewport(w, h int64) {
	b.t.Helper()
	inner := func() [2]int64 {
		var in [2]int64
		raw, err := b.evalJSON(b.ctx, `[innerWidth, innerHeight]`)
		if err != nil {
			b.t.Fatal(err)
		}
		if err := json.Unmarshal(raw, &in); err != nil {
			b.t.Fatal(err)
		}
		return in
	}
	ww, wh := w, h
	for range 6 {
		b.must("POST", "/window/rect", map[string]any{"width": ww, "height": wh})
		// Settled: the same size read for half a second, or 3 s gone.
		in, same := inner(), 0
		for deadline := time.Now().Add(3 * time.Second); same < 5 && time.Now().Before(deadline); {
			if in[0] == w && in[1] == h {
				return
			}
			time.Sleep(100 * time.Millisecond)
			if next := inner(); next == in {
				same++
			} else {
				in, same = next, 0
			}
		}
		if in[0] == w && in[1] == h {
			return
		}
		ww, wh = ww+w-in[0], wh+h-in[1]
	}
	b.t.Logf("webkit: could not size the page to %d×%d exactly", w, h)
}

// reportingProxy is the proxy of a browser that must not reach the
// network: a loopback listener that fails the test with each request it is
// sent (its first line: CONNECT host:443 or GET http://…) and closes it.
// It returns host:port.
func reportingProxy(t testing.TB, probs *problems, engine string) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				c.SetReadDeadline(time.Now().Add(5 * time.Second))
				line, _ := bufio.NewReader(c).ReadString('\n')
				if line = strings.TrimSpace(line); line != "" {
					probs.add("%s: request outside the test server: %s", engine, line)
				}
			}()
		}
	}()
	return l.Addr().String()
}
