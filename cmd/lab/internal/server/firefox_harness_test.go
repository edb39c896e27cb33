package server

// Firefox for the real-browser tests of every engine (engines_browser_test.go):
// Debian's firefox-esr, headless, driven over WebDriver BiDi, the W3C
// protocol Firefox speaks natively, by the small client below over one
// WebSocket (gorilla/websocket). Every request of the tab that does not go
// to the test server is stopped by a network intercept and fails the test;
// the browser itself goes through a proxy that refuses everything, so
// nothing it does on its own reaches the network either. Page errors and
// console errors arrive as log.entryAdded events.

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

const firefoxPath = "/usr/bin/firefox-esr"

// bidiConn is a WebDriver BiDi session: commands with ids, their answers
// and the events, read by one goroutine.
type bidiConn struct {
	ws     *websocket.Conn
	wmu    sync.Mutex // one writer at a time
	mu     sync.Mutex
	nextID int
	wait   map[int]chan bidiAnswer
	events func(method string, params json.RawMessage)
	done   chan struct{}
}

type bidiAnswer struct {
	Result json.RawMessage
	Err    error
}

func dialBiDi(url string, events func(string, json.RawMessage)) (*bidiConn, error) {
	d := websocket.Dialer{HandshakeTimeout: 20 * time.Second}
	ws, _, err := d.Dial(url, nil)
	if err != nil {
		return nil, err
	}
	c := &bidiConn{ws: ws, wait: map[int]chan bidiAnswer{}, events: events, done: make(chan struct{})}
	go c.read()
	return c, nil
}

func (c *bidiConn) read() {
	defer close(c.done)
	for {
		var m struct {
			Type    string          `json:"type"`
			ID      int             `json:"id"`
			Method  string          `json:"method"`
			Params  json.RawMessage `json:"params"`
			Result  json.RawMessage `json:"result"`
			Error   string          `json:"error"`
			Message string          `json:"message"`
		}
		if err := c.ws.ReadJSON(&m); err != nil {
			c.mu.Lock()
			for id, ch := range c.wait {
				ch <- bidiAnswer{Err: fmt.Errorf("connection closed: %v", err)}
				delete(c.wait, id)
			}
			c.mu.Unlock()
			return
		}
		switch m.Type {
		case "event":
			c.events(m.Method, m.Params)
		case "success", "error":
			c.mu.Lock()
			ch := c.wait[m.ID]
			delete(c.wait, m.ID)
			c.mu.Unlock()
			if ch == nil {
				continue
			}
			if m.Type == "error" {
				ch <- bidiAnswer{Err: fmt.Errorf("%s: %s", m.Error, m.Message)}
			} else {
				ch <- bidiAnswer{Result: m.Result}
			}
		}
	}
}

// call sends a command and decodes its result into out (which may be nil).
func (c *bidiConn) call(ctx context.Context, method string, params any, out any) error {
	ch := make(chan bidiAnswer, 1)
	c.mu.Lock()
	c.nextID++
	id := c.nextID
	c.wait[id] = ch
	c.mu.Unlock()
	c.wmu.Lock()
	err := c.ws.WriteJSON(map[string]any{"id": id, "method": method, "params": params})
	c.wmu.Unlock()
	if err != nil {
		return fmt.Errorf("%s: %v", method, err)
	}
	select {
	case a := <-ch:
		if a.Err != nil {
			return fmt.Errorf("%s: %v", method, a.Err)
		}
		if out != nil {
			return json.Unmarshal(a.Result, out)
		}
		return nil
	case <-ctx.Done():
		c.mu.Lock()
		delete(c.wait, id)
		c.mu.Unlock()
		return fmt.Errorf("%s: %v", method, ctx.Err())
	}
}

// firefoxTab is a Firefox tab on a test server.
type firefoxTab struct {
	t     testing.TB
	ctx   context.Context
	url   string // the test server's base URL
	conn  *bidiConn
	tab   string // the browsing context
	probs *problems
}

