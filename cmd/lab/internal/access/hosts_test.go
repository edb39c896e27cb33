package access

import (
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"testing"
)

func TestParseHosts(t *testing.T) {
	got, err := ParseHosts(" Lab.Studio.Example. ,tunnel.example:9000,192.168.1.20,[FD00::1]:8080,fd00::2,build_box")
	want := []string{"lab.studio.example", "tunnel.example:9000", "192.168.1.20", "[fd00::1]:8080", "[fd00::2]", "build_box"}
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("ParseHosts = %q, %v; want %q", got, err, want)
	}
	for _, bad := range []string{"", "http://lab.example", "lab.example/x", "lab..example", "-lab.example", "lab.example:0",
		"lab.example:65536", "lab.example:08080", "lab example", "lab.example:http", "*.example"} {
		if got, err := ParseHosts(bad); err == nil || !strings.Contains(err.Error(), "NAME or NAME:PORT") {
			t.Errorf("ParseHosts(%q) = %q, %v; want an error saying what a host is", bad, got, err)
		}
	}
}

// Loopback's names on the lab's port, the given names, and beyond
// loopback every address and the machine's name.
func TestHostsServes(t *testing.T) {
	allow, err := ParseHosts("lab.studio.example,tunnel.example:9000")
	if err != nil {
		t.Fatal(err)
	}
	loop, err := NewHosts("localhost:8080", allow)
	if err != nil {
		t.Fatal(err)
	}
	wide, err := NewHosts(":8080", allow)
	if err != nil {
		t.Fatal(err)
	}
	machine, _ := os.Hostname()
	tests := []struct {
		host       string
		loop, wide bool
	}{
		{"localhost:8080", true, true},
		{"LOCALHOST.:8080", true, true},
		{"127.0.0.1:8080", true, true},
		{"127.200.0.9:8080", true, true},
		{"[::1]:8080", true, true},
		{"localhost:8081", false, false},
		{"localhost", false, false}, // port 80
		{"lab.studio.example", true, true},
		{"lab.studio.example:1234", true, true},
		{"tunnel.example:9000", true, true},
		{"tunnel.example:8080", false, false},
		{"evil.example:8080", false, false},
		{"127.0.0.1.evil.example:8080", false, false},
		{"192.168.1.20:8080", false, true},
		{"192.168.1.20", false, true},
		{"[fd00::20]:8080", false, true},
		{"2130706433:8080", false, false}, // 127.0.0.1 as one number: a name, not an address
		{"", false, false},
	}
	if machine != "" && !strings.Contains(machine, "localhost") {
		tests = append(tests, struct {
			host       string
			loop, wide bool
		}{machine + ":8080", false, true})
	}
	for _, tt := range tests {
		if got := loop.Serves(tt.host, "80", 8080); got != tt.loop {
			t.Errorf("on loopback: Serves(%q) = %v, want %v", tt.host, got, tt.loop)
		}
		if got := wide.Serves(tt.host, "80", 8080); got != tt.wide {
			t.Errorf("beyond loopback: Serves(%q) = %v, want %v", tt.host, got, tt.wide)
		}
	}
}

// The Origin is compared with the lab's names, never with the Host: a
// rebinding page's Origin equals its Host and is still refused.
func TestOriginsIgnoreTheHost(t *testing.T) {
	hosts, err := NewHosts("localhost:8080", nil)
	if err != nil {
		t.Fatal(err)
	}
	o := NewOrigins(hosts, []string{"https://tools.example.com"})
	h := o.SameOrigin(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	tests := []struct {
		host, origin, fetchSite string
		status                  int
	}{
		{"evil.example:8080", "http://evil.example:8080", "", http.StatusForbidden},
		{"localhost:8080", "http://localhost:8080", "", http.StatusOK},
		{"localhost:8080", "http://127.0.0.1:8080", "", http.StatusOK},
		{"localhost:8080", "https://tools.example.com", "", http.StatusOK},
		{"localhost:8080", "HTTPS://TOOLS.EXAMPLE.COM", "", http.StatusOK},
		{"localhost:8080", "ftp://localhost:8080", "", http.StatusForbidden},
		{"localhost:8080", "null", "", http.StatusForbidden},
		{"localhost:8080", "http://user@localhost:8080", "", http.StatusForbidden},
		{"localhost:8080", "", "cross-site", http.StatusForbidden},
		{"localhost:8080", "", "same-origin", http.StatusOK},
		{"localhost:8080", "", "", http.StatusOK}, // a game
	}
	for _, tt := range tests {
		r := httptest.NewRequest("POST", "/api/sessions", nil)
		r.Host = tt.host
		if tt.origin != "" {
			r.Header.Set("Origin", tt.origin)
		}
		if tt.fetchSite != "" {
			r.Header.Set("Sec-Fetch-Site", tt.fetchSite)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != tt.status {
			t.Errorf("Host %s, Origin %q, Sec-Fetch-Site %q: %d, want %d", tt.host, tt.origin, tt.fetchSite, w.Code, tt.status)
		}
	}
}
