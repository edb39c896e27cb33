package server

import (
	"bytes"
	"encoding/base64"
	"html"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"interplab/cmd/lab/internal/access"
	"interplab/cmd/lab/internal/store"
	"interplab/presets"
)

// onLab tells whether a browser that follows the redirect Location from
// base stays on base's host: it drops tabs and line breaks from the
// address and reads a backslash as a slash, as WHATWG URL parsing does.
func onLab(base, location string) bool {
	loc := strings.NewReplacer("\t", "", "\n", "", "\r", "", "\\", "/").Replace(location)
	b, err := url.Parse(base)
	if err != nil {
		return false
	}
	u, err := b.Parse(loc)
	return err == nil && u.Host == b.Host && u.Scheme == b.Scheme
}

// roundTrip sends method url with body and the header pairs, and returns
// the answer as it came: redirects not followed, Location not parsed.
func roundTrip(t testing.TB, method, url, body string, header ...string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp
}

// hiddenNext is the value of the login form's hidden next field.
var hiddenNext = regexp.MustCompile(`name="next" value="([^"]*)"`)

// Sign-in sends the browser on only to a path of the lab: none of the
// open-redirect variants leaves it, whether it comes in the login page's
// address or in the form (raw, as a hand-made form sends it, or encoded).
func TestLoginNextStaysOnTheLab(t *testing.T) {
	_, base, _ := tokenServer(t)
	formType := []string{"Content-Type", "application/x-www-form-urlencoded"}
	// The issue's variants go to the lab's root; a few more only have to
	// stay on the lab.
	issue := []string{`/%09/evil.example`, `/%5Cevil.example`, `//evil.example`, `/%0a/evil.example`, `https://evil.example`,
		`/\evil.example`, `%2F%2Fevil.example`}
	more := []string{`/%0D%0A/evil.example`, `/%2F/evil.example`, `%5C%5Cevil.example`, `/%252F%252Fevil.example`,
		`http:evil.example`, `/%E2%80%8B/evil.example`, `%20//evil.example`, `/%00/evil.example`, `/%7F/evil.example`}
	for i, next := range append(issue, more...) {
		want := func(loc string) bool { return onLab(base, loc) }
		if i < len(issue) {
			want = func(loc string) bool { return loc == "/" }
		}
		// The login page's address, as the token check's redirect makes it.
		resp, err := http.Get(base + "/login?next=" + next)
		if err != nil {
			t.Fatal(err)
		}
		page, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		m := hiddenNext.FindSubmatch(page)
		if m == nil {
			t.Fatalf("GET /login?next=%s: no next field in %.300s", next, page)
		}
		if hidden := html.UnescapeString(string(m[1])); !want(hidden) {
			t.Errorf("GET /login?next=%s: the form would send the browser on to %q", next, hidden)
		}
		// The form, raw and encoded.
		for _, body := range []string{"token=" + testToken + "&next=" + next, url.Values{"token": {testToken}, "next": {next}}.Encode()} {
			resp := roundTrip(t, "POST", base+"/login", body, formType...)
			if loc := resp.Header.Get("Location"); resp.StatusCode != http.StatusSeeOther || !want(loc) {
				t.Errorf("sign in with the form %q = %d to %q, want 303 to a path of the lab", body, resp.StatusCode, loc)
			}
		}
	}
	// A path of the lab, with its query, is kept as it is.
	for _, next := range []string{"/s/abc?loss=0.1", "/compare?a=q%3Apreset%3Dwifi&b=s%2Fabc", "/sessions?q=a%20b"} {
		resp := do(t, "POST", base+"/login", url.Values{"token": {testToken}, "next": {next}}.Encode(), formType...)
		if loc := resp.Header.Get("Location"); loc != next {
			t.Errorf("sign in with next %q goes to %q, want it kept", next, loc)
		}
	}
}

// testClock is a clock that moves only when told.
type testClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *testClock) Add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// clockedTokenServer is a served lab with the access token testToken on
// clock's time; it returns the lab's URL.
func clockedTokenServer(t *testing.T, clock *testClock) string {
	t.Helper()
	d := tokenDeps(t)
	d.Now = clock.Now
	s, err := New(d)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return serve(t, s).URL
}

