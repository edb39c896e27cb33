package server

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"unicode"
	"unicode/utf8"

	"interplab/cmd/lab/internal/jsonapi"
	"interplab/templates"
	"interplab/web"
)

// Errors of the pages. The API (/api/..., /ws/...) answers an error in
// its one JSON shape (package jsonapi); a page route answers a person,
// with an HTML page (templates.ErrorPage) saying what went wrong and
// linking back. Page handlers write jsonapi errors, as the API's do;
// pageErrors, which routes puts around every page route, turns them into
// the page for a browser (a request that accepts text/html, as a browser's
// navigation does) and leaves them JSON for scripts and tools (the page's
// own fetch of a chart, curl), as /compare does.

// pageRoute tells whether the route of pattern serves pages a browser
// opens: every GET route but the API's, the WebSockets' and the files'.
func pageRoute(pattern string) bool {
	path, ok := strings.CutPrefix(pattern, "GET ")
	if !ok {
		return false
	}
	for _, prefix := range []string{"/api/", "/ws/", "/static/", web.VendorMount, "/lab.wasm", "/favicon.ico"} {
		if strings.HasPrefix(path, prefix) {
			return false
		}
	}
	return true
}

// acceptsHTML tells whether the client asked for a page: a browser's
// navigation accepts text/html; fetch and curl send */*.
func acceptsHTML(r *http.Request) bool { return strings.Contains(r.Header.Get("Accept"), "text/html") }

// apiPath tells whether a request's path is the API's: errors there are JSON.
func apiPath(path string) bool {
	return strings.HasPrefix(path, "/api/") || strings.HasPrefix(path, "/ws/")
}

// pageErrors answers the JSON error a page route's handler writes (status
// 400 or more, Content-Type application/json) to a browser as the HTML
// error page with the same status and message. Anything else passes as it
// is.
func pageErrors(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !acceptsHTML(r) {
			next.ServeHTTP(w, r)
			return
		}
		pw := &pageErrorWriter{ResponseWriter: w}
		next.ServeHTTP(pw, r)
		if !pw.caught {
			return
		}
		var body struct {
			Error string `json:"error"`
		}
		if json.Unmarshal(pw.body.Bytes(), &body) != nil || body.Error == "" {
			body.Error = http.StatusText(pw.status)
		}
		writeErrorPage(w, r, templates.ErrorView{Status: pw.status, Message: sentence(body.Error) + " (" + r.URL.Path + ")."})
	})
}

// pageErrorWriter holds back an error answer in JSON for pageErrors.
type pageErrorWriter struct {
	http.ResponseWriter
	caught bool
	status int
	body   bytes.Buffer
}

func (w *pageErrorWriter) WriteHeader(status int) {
	if status >= 400 && strings.HasPrefix(w.Header().Get("Content-Type"), "application/json") {
		w.caught, w.status = true, status
		return
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *pageErrorWriter) Write(b []byte) (int, error) {
	if w.caught {
		return w.body.Write(b)
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap gives http.ResponseController the writer underneath.
func (w *pageErrorWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// notFound answers a path no route takes, and a method its route does not
// take (405, when the path has a route for GET): an HTML page, or JSON
// under /api/ and /ws/. It serves both the catch-all route "/" and the
// API's "/api/", which is its own route so that the metrics tell stray API
// requests from stray pages.
func (s *Server) notFound(w http.ResponseWriter, r *http.Request) {
	get := r.Clone(r.Context())
	get.Method = http.MethodGet
	_, pattern := s.mux.Handler(get)
	wrongMethod := pattern != "/" && pattern != "/api/" && pattern != ""
	if apiPath(r.URL.Path) {
		e := &jsonapi.Error{Status: http.StatusNotFound, Msg: "no such API: " + r.URL.Path}
		if wrongMethod {
			w.Header().Set("Allow", "GET, HEAD")
			e = &jsonapi.Error{Status: http.StatusMethodNotAllowed, Msg: r.Method + " not allowed: use GET"}
		}
		jsonapi.WriteError(w, e)
		return
	}
	if wrongMethod {
		w.Header().Set("Allow", "GET, HEAD")
		writeErrorPage(w, r, templates.ErrorView{Status: http.StatusMethodNotAllowed,
			Message: r.Method + " is not allowed on " + r.URL.Path + ": it is a page, opened with GET."})
		return
	}
	writeErrorPage(w, r, templates.ErrorView{Status: http.StatusNotFound, Message: "The lab has no page at " + r.URL.Path + "."})
}

// writeErrorPage renders the error page v, its title and links filled in
// from its status and the request's path where v leaves them out.
func writeErrorPage(w http.ResponseWriter, r *http.Request, v templates.ErrorView) {
	if v.Title == "" {
		v.Title = statusTitle(v.Status)
	}
	if v.Links == nil {
		v.Links = errorLinks(r.URL.Path)
	}
	templates.Render(w, r, v.Status, templates.ErrorPage(v)) // Cache-Control: no-cache, as every page
}

// statusTitle is an error page's heading for an HTTP status.
func statusTitle(status int) string {
	switch status {
	case http.StatusNotFound:
		return "Not found"
	case http.StatusGone:
		return "Gone"
	case http.StatusConflict:
		return "Not ready"
	case http.StatusBadRequest:
		return "Bad request"
	case http.StatusServiceUnavailable:
		return "Try again shortly"
	}
	if status >= 500 {
		return "Server error"
	}
	return http.StatusText(status)
}

// errorLinks are the ways back from an error at path: the list of what the
// request was looking for, then a fresh lab.
func errorLinks(path string) []templates.ErrorLink {
	sections := []struct{ prefix, href, text string }{
		{"/s/", "/sessions", "Saved sessions"},
		{"/sessions", "/sessions", "Saved sessions"},
		{"/tune", "/tune", "Tune"},
		{"/sweep", "/sweep", "Sweeps"},
		{"/population", "/population", "Population runs"},
		{"/traces", "/traces", "Recorded traces"},
		{"/compare", "/compare", "Compare"},
	}
	var links []templates.ErrorLink
	for _, sec := range sections {
		if strings.HasPrefix(path, sec.prefix) {
			links = append(links, templates.ErrorLink{Href: sec.href, Text: sec.text})
			break
		}
	}
	return append(links, templates.ErrorLink{Href: "/", Text: "A fresh lab"})
}

// sentence turns an error message ("no such tuning") into a sentence's
// start: "No such tuning".
func sentence(msg string) string {
	r, n := utf8.DecodeRuneInString(msg)
	return string(unicode.ToUpper(r)) + msg[n:]
}
