package store

import (
	"context"
	"database/sql"
	"strconv"
	"strings"
	"sync"

	"interplab/cmd/lab/internal/obs"
)

// The store's queries are written once, with ? placeholders and the
// functions SQLite has (instr, json_valid, json_type). PostgreSQL numbers
// its placeholders ($1, $2, …), so sqlDB and sqlTx rewrite each query once
// for it (rebind); its migration step 1 defines the three functions.

// sqlDB is a *sql.DB whose queries are written with ? placeholders.
type sqlDB struct {
	*sql.DB
	pg bool
}

// sqlTx is a *sql.Tx whose queries are written with ? placeholders.
type sqlTx struct {
	*sql.Tx
	pg bool
}

// Each statement's latency is recorded (obs.StoreSeconds): for a query,
// until its first row.
var (
	execSeconds  = obs.StoreSeconds.WithLabelValues("exec")
	querySeconds = obs.StoreSeconds.WithLabelValues("query")
)

func (d sqlDB) Exec(q string, args ...any) (sql.Result, error) {
	defer obs.Observe(execSeconds)()
	return d.DB.Exec(rebind(d.pg, q), args...)
}
func (d sqlDB) Query(q string, args ...any) (*sql.Rows, error) {
	defer obs.Observe(querySeconds)()
	return d.DB.Query(rebind(d.pg, q), args...)
}
func (d sqlDB) QueryRow(q string, args ...any) *sql.Row {
	defer obs.Observe(querySeconds)()
	return d.DB.QueryRow(rebind(d.pg, q), args...)
}

// Begin starts a transaction; see BeginTx.
func (d sqlDB) Begin() (sqlTx, error) { return d.BeginTx(context.Background(), nil) }

// BeginTx starts a transaction.
func (d sqlDB) BeginTx(ctx context.Context, opt *sql.TxOptions) (sqlTx, error) {
	tx, err := d.DB.BeginTx(ctx, opt)
	return sqlTx{tx, d.pg}, err
}

func (t sqlTx) Exec(q string, args ...any) (sql.Result, error) {
	defer obs.Observe(execSeconds)()
	return t.Tx.Exec(rebind(t.pg, q), args...)
}
func (t sqlTx) Query(q string, args ...any) (*sql.Rows, error) {
	defer obs.Observe(querySeconds)()
	return t.Tx.Query(rebind(t.pg, q), args...)
}
func (t sqlTx) QueryRow(q string, args ...any) *sql.Row {
	defer obs.Observe(querySeconds)()
	return t.Tx.QueryRow(rebind(t.pg, q), args...)
}

// lockSession takes session id's row lock until the transaction ends, so
// that no other save, on any replica, comes between the revision a save
// reads and the one it writes. SQLite needs none: its write transactions
// start with the database's write lock (_txlock=immediate).
func (t sqlTx) lockSession(id string) error {
	if !t.pg {
		return nil
	}
	_, err := t.Exec(`SELECT 1 FROM sessions WHERE id = ? FOR UPDATE`, id)
	return err
}

// rebound caches the PostgreSQL form of each query.
var rebound sync.Map // string → string

// rebind returns q with its ? placeholders numbered for PostgreSQL when pg
// is set, and q itself for SQLite. A ? inside a quoted literal is kept.
func rebind(pg bool, q string) string {
	if !pg || !strings.Contains(q, "?") {
		return q
	}
	if r, ok := rebound.Load(q); ok {
		return r.(string)
	}
	var b strings.Builder
	n, quoted := 0, false
	for i := 0; i < len(q); i++ {
		c := q[i]
		switch {
		case c == '\'':
			quoted = !quoted
		case c == '?' && !quoted:
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteByte(c)
	}
	r := b.String()
	rebound.Store(q, r)
	return r
}
