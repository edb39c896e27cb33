package access

import (
	"testing"
)

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
