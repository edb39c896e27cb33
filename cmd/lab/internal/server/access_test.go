package server

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/gorilla/websocket"

	"interplab/cmd/lab/internal/access"
	"interplab/cmd/lab/internal/store"
	"interplab/engine"
	"interplab/presets"
)

const testToken = "correct-horse-battery-staple"

// tokenServer is a served lab with the access token testToken.
func tokenServer(t *testing.T) (*Server, string, *store.SQLite) {
	t.Helper()
	d := tokenDeps(t)
	s, err := New(d)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s, serve(t, s).URL, d.Store.(*store.SQLite)
}

// freshDeps are the Deps of a lab with the presets and the test's assets,
// on a fresh store that closes at the end of the test.
func freshDeps(t testing.TB) Deps {
	t.Helper()
	list, err := presets.All()
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(t.TempDir(), storeT0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return Deps{Presets: list, Assets: testAssets(t, false), Store: st}
}

// tokenDeps are freshDeps with the access token testToken.
func tokenDeps(t testing.TB) Deps {
	t.Helper()
	d := freshDeps(t)
	d.Token = testToken
	return d
}

// noFollow is a client that shows redirects instead of following them.
var noFollow = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

func do(t *testing.T, method, url string, body string, header ...string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := noFollow.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp
}

func TestAccessToken(t *testing.T) {
	_, base, st := tokenServer(t)
	rev, err := st.Create(store.Draft{Name: "guarded", Settings: engine.Defaults()}, storeT0)
	if err != nil {
		t.Fatal(err)
	}
	bearer := []string{"Authorization", "Bearer " + testToken}
	html := []string{"Accept", "text/html,application/xhtml+xml"}
	tests := []struct {
		name     string
		method   string
		path     string
		header   []string
		status   int
		location string // for a redirect
	}{
		{"API without the token", "GET", "/api/sessions", nil, http.StatusUnauthorized, ""},
		{"API with a wrong token", "GET", "/api/sessions", []string{"Authorization", "Bearer wrong-but-long-enough"}, http.StatusUnauthorized, ""},
		{"API with the token", "GET", "/api/sessions", bearer, http.StatusOK, ""},
		{"unknown API without the token", "GET", "/api/nope", nil, http.StatusUnauthorized, ""},
		{"a page goes to sign in", "GET", "/s/" + rev.ID + "?loss=10", html, http.StatusSeeOther, "/login?next=" + url.QueryEscape("/s/"+rev.ID+"?loss=10")},
		{"a page with the token", "GET", "/sessions", append(bearer, html...), http.StatusOK, ""},
		{"the login page", "GET", "/login", html, http.StatusOK, ""},
		{"static files", "GET", "/static/style.css", nil, http.StatusOK, ""},
		{"a change without the token", "PUT", "/api/sessions/" + rev.ID, []string{"Content-Type", "application/json"}, http.StatusUnauthorized, ""},
	}
	for _, tt := range tests {
		resp := do(t, tt.method, base+tt.path, "", tt.header...)
		if resp.StatusCode != tt.status || resp.Header.Get("Location") != tt.location {
			t.Errorf("%s: %s %s = %d (Location %q), want %d (Location %q)", tt.name, tt.method, tt.path,
				resp.StatusCode, resp.Header.Get("Location"), tt.status, tt.location)
		}
		if tt.status == http.StatusUnauthorized && !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer") {
			t.Errorf("%s: a 401 without WWW-Authenticate: Bearer", tt.name)
		}
	}

	// WebSockets: refused without the token, taken with it.
	ws := "ws" + strings.TrimPrefix(base, "http") + "/ws/sessions/" + rev.ID
	if _, resp, err := websocket.DefaultDialer.Dial(ws, nil); err == nil || resp == nil || resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("live sync without the token: %v, want 401", err)
	}
	c, _, err := websocket.DefaultDialer.Dial(ws, http.Header{"Authorization": {"Bearer " + testToken}})
	if err != nil {
		t.Fatalf("live sync with the token: %v", err)
	}
	c.Close()
}

