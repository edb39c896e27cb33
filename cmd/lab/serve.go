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
	"strconv"
	"syscall"
	"time"

	"interplab/cmd/lab/internal/access"
	"interplab/cmd/lab/internal/cli"
	"interplab/cmd/lab/internal/jobs"
	"interplab/cmd/lab/internal/live"
	"interplab/cmd/lab/internal/obs"
	"interplab/cmd/lab/internal/server"
	"interplab/cmd/lab/internal/static"
	"interplab/cmd/lab/internal/store"
	"interplab/presets"
	"interplab/web"
)

const serveUsage = `Usage: lab serve [-addr localhost:8080] [-data ./data | -db postgres://…] [-token TOKEN] [-jobs 2] [-allow-host NAME]... [-allow-origin ORIGIN]... [-trust-proxy CIDR,…]

Serves the lab page, the presets, exports, saved sessions, comparison
charts and live sync.

Its data is a SQLite database in -data, or, for a team, the PostgreSQL
database -db (or LAB_DB) names: then any number of labs serve it at once
(behind a proxy), sharing live sync, and the studies run on a queue that
lab worker processes work.

It listens on this machine only unless -addr says otherwise (:8080 is every
interface); then it needs an access token, -token or LAB_TOKEN (at least
16 characters): the API takes it as Authorization: Bearer TOKEN, browsers
sign in at /login.

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
	token := c.Flags.String("token", "", "the access `token` everyone must give (default $LAB_TOKEN); required beyond loopback")
	data := c.Flags.String("data", "./data", "keep saved sessions in `dir` (created on first run), a SQLite database")
	db := c.Flags.String("db", "", "keep them in the PostgreSQL database at `url` (postgres://user@host/db; default $LAB_DB), shared with other labs and workers")
	var trust []netip.Prefix
	c.Flags.Func("trust-proxy", "take the client's address from X-Forwarded-For on requests from these reverse proxies (`CIDR`[,CIDR], e.g. 127.0.0.1/32)", func(arg string) error {
		list, err := server.ParseTrustProxy(arg)
		trust = append(trust, list...)
		return err
	})
	logFormat := c.Flags.String("log-format", "text", "log lines as `format`: text (key=value) or json")
	logLevel := c.Flags.String("log-level", "info", "log from `level` up: debug, info, warn or error")
	slots := jobs.DefaultSlots
	c.Flags.Func("jobs", fmt.Sprintf("run at most `n` sweeps, tunings and population runs at once, in [%d, %d] (default %d)", jobs.MinSlots, jobs.MaxSlots, jobs.DefaultSlots), func(arg string) error {
		n, err := strconv.Atoi(arg)
		if err != nil {
			return fmt.Errorf("%q is not a number: want how many jobs run at once, in [%d, %d]", arg, jobs.MinSlots, jobs.MaxSlots)
		}
		slots = n
		return jobs.CheckSlots(n)
	})
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
	if *token == "" {
		*token = os.Getenv("LAB_TOKEN")
	}
	if err := access.CheckListen(*addr, *token); err != nil {
		return c.Bad(err)
	}
	if env := os.Getenv("LAB_ALLOW_HOST"); env != "" && allowHosts == nil {
		list, err := access.ParseHosts(env)
		if err != nil {
			return c.Bad(fmt.Errorf("LAB_ALLOW_HOST: %w", err))
		}
		allowHosts = list
	}
	logger, err := obs.Logger(stderr, *logFormat, *logLevel)
	if err != nil {
		return c.Bad(err)
	}
	if *db == "" {
		*db = os.Getenv("LAB_DB")
	}
	list, err := presets.All()
	if err != nil {
		return c.Fail(err)
	}
	deps := server.Deps{Presets: list, Assets: web.FS, AllowOrigins: allow, Token: *token,
		Addr: *addr, AllowHosts: allowHosts, JobSlots: slots, TrustProxy: trust}
	if *db != "" {
		if !store.IsPostgres(*db) {
			return c.Bad(fmt.Errorf("-db %q is not allowed: want a PostgreSQL address, postgres://user@host:5432/db (a SQLite database is -data DIR)", store.Redact(*db)))
		}
		team, err := openTeam(context.Background(), *db, logger)
		if err != nil {
			return c.Fail(err)
		}
		defer team.Close()
		deps.Store, deps.Bus, deps.Queue = team.store, team.bus, team.queue
	} else {
		lock, err := store.Lock(*data, time.Now())
		if err != nil {
			return c.Fail(err)
		}
		defer lock.Unlock()
		st, err := store.Open(*data, time.Now())
		if err != nil {
			return c.Fail(err)
		}
		defer st.Close()
		deps.Store = st
	}
	srv, err := server.New(deps)
	if err != nil {
		return c.Fail(err)
	}
	defer srv.Close() // the jobs and live sync stop before the store closes: deferred calls run last first
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return c.Fail(err)
	}
	fmt.Fprintf(stdout, "lab: serving on http://%s/\n", ln.Addr())
	logger.Info("serving", "addr", ln.Addr().String(), "db", dbName(*db, *data))
	if !srv.WasmBuilt() {
		c.Printf("warning: %s", static.NotBuilt)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := srv.Serve(ctx, ln); err != nil {
		return c.Fail(err)
	}
	fmt.Fprintln(stdout, "lab: stopped")
	return 0
}

// dbName says which database a lab serves, without a password.
func dbName(db, data string) string {
	if db != "" {
		return store.Redact(db)
	}
	return store.Path(data)
}

// team is what a lab on PostgreSQL is made of besides the server: the
// store, live sync's bus and the job queue, on one database.
type team struct {
	store *store.DB
	bus   *live.PGBus
	queue *jobs.Queue
}

// openTeam opens the PostgreSQL database at url for a lab: the store
// (migrating its schema, under an advisory lock), the queue's tables, the
// bus and the queue.
func openTeam(ctx context.Context, url string, logger *slog.Logger) (*team, error) {
	st, err := store.OpenPostgres(ctx, url, time.Now())
	if err != nil {
		return nil, err
	}
	if err := jobs.MigrateQueue(ctx, st.Pool()); err != nil {
		st.Close()
		return nil, err
	}
	bus, err := live.NewPGBus(st.Pool())
	if err != nil {
		st.Close()
		return nil, err
	}
	q, err := jobs.NewQueue(st.Pool())
	if err != nil {
		bus.Close()
		st.Close()
		return nil, err
	}
	obs.QueueDepth(func() float64 {
		n, err := q.Depth(context.Background())
		if err != nil {
			logger.Warn("read the queue's depth", "err", err)
		}
		return float64(n)
	})
	return &team{store: st, bus: bus, queue: q}, nil
}

// Close closes the queue, the bus and the store.
func (t *team) Close() {
	t.queue.Close()
	t.bus.Close()
	t.store.Close()
}