// problems collects what fails a test of another engine than Chromium:
// page errors and requests outside the test server.
type problems struct {
	mu      sync.Mutex
	list    []string
	allowed []string
}

func (p *problems) add(format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := fmt.Sprintf(format, args...)
	for _, a := range p.allowed {
		if strings.Contains(s, a) {
			return
		}
	}
	p.list = append(p.list, s)
}

func (p *problems) allow(text string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.allowed = append(p.allowed, text)
}

// take returns the problems so far and forgets them.
func (p *problems) take() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	l := p.list
	p.list = nil
	return l
}

// report fails t with each problem once.
func (p *problems) report(t testing.TB) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, s := range p.list {
		t.Errorf("%s", s)
	}
	p.list = nil
}

var firefoxListening = regexp.MustCompile(`WebDriver BiDi listening on (ws://\S+)`)

// openFirefox starts a headless Firefox of its own profile and opens a tab
// on base (the test server).
func openFirefox(t testing.TB, base string) *firefoxTab {
	t.Helper()
	enginesInstalled(t, "firefox")
	profile := t.TempDir()
	refuse := refusingProxy(t)
	// Firefox's remote agent sets its recommended preferences (no updates,
	// no safe-browsing lists, no captive-portal probe…); the proxy catches
	// whatever else the browser would send: loopback never goes through it.
	prefs := fmt.Sprintf(`user_pref("network.proxy.type", 1);
user_pref("network.proxy.http", "127.0.0.1");
user_pref("network.proxy.http_port", %[1]d);
user_pref("network.proxy.ssl", "127.0.0.1");
user_pref("network.proxy.ssl_port", %[1]d);
user_pref("network.proxy.no_proxies_on", "");
user_pref("network.proxy.allow_hijacking_localhost", false);
user_pref("network.dns.disableIPv6", true);
user_pref("browser.shell.checkDefaultBrowser", false);
user_pref("datareporting.policy.dataSubmissionEnabled", false);
user_pref("toolkit.telemetry.reportingpolicy.firstRun", false);
`, refuse)
	if err := os.WriteFile(filepath.Join(profile, "user.js"), []byte(prefs), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), engineTimeout)
	t.Cleanup(cancel)
	cmd := exec.Command(firefoxPath, "--headless", "--no-remote", "--profile", profile,
		"--remote-debugging-port=0", "--width=1600", "--height=1000", "about:blank")
	cmd.Env = append(os.Environ(), "MOZ_CRASHREPORTER_DISABLE=1", "MOZ_DISABLE_AUTO_SAFE_MODE=1")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start firefox: %v", err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	found := make(chan string, 1)
	var out strings.Builder
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := firefoxListening.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
			} else if out.Len() < 4096 {
				out.WriteString(sc.Text() + "\n")
			}
		}
	}()
	var wsURL string
	select {
	case wsURL = <-found:
	case <-time.After(60 * time.Second):
		t.Fatalf("firefox did not start its WebDriver BiDi server in 60 s:\n%s", out.String())
	}
	tab := &firefoxTab{t: t, ctx: ctx, url: base, probs: &problems{}}
	conn, err := dialBiDi(wsURL+"/session", tab.event)
	if err != nil {
		t.Fatalf("dial %s: %v", wsURL, err)
	}
	tab.conn = conn
	t.Cleanup(func() { conn.ws.Close() })
	var sess struct {
		Capabilities struct {
			BrowserVersion string `json:"browserVersion"`
		} `json:"capabilities"`
	}
	tab.must("session.new", map[string]any{"capabilities": map[string]any{}}, &sess)
	t.Logf("Firefox %s", sess.Capabilities.BrowserVersion)
	var tree struct {
		Contexts []struct {
			Context string `json:"context"`
		} `json:"contexts"`
	}
	tab.must("browsingContext.getTree", map[string]any{"maxDepth": 0}, &tree)
	if len(tree.Contexts) == 0 {
		t.Fatal("firefox has no tab")
	}
	tab.tab = tree.Contexts[0].Context
	tab.must("session.subscribe", map[string]any{"events": []string{"log.entryAdded", "network.beforeRequestSent"}}, nil)
	tab.must("network.addIntercept", map[string]any{"phases": []string{"beforeRequestSent"}, "contexts": []string{tab.tab}}, nil)
	t.Cleanup(func() { tab.probs.report(t) })
	return tab
}

