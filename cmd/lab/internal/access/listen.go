package access

import (
	"fmt"
	"net"
	"net/url"
	"strings"
)

// CheckListen checks that serving on addr with token keeps the lab to the
// people it is for: a token, if given, of at least MinTokenLen characters,
// and no token only when addr is this machine's loopback interface.
func CheckListen(addr, token string) error {
	if token != "" && len(token) < MinTokenLen {
		return fmt.Errorf("the access token is %d characters: use at least %d (e.g. openssl rand -hex 16)", len(token), MinTokenLen)
	}
	if host, _, err := net.SplitHostPort(addr); err == nil && token == "" && !LoopbackOnly(host) {
		return fmt.Errorf("-addr %s listens beyond this machine: anyone who can reach it could read and change every session.\n"+
			"Set an access token (-token or LAB_TOKEN, at least %d characters, e.g. openssl rand -hex 16), or listen on localhost:PORT",
			addr, MinTokenLen)
	}
	return nil
}

// LoopbackOnly tells whether listening on host means this machine's
// loopback interface only: localhost, 127.0.0.0/8, ::1, or a name that
// resolves to nothing else. An empty host is every interface.
func LoopbackOnly(host string) bool {
	if host == "" {
		return false
	}
	if host == "localhost" {
		return true
	}
	if ip := net.ParseIP(host); ip != nil {
		return ip.IsLoopback()
	}
	ips, err := net.LookupIP(host)
	if err != nil || len(ips) == 0 {
		return false
	}
	for _, ip := range ips {
		if !ip.IsLoopback() {
			return false
		}
	}
	return true
}

// ParseOrigins parses a comma-separated list of origins
// (https://tools.example.com), as browsers send them in an Origin header.
func ParseOrigins(arg string) ([]string, error) {
	var list []string
	for _, o := range strings.Split(arg, ",") {
		u, err := url.Parse(strings.TrimSpace(o))
		if err != nil || u.Scheme != "http" && u.Scheme != "https" || u.Host == "" || u.Path != "" && u.Path != "/" || u.RawQuery != "" {
			return nil, fmt.Errorf("%q is not an origin: want http(s)://host[:port]", o)
		}
		list = append(list, strings.ToLower(u.Scheme+"://"+u.Host))
	}
	return list, nil
}
