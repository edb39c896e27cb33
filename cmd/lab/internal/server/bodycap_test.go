package server

import (
	"net/http"
	"strings"
	"testing"
)

// A chunked body over a route's cap is a 413 before the handler acts: a
// chunked DELETE over the cap deletes nothing, a preset over it is not
// read as a malformed file.
func TestChunkedOverCapIs413(t *testing.T) {
	e := newSessionsEnv(t, t.TempDir())
	id := e.create(t, "keep me", nil).ID
	big := `{"pad":"` + strings.Repeat("x", 300<<10) + `"}`
	// The review's: a chunked DELETE of 196 KB deleted the session.
	if status, a := doRaw(t, "DELETE", e.srv.URL+"/api/sessions/"+id, `{"pad":"`+strings.Repeat("x", 196<<10)+`"}`, true); status != http.StatusRequestEntityTooLarge {
		t.Errorf("chunked 196 KB DELETE = %d %+v, want 413", status, a)
	}
	for _, tt := range []struct{ method, path string }{
		{"DELETE", "/api/sessions/" + id},
		{"POST", "/api/sessions/" + id + "/restore"},
		{"POST", "/api/presets"},
		{"DELETE", "/api/presets/mine"},
		{"POST", "/api/sessions"},
		{"PUT", "/api/sessions/" + id},
		{"POST", "/api/sessions/" + id + "/trace"},
		{"POST", "/api/sweeps"},
		{"POST", "/api/jobs/0123456789abcdef/cancel"},
	} {
		status, a := doRaw(t, tt.method, e.srv.URL+tt.path, big, true)
		if status != http.StatusRequestEntityTooLarge || !strings.Contains(a.Error, "request body over") {
			t.Errorf("chunked %d-byte %s %s = %d %+v, want 413", len(big), tt.method, tt.path, status, a)
		}
	}
	var s sessionJSON
	e.must(t, http.StatusOK, "GET", "/api/sessions/"+id, nil, &s)
	if s.Deleted != nil || s.Rev != 1 {
		t.Errorf("after the chunked requests the session is %+v, want rev 1, not deleted", s)
	}
}
