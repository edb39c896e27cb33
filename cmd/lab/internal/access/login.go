package access

import (
	"bytes"
	"log"
	"net/http"
	"net/url"
	"strings"
	"unicode"

	"interplab/cmd/lab/internal/jsonapi"
	"interplab/cmd/lab/internal/store"
	"interplab/templates"
)

// safeNext is where a sign-in may send the browser on: next if it is a
// path of this lab, else "/". It must be one as it is and once
// percent-decoded with its control characters dropped, as a browser
// drops tabs and line breaks from an address ("/%09/evil.example" is
// "//evil.example" to it) and reads a backslash as a slash: it starts
// with one "/", holds no backslash and no raw control character, and has
// no scheme or host.
func safeNext(next string) string {
	decoded, err := url.PathUnescape(next)
	if err != nil || strings.ContainsFunc(next, unicode.IsControl) {
		return "/"
	}
	stripped := strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return -1
		}
		return r
	}, decoded)
	for _, p := range []string{next, stripped} {
		if !strings.HasPrefix(p, "/") || strings.HasPrefix(p, "//") || strings.Contains(p, "\\") {
			return "/"
		}
		if u, err := url.Parse(p); err != nil || u.Scheme != "" || u.Host != "" || u.Opaque != "" {
			return "/"
		}
	}
	return next
}

// LoginPage is GET /login.
func (a *Gate) LoginPage(w http.ResponseWriter, r *http.Request) {
	if len(a.token) == 0 {
		http.Redirect(w, r, "/", http.StatusSeeOther) // nothing to sign in to
		return
	}
	render(w, r, http.StatusOK, templates.LoginView{Next: safeNext(r.URL.Query().Get("next"))})
}

// Login is POST /login, a form with the token and where to go next: the
// right token signs the browser in, with a cookie (HttpOnly,
// SameSite=Strict, Secure over TLS) holding its sign-in's id, and goes on;
// a wrong one shows the form again with a 401, and a client that sent too
// many gets a 429 until its wait ends, the right token too.
func (a *Gate) Login(w http.ResponseWriter, r *http.Request) {
	if len(a.token) == 0 {
		http.Redirect(w, r, "/", http.StatusSeeOther)
		return
	}
	if err := r.ParseForm(); err != nil {
		jsonapi.WriteError(w, jsonapi.BadRequest("token", "bad form: "+err.Error()))
		return
	}
	next := safeNext(r.PostForm.Get("next"))
	now := a.now()
	right, wait := a.tryToken(r, r.PostForm.Get("token"), now)
	if wait != nil {
		jsonapi.SetRetryAfter(w, wait.RetryAfter)
		render(w, r, http.StatusTooManyRequests, templates.LoginView{Next: next, Error: sentence(wait.Msg) + "."})
		return
	}
	if !right {
		render(w, r, http.StatusUnauthorized, templates.LoginView{Next: next, Error: "That is not this lab's token."})
		return
	}
	id, err := a.newSignIn(now)
	if e := store.Outage(err); e != nil {
		log.Printf("lab: save a sign-in: %v", err)
		jsonapi.SetRetryAfter(w, e.RetryAfter)
		render(w, r, e.Status, templates.LoginView{Next: next, Error: sentence(e.Msg) + "."})
		return
	}
	if err != nil {
		jsonapi.WriteError(w, err)
		return
	}
	setCookie(w, r, Cookie, id, int(SignInFor.Seconds()))
	http.Redirect(w, r, next, http.StatusSeeOther)
}

// Logout is POST /logout: it ends the browser's sign-in, in the store (the
// cookie no longer works, wherever a copy of it is) and in the browser.
func (a *Gate) Logout(w http.ResponseWriter, r *http.Request) {
	if c, err := r.Cookie(Cookie); err == nil && a.logins != nil {
		if err := a.logins.DeleteLogin(hashOf(c.Value)); err != nil {
			writeStoreError(w, r, "end a sign-in", err)
			return
		}
	}
	setCookie(w, r, Cookie, "", -1)
	http.Redirect(w, r, "/login", http.StatusSeeOther)
}

// render writes the login page with status.
func render(w http.ResponseWriter, r *http.Request, status int, v templates.LoginView) {
	var buf bytes.Buffer
	if err := templates.Login(v).Render(r.Context(), &buf); err != nil {
		jsonapi.WriteError(w, err)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

// sentence is msg with its first letter in upper case.
func sentence(msg string) string {
	if msg == "" {
		return msg
	}
	return strings.ToUpper(msg[:1]) + msg[1:]
}
