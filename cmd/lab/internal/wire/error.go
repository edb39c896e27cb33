// Package wire is what the lab's file formats, its store and its HTTP API
// share about input from outside: strict JSON decoding (Unmarshal), and
// Error, the one value bad input is reported as, whichever way it came in
// (a request body, an uploaded trace file, a WebSocket message, a row the
// store refuses). It sits below all of them, so a file format or the store
// reports bad input without importing the HTTP layer (package jsonapi,
// which writes an Error as the API's answer).
package wire

import (
	"errors"
	"net/http"
	"time"
	"unicode/utf8"

	"interplab/engine"
)

// Error is an answer of the API that is not a success: an HTTP status and
// the error body.
type Error struct {
	Status int    // HTTP status; 0 means 400 Bad Request
	Msg    string // the message, for a person
	Field  string // the key, query parameter or vocabulary name at fault; "" for none
	Line   int    // the 1-based line of an uploaded file at fault; 0 for none
	// Current is, for a 409, what the request was stale against; nil
	// for none.
	Current any
	// RetryAfter is, for a 503 or a 429, when to try again (sent as
	// Retry-After, whole seconds); 0 for none.
	RetryAfter time.Duration
}

func (e *Error) Error() string { return e.Msg }

// BadRequest is a 400 naming the field at fault.
func BadRequest(field, msg string) *Error {
	return &Error{Status: http.StatusBadRequest, Field: field, Msg: msg}
}

// Text returns the message and the field at fault of an error the client
// caused: an *Error or an *engine.FieldError anywhere in err's chain, else
// err's own message and no field.
func Text(err error) (msg, field string) {
	if e, ok := errors.AsType[*Error](err); ok {
		return e.Msg, e.Field
	}
	if fe, ok := errors.AsType[*engine.FieldError](err); ok {
		return fe.Error(), fe.Field
	}
	return err.Error(), ""
}

// Clip shortens s to at most n characters, for quoting user text in a
// message.
func Clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}
