package server

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"interplab/cmd/lab/internal/access"
	"interplab/cmd/lab/internal/pgtest"
	"interplab/cmd/lab/internal/store"
)

// unreachableMsg is what a person is told while the database is away.
const unreachableMsg = "the lab cannot reach its database; try again"

// leaks tells which of the database's connection details text holds: its
// port, user or database name, or the driver's words for a connection.
func leaks(text, dbURL string) []string {
	u, _ := url.Parse(dbURL)
	var found []string
	for _, s := range []string{u.Port(), "user=", "postgres", strings.TrimPrefix(u.Path, "/"), "connection refused", "failed to connect", "dial"} {
		if s != "" && strings.Contains(text, s) {
			found = append(found, s)
		}
	}
	return found
}

// During a PostgreSQL outage a live set is answered with what a person
// can act on, never the database's connection details (the issue found
// "failed to connect to user=postgres database=lab: 127.0.0.1:PORT …
// connection refused" sent to every client); the API answers 503 with
// Retry-After, a browser gets a page that says so; once the database is
// back, the same lab serves again.
func TestDatabaseOutage(t *testing.T) {
	dbURL, proxy := pgtest.NewProxy(t, pgtest.New(t), true)
	e := replicaEnv(t, dbURL)
	r := e.create(t, "harbor", nil)
	c, _ := e.dial(t, r.ID)

	proxy.Down()
	sendWS(t, c, `{"type":"set","name":"seed","value":7}`)
	m := readWS(t, c)
	if m.Type != "error" || m.Error != unreachableMsg {
		t.Errorf("a set during the outage = %+v, want the error %q", m, unreachableMsg)
	}
	if l := leaks(m.Error, dbURL); len(l) > 0 {
		t.Errorf("a set during the outage was told %q: it holds %q", m.Error, l)
	}

	for _, tt := range []struct{ method, path, body string }{
		{"GET", "/api/sessions/" + r.ID, ""},
		{"GET", "/api/sessions", ""},
		{"POST", "/api/sessions", `{"name":"new"}`},
		{"PUT", "/api/sessions/" + r.ID, `{"rev":1,"name":"harbor","notes":"x"}`},
	} {
		resp := readTrip(t, tt.method, e.srv.URL+tt.path, tt.body, "Content-Type", "application/json")
		data, _ := io.ReadAll(resp.Body)
		var body struct{ Error string }
		json.Unmarshal(data, &body)
		if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" || body.Error != unreachableMsg {
			t.Errorf("%s %s during the outage = %d (Retry-After %q) %s, want 503 with Retry-After and %q",
				tt.method, tt.path, resp.StatusCode, resp.Header.Get("Retry-After"), data, unreachableMsg)
		}
		if l := leaks(string(data), dbURL); len(l) > 0 {
			t.Errorf("%s %s during the outage holds %q: %s", tt.method, tt.path, l, data)
		}
	}
	resp := readTrip(t, "GET", e.srv.URL+"/s/"+r.ID, "", "Accept", "text/html")
	page, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(page), "cannot reach its database") ||
		!strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") || resp.Header.Get("Retry-After") == "" {
		t.Errorf("the session page during the outage = %d %s (Retry-After %q), want a 503 page that says the database cannot be reached",
			resp.StatusCode, resp.Header.Get("Content-Type"), resp.Header.Get("Retry-After"))
	}
	if l := leaks(string(page), dbURL); len(l) > 0 {
		t.Errorf("the session page during the outage holds %q", l)
	}

	if err := proxy.Up(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		status, data := e.do(t, "GET", "/api/sessions/"+r.ID, nil)
		if status == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after the outage GET /api/sessions/%s = %d %s, want 200", r.ID, status, data)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// With an access token, the sign-in is checked in the database before
// anything else: during an outage a signed-in browser gets the page that
// says so, and the API the 503, not a 500 "internal error".
func TestDatabaseOutageSignedIn(t *testing.T) {
	dbURL, proxy := pgtest.NewProxy(t, pgtest.New(t), true)
	st, err := store.OpenPostgres(context.Background(), dbURL, storeT0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	d := tokenDeps(t)
	d.Store = st
	s, err := New(d)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	base := serve(t, s).URL
	cookie := access.Cookie + "=" + signIn(t, base, testToken)

	proxy.Down()
	resp := readTrip(t, "GET", base+"/", "", "Accept", "text/html", "Cookie", cookie)
	page, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(page), "cannot reach its database") || resp.Header.Get("Retry-After") == "" {
		t.Errorf("the lab page during the outage = %d %.300s, want a 503 page that says the database cannot be reached", resp.StatusCode, page)
	}
	resp = readTrip(t, "GET", base+"/api/sessions", "", "Cookie", cookie)
	data, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(data), unreachableMsg) {
		t.Errorf("GET /api/sessions during the outage = %d %s, want 503 %q", resp.StatusCode, data, unreachableMsg)
	}
	resp = readTrip(t, "POST", base+"/login", url.Values{"token": {testToken}, "next": {"/"}}.Encode(), "Content-Type", "application/x-www-form-urlencoded")
	page, _ = io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(page), "cannot reach its database") {
		t.Errorf("signing in during the outage = %d %.300s, want 503 saying the database cannot be reached", resp.StatusCode, page)
	}
	for _, text := range []string{string(page), string(data)} {
		if l := leaks(text, dbURL); len(l) > 0 {
			t.Errorf("an answer during the outage holds %q", l)
		}
	}
}

// readTrip is roundTrip with the answer's body left to read.
func readTrip(t testing.TB, method, url, body string, header ...string) *http.Response {
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
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}
