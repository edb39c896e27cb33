package jsonapi

import (
	"bytes"
	"errors"
	"io"
	"log"
	"mime"
	"net/http"
	"runtime/debug"
	"slices"
	"strings"
)

// A Middleware wraps a handler with a check or a service of its own.
type Middleware func(http.Handler) http.Handler

// Chain returns h wrapped in m, the first outermost: Chain(h, a, b)
// runs a, then b, then h.
func Chain(h http.Handler, m ...Middleware) http.Handler {
	for i := len(m) - 1; i >= 0; i-- {
		h = m[i](h)
	}
	return h
}

// Recover answers a panic in next with a 500 in the one error shape and
// logs it with its stack: a genuinely unexpected fault costs one request,
// never the server or the client's answer. http.ErrAbortHandler, a
// handler's deliberate abort, goes on up to net/http.
func Recover(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			v := recover()
			if v == nil {
				return
			}
			if err, ok := v.(error); ok && errors.Is(err, http.ErrAbortHandler) {
				// net/http's own sentinel: its connection loop recovers it,
				// closes the one connection and logs nothing; re-raised so a
				// deliberately aborted response is not sent as complete.
				panic(v)
			}
			log.Printf("lab: panic serving %s %s: %v\n%s", r.Method, r.URL.Path, v, debug.Stack())
			WriteError(w, &Error{Status: http.StatusInternalServerError, Msg: "internal error"})
		}()
		next.ServeHTTP(w, r)
	})
}

// RequireType refuses, with a 415, a request whose body is not of one of
// types ("application/json"): a request with a body, or a declared
// Content-Type, must declare one of them. A request with neither (a
// cancel, a delete) passes.
func RequireType(types ...string) Middleware {
	want := "Content-Type must be " + types[0]
	if len(types) > 1 {
		want = "Content-Type must be one of " + strings.Join(types, ", ")
	}
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			ct := r.Header.Get("Content-Type")
			if ct == "" && r.ContentLength == 0 {
				next.ServeHTTP(w, r)
				return
			}
			if mt, _, err := mime.ParseMediaType(ct); err != nil || !slices.Contains(types, mt) {
				WriteError(w, &Error{Status: http.StatusUnsupportedMediaType, Msg: want})
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

// MaxBody caps the request body at n bytes: a body declared larger is a
// 413 at once. A body of unknown length (sent chunked) under a cap of at
// most MaxBuffered is read here, before the handler runs, and a body over
// the cap is a 413 the handler never sees: a handler that does not read
// its body (a DELETE) cannot act on a request over its cap. Under a larger
// cap (an upload, which its handler streams) reading past n fails, which
// ReadBody and Decode answer with a 413 too.
func MaxBody(n int64) Middleware {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.ContentLength > n {
				WriteError(w, TooLarge(n))
				return
			}
			r.Body = http.MaxBytesReader(w, r.Body, n)
			if r.ContentLength < 0 && n <= MaxBuffered {
				data, err := ReadBody(r)
				if err != nil {
					WriteError(w, err)
					return
				}
				r.Body = io.NopCloser(bytes.NewReader(data))
				r.ContentLength = int64(len(data))
			}
			next.ServeHTTP(w, r)
		})
	}
}

// MaxBuffered is the largest cap under which MaxBody reads a chunked body
// ahead of the handler.
const MaxBuffered = 1 << 20