// Wrong tokens, bearer or typed in the form, slow their client down: a
// few are free, then each waits longer than the last (1 s, doubling), and
// after 20 the client is locked out for 15 min, the right token too.
// Meanwhile another address is let in. The issue's client sent 300 wrong
// bearer tokens in 0.2 s, and the right one was let in at once after.
func TestWrongTokensSlowedThenLockedOut(t *testing.T) {
	clock := &testClock{now: storeT0}
	base := clockedTokenServer(t, clock)
	formType := []string{"Content-Type", "application/x-www-form-urlencoded"}
	bearer := func(token string) *http.Response {
		return roundTrip(t, "GET", base+"/api/sessions", "", "Authorization", "Bearer "+token)
	}
	form := func(token string) *http.Response {
		return roundTrip(t, "POST", base+"/login", url.Values{"token": {token}, "next": {"/sessions"}}.Encode(), formType...)
	}
	wrong := func(i int) *http.Response { // bearer and form in turn
		if i%2 == 0 {
			return bearer("wrong-but-long-enough")
		}
		return form("wrong-but-long-enough")
	}
	retryAfter := func(resp *http.Response) time.Duration {
		s, err := strconv.Atoi(resp.Header.Get("Retry-After"))
		if err != nil {
			t.Fatalf("a %d with Retry-After %q", resp.StatusCode, resp.Header.Get("Retry-After"))
		}
		return time.Duration(s) * time.Second
	}

	failures := 0
	for ; failures < 5; failures++ {
		if resp := wrong(failures); resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("wrong token %d = %d, want 401", failures+1, resp.StatusCode)
		}
	}
	wantWait := time.Second
	for failures < 20 {
		resp := wrong(failures)
		if resp.StatusCode != http.StatusTooManyRequests || retryAfter(resp) != wantWait {
			t.Fatalf("wrong token at once after %d = %d (Retry-After %q), want 429 (Retry-After %v)",
				failures, resp.StatusCode, resp.Header.Get("Retry-After"), wantWait.Seconds())
		}
		if resp := bearer(testToken); resp.StatusCode != http.StatusTooManyRequests {
			t.Fatalf("the right token while its client waits = %d, want 429", resp.StatusCode)
		}
		clock.Add(wantWait - time.Millisecond)
		if resp := wrong(failures); resp.StatusCode != http.StatusTooManyRequests {
			t.Fatalf("wrong token just before the wait of %v ends = %d, want 429", wantWait, resp.StatusCode)
		}
		clock.Add(time.Millisecond)
		if resp := wrong(failures); resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("wrong token %d, after waiting %v = %d, want 401", failures+1, wantWait, resp.StatusCode)
		}
		failures++
		wantWait = min(2*wantWait, time.Minute)
	}

	// Locked out: 15 min, said in Retry-After and in words, for the right
	// token too, bearer or form.
	ends := clock.Now().Add(15 * time.Minute)
	resp := bearer(testToken)
	if resp.StatusCode != http.StatusTooManyRequests || retryAfter(resp) != 15*time.Minute {
		t.Fatalf("the right token after 20 wrong ones = %d (Retry-After %q), want 429 for 15 min", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	page := roundTripBody(t, "POST", base+"/login", url.Values{"token": {testToken}, "next": {"/"}}.Encode(), formType...)
	if page.status != http.StatusTooManyRequests || !strings.Contains(page.body, ends.UTC().Format("15:04:05")) {
		t.Errorf("signing in with the right token while locked out = %d %.300s, want 429 naming when it ends", page.status, page.body)
	}
	// Another address is not locked out.
	if resp := fromAddress(t, "127.0.0.2", "GET", base+"/api/sessions", "Authorization", "Bearer "+testToken); resp.StatusCode != http.StatusOK {
		t.Errorf("the right token from another address = %d, want 200", resp.StatusCode)
	}
	clock.Add(15*time.Minute - time.Second)
	if resp := bearer(testToken); resp.StatusCode != http.StatusTooManyRequests {
		t.Errorf("the right token a second before the lock-out ends = %d, want 429", resp.StatusCode)
	}
	clock.Add(time.Second)
	if resp := bearer(testToken); resp.StatusCode != http.StatusOK {
		t.Errorf("the right token once the lock-out ended = %d, want 200", resp.StatusCode)
	}
	if resp := form(testToken); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("signing in once the lock-out ended = %d, want 303", resp.StatusCode)
	}
	// The right token forgave the client's failures.
	if resp := wrong(0); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("a wrong token after the right one = %d, want 401", resp.StatusCode)
	}
}

// roundTripBody is roundTrip's answer with its body.
func roundTripBody(t *testing.T, method, url, body string, header ...string) struct {
	status int
	body   string
} {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return struct {
		status int
		body   string
	}{resp.StatusCode, string(data)}
}

// fromAddress sends method url with the header pairs from the loopback
// address ip (another client than 127.0.0.1), skipping the test where the
// system cannot bind it.
func fromAddress(t *testing.T, ip, method, url string, header ...string) *http.Response {
	t.Helper()
	return fromAddressBody(t, ip, method, url, nil, header...)
}

