package server

import (
	"html"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
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
func roundTrip(t *testing.T, method, url, body string, header ...string) *http.Response {
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
