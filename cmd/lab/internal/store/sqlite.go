package store

import (
	"bytes"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"interplab/engine"

	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver
)

// DB is the Store in a SQL database: by default an embedded SQLite
// database, the file lab.db in the data directory (Open: no server to
// run, and a save acknowledged is on disk), or for a team a PostgreSQL
// database that any number of labs share (OpenPostgres). Both run the same
// queries (sqldb.go) on the same schema steps (migrate.go). Purge removes
// sessions deleted more than RestoreWindow ago for good. A DB is safe for
// concurrent use.
type DB struct {
	db      sqlDB
	samples samples

	pool *pgxpool.Pool // PostgreSQL's connections; nil for SQLite

	// Rand is the source of new session ids (crypto/rand.Reader by default).
	// Tests replace it before the first Create.
	Rand io.Reader

	// mu serializes this process's writers, so they queue in Go instead of
	// spinning in SQLite's busy handler; _txlock=immediate and busy_timeout
	// still protect against another process on the same file.
	mu sync.Mutex
}

var _ Store = (*DB)(nil)

// SQLite is the store's name from before PostgreSQL: a DB opened by Open.
type SQLite = DB

// The database file in the data directory, and how long SQLite waits for
// another process's writer.
const (
	dbFile        = "lab.db"
	busyTimeoutMS = 5000
)

// OpenOptions tune Open.
type OpenOptions struct {
	// MaxBytes caps the database's size (0: no cap): a write that would
	// grow it beyond fails as on a full disk (ErrFull), keeping the rest.
	MaxBytes int64
}

// dbPageSize is SQLite's default page size, which MaxBytes counts in.
const dbPageSize = 4096

// Open opens (creating it and dir if needed) the database in dir, checks
// it, brings its schema up to date and purges sessions deleted more than
// RestoreWindow before now.
func Open(dir string, now time.Time) (*DB, error) { return OpenWith(dir, now, OpenOptions{}) }

// OpenWith is Open with options.
//
// It trusts nothing it finds: a database file of zero bytes (a database
// was expected, and starting afresh over it would hide what happened) and
// a database that fails SQLite's quick_check are refused with an error
// that names the file and says what to do, so a damaged database is never
// written to.
func OpenWith(dir string, now time.Time, opt OpenOptions) (*DB, error) {
	if strings.ContainsRune(dir, '?') {
		return nil, fmt.Errorf("open store: data directory %q may not contain '?'", dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("open store: %w", err)
	}
	path := filepath.Join(dir, dbFile)
	if fi, err := os.Stat(path); err == nil && fi.Size() == 0 {
		return nil, fmt.Errorf("open store: %s is empty (0 bytes) where a database was expected, so something "+
			"went wrong with it: restore a backup (lab restore FILE), or delete the file to start with no sessions", path)
	}
	// The pragmas run on every new connection of the pool. synchronous=FULL
	// makes a commit durable before Save returns, so an acknowledged save
	// survives kill -9 and power loss; WAL lets readers run beside a writer.
	dsn := path +
		"?_pragma=busy_timeout(" + strconv.Itoa(busyTimeoutMS) + ")" +
		"&_pragma=journal_mode(WAL)&_pragma=synchronous(FULL)&_pragma=foreign_keys(1)" +
		"&_txlock=immediate"
	if opt.MaxBytes > 0 {
		dsn += "&_pragma=max_page_count(" + strconv.FormatInt(max(1, opt.MaxBytes/dbPageSize), 10) + ")"
	}
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("open store: %w", err)
	}
	st := &DB{db: sqlDB{DB: db}, samples: newSamples(), Rand: rand.Reader}
	if err := st.check(path); err != nil {
		db.Close()
		return nil, err
	}
	if err := st.prepare(now); err != nil {
		db.Close()
		return nil, fmt.Errorf("open store %s: %w", dir, err)
	}
	return st, nil
}

// prepare brings a database just opened up to date: its schema, the
// sessions deleted long enough to purge, the traces saved before their
// measures were kept.
func (st *DB) prepare(now time.Time) error {
	v, err := st.migrate()
	if err != nil {
		return err
	}
	if _, err := st.Purge(now); err != nil {
		return err
	}
	if v >= 3 { // not in a test that stops the schema before measures
		return st.measureOldTraces()
	}
	return nil
}

// Close closes the database.
func (st *DB) Close() error {
	err := st.db.Close()
	if st.pool != nil {
		st.pool.Close()
	}
	return err
}

