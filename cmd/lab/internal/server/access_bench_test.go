package server

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"interplab/cmd/lab/internal/access"
)

// BenchmarkAccessCheck is what letting a request in costs: a small API
// answer (an unknown API path's JSON 404) on a lab without a token, with
// the bearer token (stateless), and with a browser's sign-in (a lookup in
// the store), each through the whole handler: Host check, headers, gate.
//
//	go test ./cmd/lab/internal/server -run '^$' -bench AccessCheck
func BenchmarkAccessCheck(b *testing.B) {
	open, _ := testServer(b, testAssets(b, false), b.TempDir(), nil)
	d := tokenDeps(b)
	gated, err := New(d)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(gated.Close)
	cookie := signIn(b, serve(b, gated).URL, testToken)
	for _, bb := range []struct {
		name   string
		s      *Server
		header []string
	}{
		{"no-token", open, nil},
		{"bearer", gated, []string{"Authorization", "Bearer " + testToken}},
		{"sign-in", gated, []string{"Cookie", access.Cookie + "=" + cookie}},
	} {
		b.Run(bb.name, func(b *testing.B) {
			r := httptest.NewRequest("GET", "/api/nope", nil)
			r.Host = "localhost"
			for i := 0; i+1 < len(bb.header); i += 2 {
				r.Header.Set(bb.header[i], bb.header[i+1])
			}
			for b.Loop() {
				w := httptest.NewRecorder()
				bb.s.ServeHTTP(w, r)
				if w.Code != http.StatusNotFound {
					b.Fatalf("GET /api/nope = %d %s, want 404", w.Code, w.Body)
				}
			}
		})
	}
}
