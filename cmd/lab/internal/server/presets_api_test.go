package server

import (
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"interplab/presets"
)

// TestCustomPresetsAPI: a preset file saved with POST /api/presets is
// listed after the built-in ones, marked custom, served as JSON and as its
// file, and deleted; the refusals name what to do.
func TestCustomPresetsAPI(t *testing.T) {
	e := newSessionsEnv(t, t.TempDir())
	file := `{"name": "team-wifi", "title": "Team Wi-Fi", "doc": "the office link", "settings": {"latency": 0.04, "loss": 0.01, "delay": 0.15}}`
	var saved apiPreset
	e.must(t, http.StatusCreated, "POST", "/api/presets", file, &saved)
	if !saved.Custom || saved.Name != "team-wifi" || saved.Settings.Latency != 0.04 || saved.Settings.Delay != 0.15 ||
		saved.Query != "latency=40ms&loss=1%25&delay=150ms" || saved.File != "/api/presets/team-wifi.json" {
		t.Errorf("saved = %+v", saved)
	}

	var list []apiPreset
	e.must(t, http.StatusOK, "GET", "/api/presets", nil, &list)
	builtin, _ := presets.All()
	if len(list) != len(builtin)+1 || list[len(list)-1].Name != "team-wifi" || !list[len(list)-1].Custom || list[0].Custom {
		t.Errorf("list: %d presets, last %+v; want the %d built-in ones, then team-wifi marked custom", len(list), list[len(list)-1], len(builtin))
	}
	var one apiPreset
	e.must(t, http.StatusOK, "GET", "/api/presets/team-wifi", nil, &one)
	if one.Title != "Team Wi-Fi" || !one.Custom {
		t.Errorf("GET team-wifi = %+v", one)
	}

	// The file: the same form as presets/*.json, which imports back.
	status, data := e.do(t, "GET", "/api/presets/team-wifi.json", nil)
	if status != http.StatusOK {
		t.Fatalf("GET team-wifi.json = %d %s", status, data)
	}
	back, err := presets.Parse(data)
	if err != nil || !reflect.DeepEqual(back.Settings, saved.Settings) || back.Doc != "the office link" {
		t.Errorf("the exported file reads back as %+v, %v\n%s", back, err, data)
	}
	var raw map[string]json.RawMessage
	json.Unmarshal(data, &raw)
	var keys map[string]any
	json.Unmarshal(raw["settings"], &keys)
	if len(keys) != 3 {
		t.Errorf("the file's settings %v: want only what differs from the defaults", keys)
	}
	// A built-in preset's file too.
	status, data = e.do(t, "GET", "/api/presets/wifi.json", nil)
	if p, err := presets.Parse(data); status != http.StatusOK || err != nil || p.Settings.JitterDist != "pareto" {
		t.Errorf("GET wifi.json = %d, %v: %s", status, err, data)
	}

	// Refusals.
	for _, c := range []struct {
		name, method, path, body string
		status                   int
		want                     string
	}{
		{"built-in name", "POST", "/api/presets", `{"name": "wifi", "title": "t", "doc": "d", "settings": {}}`, http.StatusConflict, "built-in presets cannot be overwritten"},
		{"custom name taken", "POST", "/api/presets", file, http.StatusConflict, "delete it first"},
		{"bad name", "POST", "/api/presets", `{"name": "Team WiFi", "title": "t", "doc": "d", "settings": {}}`, http.StatusBadRequest, "lower-case"},
		{"bad value", "POST", "/api/presets", `{"name": "x", "title": "t", "doc": "d", "settings": {"latency": 9}}`, http.StatusBadRequest, "latency"},
		{"unknown key", "POST", "/api/presets", `{"name": "x", "title": "t", "doc": "d", "settings": {"lag": 1}}`, http.StatusBadRequest, "lag"},
		{"no doc", "POST", "/api/presets", `{"name": "x", "title": "t", "settings": {}}`, http.StatusBadRequest, "missing doc"},
		{"delete built-in", "DELETE", "/api/presets/wifi", "", http.StatusConflict, "cannot be deleted"},
		{"unknown", "GET", "/api/presets/nope", "", http.StatusNotFound, "unknown preset"},
		{"unknown file", "GET", "/api/presets/nope.json", "", http.StatusNotFound, "unknown preset"},
	} {
		var body any
		if c.body != "" {
			body = c.body
		}
		status, data := e.do(t, c.method, c.path, body)
		if status != c.status || !strings.Contains(string(data), c.want) {
			t.Errorf("%s: %s %s = %d %s, want %d naming %q", c.name, c.method, c.path, status, data, c.status, c.want)
		}
	}

	// Every write checks the Origin and the body's type, as the other API routes do.
	for _, c := range []struct{ method, path, ctype, origin string }{
		{"POST", "/api/presets", "application/json", evilOrigin},
		{"POST", "/api/presets", "text/plain", ""},
		{"DELETE", "/api/presets/team-wifi", "application/json", evilOrigin},
	} {
		status, _ := hardenedDo(t, c.method, e.srv.URL+c.path, c.ctype, c.origin, `{"name": "evil", "title": "t", "doc": "d", "settings": {}}`)
		if status != http.StatusForbidden && status != http.StatusUnsupportedMediaType {
			t.Errorf("%s %s (type %s, origin %q) = %d, want a refusal", c.method, c.path, c.ctype, c.origin, status)
		}
	}

	e.must(t, http.StatusNoContent, "DELETE", "/api/presets/team-wifi", nil, nil)
	if status, _ := e.do(t, "DELETE", "/api/presets/team-wifi", nil); status != http.StatusNotFound {
		t.Errorf("DELETE again = %d, want 404", status)
	}
	e.must(t, http.StatusOK, "GET", "/api/presets", nil, &list)
	if len(list) != len(builtin) {
		t.Errorf("after delete: %d presets, want %d", len(list), len(builtin))
	}
}
