package server

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"testing"

	"github.com/gorilla/websocket"

	"interplab/cmd/lab/internal/access"
	"interplab/cmd/lab/internal/store"
	"interplab/presets"
)

// Behind a trusted proxy each client behind it is counted alone: 17
// WebSockets of 17 forwarded clients all open. A connection that is not
// from a trusted proxy keeps its own address whatever X-Forwarded-For it
// forges, so the 17th WebSocket from one machine is refused as before.
func TestTrustProxy(t *testing.T) {
	for _, tt := range []struct {
		name    string
		trust   string
		refused bool // the 17th WebSocket
	}{
		{name: "trusted proxy", trust: "127.0.0.1/32"},
		{name: "forged by an untrusted client", trust: "10.0.0.0/8", refused: true},
		{name: "no proxy trusted", refused: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			trust, err := ParseTrustProxy(tt.trust)
			if err != nil {
				t.Fatal(err)
			}
			list, _ := presets.All()
			st, err := store.Open(t.TempDir(), storeT0)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			s, err := New(Deps{Presets: list, Assets: testAssets(t, false), Store: st, TrustProxy: trust})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(s.Close)
			ts := serve(t, s)
			id := createOver(t, strings.TrimPrefix(ts.URL, "http://"))
			url := "ws" + strings.TrimPrefix(ts.URL, "http") + "/ws/sessions/" + id
			n := access.MaxSocketsPerClient + 1
			for i := range n {
				h := http.Header{"X-Forwarded-For": {"198.51.100." + strconv.Itoa(i+1)}}
				c, resp, err := websocket.DefaultDialer.Dial(url, h)
				if i < n-1 || !tt.refused {
					if err != nil {
						t.Fatalf("WebSocket %d: %v", i+1, err)
					}
					t.Cleanup(func() { c.Close() })
					continue
				}
				if err == nil {
					c.Close()
					t.Fatalf("WebSocket %d of one machine with forged X-Forwarded-For: opened, want 429", i+1)
				}
				if resp == nil || resp.StatusCode != http.StatusTooManyRequests {
					t.Errorf("WebSocket %d: %v, want a 429", i+1, err)
				}
			}
		})
	}
}

// The client address X-Forwarded-For gives: the last entry that is not a
// trusted proxy; the peer's own address when the peer is not trusted; a
// 400 (want "") when a malformed entry comes before any client address,
// never the proxy's own address, which would charge the proxy with the
// request (its wrong tokens locked out everyone behind it).
func TestForwardedAddress(t *testing.T) {
	trust, _ := ParseTrustProxy("127.0.0.1, 10.0.0.0/8")
	s := &Server{trustProxy: trust}
	var got string
	h := s.forwarded(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) { got = access.ClientAddr(r) }))
	for _, tt := range []struct{ peer, xff, want string }{
		{"127.0.0.1:5000", "203.0.113.9", "203.0.113.9"},
		{"127.0.0.1:5000", "6.6.6.6, 203.0.113.9, 10.1.2.3", "203.0.113.9"}, // 6.6.6.6 is the client's to forge
		{"127.0.0.1:5000", "", "127.0.0.1"},
		{"127.0.0.1:5000", "not-an-address", ""},
		{"127.0.0.1:5000", "203.0.113.9, not-an-address, 10.1.2.3", ""},
		{"127.0.0.1:5000", "not-an-address, 203.0.113.9", "203.0.113.9"}, // left of the client: the client's to forge
		{"192.0.2.1:5000", "203.0.113.9", "192.0.2.1"},                   // not a proxy: ignored
		{"[::ffff:127.0.0.1]:5000", "2001:db8::1", "2001:db8::1"},
	} {
		r := httptest.NewRequest("GET", "/", nil)
		r.RemoteAddr = tt.peer
		if tt.xff != "" {
			r.Header.Set("X-Forwarded-For", tt.xff)
		}
		got = ""
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if tt.want == "" && w.Code != http.StatusBadRequest {
			t.Errorf("from %s with X-Forwarded-For %q: %d (client %q), want 400", tt.peer, tt.xff, w.Code, got)
		}
		if got != tt.want {
			t.Errorf("from %s with X-Forwarded-For %q: client %s, want %s", tt.peer, tt.xff, got, tt.want)
		}
	}
	if _, err := ParseTrustProxy("127.0.0.1/33"); err == nil || !strings.Contains(err.Error(), "-trust-proxy") {
		t.Errorf("ParseTrustProxy(127.0.0.1/33) = %v, want an error naming -trust-proxy", err)
	}
	if p, _ := ParseTrustProxy("127.0.0.1"); len(p) != 1 || p[0] != netip.MustParsePrefix("127.0.0.1/32") {
		t.Errorf("ParseTrustProxy(127.0.0.1) = %v, want [127.0.0.1/32]", p)
	}
}

// /healthz answers while the process runs; /readyz only while the
// database answers; /metrics counts the requests by route and status.
func TestOpsEndpoints(t *testing.T) {
	list, _ := presets.All()
	st, err := store.Open(t.TempDir(), storeT0)
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(Deps{Presets: list, Assets: testAssets(t, false), Store: st})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	ts := serve(t, s)
	for _, path := range []string{"/healthz", "/readyz"} {
		if resp := do(t, "GET", ts.URL+path, ""); resp.StatusCode != http.StatusOK {
			t.Errorf("GET %s = %d, want 200", path, resp.StatusCode)
		}
	}
	resp, err := http.Get(ts.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{`lab_http_requests_total{route="GET /healthz",status="200"}`, "lab_store_seconds_bucket", "lab_live_viewers"} {
		if !strings.Contains(string(body), want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	st.Close()
	if resp := do(t, "GET", ts.URL+"/readyz", ""); resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("GET /readyz with the database closed = %d, want 503", resp.StatusCode)
	}
	if resp := do(t, "GET", ts.URL+"/healthz", ""); resp.StatusCode != http.StatusOK {
		t.Errorf("GET /healthz with the database closed = %d, want 200: the process is up", resp.StatusCode)
	}
}
