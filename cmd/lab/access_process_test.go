package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// accessCase is a request of the access half of the second hostile
// review, and the status it must get.
type accessCase struct {
	name, method, path, host, origin, body string
	header                                 []string
	status                                 int
}

// sendAccess sends c to the lab at base (its Host and Origin with PORT
// for the lab's port) and returns the answer, redirects not followed.
func sendAccess(t *testing.T, base string, c accessCase) (*http.Response, error) {
	t.Helper()
	u, _ := url.Parse(base)
	port := u.Port()
	var body io.Reader
	if c.body != "" {
		body = strings.NewReader(c.body)
	}
	req, err := http.NewRequest(c.method, base+c.path, body)
	if err != nil {
		t.Fatal(err)
	}
	if c.host != "" {
		req.Host = strings.ReplaceAll(c.host, "PORT", port)
	}
	if c.origin != "" {
		req.Header.Set("Origin", strings.ReplaceAll(c.origin, "PORT", port))
	}
	if c.body != "" && !strings.HasPrefix(c.path, "/login") {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(c.header); i += 2 {
		req.Header.Set(c.header[i], c.header[i+1])
	}
	tr := &http.Transport{DisableKeepAlives: true, ResponseHeaderTimeout: 30 * time.Second}
	resp, err := tr.RoundTrip(req)
	if err == nil {
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	return resp, err
}

// runAccessCases sends every case to the lab at base and checks its
// status, that none is a 5xx, and that the process lives on.
func runAccessCases(t *testing.T, base string, proc *os.Process, cases []accessCase) {
	t.Helper()
	for _, c := range cases {
		resp, err := sendAccess(t, base, c)
		if err != nil {
			t.Fatalf("%s: %v (the process: %v)", c.name, err, alive(proc))
		}
		if resp.StatusCode >= 500 || resp.StatusCode != c.status {
			t.Errorf("%s: %s %s = %d, want %d", c.name, c.method, c.path, resp.StatusCode, c.status)
		}
		if loc := resp.Header.Get("Location"); loc != "" && !strings.HasPrefix(loc, "/") || strings.HasPrefix(loc, "//") ||
			strings.ContainsAny(loc, "\\\t\r\n") {
			t.Errorf("%s: redirected to %q, off the lab", c.name, loc)
		}
	}
}

// redirectVariants are the open-redirect variants of the issue, as a
// login page's next.
var redirectVariants = []string{`/%09/evil.example`, `/%5Cevil.example`, `//evil.example`, `/%0a/evil.example`,
	`https://evil.example`, `/\evil.example`, `%2F%2Fevil.example`}

// The real lab process survives the access half of the second hostile
// review (a rebinding page, login redirects, one client's 1,030
// WebSockets) with no 5xx and without ending; the rebinding page changes
// nothing, and GET /api/params still answers within 1 s.
func TestServeSurvivesHostileAccess(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the lab binary")
	}
	base, proc, _ := startLabProcess(t, labBinary(t), filepath.Join(t.TempDir(), "data"))
	resp, err := http.Post(base+"/api/sessions", "application/json", strings.NewReader(`{"name":"kept"}`))
	if err != nil {
		t.Fatal(err)
	}
	var kept struct{ ID string }
	decodeJSON(t, resp, &kept)
	evil, evilOrigin := "evil.example:PORT", "http://evil.example:PORT"
	cases := []accessCase{
		{name: "rebinding list", method: "GET", path: "/api/sessions", host: evil, origin: evilOrigin, status: 421},
		{name: "rebinding create", method: "POST", path: "/api/sessions", host: evil, origin: evilOrigin, body: `{"name":"planted"}`, status: 421},
		{name: "rebinding delete", method: "DELETE", path: "/api/sessions/" + kept.ID, host: evil, origin: evilOrigin, status: 421},
		{name: "rebinding upgrade", method: "GET", path: "/ws/sessions/" + kept.ID, host: evil, origin: evilOrigin, status: 421,
			header: []string{"Connection", "Upgrade", "Upgrade", "websocket", "Sec-WebSocket-Version", "13", "Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ=="}},
		{name: "rebinding page", method: "GET", path: "/", host: evil, header: []string{"Accept", "text/html"}, status: 421},
		{name: "rebinding static file", method: "GET", path: "/static/style.css", host: evil, status: 421},
		{name: "loopback name, another port", method: "GET", path: "/api/sessions", host: "localhost:1", status: 421},
		{name: "a foreign origin under the lab's Host", method: "DELETE", path: "/api/sessions/" + kept.ID, origin: evilOrigin, status: 403},
	}
	for _, next := range redirectVariants {
		cases = append(cases,
			accessCase{name: "login page next=" + next, method: "GET", path: "/login?next=" + next, status: 303},
			accessCase{name: "login form next=" + next, method: "POST", path: "/login", body: "token=x&next=" + next,
				header: []string{"Content-Type", "application/x-www-form-urlencoded"}, status: 303})
	}
	runAccessCases(t, base, proc, cases)

	// One client's 1,030 WebSockets: its 16, then a 429 each.
	dialer := websocket.Dialer{HandshakeTimeout: 5 * time.Second}
	ws := "ws" + strings.TrimPrefix(base, "http") + "/ws/sessions/" + kept.ID
	open, refused := 0, 0
	for i := range 1030 {
		c, resp, err := dialer.Dial(ws, nil)
		switch {
		case err == nil:
			open++
			defer c.Close()
		case resp != nil && resp.StatusCode == http.StatusTooManyRequests:
			refused++
		default:
			t.Fatalf("WebSocket %d: %v (the process: %v)", i+1, err, alive(proc))
		}
	}
	if open != 16 || refused != 1030-16 {
		t.Errorf("1,030 WebSockets from one client: %d open, %d refused; want 16 and 1,014", open, refused)
	}
	client := &http.Client{Timeout: time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err = client.Get(base + "/api/params")
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /api/params with one client's WebSockets open: %v, %v, want 200 within 1 s (the process: %v)", resp, err, alive(proc))
	}
	resp.Body.Close()
	var list struct{ Sessions []struct{ ID, Name string } }
	resp, err = http.Get(base + "/api/sessions")
	if err != nil {
		t.Fatal(err)
	}
	decodeJSON(t, resp, &list)
	if len(list.Sessions) != 1 || list.Sessions[0].ID != kept.ID {
		t.Errorf("after the hostile requests the sessions are %+v, want only %s", list.Sessions, kept.ID)
	}
}

// The same in token mode: login redirects stay on the lab, wrong tokens
// are slowed (the right one too, while their client waits), a foreign Host
// is refused before the token is asked for; no 5xx, no exit.
func TestServeSurvivesHostileAccessWithAToken(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the lab binary")
	}
	const token = "correct-horse-battery-staple"
	base, proc, _ := startLabProcessWith(t, labBinary(t), filepath.Join(t.TempDir(), "data"), []string{"LAB_TOKEN=" + token}, "/login")
	bearer := func(tok string) []string { return []string{"Authorization", "Bearer " + tok} }
	form := []string{"Content-Type", "application/x-www-form-urlencoded"}
	cases := []accessCase{
		{name: "rebinding with the token", method: "GET", path: "/api/sessions", host: "evil.example:PORT", header: bearer(token), status: 421},
		{name: "rebinding login page", method: "GET", path: "/login", host: "evil.example:PORT", status: 421},
		{name: "no token", method: "GET", path: "/api/sessions", status: 401},
		{name: "the token", method: "GET", path: "/api/sessions", header: bearer(token), status: 200},
	}
	for _, next := range redirectVariants {
		cases = append(cases,
			accessCase{name: "login page next=" + next, method: "GET", path: "/login?next=" + next, status: 200},
			accessCase{name: "sign in, next=" + next, method: "POST", path: "/login", body: "token=" + token + "&next=" + next, header: form, status: 303})
	}
	runAccessCases(t, base, proc, cases)

	// 300 wrong bearer tokens at once: 5 let through to a 401, the rest
	// 429; the right token too, while the client waits.
	var wrong []accessCase
	for i := range 300 {
		status := http.StatusTooManyRequests
		if i < 5 {
			status = http.StatusUnauthorized
		}
		wrong = append(wrong, accessCase{name: fmt.Sprintf("wrong token %d", i+1), method: "GET", path: "/api/sessions",
			header: bearer("wrong-but-long-enough"), status: status})
	}
	wrong = append(wrong,
		accessCase{name: "the right token while waiting", method: "GET", path: "/api/sessions", header: bearer(token), status: 429},
		accessCase{name: "signing in while waiting", method: "POST", path: "/login", body: "token=" + token + "&next=/", header: form, status: 429})
	runAccessCases(t, base, proc, wrong)
}

// decodeJSON decodes resp's JSON body into out, and closes it.
func decodeJSON(t *testing.T, resp *http.Response, out any) {
	t.Helper()
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		t.Fatalf("%s: decode: %v", resp.Request.URL, err)
	}
}
