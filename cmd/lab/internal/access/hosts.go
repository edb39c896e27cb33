package access

import (
	"context"
	"fmt"
	"html"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"

	"interplab/cmd/lab/internal/jsonapi"
)

// Hosts are the names a lab answers to, as a request's Host (the Origins
// take its -allow-host names as a proxy's): its defence against DNS
// rebinding, where a page of a domain that an attacker points at
// 127.0.0.1 talks to the lab under the attacker's name (and so as its own
// origin).
//
// Every lab answers to loopback (localhost, any 127.0.0.0/8 address, ::1)
// on its own port, the port the request came in on. A lab that listens
// beyond loopback also answers to every IP address (a page cannot rebind
// an address, only a name) and to the machine's host name, on any port
// (a proxy's or a forwarded one); it has a token that gates the rest. Any
// other name must be given (-allow-host): NAME for any port, NAME:PORT for
// that one.
type Hosts struct {
	beyond bool              // the lab listens beyond loopback
	names  map[string]string // lower-case name without a trailing dot → its port, "" for any
	allow  map[string]string // the names of -allow-host among them (Origins)
}

// NewHosts returns the names of a lab listening on addr (lab serve -addr;
// "" for loopback) with the more names allow, as ParseHosts returns them.
func NewHosts(addr string, allow []string) (*Hosts, error) {
	h := &Hosts{names: map[string]string{}, allow: map[string]string{}}
	if addr != "" {
		host, _, err := net.SplitHostPort(addr)
		if err != nil {
			return nil, fmt.Errorf("listen address %q: %w", addr, err)
		}
		h.beyond = !LoopbackOnly(host)
		if h.beyond {
			if host != "" && net.ParseIP(host) == nil {
				h.names[canonHost(host)] = ""
			}
			if name, err := os.Hostname(); err == nil && name != "" {
				h.names[canonHost(name)] = ""
				if short, _, ok := strings.Cut(name, "."); ok {
					h.names[canonHost(short)] = ""
				}
			}
		}
	}
	for _, a := range allow {
		name, port, err := splitHost(a)
		if err != nil {
			return nil, err
		}
		h.names[name] = port
		h.allow[name] = port
	}
	return h, nil
}

// ParseHosts parses a comma-separated list of host names, each NAME or
// NAME:PORT (an address is fine too: 192.168.1.20, [fd00::1]:8080).
func ParseHosts(arg string) ([]string, error) {
	var list []string
	for a := range strings.SplitSeq(arg, ",") {
		a = strings.TrimSpace(a)
		name, port, err := splitHost(a)
		if err != nil {
			return nil, err
		}
		if strings.Contains(name, ":") {
			name = "[" + name + "]"
		}
		if port != "" {
			name += ":" + port
		}
		list = append(list, name)
	}
	return list, nil
}

// splitHost splits a host name and an optional port, checked, the name in
// lower case without a trailing dot and an IPv6 address without brackets.
func splitHost(a string) (name, port string, err error) {
	bad := func(why string) (string, string, error) {
		return "", "", fmt.Errorf("%q is not a host name: %s; want NAME or NAME:PORT (lab.example.com, 192.168.1.20:8080)", a, why)
	}
	name = a
	if h, p, err := net.SplitHostPort(a); err == nil {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 || p != strconv.Itoa(n) {
			return bad("the port is not in [1, 65535]")
		}
		name, port = h, p
	} else if strings.HasPrefix(a, "[") && strings.HasSuffix(a, "]") {
		name = a[1 : len(a)-1]
	}
	name = canonHost(name)
	if ip := net.ParseIP(name); ip != nil {
		return ip.String(), port, nil
	}
	if name == "" || len(name) > 253 {
		return bad("no name")
	}
	for label := range strings.SplitSeq(name, ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return bad("a label is empty, too long or starts or ends with '-'")
		}
		for _, c := range label {
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
				return bad(fmt.Sprintf("%q is not a letter, digit or '-'", c))
			}
		}
	}
	return name, port, nil
}

