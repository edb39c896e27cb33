package templates

import (
	"bytes"
	"log"
	"net/http"

	"github.com/a-h/templ"
)

// Render writes the page c with status. It renders into a buffer first, so
// a failure is a clean 500 (logged), not half a page.
func Render(w http.ResponseWriter, r *http.Request, status int, c templ.Component) {
	var buf bytes.Buffer
	if err := c.Render(r.Context(), &buf); err != nil {
		log.Printf("lab: render %s: %v", r.URL.Path, err)
		http.Error(w, "render page: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}
