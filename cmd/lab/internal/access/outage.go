package access

import (
	"fmt"
	"log"
	"net/http"

	"interplab/cmd/lab/internal/jsonapi"
	"interplab/cmd/lab/internal/store"
	"interplab/templates"
)

// writeStoreError answers err, a failure of the sign-ins' store while
// doing what: an unreachable database (store.Outage) as a 503 with
// Retry-After that says so, a page for a browser asking for one and the
// API's JSON otherwise, its cause logged, never sent; anything else as a
// 500 (jsonapi.WriteError).
func writeStoreError(w http.ResponseWriter, r *http.Request, what string, err error) {
	e := store.Outage(err)
	if e == nil {
		jsonapi.WriteError(w, fmt.Errorf("%s: %w", what, err))
		return
	}
	log.Printf("lab: %s: %v", what, err)
	if !wantsPage(r) {
		jsonapi.WriteError(w, e)
		return
	}
	jsonapi.SetRetryAfter(w, e.RetryAfter)
	w.Header().Set("Cache-Control", "no-store")
	templates.Render(w, r, e.Status, templates.ErrorPage(OutageView(r.URL.Path)))
}

// OutageView is the page a browser gets for path while the lab cannot
// reach its database.
func OutageView(path string) templates.ErrorView {
	return templates.ErrorView{Status: http.StatusServiceUnavailable, Title: "Database unreachable",
		Message: "The lab cannot reach its database; try again in a few seconds (" + path + "). Nothing was changed.",
		Links:   []templates.ErrorLink{{Href: path, Text: "Try again"}, {Href: "/", Text: "A fresh lab"}}}
}
