package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"interplab/cmd/lab/internal/access"
	"interplab/cmd/lab/internal/jobs"
)

// startAs posts a long sweep to the lab at base with the header pairs and
// returns the status and the error message.
func startAs(t *testing.T, base string, header ...string) (int, string) {
	t.Helper()
	req, err := http.NewRequest("POST", base+"/api/sweeps", strings.NewReader(jobsLong))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var e struct{ Error string }
	json.NewDecoder(resp.Body).Decode(&e)
	return resp.StatusCode, e.Error
}

// browserCookie loads the lab page at base as a browser does and returns
// the lab_client cookie it is given.
func browserCookie(t *testing.T, base string) *http.Cookie {
	t.Helper()
	resp := roundTrip(t, "GET", base+"/", "", "Accept", "text/html,application/xhtml+xml")
	for _, c := range resp.Cookies() {
		if c.Name == access.ClientCookie {
			return c
		}
	}
	t.Fatalf("GET / = %d without a %s cookie", resp.StatusCode, access.ClientCookie)
	return nil
}

// On loopback every browser is one address: the one-job limit counts each
// browser by its lab_client cookie, so two browsers (or two designers on
// one machine) each get a job and one browser cannot take two. The issue's
// limit counted addresses: the second browser was refused.
func TestJobLimitPerBrowser(t *testing.T) {
	_, ts := newTestServer(t, false)
	a, b := browserCookie(t, ts.URL), browserCookie(t, ts.URL)
	if a.Value == b.Value || !a.HttpOnly || a.SameSite != http.SameSiteStrictMode || a.Path != "/" {
		t.Fatalf("browser cookies %+v and %+v, want two random ones, HttpOnly, SameSite=Strict, Path=/", a, b)
	}
	// A browser that has one is not given another.
	resp := roundTrip(t, "GET", ts.URL+"/", "", "Accept", "text/html", "Cookie", a.Name+"="+a.Value)
	for _, c := range resp.Cookies() {
		if c.Name == access.ClientCookie {
			t.Errorf("a browser with its cookie was given another: %+v", c)
		}
	}
	if code, msg := startAs(t, ts.URL, "Cookie", a.Name+"="+a.Value); code != http.StatusAccepted {
		t.Fatalf("browser A's job = %d %q, want 202", code, msg)
	}
	if code, msg := startAs(t, ts.URL, "Cookie", a.Name+"="+a.Value); code != http.StatusTooManyRequests || !strings.Contains(msg, "one client") {
		t.Errorf("browser A's second job = %d %q, want 429 naming the per-client limit", code, msg)
	}
	if code, msg := startAs(t, ts.URL, "Cookie", b.Name+"="+b.Value); code != http.StatusAccepted {
		t.Errorf("browser B's job, from the same address = %d %q, want 202", code, msg)
	}
}

// With a token, a browser is its sign-in: two sign-ins from one address
// each get a job, and one cannot take two.
func TestJobLimitPerSignIn(t *testing.T) {
	_, base, _ := tokenServer(t)
	a, b := signIn(t, base, testToken), signIn(t, base, testToken)
	if code, msg := startAs(t, base, "Cookie", access.Cookie+"="+a); code != http.StatusAccepted {
		t.Fatalf("sign-in A's job = %d %q, want 202", code, msg)
	}
	if code, msg := startAs(t, base, "Cookie", access.Cookie+"="+a); code != http.StatusTooManyRequests || !strings.Contains(msg, "one client") {
		t.Errorf("sign-in A's second job = %d %q, want 429 naming the per-client limit", code, msg)
	}
	if code, msg := startAs(t, base, "Cookie", access.Cookie+"="+b); code != http.StatusAccepted {
		t.Errorf("sign-in B's job, from the same address = %d %q, want 202", code, msg)
	}
}

// The lab runs Deps.JobSlots jobs at once (lab serve -jobs), and refuses
// a number out of range naming -jobs and the range.
func TestJobSlots(t *testing.T) {
	d := tokenDeps(t)
	d.Token, d.JobSlots = "", 3
	s, err := New(d)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	ts := serve(t, s)
	post := func(ip string) (int, string) {
		t.Helper()
		resp, err := fromAddr(ip).Post(ts.URL+"/api/sweeps", "application/json", strings.NewReader(jobsLong))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var e struct{ Error string }
		json.NewDecoder(resp.Body).Decode(&e)
		return resp.StatusCode, e.Error
	}
	for _, ip := range []string{"127.0.0.1", "127.0.0.2", "127.0.0.3"} {
		if code, msg := post(ip); code != http.StatusAccepted {
			t.Fatalf("a job from %s with 3 slots = %d %q, want 202", ip, code, msg)
		}
	}
	if code, msg := post("127.0.0.4"); code != http.StatusTooManyRequests || !strings.Contains(msg, "3 jobs are running") || !strings.Contains(msg, "-jobs") {
		t.Errorf("a fourth job = %d %q, want 429 saying 3 run at once and naming -jobs", code, msg)
	}

	for _, n := range []int{-1, jobs.MaxSlots + 1} {
		d := tokenDeps(t)
		d.JobSlots = n
		if _, err := New(d); err == nil || !strings.Contains(err.Error(), "-jobs") || !strings.Contains(err.Error(), fmt.Sprintf("[%d, %d]", jobs.MinSlots, jobs.MaxSlots)) {
			t.Errorf("New with %d job slots = %v, want an error naming -jobs and its range", n, err)
		}
	}
}
