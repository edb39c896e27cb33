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
		{"api error", &Error{Status: http.StatusConflict, Msg: "taken", Field: "name"}, 409, body{Error: "taken", Field: "name"}},
		{"status zero is 400", &Error{Msg: "bad", Line: 3}, 400, body{Error: "bad", Line: 3}},
		{"wrapped api error", fmt.Errorf("save: %w", BadRequest("q", "too long")), 400, body{Error: "too long", Field: "q"}},
		{"field error", fieldErr, 400, body{Error: fieldErr.Error(), Field: "latency"}},
		{"server's own", errors.New("disk on fire at /var/lib/lab"), 500, body{Error: "internal error"}},
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