// canonHost is a host name as the Hosts compare it: lower case, without
// the trailing dot of a fully qualified name.
func canonHost(name string) string {
	return strings.TrimSuffix(strings.ToLower(name), ".")
}

// localPort is the port r came in on; 0 when unknown (a request not from
// a connection).
func localPort(r *http.Request) int {
	if a, ok := r.Context().Value(http.LocalAddrContextKey).(*net.TCPAddr); ok {
		return a.Port
	}
	return 0
}

// Serves tells whether hostport, a Host header or an origin's host (with
// defaultPort when it has none: 80 for http, 443 for https), names this
// lab when the request came in on port local (0: unknown).
func (h *Hosts) Serves(hostport, defaultPort string, local int) bool {
	name, port := hostport, defaultPort
	if n, p, err := net.SplitHostPort(hostport); err == nil {
		name, port = n, p
	} else if strings.HasPrefix(name, "[") && strings.HasSuffix(name, "]") {
		name = name[1 : len(name)-1]
	}
	name = canonHost(name)
	if p, ok := h.names[name]; ok && (p == "" || p == port) {
		return true
	}
	ip := net.ParseIP(name)
	if name == "localhost" || ip != nil && ip.IsLoopback() {
		return local == 0 || port == strconv.Itoa(local)
	}
	return h.beyond && ip != nil
}

// Check answers a request whose Host is not one of the lab's names with a
// 421 Misdirected Request (a short page for a browser asking for one, the
// API's JSON error otherwise) before any handler runs.
func (h *Hosts) Check(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if h.Serves(r.Host, defaultPort(r), localPort(r)) {
			next.ServeHTTP(w, r)
			return
		}
		msg := fmt.Sprintf("this lab does not answer to the host name %q (a page of another site may be trying to reach it): "+
			"open the lab by its own address (localhost on this machine), or have whoever runs it name this host with lab serve -allow-host",
			jsonapi.Clip(r.Host, 100))
		w.Header().Set("Connection", "close")
		if wantsPage(r) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Header().Set("Cache-Control", "no-store")
			w.WriteHeader(http.StatusMisdirectedRequest)
			fmt.Fprintf(w, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Wrong host · Interp Lab</title></head>\n"+
				"<body><h1>Wrong host</h1><p>%s</p></body></html>\n", html.EscapeString(msg))
			return
		}
		jsonapi.WriteError(w, &jsonapi.Error{Status: http.StatusMisdirectedRequest, Field: "Host", Msg: msg})
	})
}

// defaultPort is the port of a Host header without one.
func defaultPort(r *http.Request) string {
	if r.TLS != nil {
		return "443"
	}
	return "80"
}

// Origins decide which pages may change state: the lab's own origin, the
// exact scheme, host and port it is reached on, and the origins allowed
// besides (-allow-origin). The Host check has run, so the request's Host
// is one of the lab's names; its origin is the lab's, and no other origin
// of the same machine is: a page served on another port of the lab's
// machine is another site, though a browser sends it the lab's
// SameSite=Strict cookie (cookies ignore ports). A name given with
// -allow-host is the lab's origin too, a proxy's that may rewrite the Host:
// NAME on its scheme's default port (http://NAME, https://NAME), NAME:PORT
// on that port. And a page of the lab reached on loopback under another of
// loopback's names (localhost, 127.0.0.1, [::1]) on the same port, the port
// the request came in on, is its own. The Host check runs first (Check),
// and SameOrigin checks the Host again, for its own sake.
type Origins struct {
	hosts *Hosts
	allow []string // as ParseOrigins returns them
}

// NewOrigins returns the lab's own origins, by hosts, and allow.
func NewOrigins(hosts *Hosts, allow []string) *Origins {
	return &Origins{hosts: hosts, allow: allow}
}

