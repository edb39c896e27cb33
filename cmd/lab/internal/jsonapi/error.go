// Package jsonapi is the lab's HTTP API layer: the one error shape and the
// one writer of JSON answers, strict decoding of JSON bodies, and the
// middleware every route of the server is built from (recover, content
// type, body cap; the Origin check is package access's, against the lab's
// own host names).
//
// Every error the API answers is the JSON object
//
//	{"error": "what went wrong, in words", "field": "name", "line": 3}
//
// where field (the JSON key, query parameter or vocabulary name at fault)
// and line (the line of an uploaded file) are left out when there is none.
// A 409 Conflict adds "current": the state the request was stale against
// (a session's latest revision), so the client can show what changed.
package jsonapi

import (
	"encoding/json"
	"errors"
	"log"
	"net/http"
	"strconv"
	"time"

	"interplab/cmd/lab/internal/wire"
	"interplab/engine"
)

// Error is wire.Error, an answer of the API that is not a success: an
// HTTP status and the error body. It lives in package wire so that the file
// formats and the store, below this layer, report bad input in it too.
type Error = wire.Error

// BadRequest is wire.BadRequest, a 400 naming the field at fault.
func BadRequest(field, msg string) *Error { return wire.BadRequest(field, msg) }

// status is e's HTTP status.
func status(e *Error) int {
	if e.Status == 0 {
		return http.StatusBadRequest
	}
	return e.Status
}

// body is the JSON form of an error.
type body struct {
	Error   string `json:"error"`
	Field   string `json:"field,omitempty"`
	Line    int    `json:"line,omitempty"`
	Current any    `json:"current,omitempty"`
}

// Text is wire.Text: the message and the field at fault of an error the
// client caused.
func Text(err error) (msg, field string) { return wire.Text(err) }

// WriteError answers err in the one error shape: an *Error with its
// status, an *engine.FieldError (a value out of its range) as a 400 naming
// its field, and anything else as a 500 whose cause is logged, never sent.
func WriteError(w http.ResponseWriter, err error) {
	e, ok := errors.AsType[*Error](err)
	switch {
	case ok:
	case isFieldError(err):
		msg, field := Text(err)
		e = BadRequest(field, msg)
	default:
		log.Printf("lab: %v", err)
		e = &Error{Status: http.StatusInternalServerError, Msg: "internal error"}
	}
	w.Header().Set("Cache-Control", "no-store")
	SetRetryAfter(w, e.RetryAfter)
	WriteJSON(w, status(e), body{Error: e.Msg, Field: e.Field, Line: e.Line, Current: e.Current})
}

// SetRetryAfter tells the client of a 503 or a 429 to try again after d:
// Retry-After in whole seconds, rounded up, so the client never comes back
// early. It sets nothing for d <= 0. WriteError calls it for an *Error's
// RetryAfter; an answer that is a page calls it itself.
func SetRetryAfter(w http.ResponseWriter, d time.Duration) {
	if d <= 0 {
		return
	}
	secs := (d + time.Second - 1) / time.Second
	w.Header().Set("Retry-After", strconv.FormatInt(int64(secs), 10))
}

func isFieldError(err error) bool {
	_, ok := errors.AsType[*engine.FieldError](err)
	return ok
}

// WriteJSON writes v as indented JSON with status. encoding/json escapes <,
// > and &, so user text (a session's name) cannot become markup even where a
// browser would sniff the answer as HTML.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		log.Printf("lab: encode JSON answer: %v", err)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusInternalServerError)
		w.Write([]byte(`{"error": "internal error"}` + "\n"))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(append(data, '\n'))
}

// Clip is wire.Clip: s shortened to at most n characters, for quoting user
// text in a message.
func Clip(s string, n int) string { return wire.Clip(s, n) }
