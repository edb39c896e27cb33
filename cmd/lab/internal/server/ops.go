package server

import (
	"context"
	"fmt"
	"log"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"time"

	"interplab/cmd/lab/internal/access"
	"interplab/cmd/lab/internal/jsonapi"
	"interplab/cmd/lab/internal/store"
)

// healthz is GET /healthz: the process is up and serving.
func (s *Server) healthz(w http.ResponseWriter, _ *http.Request) {
	jsonapi.WriteJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

// readyTimeout bounds readyz's look at the database.
const readyTimeout = 3 * time.Second

// readyz is GET /readyz: the lab can serve, its database reachable and
// its schema migrated; 503 naming what is wrong otherwise (an unreachable
// database in words, its detail logged), so a proxy sends requests
// elsewhere. While the lab starts, Starting answers it.
func (s *Server) readyz(w http.ResponseWriter, r *http.Request) {
	ready, ok := s.store.(interface{ Ready(context.Context) error })
	if ok {
		ctx, cancel := context.WithTimeout(r.Context(), readyTimeout)
		defer cancel()
		if err := ready.Ready(ctx); err != nil {
			msg := err.Error()
			if store.Unreachable(err) {
				// The detail names the database's address: the log's only.
				log.Printf("lab: ready: %v", err)
				msg = store.ErrUnreachable.Error()
			}
			jsonapi.WriteJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "not ready", "error": msg})
			return
		}
	}
	jsonapi.WriteJSON(w, http.StatusOK, map[string]string{"status": "ready"})
}

// ParseTrustProxy reads lab serve -trust-proxy: addresses or CIDR
// prefixes (127.0.0.1/32, 10.0.0.0/8, ::1), comma-separated.
func ParseTrustProxy(arg string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, f := range strings.Split(arg, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		p, err := netip.ParsePrefix(f)
		if err != nil {
			a, aerr := netip.ParseAddr(f)
			if aerr != nil {
				return nil, fmt.Errorf("-trust-proxy: %q is not allowed: want a proxy's address or CIDR prefix (127.0.0.1/32, 10.0.0.0/8)", f)
			}
			p = netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen())
		}
		out = append(out, p.Masked())
	}
	return out, nil
}

// trusted tells whether a is one of the trusted proxies.
func (s *Server) trusted(a netip.Addr) bool {
	a = a.Unmap()
	for _, p := range s.trustProxy {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// forwarded makes the client address of a request that comes from a
// trusted proxy the one its X-Forwarded-For names: the last address in
// it that is not itself a trusted proxy (each proxy appends the address
// it got the request from, so the entries left of the last untrusted one
// are the client's to forge). A malformed entry met before that address
// is a 400: charged to the proxy, its wrong tokens would lock out
// everyone behind it. A trusted proxy's X-Forwarded-Proto: https marks the
// request as received over TLS (access.ForwardedTLS: the cookies the lab
// gives are Secure). A request from anywhere else keeps its connection's
// address and scheme, whatever it claims.
func (s *Server) forwarded(next http.Handler) http.Handler {
	if len(s.trustProxy) == 0 {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host, port, err := net.SplitHostPort(r.RemoteAddr)
		peer, perr := netip.ParseAddr(host)
		if err != nil || perr != nil || !s.trusted(peer) {
			next.ServeHTTP(w, r)
			return
		}
		if protos := r.Header.Values("X-Forwarded-Proto"); len(protos) > 0 {
			list := strings.Split(strings.Join(protos, ","), ",")
			if strings.EqualFold(strings.TrimSpace(list[len(list)-1]), "https") {
				r = access.ForwardedTLS(r)
			}
		}
		xff := r.Header.Values("X-Forwarded-For")
		if len(xff) == 0 {
			next.ServeHTTP(w, r)
			return
		}
		hops := strings.Split(strings.Join(xff, ","), ",")
		client := netip.Addr{}
		for i := len(hops) - 1; i >= 0; i-- {
			a, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
			if err != nil {
				client = netip.Addr{} // nothing left of it can be trusted, nor is the proxy the client
				break
			}
			client = a.Unmap()
			if !s.trusted(client) {
				break
			}
		}
		if !client.IsValid() {
			jsonapi.WriteError(w, &jsonapi.Error{Status: http.StatusBadRequest, Field: "X-Forwarded-For",
				Msg: fmt.Sprintf("the proxy's X-Forwarded-For %q names no client address: want addresses, comma-separated", jsonapi.Clip(strings.Join(xff, ","), 100))})
			return
		}
		r2 := r.Clone(r.Context())
		r2.RemoteAddr = net.JoinHostPort(client.String(), port)
		next.ServeHTTP(w, r2)
	})
}
