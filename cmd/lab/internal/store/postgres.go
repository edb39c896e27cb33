package store

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
)

// IsPostgres tells whether a -db address names a PostgreSQL database
// (postgres:// or postgresql://) rather than a data directory.
func IsPostgres(addr string) bool {
	return strings.HasPrefix(addr, "postgres://") || strings.HasPrefix(addr, "postgresql://")
}

// OpenPostgres opens the PostgreSQL database at url (postgres://…), brings
// its schema up to date (under an advisory lock: replicas starting at once
// migrate one after the other, and each finds the schema done) and purges
// sessions deleted more than RestoreWindow before now. Any number of labs
// may share it: a save's revision check holds across them (Update takes
// the session's row lock), and the other state is rows.
func OpenPostgres(ctx context.Context, url string, now time.Time) (*DB, error) {
	return OpenPostgresConns(ctx, url, now, DefaultConns)
}

// OpenPostgresConns is OpenPostgres with a pool of at most conns
// connections, unless the address says (pool_max_conns=N): a worker
// running many units at once holds a connection for each.
func OpenPostgresConns(ctx context.Context, url string, now time.Time, conns int) (*DB, error) {
	pool, err := newPool(ctx, url, conns)
	if err != nil {
		return nil, err
	}
	st := &DB{db: sqlDB{DB: stdlib.OpenDBFromPool(pool), pg: true}, samples: newSamples(), Rand: rand.Reader, pool: pool}
	if err := st.prepare(now); err != nil {
		st.Close()
		return nil, fmt.Errorf("open store %s: %w", Redact(url), err)
	}
	return st, nil
}

// DefaultConns is how many connections a lab or a worker opens to
// PostgreSQL at most, unless the address says (pool_max_conns=N).
const DefaultConns = 16

// newPool connects to the PostgreSQL database at url: a pool of at most
// conns connections unless url says, checked with a ping.
func newPool(ctx context.Context, url string, conns int) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("open store: -db %s: %w", Redact(url), err)
	}
	if !strings.Contains(url, "pool_max_conns") {
		// Live sync and the queue each hold a connection or two for
		// good (LISTEN, presence, a running study's lock): pgx's default
		// of 4 would leave the store one.
		cfg.MaxConns = int32(max(conns, DefaultConns))
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", Redact(url), err)
	}
	pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := pool.Ping(pctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("open store %s: %w", Redact(url), err)
	}
	return pool, nil
}

// reachTimeout bounds Reach's one connection.
const reachTimeout = 5 * time.Second

// Reach opens one connection to the PostgreSQL database at url, and
// closes it: whether the database answers, before anything is opened on
// it (the wait of a lab or worker that starts before it).
func Reach(ctx context.Context, url string) error {
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		return fmt.Errorf("-db %s: %w", Redact(url), err)
	}
	ctx, cancel := context.WithTimeout(ctx, reachTimeout)
	defer cancel()
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return err
	}
	return conn.Close(ctx)
}

// Pool is the PostgreSQL connections of a DB opened by OpenPostgres (nil
// for SQLite): live sync listens on it, and the job queue runs on it.
func (st *DB) Pool() *pgxpool.Pool { return st.pool }

// Ping checks that the database answers (readiness).
func (st *DB) Ping(ctx context.Context) error { return st.db.PingContext(ctx) }

// Ready tells whether the database answers and its schema is this lab's.
func (st *DB) Ready(ctx context.Context) error {
	if err := st.Ping(ctx); err != nil {
		return fmt.Errorf("database unreachable: %w", err)
	}
	v, err := st.schemaVersion()
	if err != nil {
		return fmt.Errorf("read schema version: %w", err)
	}
	if v < latestVersion() {
		return fmt.Errorf("schema at step %d of %d: migrations not done", v, latestVersion())
	}
	return nil
}

// Redact returns a database address without its password, for messages.
func Redact(addr string) string {
	u, err := url.Parse(addr)
	if err != nil || u.User == nil {
		if err != nil {
			return "(an address that does not parse)"
		}
		return addr
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	return u.String()
}

// pgFull tells whether err is PostgreSQL's disk_full (SQLSTATE 53100).
func pgFull(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "53100"
}
