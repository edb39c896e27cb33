package server

import (
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"interplab/cmd/lab/internal/access"
)

// proxiedLab is a served lab with the access token testToken behind a
// trusted proxy at 127.0.0.1, on clock's time.
func proxiedLab(t *testing.T, clock *testClock) string {
	t.Helper()
	d := tokenDeps(t)
	d.Now = clock.Now
	d.TrustProxy = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}
	s, err := New(d)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return serve(t, s).URL
}

// Wrong tokens with a malformed last X-Forwarded-For hop are not charged
// to the trusted proxy (the issue: one client locked everyone behind the
// proxy out): they are refused, and the proxy's own requests still pass.
func TestMalformedForwardedForNotChargedToTheProxy(t *testing.T) {
	base := proxiedLab(t, &testClock{now: storeT0})
	for i := range 25 {
		resp := roundTrip(t, "GET", base+"/api/sessions", "", "Authorization", "Bearer wrong-but-long-enough", "X-Forwarded-For", "unknown")
		if resp.StatusCode != http.StatusBadRequest {
			t.Fatalf("wrong token %d with X-Forwarded-For: unknown = %d, want 400", i+1, resp.StatusCode)
		}
	}
	if resp := roundTrip(t, "GET", base+"/api/sessions", "", "Authorization", "Bearer "+testToken); resp.StatusCode != http.StatusOK {
		t.Errorf("the right token from the proxy itself after 25 malformed tries = %d, want 200", resp.StatusCode)
	}
}

// Behind a TLS proxy the lab trusts, X-Forwarded-Proto: https makes the
// sign-in cookie Secure; the same header from an address the lab does not
// trust changes nothing.
func TestSecureCookieBehindTrustedTLSProxy(t *testing.T) {
	base := proxiedLab(t, &testClock{now: storeT0})
	form := url.Values{"token": {testToken}, "next": {"/"}}.Encode()
	cookie := func(resp *http.Response) *http.Cookie {
		for _, c := range resp.Cookies() {
			if c.Name == access.Cookie {
				return c
			}
		}
		t.Fatalf("sign in = %d with no cookie", resp.StatusCode)
		return nil
	}
	resp := roundTrip(t, "POST", base+"/login", form, "Content-Type", "application/x-www-form-urlencoded", "X-Forwarded-Proto", "https", "X-Forwarded-For", "203.0.113.9")
	if c := cookie(resp); !c.Secure || !strings.Contains(strings.Join(resp.Header.Values("Set-Cookie"), ";"), "Secure") {
		t.Errorf("the sign-in cookie through a trusted TLS proxy is not Secure: %q", resp.Header.Values("Set-Cookie"))
	}
	resp = fromAddressPost(t, "127.0.0.2", base+"/login", form, "Content-Type", "application/x-www-form-urlencoded", "X-Forwarded-Proto", "https")
	if c := cookie(resp); c.Secure {
		t.Errorf("X-Forwarded-Proto: https from an untrusted address made the cookie Secure: %q", resp.Header.Values("Set-Cookie"))
	}
}

// fromAddressPost is fromAddress with a body.
func fromAddressPost(t *testing.T, ip, url, body string, header ...string) *http.Response {
	t.Helper()
	return fromAddressBody(t, ip, "POST", url, strings.NewReader(body), header...)
}

// The wrong tokens of every client together are bounded too: many
// addresses, each within its free failures, cannot guess at network speed
// (the 200 addresses checked 1,000 wrong tokens in 0.24 s). Past
// access.GlobalBurst every try waits, said in a 429; a second later one
// more is checked.
func TestWrongTokensBoundedOverall(t *testing.T) {
	clock := &testClock{now: storeT0}
	base := clockedTokenServer(t, clock)
	wrong := []string{"Authorization", "Bearer wrong-but-long-enough"}
	sent := 0
	for a := 2; sent < access.GlobalBurst; a++ {
		for range access.FreeFailures {
			if resp := fromAddress(t, "127.0.0."+itoa(a), "GET", base+"/api/sessions", wrong...); resp.StatusCode != http.StatusUnauthorized {
				t.Fatalf("wrong token %d (from 127.0.0.%d) = %d, want 401", sent+1, a, resp.StatusCode)
			}
			if sent++; sent == access.GlobalBurst {
				break
			}
		}
	}
	fresh := "127.0.0.250"
	if resp := fromAddress(t, fresh, "GET", base+"/api/sessions", wrong...); resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" {
		t.Errorf("a fresh address's first wrong token after %d from everywhere = %d, want 429 with Retry-After", sent, resp.StatusCode)
	}
	clock.Add(time.Second)
	if resp := fromAddress(t, fresh, "GET", base+"/api/sessions", "Authorization", "Bearer "+testToken); resp.StatusCode != http.StatusOK {
		t.Errorf("the right token a second later = %d, want 200", resp.StatusCode)
	}
}

func itoa(i int) string { return strconv.Itoa(i) }
