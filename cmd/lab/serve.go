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

	"interplab/cmd/lab/internal/server"
	"interplab/cmd/lab/internal/static"
	"interplab/cmd/lab/internal/store"
	"interplab/presets"
	"interplab/web"
)

// runServe implements lab serve: it serves the lab page, its assets and the
// JSON API until SIGINT or SIGTERM, then shuts down gracefully.
func runServe(args []string, stdout, stderr io.Writer) int {
	fs := labFlags("serve", "Usage: lab serve [-addr :8080] [-data ./data] [-allow-origin ORIGIN]...\n\nServes the lab page, the presets, exports, saved sessions, comparison\ncharts and live sync.\n\nFlags:\n", stderr)
	addr := fs.String("addr", ":8080", "listen on `address` (host:port)")
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
	list, err := presets.All()
	if err != nil {
		fmt.Fprintf(stderr, "lab serve: %v\n", err)
		return 1
	}
	st, err := store.Open(*data, time.Now())
	if err != nil {
		fmt.Fprintf(stderr, "lab serve: %v\n", err)
		return 1
	}
	defer st.Close()
	srv, err := server.New(server.Deps{Presets: list, Assets: web.FS, Store: st, AllowOrigins: allow})
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
