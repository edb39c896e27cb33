package jsonapi

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// testInner is the body middlewareServer decodes.
type testInner struct {
	Name  string  `json:"name"`
	Value float64 `json:"value"`
}

// middlewareServer serves a handler behind the whole chain: it decodes a
// JSON body of at most 64 bytes, and panics on {"name":"panic"}.
func middlewareServer(t *testing.T) *httptest.Server {
	t.Helper()
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var v testInner
		if r.ContentLength != 0 {
			if err := Decode(r, &v); err != nil {
				WriteError(w, err)
				return
			}
		}
		if v.Name == "panic" {
			panic("a bug")
		}
		WriteJSON(w, http.StatusOK, v)
	})
	srv := httptest.NewServer(Chain(h, Recover, RequireType("application/json"), MaxBody(64)))
	t.Cleanup(srv.Close)
	return srv
}

func TestMiddleware(t *testing.T) {
	srv := middlewareServer(t)
	tests := []struct {
		name              string
		origin, fetchSite string
		contentType, body string
		chunked           bool
		status            int
	}{
		{name: "same origin JSON", origin: srv.URL, contentType: "application/json", body: `{"name":"a"}`, status: 200},
		{name: "JSON with charset", contentType: "application/json; charset=utf-8", body: `{"name":"a"}`, status: 200},
		{name: "no origin (a game)", contentType: "application/json", body: `{}`, status: 200},
		{name: "allow-listed origin", origin: "https://tools.example", contentType: "application/json", body: `{}`, status: 200},
		{name: "no body, no type", origin: srv.URL, status: 200},
		{name: "same-origin fetch without Origin", fetchSite: "same-origin", contentType: "application/json", body: `{}`, status: 200},
		{name: "text/plain", origin: srv.URL, contentType: "text/plain", body: `{}`, status: 415},
		{name: "form", contentType: "application/x-www-form-urlencoded", body: `name=a`, status: 415},
		{name: "a body without a type", body: `{}`, status: 415},
		{name: "a type without a body", contentType: "text/plain", status: 415},
		{name: "declared over the cap", contentType: "application/json", body: `{"name":"` + strings.Repeat("x", 64) + `"}`, status: 413},
		{name: "streamed over the cap", contentType: "application/json", body: `{"name":"` + strings.Repeat("x", 64) + `"}`, chunked: true, status: 413},
		{name: "case-mismatched key", contentType: "application/json", body: `{"Name":"a"}`, status: 400},
		{name: "panic", contentType: "application/json", body: `{"name":"panic"}`, status: 500},
		{name: "after the panic", contentType: "application/json", body: `{"name":"b"}`, status: 200},
	}
	for _, tt := range tests {
		var r io.Reader = strings.NewReader(tt.body)
		if tt.chunked {
			r = io.MultiReader(r) // no length: sent chunked
		}
		req, err := http.NewRequest("POST", srv.URL, r)
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range map[string]string{"Origin": tt.origin, "Sec-Fetch-Site": tt.fetchSite, "Content-Type": tt.contentType} {
			if v != "" {
				req.Header.Set(k, v)
			}
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		data, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tt.status {
			t.Errorf("%s: %d %s, want %d", tt.name, resp.StatusCode, data, tt.status)
			continue
		}
		var e body
		if tt.status >= 400 && (json.Unmarshal(data, &e) != nil || e.Error == "") {
			t.Errorf("%s: %d %q, want a JSON error", tt.name, resp.StatusCode, data)
		}
	}
}

func TestRecoverLetsAbortThrough(t *testing.T) {
	h := Recover(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic(http.ErrAbortHandler) }))
	defer func() {
		if v := recover(); v != http.ErrAbortHandler {
			t.Errorf("recovered %v, want http.ErrAbortHandler passed on", v)
		}
	}()
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil))
	t.Error("Recover swallowed http.ErrAbortHandler")
}

// A chunked body over the cap is a 413 before the handler runs, even for
// a handler that never reads its body; under the cap the handler reads it
// whole.
func TestMaxBodyChunkedBeforeHandler(t *testing.T) {
	ran := 0
	var got string
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ran++
		b, _ := io.ReadAll(r.Body)
		got = string(b)
		w.WriteHeader(http.StatusNoContent)
	})
	srv := httptest.NewServer(Chain(h, MaxBody(64)))
	defer srv.Close()
	for _, tt := range []struct {
		body   string
		status int
	}{{strings.Repeat("x", 65), 413}, {strings.Repeat("y", 64), 204}} {
		req, _ := http.NewRequest("DELETE", srv.URL, io.MultiReader(strings.NewReader(tt.body)))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tt.status {
			t.Errorf("chunked DELETE of %d bytes = %d, want %d", len(tt.body), resp.StatusCode, tt.status)
		}
	}
	if ran != 1 || got != strings.Repeat("y", 64) {
		t.Errorf("the handler ran %d times and read %q, want once with the body under the cap", ran, got)
	}
}