func TestLogin(t *testing.T) {
	_, base, _ := tokenServer(t)
	form := func(token, next string) string {
		return url.Values{"token": {token}, "next": {next}}.Encode()
	}
	formType := []string{"Content-Type", "application/x-www-form-urlencoded"}

	if resp := do(t, "POST", base+"/login", form("nope", "/sessions"), formType...); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("a wrong token signs in: %d, want 401", resp.StatusCode)
	}
	// Another site's page may not sign the browser in.
	if resp := do(t, "POST", base+"/login", form(testToken, "/"), append(formType, "Origin", "https://evil.example")...); resp.StatusCode != http.StatusForbidden {
		t.Errorf("a cross-site sign-in: %d, want 403", resp.StatusCode)
	}
	resp := do(t, "POST", base+"/login", form(testToken, "/sessions?q=a"), formType...)
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/sessions?q=a" {
		t.Fatalf("sign in = %d to %q, want 303 to /sessions?q=a", resp.StatusCode, resp.Header.Get("Location"))
	}
	var cookie *http.Cookie
	for _, c := range resp.Cookies() {
		if c.Name == access.Cookie {
			cookie = c
		}
	}
	if cookie == nil || !cookie.HttpOnly || cookie.SameSite != http.SameSiteStrictMode || cookie.Path != "/" || cookie.MaxAge <= 0 {
		t.Fatalf("session cookie = %+v, want HttpOnly, SameSite=Strict, Path=/, a lifetime", cookie)
	}
	if strings.Contains(cookie.Value, testToken) {
		t.Errorf("the cookie holds the token itself")
	}
	if resp := do(t, "GET", base+"/api/sessions", "", "Cookie", access.Cookie+"="+cookie.Value); resp.StatusCode != http.StatusOK {
		t.Errorf("with the cookie: GET /api/sessions = %d, want 200", resp.StatusCode)
	}
	// Forged: the first character changed (to another one: a cookie that
	// already began with 0 stayed the same, one start in the alphabet's
	// size, and the test failed).
	forged := "0" + cookie.Value[1:]
	if cookie.Value[0] == '0' {
		forged = "1" + cookie.Value[1:]
	}
	if resp := do(t, "GET", base+"/api/sessions", "", "Cookie", access.Cookie+"="+forged); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("with a forged cookie: GET /api/sessions = %d, want 401", resp.StatusCode)
	}

	// Sign-in never sends the browser to another site.
	for _, next := range []string{"//evil.example/", "https://evil.example/", "/\\evil.example", ""} {
		resp := do(t, "POST", base+"/login", form(testToken, next), formType...)
		if loc := resp.Header.Get("Location"); loc != "/" {
			t.Errorf("sign in with next %q goes to %q, want /", next, loc)
		}
	}
}

// Every route answers with the security headers, whatever its status.
func TestSecurityHeadersOnEveryRoute(t *testing.T) {
	s, ts := newTestServer(t, false)
	placeholder := regexp.MustCompile(`\{[a-z]+\$?\}`)
	for _, pattern := range s.routePatterns() {
		method, path, ok := strings.Cut(pattern, " ")
		if !ok {
			method, path = "GET", pattern
		}
		path = placeholder.ReplaceAllString(path, "x")
		resp := do(t, method, ts.URL+path, "")
		h := resp.Header
		csp := h.Get("Content-Security-Policy")
		for _, want := range []string{"default-src 'self'", "frame-ancestors 'none'", "script-src 'self' 'wasm-unsafe-eval' 'nonce-", "object-src 'none'"} {
			if !strings.Contains(csp, want) {
				t.Errorf("%s %s: Content-Security-Policy %q lacks %q", method, path, csp, want)
			}
		}
		if h.Get("X-Content-Type-Options") != "nosniff" || h.Get("Referrer-Policy") != "same-origin" {
			t.Errorf("%s %s: nosniff %q, Referrer-Policy %q", method, path, h.Get("X-Content-Type-Options"), h.Get("Referrer-Policy"))
		}
	}
}

func TestShortTokenRefused(t *testing.T) {
	st, err := store.Open(t.TempDir(), storeT0)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := New(Deps{Assets: testAssets(t, false), Store: st, Token: "short"}); err == nil || !strings.Contains(err.Error(), "at least 16") {
		t.Errorf("New with a 5-character token = %v, want an error asking for 16", err)
	}
}
