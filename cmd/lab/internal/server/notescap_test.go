package server

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
)

// Notes over their cap are refused in the designer's terms, the field and
// its cap, whatever their size up to the body's cap; a body simply too big
// is still a 413.
func TestNotesOverCap(t *testing.T) {
	e := newSessionsEnv(t, t.TempDir())
	id := e.create(t, "notes", nil).ID
	for _, n := range []int{10001, 70000, 200000} {
		body := `{"rev":1,"notes":"` + strings.Repeat("n", n) + `"}`
		status, a := doRaw(t, "PUT", e.srv.URL+"/api/sessions/"+id, body, false)
		want := "notes: at most 10000 characters, got " + strconv.Itoa(n)
		if status != http.StatusBadRequest || a.Field != "notes" || !strings.Contains(a.Error, want) {
			t.Errorf("PUT with %d characters of notes = %d %+v, want 400 saying %q", n, status, a, want)
		}
	}
	huge := `{"rev":1,"notes":"` + strings.Repeat("n", 2<<20) + `"}`
	for _, chunked := range []bool{false, true} {
		if status, a := doRaw(t, "PUT", e.srv.URL+"/api/sessions/"+id, huge, chunked); status != http.StatusRequestEntityTooLarge {
			t.Errorf("PUT of %d bytes (chunked %v) = %d %+v, want 413", len(huge), chunked, status, a)
		}
	}
}