// fromAddressBody is fromAddress with a body.
func fromAddressBody(t *testing.T, ip, method, url string, body io.Reader, header ...string) *http.Response {
	t.Helper()
	tr := &http.Transport{DialContext: (&net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}).DialContext}
	defer tr.CloseIdleConnections()
	req, err := http.NewRequest(method, url, body)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := tr.RoundTrip(req)
	if err != nil {
		t.Skipf("cannot send from %s: %v", ip, err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp
}

// tokenLab serves a lab with token on the store in dir, on clock's time,
// until stop (or the end of the test); it returns the lab's URL.
func tokenLab(t *testing.T, dir, token string, clock *testClock) (base string, stop func()) {
	t.Helper()
	list, err := presets.All()
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(dir, storeT0)
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(Deps{Presets: list, Assets: testAssets(t, false), Store: st, Token: token, Now: clock.Now})
	if err != nil {
		st.Close()
		t.Fatal(err)
	}
	ts := httptest.NewServer(s)
	var once sync.Once
	stop = func() {
		once.Do(func() {
			ts.Close()
			s.Close()
			st.Close()
		})
	}
	t.Cleanup(stop)
	return ts.URL, stop
}

// signIn signs in to the lab at base with token and returns the session
// cookie's value.
func signIn(t testing.TB, base, token string) string {
	t.Helper()
	resp := roundTrip(t, "POST", base+"/login", url.Values{"token": {token}, "next": {"/"}}.Encode(),
		"Content-Type", "application/x-www-form-urlencoded")
	for _, c := range resp.Cookies() {
		if c.Name == access.Cookie && c.Value != "" {
			return c.Value
		}
	}
	t.Fatalf("sign in = %d with no session cookie", resp.StatusCode)
	return ""
}

// withCookie is the status of GET /api/sessions with the session cookie
// value.
func withCookie(t *testing.T, base, value string) int {
	t.Helper()
	return roundTrip(t, "GET", base+"/api/sessions", "", "Cookie", access.Cookie+"="+value).StatusCode
}

// A sign-in is a session of the lab's own: a random id in the cookie (the
// issue's cookie was a fixed HMAC of the token, the same for everybody and
// forever), kept in the database as a hash only, revoked by signing out,
// ended after 30 days.
func TestLogoutRevokesTheCookie(t *testing.T) {
	dir := t.TempDir()
	clock := &testClock{now: storeT0}
	base, stop := tokenLab(t, dir, testToken, clock)
	a, b := signIn(t, base, testToken), signIn(t, base, testToken)
	if a == b {
		t.Errorf("two sign-ins got the same cookie %q", a)
	}
	if raw, err := base64.RawURLEncoding.DecodeString(a); err != nil || len(raw) != 32 {
		t.Errorf("cookie %q is not 32 random bytes in base64url: %v", a, err)
	}
	for _, v := range []string{a, b} {
		if status := withCookie(t, base, v); status != http.StatusOK {
			t.Fatalf("with a fresh cookie: %d, want 200", status)
		}
	}
	resp := roundTrip(t, "POST", base+"/logout", "", "Cookie", access.Cookie+"="+a, "Content-Type", "application/x-www-form-urlencoded")
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign out = %d, want 303", resp.StatusCode)
	}
	if status := withCookie(t, base, a); status != http.StatusUnauthorized {
		t.Errorf("the cookie of a browser that signed out = %d, want 401", status)
	}
	if status := withCookie(t, base, b); status != http.StatusOK {
		t.Errorf("another browser's cookie after one signed out = %d, want 200", status)
	}
	clock.Add(30*24*time.Hour - time.Second)
	if status := withCookie(t, base, b); status != http.StatusOK {
		t.Errorf("a cookie a second before 30 days = %d, want 200", status)
	}
	clock.Add(time.Second)
	if status := withCookie(t, base, b); status != http.StatusUnauthorized {
		t.Errorf("a cookie after 30 days = %d, want 401", status)
	}
	// The database holds no cookie that works.
	stop()
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err == nil && (bytes.Contains(data, []byte(a)) || bytes.Contains(data, []byte(b))) {
			t.Errorf("%s holds a session cookie", filepath.Base(f))
		}
	}
}

// Sign-ins outlive a restart with the same token; a new token revokes
// them all, for good, even if the old token comes back.
func TestTokenChangeRevokesEverySignIn(t *testing.T) {
	dir := t.TempDir()
	clock := &testClock{now: storeT0}
	base, stop := tokenLab(t, dir, testToken, clock)
	cookie := signIn(t, base, testToken)
	stop()

	base, stop = tokenLab(t, dir, testToken, clock)
	if status := withCookie(t, base, cookie); status != http.StatusOK {
		t.Errorf("after a restart with the same token: %d, want 200", status)
	}
	stop()

	const newToken = "a-new-token-for-the-lab"
	base, stop = tokenLab(t, dir, newToken, clock)
	if status := withCookie(t, base, cookie); status != http.StatusUnauthorized {
		t.Errorf("after the token changed: %d, want 401", status)
	}
	fresh := signIn(t, base, newToken)
	stop()

	base, _ = tokenLab(t, dir, testToken, clock)
	if status := withCookie(t, base, cookie); status != http.StatusUnauthorized {
		t.Errorf("with the old token back: the cookie of before the change = %d, want 401", status)
	}
	if status := withCookie(t, base, fresh); status != http.StatusUnauthorized {
		t.Errorf("with the old token back: a cookie of the new token = %d, want 401", status)
	}
}
