package access

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"
)

// Guessing the token is slowed down: after loginBurst wrong tokens at
// once, 429 until the bucket refills at loginRate a second.
func TestWrongTokensMetered(t *testing.T) {
	now := time.Unix(1000, 0)
	g := New("correct-horse-battery-staple", func() time.Time { return now })
	try := func(token string) int {
		body := url.Values{"token": {token}, "next": {"/"}}.Encode()
		r := httptest.NewRequest("POST", "/login", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		w := httptest.NewRecorder()
		g.Login(w, r)
		return w.Code
	}
	for i := range loginBurst {
		if code := try("guess"); code != http.StatusUnauthorized {
			t.Fatalf("wrong token %d = %d, want 401", i+1, code)
		}
	}
	if code := try("guess"); code != http.StatusTooManyRequests {
		t.Errorf("wrong token %d at once = %d, want 429", loginBurst+1, code)
	}
	now = now.Add(time.Second)
	if code := try("guess"); code != http.StatusUnauthorized {
		t.Errorf("a second later = %d, want 401 (one more try)", code)
	}
	if code := try("correct-horse-battery-staple"); code != http.StatusSeeOther {
		t.Errorf("the right token while metered = %d, want 303: only wrong tokens are metered", code)
	}
}

func TestSafeNext(t *testing.T) {
	for next, want := range map[string]string{
		"/s/abc?x=1": "/s/abc?x=1", "": "/", "//evil.example": "/", "https://evil.example/": "/", "/\\evil": "/", "sessions": "/",
		"/%09/evil.example": "/", "/\t/evil.example": "/", "/%5Cevil.example": "/", "/%0a/evil.example": "/", "%2F%2Fevil.example": "/",
		"/%2F/evil.example": "/", "/%zz": "/", "/s/abc?ref=q%3Apreset%3Dwifi": "/s/abc?ref=q%3Apreset%3Dwifi",
	} {
		if got := safeNext(next); got != want {
			t.Errorf("safeNext(%q) = %q, want %q", next, got, want)
		}
	}
}

func TestLoopbackOnly(t *testing.T) {
	for host, want := range map[string]bool{
		"": false, "0.0.0.0": false, "::": false, "192.168.1.20": false, "10.0.0.1": false,
		"localhost": true, "127.0.0.1": true, "127.8.9.10": true, "::1": true,
	} {
		if got := LoopbackOnly(host); got != want {
			t.Errorf("LoopbackOnly(%q) = %v, want %v", host, got, want)
		}
	}
}
