// Package access decides who may use a lab served beyond its own machine,
// and sets the security headers of every answer.
//
// A lab served with a token, a shared secret (lab serve -token or
// LAB_TOKEN), lets in only requests that carry it: as "Authorization:
// Bearer TOKEN" (the API, a game, lab follow) or as the cookie the login
// page sets for a browser, which holds an HMAC of the token, never the token
// itself. Without a token, on loopback, every request is let in.
//
// Every answer carries a Content-Security-Policy that lets the lab's pages
// load only from the lab (scripts too, inline ones only with the request's
// nonce; 'wasm-unsafe-eval' for the engine), framed by nobody; nosniff; and
// a same-origin Referrer-Policy.
package access

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/a-h/templ"

	"interplab/cmd/lab/internal/jsonapi"
	"interplab/templates"
)

// MinTokenLen is the shortest access token lab serve accepts.
const MinTokenLen = 16

// Cookie is the name of the cookie that stands for the token.
const Cookie = "lab_session"

// cookieMaxAge is how long a browser stays signed in.
const cookieMaxAge = 30 * 24 * time.Hour

// Gate checks requests against the lab's token.
type Gate struct {
	token  []byte // "" for none: every request is let in
	cookie string // the cookie's value: hex HMAC-SHA256 of a fixed label, keyed by the token
	meter  *meter // each client's wrong tokens
	now    func() time.Time
}

// New returns the gate of token ("" for none: every request is let in);
// now is the clock that meters wrong tokens.
func New(token string, now func() time.Time) *Gate {
	a := &Gate{token: []byte(token), meter: newMeter(), now: now}
	if token != "" {
		m := hmac.New(sha256.New, a.token)
		m.Write([]byte("interplab session cookie v1"))
		a.cookie = hex.EncodeToString(m.Sum(nil))
	}
	return a
}

// rightToken tells whether token is the lab's.
func (a *Gate) rightToken(token string) bool {
	return subtle.ConstantTimeCompare([]byte(token), a.token) == 1
}

// Require lets in requests that carry the token, as a bearer token or as
// the cookie that stands for it: the others get a 401 in JSON (the API,
// WebSockets, anything that is not a page) or, for a browser asking for a
// page, a redirect to the login page. A bearer token is metered: a client
// that sent too many wrong ones gets a 429 until its wait ends, whatever
// it sends.
func (a *Gate) Require(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if len(a.token) == 0 {
			next.ServeHTTP(w, r)
			return
		}
		if auth, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
			client, now := ClientAddr(r), a.now()
			if until, locked, waits := a.meter.wait(client, now); waits {
				tooMany(w, until, now)
				jsonapi.WriteError(w, &jsonapi.Error{Status: http.StatusTooManyRequests, Msg: waitMessage(until, now, locked)})
				return
			}
			if a.rightToken(strings.TrimSpace(auth)) {
				a.meter.succeed(client)
				next.ServeHTTP(w, r)
				return
			}
			a.meter.fail(client, now)
			w.Header().Set("WWW-Authenticate", `Bearer realm="interplab"`)
			jsonapi.WriteError(w, &jsonapi.Error{Status: http.StatusUnauthorized, Msg: "that is not this lab's access token"})
			return
		}
		if c, err := r.Cookie(Cookie); err == nil && subtle.ConstantTimeCompare([]byte(c.Value), []byte(a.cookie)) == 1 {
			next.ServeHTTP(w, r)
			return
		}
		if r.Method == http.MethodGet && !strings.HasPrefix(r.URL.Path, "/api/") && !strings.HasPrefix(r.URL.Path, "/ws/") &&
			strings.Contains(r.Header.Get("Accept"), "text/html") {
			http.Redirect(w, r, "/login?next="+url.QueryEscape(r.URL.RequestURI()), http.StatusSeeOther)
			return
		}
		w.Header().Set("WWW-Authenticate", `Bearer realm="interplab"`)
		jsonapi.WriteError(w, &jsonapi.Error{Status: http.StatusUnauthorized,
			Msg: "this lab needs its access token: send Authorization: Bearer TOKEN, or sign in at /login"})
	})
}

// tooMany sets the headers of a 429 for a client that must wait until
// until: Retry-After in whole seconds, rounded up.
func tooMany(w http.ResponseWriter, until, now time.Time) {
	secs := (until.Sub(now) + time.Second - 1) / time.Second
	w.Header().Set("Retry-After", strconv.FormatInt(int64(secs), 10))
	w.Header().Set("Cache-Control", "no-store")
}

// waitMessage says why and until when a client that sent too many wrong
// tokens must wait.
func waitMessage(until, now time.Time, locked bool) string {
	if locked {
		return fmt.Sprintf("too many wrong access tokens from this address (%d): it is locked out until %s (%v), the right token too",
			LockoutFailures, until.UTC().Format("15:04:05 UTC"), Lockout)
	}
	return fmt.Sprintf("too many wrong access tokens from this address: try again in %v (at %s)",
		until.Sub(now).Round(time.Second), until.UTC().Format("15:04:05 UTC"))
}

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
// right token sets the session cookie (HttpOnly, SameSite=Strict, Secure
// over TLS) and goes on; a wrong one shows the form again with a 401.
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
	client, now := ClientAddr(r), a.now()
	if until, locked, waits := a.meter.wait(client, now); waits {
		tooMany(w, until, now)
		msg := waitMessage(until, now, locked)
		render(w, r, http.StatusTooManyRequests, templates.LoginView{Next: next, Error: strings.ToUpper(msg[:1]) + msg[1:] + "."})
		return
	}
	if !a.rightToken(r.PostForm.Get("token")) {
		a.meter.fail(client, now)
		render(w, r, http.StatusUnauthorized, templates.LoginView{Next: next, Error: "That is not this lab's token."})
		return
	}
	a.meter.succeed(client)
	http.SetCookie(w, &http.Cookie{Name: Cookie, Value: a.cookie, Path: "/", MaxAge: int(cookieMaxAge.Seconds()),
		HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil})
	http.Redirect(w, r, next, http.StatusSeeOther)
}

// Logout is POST /logout: it forgets the session cookie.
func (a *Gate) Logout(w http.ResponseWriter, r *http.Request) {
	http.SetCookie(w, &http.Cookie{Name: Cookie, Value: "", Path: "/", MaxAge: -1,
		HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil})
	http.Redirect(w, r, "/login", http.StatusSeeOther)
}

// Headers sets the headers every answer carries, and gives the request a
// fresh nonce for the inline scripts its page may hold (the charts': see
// chart.Component), through templ's context.
func Headers(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var b [18]byte
		rand.Read(b[:])
		nonce := base64.RawURLEncoding.EncodeToString(b[:])
		h := w.Header()
		h.Set("Content-Security-Policy", "default-src 'self'; "+
			"script-src 'self' 'wasm-unsafe-eval' 'nonce-"+nonce+"'; "+
			"style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; media-src 'self' blob:; "+
			"connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "same-origin")
		h.Set("Cross-Origin-Opener-Policy", "same-origin")
		next.ServeHTTP(w, r.WithContext(templ.WithNonce(r.Context(), nonce)))
	})
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