// SameOrigin refuses, with a 403, a request a browser sent from a page
// that is not the lab's nor allowed, whatever it carries (a bearer token,
// a sign-in's cookie, or nothing). A request without Origin passes unless
// its Sec-Fetch-Site says another site, or another origin of the same
// site, sent it: games and command-line clients send neither.
func (o *Origins) SameOrigin(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !o.allowed(r) {
			jsonapi.WriteError(w, &jsonapi.Error{Status: http.StatusForbidden, Field: "Origin",
				Msg: "cross-origin request refused: only the lab's own pages (or an origin of lab serve -allow-origin) may change it"})
			return
		}
		next.ServeHTTP(w, r)
	})
}

func (o *Origins) allowed(r *http.Request) bool {
	origin := r.Header.Get("Origin")
	if origin == "" {
		switch r.Header.Get("Sec-Fetch-Site") {
		case "", "same-origin", "none":
			return true
		}
		return false
	}
	origin = strings.ToLower(origin)
	if slices.Contains(o.allow, origin) {
		return true
	}
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" || u.Path != "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return false
	}
	var oport string
	switch u.Scheme {
	case "http":
		oport = "80"
	case "https":
		oport = "443"
	default:
		return false
	}
	oname, oport := splitHostPort(u.Host, oport)
	if oname == "" {
		return false
	}
	// The lab as the request reached it: its scheme, its Host.
	scheme := Scheme(r)
	hname, hport := splitHostPort(r.Host, defaultPortOf(scheme))
	local := localPort(r)
	if u.Scheme == scheme && oname == hname && oport == hport && o.hosts.Serves(r.Host, defaultPortOf(scheme), local) {
		return true
	}
	// A proxy's name.
	if p, ok := o.hosts.allow[oname]; ok && (p == oport || p == "" && oport == defaultPortOf(u.Scheme)) {
		return true
	}
	// Loopback under another of its names, on the port the request came in on.
	return u.Scheme == scheme && loopbackName(hname) && loopbackName(oname) && oport == hport && (local == 0 || hport == strconv.Itoa(local))
}

// splitHostPort splits hostport, a Host or an origin's host, into its
// name as the Hosts compare it (an IP address in its canonical form) and
// its port, defaultPort when it has none; the name is "" when hostport is
// malformed.
func splitHostPort(hostport, defaultPort string) (name, port string) {
	name, port = hostport, defaultPort
	if n, p, err := net.SplitHostPort(hostport); err == nil {
		if p == "" {
			return "", ""
		}
		name, port = n, p
	} else if strings.HasPrefix(name, "[") && strings.HasSuffix(name, "]") {
		name = name[1 : len(name)-1]
	} else if strings.Contains(name, ":") {
		return "", ""
	}
	name = canonHost(name)
	if ip, err := netip.ParseAddr(name); err == nil {
		name = ip.Unmap().String()
	}
	return name, port
}

// loopbackName tells whether name, as splitHostPort returns it, is one of
// loopback's.
func loopbackName(name string) bool {
	ip := net.ParseIP(name)
	return name == "localhost" || ip != nil && ip.IsLoopback()
}

// Scheme is the scheme r's client reached the lab on: "https" over TLS,
// or when a trusted proxy says so (X-Forwarded-Proto: https, see
// ForwardedTLS); "http" otherwise.
func Scheme(r *http.Request) string {
	if r.TLS != nil || r.Context().Value(forwardedTLSKey{}) != nil {
		return "https"
	}
	return "http"
}

// forwardedTLSKey marks, in a request's context, that a trusted proxy
// received it over TLS.
type forwardedTLSKey struct{}

// ForwardedTLS returns r marked as received over TLS by a trusted proxy
// (which says so with X-Forwarded-Proto: https): its Scheme is "https",
// and the cookies the lab gives it are Secure. Only the code that knows the
// proxy is trusted calls it.
func ForwardedTLS(r *http.Request) *http.Request {
	return r.WithContext(context.WithValue(r.Context(), forwardedTLSKey{}, true))
}

// defaultPortOf is the port of a URL of scheme without one.
func defaultPortOf(scheme string) string {
	if scheme == "https" {
		return "443"
	}
	return "80"
}
