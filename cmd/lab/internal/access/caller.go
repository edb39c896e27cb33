package access

import (
	"crypto/rand"
	"encoding/base64"
	"net/http"
	"strings"
	"time"
)

// ClientCookie is the name of the cookie that tells one browser from
// another on a lab without a token, where every browser of the machine
// comes from one address: a random id, given on the browser's first page
// load.
const ClientCookie = "lab_client"

// clientCookieFor is how long a browser keeps its ClientCookie.
const clientCookieFor = 365 * 24 * time.Hour

// validID tells whether v is an id as the lab makes them: idBytes random
// bytes in base64url.
func validID(v string) bool {
	raw, err := base64.RawURLEncoding.DecodeString(v)
	return err == nil && len(raw) == idBytes
}

// newID returns a new random id: idBytes random bytes in base64url.
func newID() string {
	var b [idBytes]byte
	rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// setCookie gives r's browser the cookie name=value for maxAge seconds
// (-1: it is deleted), for every path, HttpOnly (no script reads it),
// SameSite=Strict (no other site's request carries it) and Secure over
// TLS, the lab's or a trusted proxy's (Scheme).
func setCookie(w http.ResponseWriter, r *http.Request, name, value string, maxAge int) {
	http.SetCookie(w, &http.Cookie{Name: name, Value: value, Path: "/", MaxAge: maxAge,
		HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: Scheme(r) == "https"})
}

// Browsers gives a browser that asks for a page of a lab without a token,
// and has no ClientCookie, one (HttpOnly, SameSite=Strict), so that
// Caller can tell it from the other browsers on its machine.
func (a *Gate) Browsers(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if len(a.token) == 0 && r.Method == http.MethodGet && strings.Contains(r.Header.Get("Accept"), "text/html") {
			if c, err := r.Cookie(ClientCookie); err != nil || !validID(c.Value) {
				setCookie(w, r, ClientCookie, newID(), int(clientCookieFor.Seconds()))
			}
		}
		next.ServeHTTP(w, r)
	})
}

// Caller names who sent r, for limits that must not let one caller take
// what all share (the jobs' one job a client): with a token, a browser's
// sign-in, or for a bearer token (a game, a script: everybody's one
// token) the address it comes from; without, a browser's ClientCookie,
// or the address for a request without one. Require has let r in.
func (a *Gate) Caller(r *http.Request) string {
	if len(a.token) > 0 {
		if _, bearer := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); !bearer {
			if c, err := r.Cookie(Cookie); err == nil && validID(c.Value) {
				return "sign-in " + hashOf(c.Value)
			}
		}
	} else if c, err := r.Cookie(ClientCookie); err == nil && validID(c.Value) {
		return "browser " + c.Value
	}
	return "address " + ClientAddr(r)
}