// check runs SQLite's quick_check on the database at path: a database
// that is not one, or whose pages are damaged, is an error that names the
// file, what SQLite found, and what to do.
func (st *DB) check(path string) error {
	rows, err := st.db.Query(`PRAGMA quick_check(8)`)
	var problems []string
	if err == nil {
		for rows.Next() {
			var line string
			if err = rows.Scan(&line); err != nil {
				break
			}
			if line != "ok" {
				problems = append(problems, line)
			}
		}
		rows.Close()
		if err == nil {
			err = rows.Err()
		}
	}
	if err != nil {
		problems = append(problems, err.Error())
	}
	if len(problems) == 0 {
		return nil
	}
	return fmt.Errorf("open store: %s is damaged (%s): nothing was changed; restore a backup (lab restore FILE), "+
		"or move the file aside to start with no sessions and keep it for recovery (sqlite3 %s .recover)",
		path, strings.Join(problems, "; "), path)
}

// Create saves d as revision 1 of a new session with a fresh random id.
func (st *DB) Create(d Draft, now time.Time) (_ Revision, err error) {
	defer classify(&err)
	if err := d.Check(); err != nil {
		return Revision{}, err
	}
	settings, err := json.Marshal(d.Settings)
	if err != nil {
		return Revision{}, fmt.Errorf("create session: %w", err)
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	// 60 random bits: a collision is unlikely but cheap to retry.
	for range 3 {
		id, err := newSessionID(st.Rand)
		if err != nil {
			return Revision{}, fmt.Errorf("create session: %w", err)
		}
		created, err := st.insertSession(id, d, settings, now)
		if err != nil {
			return Revision{}, fmt.Errorf("create session: %w", err)
		}
		if created {
			return Revision{ID: id, Rev: 1, Name: d.Name, Notes: d.Notes, Settings: d.Settings, Time: now}, nil
		}
	}
	return Revision{}, errors.New("create session: no free id after 3 tries")
}

// insertSession inserts a session and its first revision; false if the id
// is taken.
func (st *DB) insertSession(id string, d Draft, settings []byte, now time.Time) (bool, error) {
	tx, err := st.db.Begin()
	if err != nil {
		return false, err
	}
	defer tx.Rollback()
	res, err := tx.Exec(`INSERT INTO sessions (id, created_ns, updated_ns, latest, name, name_fold)
		VALUES (?, ?, ?, 1, ?, ?) ON CONFLICT (id) DO NOTHING`,
		id, now.UnixNano(), now.UnixNano(), d.Name, foldName(d.Name))
	if err != nil {
		return false, err
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return false, err
	}
	if _, err := tx.Exec(`INSERT INTO revisions (session_id, rev, name, notes, settings, created_ns)
		VALUES (?, 1, ?, ?, ?, ?)`, id, d.Name, d.Notes, string(settings), now.UnixNano()); err != nil {
		return false, err
	}
	return true, tx.Commit()
}

// Save saves d as a new revision of session id.
func (st *DB) Save(id string, d Draft, now time.Time) (Revision, error) {
	return st.Update(id, now, func(Revision) (Draft, error) { return d, nil })
}

// Rename saves a new revision of session id with the latest revision's
// notes and settings under a new name.
func (st *DB) Rename(id, name string, now time.Time) (Revision, error) {
	return st.Update(id, now, func(prev Revision) (Draft, error) {
		return Draft{Name: name, Notes: prev.Notes, Settings: prev.Settings}, nil
	})
}

// Update saves a new revision of session id computed by edit from the
// latest one. edit runs inside the write transaction, so no other save can
// come between the revision it reads and the one it writes; it must be
// quick. An error from edit is returned as is. A draft that changes
// nothing (name, notes and settings as the latest revision's) saves
// nothing and returns the latest revision; when the latest is damaged, the
// draft is saved after it, whatever it holds.
func (st *DB) Update(id string, now time.Time, edit func(prev Revision) (Draft, error)) (_ Revision, err error) {
	defer classify(&err)
	if err := CheckSessionID(id); err != nil {
		return Revision{}, err
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	tx, err := st.db.Begin()
	if err != nil {
		return Revision{}, fmt.Errorf("save session %s: %w", id, err)
	}
	defer tx.Rollback()
	if err := tx.lockSession(id); err != nil {
		return Revision{}, fmt.Errorf("save session %s: %w", id, err)
	}
	prev, latest, err := latestReadable(tx, id)
	if err != nil {
		return Revision{}, err
	}
	d, err := edit(prev)
	if err != nil {
		return Revision{}, err
	}
	if err := d.Check(); err != nil {
		return Revision{}, err
	}
	settings, err := json.Marshal(d.Settings)
	if err != nil {
		return Revision{}, fmt.Errorf("save session %s: %w", id, err)
	}
	if prev.Rev == latest && unchanged(prev, d, settings) {
		return prev, nil // nothing to keep: no empty revision
	}
	// After a damaged latest even the readable revision's own values are a
	// new revision, so the session's latest can be read again.
	rev := latest + 1 // revisions are never overwritten
	if _, err := tx.Exec(`INSERT INTO revisions (session_id, rev, name, notes, settings, created_ns)
		VALUES (?, ?, ?, ?, ?, ?)`, id, rev, d.Name, d.Notes, string(settings), now.UnixNano()); err != nil {
		return Revision{}, fmt.Errorf("save session %s: %w", id, err)
	}
	if _, err := tx.Exec(`UPDATE sessions SET latest = ?, updated_ns = ?, name = ?, name_fold = ? WHERE id = ?`,
		rev, now.UnixNano(), d.Name, foldName(d.Name), id); err != nil {
		return Revision{}, fmt.Errorf("save session %s: %w", id, err)
	}
	if err := tx.Commit(); err != nil {
		return Revision{}, fmt.Errorf("save session %s: %w", id, err)
	}
	return Revision{ID: id, Rev: rev, Name: d.Name, Notes: d.Notes, Settings: d.Settings, Time: now}, nil
}

// unchanged tells whether draft d, whose settings marshal to settings, is
// the revision prev all over: the same name, notes and settings.
func unchanged(prev Revision, d Draft, settings []byte) bool {
	if prev.Name != d.Name || prev.Notes != d.Notes {
		return false
	}
	was, err := json.Marshal(prev.Settings)
	return err == nil && bytes.Equal(was, settings)
}

// querier is what sqlDB and sqlTx have in common.
type querier interface {
	QueryRow(query string, args ...any) *sql.Row
	Query(query string, args ...any) (*sql.Rows, error)
}

// latestReadable reads the latest revision of a live (not deleted)
// session that can be read, passing over damaged ones, and returns it with
// the latest revision's number. With none readable the error is the
// latest's ErrDamaged.
func latestReadable(q querier, id string) (_ Revision, latest int, _ error) {
	var deleted sql.NullInt64
	err := q.QueryRow(`SELECT latest, deleted_ns FROM sessions WHERE id = ?`, id).Scan(&latest, &deleted)
	if errors.Is(err, sql.ErrNoRows) {
		return Revision{}, 0, ErrSessionNotFound
	}
	if err != nil {
		return Revision{}, 0, fmt.Errorf("read session %s: %w", id, err)
	}
	if deleted.Valid {
		return Revision{}, 0, ErrSessionDeleted
	}
	first, err := readRevision(q, id, latest)
	if !errors.Is(err, ErrDamaged) && !errors.Is(err, ErrRevNotFound) {
		return first, latest, err
	}
	for rev := latest - 1; rev >= 1; rev-- {
		r, rerr := readRevision(q, id, rev)
		if rerr == nil {
			return r, latest, nil
		}
		if !errors.Is(rerr, ErrDamaged) && !errors.Is(rerr, ErrRevNotFound) {
			return Revision{}, latest, rerr
		}
	}
	if errors.Is(err, ErrRevNotFound) {
		err = fmt.Errorf("session %s is %w: no revision can be read", id, ErrDamaged)
	}
	return Revision{}, latest, err
}

// readRevision reads one revision; its settings start from the defaults so
// that a parameter added after it was saved takes its default.
func readRevision(q querier, id string, rev int) (Revision, error) {
	r := Revision{ID: id, Rev: rev}
	var settings string
	var ns int64
	err := q.QueryRow(`SELECT name, notes, settings, created_ns FROM revisions WHERE session_id = ? AND rev = ?`,
		id, rev).Scan(&r.Name, &r.Notes, &settings, &ns)
	if errors.Is(err, sql.ErrNoRows) {
		return Revision{}, ErrRevNotFound
	}
	if err != nil {
		return Revision{}, fmt.Errorf("read session %s revision %d: %w", id, rev, err)
	}
	r.Settings = engine.Defaults()
	if err := json.Unmarshal([]byte(settings), &r.Settings); err != nil {
		return Revision{}, fmt.Errorf("session %s is %w: its revision %d cannot be read (settings: %v); its other revisions are at /s/%s/history",
			id, ErrDamaged, rev, err, id)
	}
	r.Time = time.Unix(0, ns).UTC()
	return r, nil
}

// damagedWhy says why a revision's stored settings cannot be read.
func damagedWhy(err error) string {
	return "its stored settings cannot be read (" + err.Error() + ")"
}

// Latest returns the latest revision of session id that can be read.
func (st *DB) Latest(id string) (Revision, error) {
	if err := CheckSessionID(id); err != nil {
		return Revision{}, err
	}
	r, _, err := latestReadable(st.db, id)
	return r, err
}

// Get returns session id: its latest revision and its history, with the
// settings each revision changed. A deleted session is returned too, with
// Deleted set.
func (st *DB) Get(id string) (Session, error) {
	if err := CheckSessionID(id); err != nil {
		return Session{}, err
	}
	// One read transaction, so the history and the latest revision agree
	// even while someone saves. ReadOnly makes it a deferred BEGIN: readers
	// do not take the write lock.
	tx, err := st.db.BeginTx(context.Background(), &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return Session{}, fmt.Errorf("read session %s: %w", id, err)
	}
	defer tx.Rollback()
	s := Session{Revision: Revision{ID: id}}
	var created int64
	var deleted sql.NullInt64
	err = tx.QueryRow(`SELECT created_ns, deleted_ns, latest FROM sessions WHERE id = ?`, id).
		Scan(&created, &deleted, &s.Latest)
	if errors.Is(err, sql.ErrNoRows) {
		return Session{}, ErrSessionNotFound
	}
	if err != nil {
		return Session{}, fmt.Errorf("read session %s: %w", id, err)
	}
	s.Created = time.Unix(0, created).UTC()
	if deleted.Valid {
		s.Deleted = time.Unix(0, deleted.Int64).UTC()
	}
	rows, err := tx.Query(`SELECT rev, name, notes, settings, created_ns FROM revisions
		WHERE session_id = ? ORDER BY rev`, id)
	if err != nil {
		return Session{}, fmt.Errorf("read session %s: %w", id, err)
	}
	defer rows.Close()
	// A revision that cannot be read is marked, and the next one's changes
	// are counted from the last that could.
	var prev engine.Settings
	readable := false
	for rows.Next() {
		var r Revision
		var settings string
		var ns int64
		if err := rows.Scan(&r.Rev, &r.Name, &r.Notes, &settings, &ns); err != nil {
			return Session{}, fmt.Errorf("read session %s: %w", id, err)
		}
		r.ID, r.Time = id, time.Unix(0, ns).UTC()
		r.Settings = engine.Defaults()
		info := RevisionInfo{Rev: r.Rev, Name: r.Name, Time: r.Time}
		if err := json.Unmarshal([]byte(settings), &r.Settings); err != nil {
			info.Damaged = damagedWhy(err)
			s.History = append(s.History, info)
			continue
		}
		info.Changed = []string{}
		if readable {
			for _, c := range engine.Diff(prev, r.Settings) {
				info.Changed = append(info.Changed, c.Name)
			}
		}
		s.History = append(s.History, info)
		prev, readable = r.Settings, true
		if r.Rev <= s.Latest {
			s.Revision = r
		}
	}
	if err := rows.Err(); err != nil {
		return Session{}, fmt.Errorf("read session %s: %w", id, err)
	}
	if !readable {
		return Session{}, fmt.Errorf("session %s is %w: its %d revisions cannot be read", id, ErrDamaged, s.Latest)
	}
	return s, nil
}

// Revision returns revision rev of session id (deleted or not: check
// Deleted with Get when that matters).
func (st *DB) Revision(id string, rev int) (Revision, error) {
	if err := CheckSessionID(id); err != nil {
		return Revision{}, err
	}
	if rev < 1 {
		return Revision{}, &engine.FieldError{Field: "rev", Value: strconv.Itoa(rev), Allowed: "a revision number from 1"}
	}
	var deleted sql.NullInt64
	err := st.db.QueryRow(`SELECT deleted_ns FROM sessions WHERE id = ?`, id).Scan(&deleted)
	if errors.Is(err, sql.ErrNoRows) {
		return Revision{}, ErrSessionNotFound
	}
	if err != nil {
		return Revision{}, fmt.Errorf("read session %s: %w", id, err)
	}
	if deleted.Valid {
		return Revision{}, ErrSessionDeleted
	}
	return readRevision(st.db, id, rev)
}

// List returns the sessions whose latest name contains q (case-insensitive;
// every session for an empty q), the most recently saved first. Deleted
// sessions are left out unless withDeleted is set.
func (st *DB) List(q string, withDeleted bool) ([]Summary, error) {
	query := `SELECT id, name, latest, created_ns, updated_ns, deleted_ns FROM sessions
		WHERE instr(name_fold, ?) > 0`
	if !withDeleted {
		query += ` AND deleted_ns IS NULL`
	}
	query += ` ORDER BY updated_ns DESC, id`
	rows, err := st.db.Query(query, foldName(q))
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	defer rows.Close()
	list := []Summary{}
	for rows.Next() {
		var s Summary
		var created, updated int64
		var deleted sql.NullInt64
		if err := rows.Scan(&s.ID, &s.Name, &s.Rev, &created, &updated, &deleted); err != nil {
			return nil, fmt.Errorf("list sessions: %w", err)
		}
		s.Created, s.Updated = time.Unix(0, created).UTC(), time.Unix(0, updated).UTC()
		if deleted.Valid {
			s.Deleted = time.Unix(0, deleted.Int64).UTC()
		}
		list = append(list, s)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	return list, nil
}

// DamagedRevisions returns, for each of the sessions ids that has any, the
// revisions whose stored settings are not a JSON object (SQLite's own JSON
// check: nothing is decoded).
func (st *DB) DamagedRevisions(ids []string) (map[string][]int, error) {
	out := map[string][]int{}
	const batch = 200 // bound on a statement's parameters
	for len(ids) > 0 {
		n := min(len(ids), batch)
		args := make([]any, n)
		for i, id := range ids[:n] {
			args[i] = id
		}
		ids = ids[n:]
		rows, err := st.db.Query(`SELECT session_id, rev FROM revisions
			WHERE session_id IN (?`+strings.Repeat(",?", n-1)+`)
			AND NOT (json_valid(settings) AND json_type(settings) = 'object') ORDER BY session_id, rev`, args...)
		if err != nil {
			return nil, fmt.Errorf("check revisions: %w", err)
		}
		for rows.Next() {
			var id string
			var rev int
			if err := rows.Scan(&id, &rev); err != nil {
				rows.Close()
				return nil, fmt.Errorf("check revisions: %w", err)
			}
			out[id] = append(out[id], rev)
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, fmt.Errorf("check revisions: %w", err)
		}
	}
	return out, nil
}

// Delete marks session id deleted at now. Deleting a deleted session keeps
// its first deletion time.
func (st *DB) Delete(id string, now time.Time) (err error) {
	defer classify(&err)
	if err := CheckSessionID(id); err != nil {
		return err
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.updateSession("delete", id, `UPDATE sessions SET deleted_ns = coalesce(deleted_ns, ?) WHERE id = ?`, now.UnixNano(), id)
}

// Restore undeletes session id, if it was deleted less than RestoreWindow
// before now. Restoring a live session does nothing.
func (st *DB) Restore(id string, now time.Time) (err error) {
	defer classify(&err)
	if err := CheckSessionID(id); err != nil {
		return err
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	// No row: unknown, or deleted too long ago to restore (purged or about
	// to be).
	return st.updateSession("restore", id, `UPDATE sessions SET deleted_ns = NULL
		WHERE id = ? AND (deleted_ns IS NULL OR deleted_ns >= ?)`, id, now.Add(-RestoreWindow).UnixNano())
}

// updateSession runs query, an UPDATE of session id's row, and reports
// ErrSessionNotFound when it changed no row. The caller holds st.mu.
func (st *DB) updateSession(op, id, query string, args ...any) error {
	res, err := st.db.Exec(query, args...)
	if err != nil {
		return fmt.Errorf("%s session %s: %w", op, id, err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("%s session %s: %w", op, id, err)
	} else if n == 0 {
		return ErrSessionNotFound
	}
	return nil
}

// Purge removes for good the sessions deleted more than RestoreWindow before
// now, with their revisions, and returns how many.
func (st *DB) Purge(now time.Time) (_ int, err error) {
	defer classify(&err)
	st.mu.Lock()
	defer st.mu.Unlock()
	res, err := st.db.Exec(`DELETE FROM sessions WHERE deleted_ns < ?`, now.Add(-RestoreWindow).UnixNano())
	if err != nil {
		return 0, fmt.Errorf("purge sessions: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, fmt.Errorf("purge sessions: %w", err)
	}
	return int(n), nil
}

// foldName is the case-insensitive form of a name for search.
func foldName(s string) string { return strings.ToLower(s) }
