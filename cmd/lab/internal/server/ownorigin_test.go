package server

import (
	"bytes"
	"encoding/json"
	"mime/multipart"
	"net/http"
	"os"
	"testing"

	"interplab/cmd/lab/internal/access"
)

// Beyond loopback the lab's origin is the exact scheme, host and port it
// is reached on: a page on another port of the lab's machine, or on any
// other address, may not change state nor open the live sync, with the
// token as a bearer or with a browser's sign-in (a browser sends the
// SameSite=Strict cookie to every port of the host), on every kind of
// write a browser can send without a preflight. (The finding: the
// Origin was checked with the Host rule, which beyond loopback accepts
// every IP address and the machine's names on any port.)
func TestOtherPortOfTheLabsMachineIsAnotherOrigin(t *testing.T) {
	base := hostsServer(t, ":8080", []string{"lab.studio.example", "tunnel.example:9000"}, true)
	port := portOf(t, base)
	const labIP = "198.51.100.7" // the lab's address as its users reach it (a header only: no traffic goes there)
	host := labIP + ":" + port
	own := "http://" + host
	cookie := access.Cookie + "=" + signIn(t, base, testToken)
	bearer := []string{"Authorization", "Bearer " + testToken}
	foreign := []string{"http://" + labIP + ":9999", "http://" + labIP, "https://" + host, "http://10.9.9.9", "http://10.9.9.9:" + port,
		"http://lab.studio.example:" + port, "https://tunnel.example"}
	if name, err := os.Hostname(); err == nil && name != "" {
		foreign = append(foreign, "http://"+name+":9999")
	}

	// A session the live sync and the writes work on.
	status, _, body := hostDo(t, "POST", base, "/api/sessions", host, own, `{"name":"kept"}`, bearer...)
	if status != http.StatusCreated {
		t.Fatalf("POST /api/sessions from the lab's own origin %s = %d %.200s, want 201", own, status, body)
	}
	var created struct{ ID string }
	if err := json.Unmarshal([]byte(body), &created); err != nil || created.ID == "" {
		t.Fatalf("created session %.200s: %v", body, err)
	}
	id := created.ID

	var form bytes.Buffer
	mw := multipart.NewWriter(&form)
	fw, _ := mw.CreateFormFile("file", "t.csv")
	fw.Write([]byte("t,entity,x,y,z\n0,1,0,0,0\n"))
	mw.Close()
	writes := []struct {
		method, path, ctype, body string
	}{
		{"POST", "/api/sessions", "application/json", `{"name":"planted"}`},
		{"POST", "/api/traces?name=planted", mw.FormDataContentType(), form.String()},
		{"POST", "/api/traces?name=planted", "text/plain", "t,entity,x,y,z\n0,1,0,0,0\n"},
		{"POST", "/api/sessions/" + id + "/restore", "", ""},
		{"POST", "/api/jobs/nope/cancel", "", ""},
		{"POST", "/logout", "", ""},
	}
	for _, origin := range foreign {
		for _, cred := range [][]string{bearer, {"Cookie", cookie}} {
			for _, wr := range writes {
				extra := append([]string{"Content-Type", wr.ctype}, cred...)
				if wr.ctype == "" {
					extra = cred
				}
				if status, _, body := hostDo(t, wr.method, base, wr.path, host, origin, wr.body, extra...); status != http.StatusForbidden {
					t.Errorf("%s %s (%s) from %s with %s = %d %.100s, want 403", wr.method, wr.path, wr.ctype, origin, cred[0], status, body)
				}
			}
			if status := wsDial(t, base, "/ws/sessions/"+id, host, origin, cred...); status != http.StatusForbidden {
				t.Errorf("live sync from %s with %s = %d, want 403", origin, cred[0], status)
			}
		}
	}

	// The lab's own origin, and a proxy's name of -allow-host (on its
	// scheme's default port, or the port it was given with), may.
	for _, origin := range []string{own, "https://lab.studio.example", "http://lab.studio.example", "http://tunnel.example:9000"} {
		for _, cred := range [][]string{bearer, {"Cookie", cookie}} {
			if status, _, body := hostDo(t, "POST", base, "/api/sessions", host, origin, `{"name":"mine"}`, cred...); status != http.StatusCreated {
				t.Errorf("POST /api/sessions from %s with %s = %d %.100s, want 201", origin, cred[0], status, body)
			}
			if status := wsDial(t, base, "/ws/sessions/"+id, host, origin, cred...); status != http.StatusSwitchingProtocols {
				t.Errorf("live sync from %s with %s = %d, want 101", origin, cred[0], status)
			}
		}
	}
}

// On loopback, another port of localhost is another origin too.
func TestOtherLoopbackPortIsAnotherOrigin(t *testing.T) {
	base := hostsServer(t, "localhost:8080", nil, false)
	port := portOf(t, base)
	for _, origin := range []string{"http://localhost:9999", "http://127.0.0.1:9999", "https://localhost:" + port, "http://127.0.0.2:9999"} {
		if status, _, body := hostDo(t, "POST", base, "/api/sessions", "localhost:"+port, origin, `{"name":"x"}`); status != http.StatusForbidden {
			t.Errorf("POST /api/sessions from %s = %d %.100s, want 403", origin, status, body)
		}
	}
	for _, origin := range []string{"http://localhost:" + port, "http://127.0.0.1:" + port, "http://[::1]:" + port} {
		if status, _, body := hostDo(t, "POST", base, "/api/sessions", "localhost:"+port, origin, `{"name":"x"}`); status != http.StatusCreated {
			t.Errorf("POST /api/sessions from %s = %d %.100s, want 201", origin, status, body)
		}
	}
}
