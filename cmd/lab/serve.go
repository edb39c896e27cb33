package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/netip"
	"os"
	"os/signal"
	"syscall"

	"interplab/cmd/lab/internal/access"
	"interplab/cmd/lab/internal/backend"
	"interplab/cmd/lab/internal/capture"
	"interplab/cmd/lab/internal/cli"
	"interplab/cmd/lab/internal/jobs"
	"interplab/cmd/lab/internal/server"
	"interplab/cmd/lab/internal/static"
	"interplab/presets"
	"interplab/web"
)

const serveUsage = `Usage: lab serve [-addr localhost:8080] [-data ./data | -db postgres://… [-db-wait 0]] [-token TOKEN] [-jobs 2] [-allow-host NAME]... [-allow-origin ORIGIN]... [-trust-proxy CIDR,…]

Serves the lab page, the presets, exports, saved sessions, comparison
charts and live sync.

Its data is a SQLite database in -data, or, for a team, the PostgreSQL
database -db (or LAB_DB) names: then any number of labs serve it at once
(behind a proxy), sharing live sync, and the studies run on a queue that
lab worker processes work. Started before the database (compose, systemd,
a reboot), it waits for it, retrying with backoff and logging each try,
its port answering /readyz 503 "waiting for the database" meanwhile;
-db-wait bounds the wait.

It listens on this machine only unless -addr says otherwise (:8080 is every
interface); then it needs an access token, -token or LAB_TOKEN (at least
16 characters; prefer LAB_TOKEN: a flag shows in ps): the API takes it as
Authorization: Bearer TOKEN, browsers sign in at /login.

It answers only to its own host names (a page of another site cannot reach
it through DNS rebinding): localhost and loopback addresses on its port and,
beyond loopback, the machine's addresses and host name; -allow-host (or
LAB_ALLOW_HOST, comma-separated) adds more, such as a proxy's name.

Flags:
`

// runServe implements lab serve: it serves the lab page, its assets and the
// JSON API until SIGINT or SIGTERM, then shuts down gracefully.
func runServe(args []string, stdout, stderr io.Writer) int {
	c := cli.New("serve", serveUsage, stdout, stderr)
	addr := c.Flags.String("addr", "localhost:8080", "listen on `address` (host:port; :8080 for every interface)")
	tokenFlag := c.TokenFlag("the access `token` everyone must give (default $LAB_TOKEN); required beyond loopback")
	data := c.Flags.String("data", "./data", "keep saved sessions in `dir` (created on first run), a SQLite database")
	db := c.DBFlag("keep them in the PostgreSQL database at `url` (postgres://user@host/db), shared with other labs and workers")
	dbWait := c.DBWaitFlag()
	var trust []netip.Prefix
	c.Flags.Func("trust-proxy", "take the client's address from X-Forwarded-For on requests from these reverse proxies (`CIDR`[,CIDR], e.g. 127.0.0.1/32)", func(arg string) error {
		list, err := server.ParseTrustProxy(arg)
		trust = append(trust, list...)
		return err
	})
	lf := c.LogFlags()
	slots := c.SlotsFlag(jobs.DefaultSlots, "sweeps, tunings and population runs", "")
	quota := c.Flags.Int64("capture-quota", 0, "let the open captures games stream hold at most `bytes` on disk (0: what the disk holds)")
	var allowHosts []string
	c.Flags.Func("allow-host", "also answer to host `name` (lab.example.com for any port, NAME:PORT for one; default $LAB_ALLOW_HOST); repeatable or comma-separated", func(arg string) error {
		list, err := access.ParseHosts(arg)
		allowHosts = append(allowHosts, list...)
		return err
	})
	var allow []string
	c.Flags.Func("allow-origin", "let pages of `origin` (https://tools.example.com) change state, besides the lab's own; repeatable or comma-separated", func(arg string) error {
		list, err := access.ParseOrigins(arg)
		allow = append(allow, list...)
		return err
	})
	if code, ok := c.Parse(args, 0); !ok {
		return code
	}
	token := tokenFlag()
	if err := access.CheckListen(*addr, token); err != nil {
		return c.Bad(err)
	}
	if env := os.Getenv("LAB_ALLOW_HOST"); env != "" && allowHosts == nil {
		list, err := access.ParseHosts(env)
		if err != nil {
			return c.Bad(fmt.Errorf("LAB_ALLOW_HOST: %w", err))
		}
		allowHosts = list
	}
	logger, err := lf.Logger(stderr)
	if err != nil {
		return c.Bad(err)
	}
	if err := backend.CheckLab(db()); err != nil {
		return c.Bad(err)
	}
	list, err := presets.All()
	if err != nil {
		return c.Fail(err)
	}
	deps := server.Deps{Presets: list, Assets: web.FS, AllowOrigins: allow, Token: token,
		Addr: *addr, AllowHosts: allowHosts, JobSlots: *slots, TrustProxy: trust, Capture: capture.Options{DiskQuota: *quota}}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return c.Fail(err)
	}
	defer ln.Close()
	relay := server.NewRelay(ln)
	var dbName string
	var closeDB func()
	if db() == "" {
		dbName, closeDB, err = backend.Lab(context.Background(), "", *data, logger, &deps)
	} else {
		dbName, closeDB, err = backend.WaitLab(ctx, relay, db(), *dbWait, logger, &deps)
	}
	if err != nil {
		return c.Fail(err)
	}
	defer closeDB()
	return serveLab(c, ctx, stdout, logger, deps, relay.View(), dbName)
}

// serveLab serves the lab made of deps on ln until ctx ends.
func serveLab(c *cli.Command, ctx context.Context, stdout io.Writer, logger *slog.Logger, deps server.Deps, ln net.Listener, dbName string) int {
	srv, err := server.New(deps)
	if err != nil {
		return c.Fail(err)
	}
	defer srv.Close() // the jobs and live sync stop before the store closes: deferred calls run last first
	fmt.Fprintf(stdout, "lab: serving on http://%s/\n", ln.Addr())
	logger.Info("serving", "addr", ln.Addr().String(), "db", dbName)
	if !srv.WasmBuilt() {
		c.Printf("warning: %s", static.NotBuilt)
	}
	if err := srv.Serve(ctx, ln); err != nil {
		return c.Fail(err)
	}
	fmt.Fprintln(stdout, "lab: stopped")
	return 0
}
