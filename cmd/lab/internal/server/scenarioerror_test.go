package server

import (
	"net/http"
	"strings"
	"testing"
)

// A session whose scenarioText does not parse is a 400 that names the
// scenario's line and field, not a 500.
func TestScenarioTextErrorIs400(t *testing.T) {
	e := newSessionsEnv(t, t.TempDir())
	id := e.create(t, "scenario", nil).ID
	tests := []struct {
		method, path, body string
		line               int
		msg                string
	}{
		{"POST", "/api/sessions", `{"name":"a","settings":{"scenario":"custom","scenarioText":"spike at=1 for=soon delay=0.1"}}`, 1, `field for: "soon" is not allowed: want a time ≥ 0 s`},
		{"PUT", "/api/sessions/" + id, `{"rev":1,"settings":{"scenario":"custom","scenarioText":"# two\n\noutage at=1 for=1 delay=1"}}`, 3, "field delay: not a field of outage"},
		{"PUT", "/api/sessions/" + id, `{"rev":1,"settings":{"scenario":"custom","scenarioText":"outage at=50 for=20","duration":60}}`, 1, "raise duration to 70"},
		{"PUT", "/api/sessions/" + id, `{"rev":1,"settings":{"scenario":"custom","scenarioText":"outage at=5 for=1e308","duration":60}}`, 1, "at most 3600"},
	}
	for _, tt := range tests {
		status, a := doRaw(t, tt.method, e.srv.URL+tt.path, tt.body, false)
		if status != http.StatusBadRequest || a.Field != "scenarioText" || a.Line != tt.line || !strings.Contains(a.Error, tt.msg) {
			t.Errorf("%s %s = %d %+v, want 400 on scenarioText line %d saying %q", tt.method, tt.body, status, a, tt.line, tt.msg)
		}
		if strings.Contains(a.Error, "Inf") {
			t.Errorf("%s: %q names an infinite bound", tt.body, a.Error)
		}
	}
}
