// Package access decides who may use the lab, and sets the security
// headers of every answer.
//
// Every request first passes the Host check (Hosts): a lab answers only to
// its own names, so that a page of another site cannot reach it through
// DNS rebinding; and a page may change state only from the lab's own
// origins (Origins). Connections are capped per client (LimitListener,
// Sockets).
//
// A lab served with a token, a shared secret (lab serve -token or
// LAB_TOKEN), lets in only requests that carry it: as "Authorization:
// Bearer TOKEN" (the API, a game, lab follow), or a browser's sign-in: the
// login page gives the browser a cookie holding a random id, whose
// sign-in the store keeps (store.Logins) until it signs out, 30 days pass
// or the token changes. Wrong tokens slow their client down and lock it
// out (meter.go). Without a token, on loopback, every request is let in.
//
// Every answer carries a Content-Security-Policy that lets the lab's pages
// load only from the lab (scripts too, inline ones only with the request's
// nonce; 'wasm-unsafe-eval' for the engine), framed by nobody; nosniff; and
// a same-origin Referrer-Policy.
package access

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"log"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/a-h/templ"

	"interplab/cmd/lab/internal/jsonapi"
	"interplab/cmd/lab/internal/store"
)

// MinTokenLen is the shortest access token lab serve accepts.
const MinTokenLen = 16

// Cookie is the name of the cookie that holds a browser's sign-in.
const Cookie = "lab_session"

// SignInFor is how long a browser stays signed in.
const SignInFor = 30 * 24 * time.Hour

// idBytes is the length of a sign-in's random id, before base64url.
const idBytes = 32

// Gate checks requests against the lab's token.
type Gate struct {
	token     []byte       // "" for none: every request is let in
	tokenHash string       // the token's hash, kept with each sign-in
	logins    store.Logins // the sign-ins
	meter     *meter       // each client's wrong tokens
	now       func() time.Time
}

// New returns the gate of token ("" for none: every request is let in)
// whose sign-ins logins keeps; now is the clock of the sign-ins and of
// the meter of wrong tokens. It forgets the sign-ins made under another
// token, and the expired.
func New(token string, logins store.Logins, now func() time.Time) (*Gate, error) {
	a := &Gate{token: []byte(token), logins: logins, meter: newMeter(), now: now}
	if token == "" {
		return a, nil
	}
	a.tokenHash = hashOf("interplab access token v1\x00" + token)
	n, err := logins.PruneLogins(a.tokenHash, now())
	if err != nil {
		return nil, fmt.Errorf("access: %w", err)
	}
	if n > 0 {
		log.Printf("lab: %d sign-ins of another access token or expired: forgotten", n)
	}
	return a, nil
}

// hashOf is the hex SHA-256 of s. The token's is kept with each sign-in:
// the token has at least MinTokenLen characters, and the database it is
// kept in holds everything the token guards.
func hashOf(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// rightToken tells whether token is the lab's.
func (a *Gate) rightToken(token string) bool {
	return subtle.ConstantTimeCompare([]byte(token), a.token) == 1
}

// newSignIn stores a sign-in made at now and returns its cookie's value.
func (a *Gate) newSignIn(now time.Time) (string, error) {
	id := newID()
	err := a.logins.SaveLogin(store.Login{ID: hashOf(id), Token: a.tokenHash, Created: now, Expires: now.Add(SignInFor)})
	return id, err
}

// signedIn tells whether cookie value v is a live sign-in of this token;
// it forgets a sign-in that has ended.
func (a *Gate) signedIn(v string) (bool, error) {
	if !validID(v) {
		return false, nil
	}
	id := hashOf(v)
	l, err := a.logins.LoadLogin(id)
	if errors.Is(err, store.ErrLoginNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if subtle.ConstantTimeCompare([]byte(l.Token), []byte(a.tokenHash)) != 1 || !a.now().Before(l.Expires) {
		return false, a.logins.DeleteLogin(id)
	}
	return true, nil
}

// Require lets in requests that carry the token, as a bearer token or as
// a browser's sign-in: the others get a 401 in JSON (the API, WebSockets,
// anything that is not a page) or, for a browser asking for a page, a
// redirect to the login page. A bearer token is metered: a client that
// sent too many wrong ones gets a 429 until its wait ends, whatever it
// sends.
func (a *Gate) Require(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if len(a.token) == 0 {
			next.ServeHTTP(w, r)
			return
		}
		if auth, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
			right, wait := a.tryToken(r, strings.TrimSpace(auth), a.now())
			switch {
			case wait != nil:
				jsonapi.WriteError(w, wait)
			case right:
				next.ServeHTTP(w, r)
			default:
				w.Header().Set("WWW-Authenticate", `Bearer realm="interplab"`)
				jsonapi.WriteError(w, &jsonapi.Error{Status: http.StatusUnauthorized, Msg: "that is not this lab's access token"})
			}
			return
		}
		if c, err := r.Cookie(Cookie); err == nil {
			ok, err := a.signedIn(c.Value)
			if err != nil {
				writeStoreError(w, r, "check a sign-in", err)
				return
			}
			if ok {
				next.ServeHTTP(w, r)
				return
			}
		}
		if wantsPage(r) {
			http.Redirect(w, r, "/login?next="+url.QueryEscape(r.URL.RequestURI()), http.StatusSeeOther)
			return
		}
		w.Header().Set("WWW-Authenticate", `Bearer realm="interplab"`)
		jsonapi.WriteError(w, &jsonapi.Error{Status: http.StatusUnauthorized,
			Msg: "this lab needs its access token: send Authorization: Bearer TOKEN, or sign in at /login"})
	})
}

// tryToken checks token, sent at now by r's client, through the meter of
// wrong tokens: a client that sent too many, or any client while every
// client together did, gets a 429 (wait, its RetryAfter the time left)
// whatever it sends; otherwise right tells
// whether token is the lab's, and the meter counts a wrong one and
// forgets the client's count on a right one.
func (a *Gate) tryToken(r *http.Request, token string, now time.Time) (right bool, wait *jsonapi.Error) {
	client := ClientAddr(r)
	if until, locked, waits := a.meter.wait(client, now); waits {
		return false, &jsonapi.Error{Status: http.StatusTooManyRequests, Msg: waitMessage(until, now, locked), RetryAfter: until.Sub(now)}
	}
	if until, waits := a.meter.everyone(now); waits {
		return false, &jsonapi.Error{Status: http.StatusTooManyRequests, RetryAfter: until.Sub(now),
			Msg: fmt.Sprintf("too many wrong access tokens from everywhere (%d at once, then %g a second): every try waits; try again in %v",
				GlobalBurst, GlobalRate, until.Sub(now).Round(time.Millisecond))}
	}
	if !a.rightToken(token) {
		a.meter.fail(client, now)
		return false, nil
	}
	a.meter.succeed(client)
	return true, nil
}

// wantsPage tells whether r is a browser asking for a page: a GET that
// accepts text/html (a browser's navigation does; fetch and curl send
// */*) of a path outside the API (/api/, /ws/), which answers JSON
// whoever asks.
func wantsPage(r *http.Request) bool {
	return r.Method == http.MethodGet && !strings.HasPrefix(r.URL.Path, "/api/") && !strings.HasPrefix(r.URL.Path, "/ws/") &&
		strings.Contains(r.Header.Get("Accept"), "text/html")
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