func (b *firefoxTab) must(method string, params, out any) {
	b.t.Helper()
	if err := b.conn.call(b.ctx, method, params, out); err != nil {
		b.t.Fatalf("firefox: %v", err)
	}
}

// event handles what the browser reports: page errors, and the tab's
// requests, let through only to the test server.
func (b *firefoxTab) event(method string, params json.RawMessage) {
	switch method {
	case "log.entryAdded":
		var e struct {
			Level, Type, Text string
		}
		if json.Unmarshal(params, &e) == nil && e.Level == "error" {
			b.probs.add("firefox %s error: %s", e.Type, e.Text)
		}
	case "network.beforeRequestSent":
		var e struct {
			IsBlocked bool `json:"isBlocked"`
			Request   struct {
				Request string `json:"request"`
				URL     string `json:"url"`
			} `json:"request"`
		}
		if json.Unmarshal(params, &e) != nil || !e.IsBlocked {
			return
		}
		// Answered from another goroutine: this one reads the answers.
		go func() {
			if strings.HasPrefix(e.Request.URL, b.url+"/") {
				b.conn.call(b.ctx, "network.continueRequest", map[string]any{"request": e.Request.Request}, nil)
				return
			}
			b.probs.add("firefox: request outside the test server: %s", e.Request.URL)
			b.conn.call(b.ctx, "network.failRequest", map[string]any{"request": e.Request.Request}, nil)
		}()
	}
}

func (b *firefoxTab) engine() string { return "firefox" }

func (b *firefoxTab) allow(text string) { b.probs.allow(text) }

func (b *firefoxTab) takeProblems() []string { return b.probs.take() }

// load opens path and waits for the document to load.
func (b *firefoxTab) load(path string) {
	b.t.Helper()
	b.must("browsingContext.navigate", map[string]any{"context": b.tab, "url": b.url + path, "wait": "complete"}, nil)
}

// evalJSON evaluates the JavaScript expression expr (a promise is
// awaited) and returns its value as JSON.
func (b *firefoxTab) evalJSON(ctx context.Context, expr string) ([]byte, error) {
	var r struct {
		Type   string `json:"type"`
		Result struct {
			Type  string `json:"type"`
			Value string `json:"value"`
		} `json:"result"`
		ExceptionDetails struct {
			Text string `json:"text"`
		} `json:"exceptionDetails"`
	}
	err := b.conn.call(ctx, "script.evaluate", map[string]any{
		"expression":     jsonOf(expr),
		"target":         map[string]any{"context": b.tab},
		"awaitPromise":   true,
		"userActivation": true,
	}, &r)
	if err != nil {
		return nil, err
	}
	if r.Type == "exception" {
		return nil, fmt.Errorf("exception: %s", r.ExceptionDetails.Text)
	}
	return []byte(r.Result.Value), nil
}

func (b *firefoxTab) viewport(w, h int64) {
	b.t.Helper()
	b.must("browsingContext.setViewport", map[string]any{
		"context": b.tab, "viewport": map[string]any{"width": w, "height": h}, "devicePixelRatio": 1,
	}, nil)
}

func (b *firefoxTab) context() context.Context { return b.ctx }

// jsonOf wraps expr so that it evaluates to its value as a JSON string
// (undefined as null): every driver hands values back that way.
func jsonOf(expr string) string {
	return "(async () => JSON.stringify((await (" + expr + "\n)) ?? null))()"
}

// refusingProxy listens on a loopback port and closes every connection:
// the proxy a browser is given so that nothing it sends on its own reaches
// the network. It returns the port.
func refusingProxy(t testing.TB) int {
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
			c.Close()
		}
	}()
	return l.Addr().(*net.TCPAddr).Port
}
