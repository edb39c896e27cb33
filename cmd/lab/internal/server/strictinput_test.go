package server

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// strictAnswer is an API error as the strict-input tests read it.
type strictAnswer struct {
	Error, Field string
	Line         int
}

// doRaw sends body as it is, chunked when chunked (no Content-Length),
// and returns the status and the JSON error.
func doRaw(t *testing.T, method, url, body string, chunked bool) (int, strictAnswer) {
	t.Helper()
	var r io.Reader = strings.NewReader(body)
	if chunked {
		r = io.MultiReader(r) // no length: sent chunked
	}
	if body == "" {
		r = nil
	}
	req, err := http.NewRequest(method, url, r)
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	var a strictAnswer
	if resp.StatusCode >= 400 {
		if err := json.Unmarshal(data, &a); err != nil || a.Error == "" {
			t.Errorf("%s %s = %d %q, want a JSON error", method, url, resp.StatusCode, data)
		}
	}
	return resp.StatusCode, a
}

// Every JSON body is strict JSON: a key given twice is refused with the
// key named, and text that is not UTF-8 with its byte offset, over HTTP as
// over the WebSocket; nothing is saved.
func TestStrictJSONBodies(t *testing.T) {
	e := newSessionsEnv(t, t.TempDir())
	id := e.create(t, "strict", nil).ID
	path := e.srv.URL + "/api/sessions/" + id
	tests := []struct {
		name, method, path, body string
		field, msg               string
	}{
		{"duplicate name", "POST", "/api/sessions", `{"name":"a","name":"b"}`, "name", `duplicate key "name"`},
		{"duplicate setting", "PUT", path, `{"rev":1,"settings":{"latency":0.05,"latency":0.5}}`, "latency", `duplicate key "latency"`},
		{"duplicate rev", "PUT", path, `{"rev":1,"notes":"x","rev":1}`, "rev", `duplicate key "rev"`},
		{"duplicate in a sweep", "POST", "/api/sweeps", `{"technique":"buffer","technique":"epic","x":{"name":"delay","min":0,"max":0.2,"steps":3}}`, "technique", `duplicate key "technique"`},
		{"duplicate in a trace save", "POST", path + "/trace", `{"name":"a","name":"b"}`, "name", `duplicate key "name"`},
		{"duplicate in a preset", "POST", "/api/presets", `{"name":"mine","title":"t","doc":"d","settings":{"loss":0.1,"loss":0.2}}`, "loss", `duplicate key "loss"`},
		{"invalid UTF-8 in a name", "POST", "/api/sessions", "{\"name\":\"caf\xe9\"}", "name", "invalid UTF-8 at byte 12"},
		{"invalid UTF-8 in notes", "PUT", path, "{\"rev\":1,\"notes\":\"\xff\xfe\"}", "notes", "invalid UTF-8 at byte 18"},
		{"invalid UTF-8 in a preset", "POST", "/api/presets", "{\"name\":\"mine2\",\"title\":\"t\xc3\",\"doc\":\"d\",\"settings\":{}}", "title", "invalid UTF-8 at byte 26"},
	}
	for _, tt := range tests {
		url := tt.path
		if strings.HasPrefix(url, "/") {
			url = e.srv.URL + url
		}
		status, a := doRaw(t, tt.method, url, tt.body, false)
		if status != http.StatusBadRequest || a.Field != tt.field || !strings.Contains(a.Error, tt.msg) {
			t.Errorf("%s: %s = %d %+v, want 400 on %q saying %q", tt.name, tt.method, status, a, tt.field, tt.msg)
		}
	}
	var s sessionJSON
	e.must(t, http.StatusOK, "GET", "/api/sessions/"+id, nil, &s)
	if s.Rev != 1 {
		t.Errorf("after the refused bodies the session is at rev %d, want 1", s.Rev)
	}

	// The live sync reads its messages the same way.
	c, _ := e.dial(t, id)
	for _, msg := range []string{
		`{"type":"set","name":"latency","value":0.1,"value":0.9}`,
		`{"type":"set","type":"hello","name":"latency","value":0.1}`,
	} {
		sendWS(t, c, msg)
		if m := readWS(t, c); m.Type != "error" || !strings.Contains(m.Error, "duplicate key") {
			t.Errorf("after %s the client got %+v, want an error naming the duplicate key", msg, m)
		}
	}
}
