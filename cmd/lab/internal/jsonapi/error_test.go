package jsonapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"interplab/engine"
)

func TestWriteError(t *testing.T) {
	fieldErr := &engine.FieldError{Field: "latency", Value: "5", Allowed: "[0, 1] s"}
	tests := []struct {
		name   string
		err    error
		status int
		want   body
	}{
		{"api error", &Error{Status: http.StatusConflict, Msg: "taken", Field: "name"}, 409, body{"taken", "name", 0}},
		{"status zero is 400", &Error{Msg: "bad", Line: 3}, 400, body{"bad", "", 3}},
		{"wrapped api error", fmt.Errorf("save: %w", BadRequest("q", "too long")), 400, body{"too long", "q", 0}},
		{"field error", fieldErr, 400, body{fieldErr.Error(), "latency", 0}},
		{"server's own", errors.New("disk on fire at /var/lib/lab"), 500, body{"internal error", "", 0}},
	}
	for _, tt := range tests {
		rec := httptest.NewRecorder()
		WriteError(rec, tt.err)
		var got body
		if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
			t.Fatalf("%s: body %q: %v", tt.name, rec.Body, err)
		}
		if rec.Code != tt.status || got != tt.want {
			t.Errorf("%s: WriteError = %d %+v, want %d %+v", tt.name, rec.Code, got, tt.status, tt.want)
		}
		if ct, cc := rec.Header().Get("Content-Type"), rec.Header().Get("Cache-Control"); ct != "application/json" || cc != "no-store" {
			t.Errorf("%s: Content-Type %q, Cache-Control %q", tt.name, ct, cc)
		}
	}
}

func TestWriteJSONEscapesMarkup(t *testing.T) {
	rec := httptest.NewRecorder()
	WriteJSON(rec, http.StatusOK, map[string]string{"name": "<script>&"})
	if strings.ContainsAny(rec.Body.String(), "<>&") {
		t.Errorf("WriteJSON = %s, want <, > and & escaped", rec.Body)
	}
}

func TestClip(t *testing.T) {
	for _, tt := range []struct {
		s    string
		n    int
		want string
	}{{"abc", 3, "abc"}, {"abcd", 3, "abc…"}, {"ééé", 2, "éé…"}, {"", 0, ""}} {
		if got := Clip(tt.s, tt.n); got != tt.want {
			t.Errorf("Clip(%q, %d) = %q, want %q", tt.s, tt.n, got, tt.want)
		}
	}
}
