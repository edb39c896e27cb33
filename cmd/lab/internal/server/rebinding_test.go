package server

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/gorilla/websocket"
)

// hostDo sends method path to the server at base with Host host (the
// server's own when ""), Origin origin (none when "") and the header pairs
// extra, and returns the status, the Content-Type and the body.
func hostDo(t *testing.T, method, base, path, host, origin, body string, extra ...string) (int, string, string) {
	t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, base+path, r)
	if err != nil {
		t.Fatal(err)
	}
	if host != "" {
		req.Host = host
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	for i := 0; i+1 < len(extra); i += 2 {
		req.Header.Set(extra[i], extra[i+1])
	}
	resp, err := noFollow.Do(req)
	if err != nil {
		t.Fatalf("%s %s (Host %s): %v", method, path, host, err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Content-Type"), string(data)
}

// wsDial opens the WebSocket at base+path with Host host and Origin
// origin, and returns the status of the handshake.
func wsDial(t *testing.T, base, path, host, origin string, extra ...string) int {
	t.Helper()
	h := http.Header{}
	if host != "" {
		h.Set("Host", host)
	}
	if origin != "" {
		h.Set("Origin", origin)
	}
	for i := 0; i+1 < len(extra); i += 2 {
		h.Set(extra[i], extra[i+1])
	}
	c, resp, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(base, "http")+path, h)
	if c != nil {
		c.Close()
	}
	if resp == nil {
		t.Fatalf("dial %s (Host %s): %v", path, host, err)
	}
	return resp.StatusCode
}

// portOf is the port of the served URL base.
func portOf(t *testing.T, base string) string {
	t.Helper()
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	return u.Port()
}

// A page on a domain that rebinds to 127.0.0.1 talks to the lab under its
// own name: the browser sends that name as Host and its own origin as
// Origin, and finds them equal. The lab answers no such request, read,
// write, upgrade or file, with anything but 421; its own names still work.
func TestRebindingRefused(t *testing.T) {
	e := newSessionsEnv(t, t.TempDir())
	kept := e.create(t, "kept", nil)
	base, port := e.srv.URL, portOf(t, e.srv.URL)
	evil := "evil.example:" + port
	evilOrigin := "http://" + evil

	refused := []struct {
		name, method, path, body string
		html                     bool // a browser asking for a page: a short HTML page, not JSON
	}{
		{"list sessions", "GET", "/api/sessions", "", false},
		{"read a session", "GET", "/api/sessions/" + kept.ID, "", false},
		{"create a session", "POST", "/api/sessions", `{"name":"planted"}`, false},
		{"delete a session", "DELETE", "/api/sessions/" + kept.ID, "", false},
		{"the lab page", "GET", "/", "", true},
		{"a static file", "GET", "/static/style.css", "", false},
		{"the parameter table", "GET", "/api/params", "", false},
	}
	for _, tt := range refused {
		var extra []string
		if tt.html {
			extra = []string{"Accept", "text/html,application/xhtml+xml"}
		}
		status, ctype, body := hostDo(t, tt.method, base, tt.path, evil, evilOrigin, tt.body, extra...)
		if status != http.StatusMisdirectedRequest {
			t.Errorf("%s: %s %s with Host %s = %d %.100s, want 421", tt.name, tt.method, tt.path, evil, status, body)
			continue
		}
		if tt.html {
			if !strings.HasPrefix(ctype, "text/html") || !strings.Contains(body, "evil.example") {
				t.Errorf("%s: 421 as %q %.200s, want a short HTML page naming the host", tt.name, ctype, body)
			}
			continue
		}
		var answer struct{ Error, Field string }
		if err := json.Unmarshal([]byte(body), &answer); err != nil || !strings.Contains(answer.Error, "evil.example") {
			t.Errorf("%s: 421 body %.200s, want the JSON error naming the host", tt.name, body)
		}
	}
	if status := wsDial(t, base, "/ws/sessions/"+kept.ID, evil, evilOrigin); status != http.StatusMisdirectedRequest {
		t.Errorf("live sync with Host %s = %d, want 421", evil, status)
	}
	// A loopback name on another port is not this lab either.
	if status, _, _ := hostDo(t, "GET", base, "/api/sessions", "localhost:1", "", ""); status != http.StatusMisdirectedRequest {
		t.Errorf("GET /api/sessions with Host localhost:1 = %d, want 421", status)
	}

	// Nothing changed.
	var list struct{ Sessions []sessionSummaryJSON }
	e.must(t, http.StatusOK, "GET", "/api/sessions", nil, &list)
	if len(list.Sessions) != 1 || list.Sessions[0].ID != kept.ID {
		t.Errorf("after the rebinding page: sessions %+v, want only %s", list.Sessions, kept.ID)
	}

	// The lab's own names, from its own pages.
	for _, own := range []string{"localhost:" + port, "127.0.0.1:" + port, "127.1.2.3:" + port, "[::1]:" + port, "LocalHost:" + port} {
		if status, _, body := hostDo(t, "POST", base, "/api/sessions", own, "http://"+own, `{"name":"mine"}`); status != http.StatusCreated {
			t.Errorf("POST /api/sessions as %s from its own page = %d %.200s, want 201", own, status, body)
		}
		if status, _, _ := hostDo(t, "GET", base, "/api/sessions", own, "", ""); status != http.StatusOK {
			t.Errorf("GET /api/sessions as %s = %d, want 200", own, status)
		}
		if status := wsDial(t, base, "/ws/sessions/"+kept.ID, own, "http://"+own); status != http.StatusSwitchingProtocols {
			t.Errorf("live sync as %s from its own page = %d, want 101", own, status)
		}
	}
}

// The Origin is compared with the lab's own origins, never with the
// request's Host: another site's page is refused, and a page of the lab
// under another of its names (localhost, 127.0.0.1) is its own.
func TestOriginIsNotTheHost(t *testing.T) {
	e := newSessionsEnv(t, t.TempDir())
	kept := e.create(t, "kept", nil)
	base, port := e.srv.URL, portOf(t, e.srv.URL)
	for _, origin := range []string{"http://evil.example:" + port, "http://localhost:1", "null", "http://127.0.0.1:" + port + ".evil.example"} {
		if status, _, body := hostDo(t, "POST", base, "/api/sessions", "", origin, `{"name":"x"}`); status != http.StatusForbidden {
			t.Errorf("POST /api/sessions from %s = %d %.100s, want 403", origin, status, body)
		}
		if status := wsDial(t, base, "/ws/sessions/"+kept.ID, "", origin); status != http.StatusForbidden {
			t.Errorf("live sync from %s = %d, want 403", origin, status)
		}
	}
	for _, origin := range []string{"http://localhost:" + port, "http://[::1]:" + port} {
		if status, _, body := hostDo(t, "POST", base, "/api/sessions", "", origin, `{"name":"x"}`); status != http.StatusCreated {
			t.Errorf("POST /api/sessions (Host 127.0.0.1) from %s = %d %.100s, want 201", origin, status, body)
		}
	}
}

// hostsServer serves a lab listening on addr, with more host names allow,
// and the access token testToken when token; it returns its URL.
func hostsServer(t *testing.T, addr string, allow []string, token bool) string {
	t.Helper()
	d := tokenDeps(t)
	d.Addr, d.AllowHosts = addr, allow
	if !token {
		d.Token = ""
	}
	s, err := New(d)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return serve(t, s).URL
}

// -allow-host names more host names the lab answers to: with a port, only
// on it; without, on any (a proxy's). Other names are still refused.
func TestAllowHost(t *testing.T) {
	base := hostsServer(t, "localhost:8080", []string{"lab.studio.example", "tunnel.example:9000"}, false)
	port := portOf(t, base)
	tests := []struct {
		host   string
		status int
	}{
		{"lab.studio.example", http.StatusOK},
		{"LAB.studio.example.:" + port, http.StatusOK},
		{"lab.studio.example:443", http.StatusOK},
		{"tunnel.example:9000", http.StatusOK},
		{"tunnel.example:" + port, http.StatusMisdirectedRequest},
		{"studio.example", http.StatusMisdirectedRequest},
		{"evil.lab.studio.example", http.StatusMisdirectedRequest},
		{"192.168.1.20:" + port, http.StatusMisdirectedRequest}, // on loopback, no other address
	}
	for _, tt := range tests {
		if status, _, _ := hostDo(t, "GET", base, "/api/sessions", tt.host, "", ""); status != tt.status {
			t.Errorf("GET /api/sessions with Host %s = %d, want %d", tt.host, status, tt.status)
		}
	}
	// Its origin may change state.
	if status, _, body := hostDo(t, "POST", base, "/api/sessions", "lab.studio.example", "https://lab.studio.example", `{"name":"proxied"}`); status != http.StatusCreated {
		t.Errorf("POST /api/sessions from https://lab.studio.example = %d %.200s, want 201", status, body)
	}
}

// Beyond loopback the token gates everything, and the lab answers to its
// addresses and the machine's name besides loopback's and -allow-host's;
// an unknown name is still 421, before the token is asked for.
func TestHostsBeyondLoopback(t *testing.T) {
	base := hostsServer(t, ":8080", []string{"lab.studio.example"}, true)
	port := portOf(t, base)
	name, err := os.Hostname()
	if err != nil || name == "" {
		t.Skipf("no host name: %v", err)
	}
	bearer := []string{"Authorization", "Bearer " + testToken}
	for host, want := range map[string]int{
		"192.168.1.20:" + port: http.StatusOK,
		"[fd00::20]:" + port:   http.StatusOK,
		name + ":" + port:      http.StatusOK,
		"lab.studio.example":   http.StatusOK,
		"localhost:" + port:    http.StatusOK,
		"evil.example:" + port: http.StatusMisdirectedRequest,
	} {
		if status, _, _ := hostDo(t, "GET", base, "/api/sessions", host, "", "", bearer...); status != want {
			t.Errorf("GET /api/sessions with the token and Host %s = %d, want %d", host, status, want)
		}
	}
	if status, _, _ := hostDo(t, "GET", base, "/api/sessions", "192.168.1.20:"+port, "", ""); status != http.StatusUnauthorized {
		t.Errorf("GET /api/sessions without the token = %d, want 401", status)
	}
}
