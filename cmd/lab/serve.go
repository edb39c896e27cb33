package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"interplab/cmd/lab/internal/access"
	"interplab/cmd/lab/internal/server"
	"interplab/cmd/lab/internal/static"
	"interplab/cmd/lab/internal/store"
	"interplab/presets"
	"interplab/web"
)

// runServe implements lab serve: it serves the lab page, its assets and the
// JSON API until SIGINT or SIGTERM, then shuts down gracefully.
func runServe(args []string, stdout, stderr io.Writer) int {
	fs := labFlags("serve", "Usage: lab serve [-addr localhost:8080] [-data ./data] [-token TOKEN] [-allow-origin ORIGIN]...\n\n"+
		"Serves the lab page, the presets, exports, saved sessions, comparison\ncharts and live sync.\n\n"+
		"It listens on this machine only unless -addr says otherwise (:8080 is every\n"+
		"interface); then it needs an access token, -token or LAB_TOKEN (at least\n"+
		"16 characters): the API takes it as Authorization: Bearer TOKEN, browsers\nsign in at /login.\n\nFlags:\n", stderr)
	addr := fs.String("addr", "localhost:8080", "listen on `address` (host:port; :8080 for every interface)")
	token := fs.String("token", "", "the access `token` everyone must give (default $LAB_TOKEN); required beyond loopback")
	data := fs.String("data", "./data", "keep saved sessions in `dir` (created on first run)")
	var allow []string
	fs.Func("allow-origin", "let pages of `origin` (https://tools.example.com) change state, besides the lab's own; repeatable or comma-separated", func(arg string) error {
		for _, o := range strings.Split(arg, ",") {
			u, err := url.Parse(strings.TrimSpace(o))
			if err != nil || u.Scheme != "http" && u.Scheme != "https" || u.Host == "" || u.Path != "" && u.Path != "/" || u.RawQuery != "" {
				return fmt.Errorf("%q is not an origin: want http(s)://host[:port]", o)
			}
			allow = append(allow, strings.ToLower(u.Scheme+"://"+u.Host)) // as browsers send it
		}
		return nil
	})
	if code, ok := parseLabFlags(fs, args, 0, stderr); !ok {
		return code
	}
	if *token == "" {
		*token = os.Getenv("LAB_TOKEN")
	}
	if *token != "" && len(*token) < access.MinTokenLen {
		fmt.Fprintf(stderr, "lab serve: the access token is %d characters: use at least %d (e.g. openssl rand -hex 16)\n", len(*token), access.MinTokenLen)
		return 2
	}
	if host, _, err := net.SplitHostPort(*addr); err == nil && *token == "" && !loopbackOnly(host) {
		fmt.Fprintf(stderr, "lab serve: -addr %s listens beyond this machine: anyone who can reach it could read and change every session.\n"+
			"Set an access token (-token or LAB_TOKEN, at least %d characters, e.g. openssl rand -hex 16), or listen on localhost:PORT.\n",
			*addr, access.MinTokenLen)
		return 2
	}
	list, err := presets.All()
	if err != nil {
		fmt.Fprintf(stderr, "lab serve: %v\n", err)
		return 1
	}
	lock, err := store.Lock(*data, time.Now())
	if err != nil {
		fmt.Fprintf(stderr, "lab serve: %v\n", err)
		return 1
	}
	defer lock.Unlock()
	st, err := store.Open(*data, time.Now())
	if err != nil {
		fmt.Fprintf(stderr, "lab serve: %v\n", err)
		return 1
	}
	defer st.Close()
	srv, err := server.New(server.Deps{Presets: list, Assets: web.FS, Store: st, AllowOrigins: allow, Token: *token})
	if err != nil {
		fmt.Fprintf(stderr, "lab serve: %v\n", err)
		return 1
	}
	defer srv.Close() // the jobs and live sync stop before the store closes: deferred calls run last first
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintf(stderr, "lab serve: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "lab: serving on http://%s/\n", ln.Addr())
	if !srv.WasmBuilt() {
		fmt.Fprintf(stderr, "lab serve: warning: %s\n", static.NotBuilt)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := srv.Serve(ctx, ln); err != nil {
		fmt.Fprintf(stderr, "lab serve: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "lab: stopped\n")
	return 0
}

// loopbackOnly tells whether listening on host means this machine's
// loopback interface only: localhost, 127.0.0.0/8, ::1, or a name that
// resolves to nothing else. An empty host is every interface.
func loopbackOnly(host string) bool {
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
