package main

import (
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
	"unicode"
	"unicode/utf8"

	"interplab/cmd/lab/internal/jsonapi"
	"interplab/engine"

	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver
)

// Store keeps saved sessions in an embedded SQLite database, the file
// lab.db in the data directory. Every save is a new revision of a session;
// nothing is overwritten. A deleted session is only marked deleted and can be
// restored for restoreWindow; Purge removes older ones for good.
//
// A Store is safe for concurrent use. Times are always arguments: the store
// never reads the clock.
type Store struct {
	db *sql.DB

	// Rand is the source of new session ids (crypto/rand.Reader by default).
	// Tests replace it before the first Create.
	Rand io.Reader

	// mu serializes this process's writers, so they queue in Go instead of
	// spinning in SQLite's busy handler; _txlock=immediate and busy_timeout
	// still protect against another process on the same file.
	mu sync.Mutex
}

// Limits on what a session may hold.
const (
	storeFile     = "lab.db"
	sessionIDLen  = 12                  // characters of a session id
	maxNameRunes  = 200                 // longest session name
	maxNotesRunes = 10000               // longest notes
	restoreWindow = 30 * 24 * time.Hour // how long a deleted session can be restored
	busyTimeoutMS = 5000                // how long SQLite waits for another writer
)

// sessionIDAlphabet is lower-case base32 (RFC 4648 letters and 2–7): URL-safe,
// unambiguous when read aloud, and case-insensitive systems cannot mangle it.
const sessionIDAlphabet = "abcdefghijklmnopqrstuvwxyz234567"

// Errors a Store returns besides validation errors (*engine.FieldError).
var (
	errSessionNotFound = errors.New("session not found")
	errSessionDeleted  = errors.New("session deleted")
	errRevNotFound     = errors.New("revision not found")
)

// Draft is what a save carries: the session's name and notes and the
// settings (techniques and scenario included).
type Draft struct {
	Name     string
	Notes    string
	Settings engine.Settings
}

// Revision is one saved state of a session.
type Revision struct {
	ID       string // the session's id
	Rev      int    // 1 for the first save, then 2, 3, ...
	Name     string
	Notes    string
	Settings engine.Settings
	Time     time.Time // when it was saved
}

// RevisionInfo describes a revision in a session's history.
type RevisionInfo struct {
	Rev     int
	Name    string
	Time    time.Time
	Changed []string // vocabulary names of the settings that differ from the previous revision
}

// Session is a session's latest revision with its history.
type Session struct {
	Revision                // the latest revision
	Created  time.Time      // time of revision 1
	Deleted  time.Time      // zero unless deleted
	History  []RevisionInfo // every revision, oldest first
}

// Summary is one line of a session list.
type Summary struct {
	ID      string
	Name    string // the latest revision's name
	Rev     int    // the latest revision
	Created time.Time
	Updated time.Time // time of the latest revision
	Deleted time.Time // zero unless deleted
}

// openStore opens (creating it and dir if needed) the database in dir,
// brings its schema up to date and purges sessions deleted more than
// restoreWindow before now.
func openStore(dir string, now time.Time) (*Store, error) {
	if strings.ContainsRune(dir, '?') {
		return nil, fmt.Errorf("open store: data directory %q may not contain '?'", dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("open store: %w", err)
	}
	// The pragmas run on every new connection of the pool. synchronous=FULL
	// makes a commit durable before Save returns, so an acknowledged save
	// survives kill -9 and power loss; WAL lets readers run beside a writer.
	dsn := filepath.Join(dir, storeFile) +
		"?_pragma=busy_timeout(" + strconv.Itoa(busyTimeoutMS) + ")" +
		"&_pragma=journal_mode(WAL)&_pragma=synchronous(FULL)&_pragma=foreign_keys(1)" +
		"&_txlock=immediate"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("open store: %w", err)
	}
	st := &Store{db: db, Rand: rand.Reader}
	if err := st.migrate(); err != nil {
		db.Close()
		return nil, fmt.Errorf("open store %s: %w", dir, err)
	}
	if _, err := st.Purge(now); err != nil {
		db.Close()
		return nil, fmt.Errorf("open store %s: %w", dir, err)
	}
	return st, nil
}

// Close closes the database.
func (st *Store) Close() error { return st.db.Close() }

// Create saves d as revision 1 of a new session with a fresh random id.
func (st *Store) Create(d Draft, now time.Time) (Revision, error) {
	if err := checkDraft(&d); err != nil {
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
func (st *Store) insertSession(id string, d Draft, settings []byte, now time.Time) (bool, error) {
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
func (st *Store) Save(id string, d Draft, now time.Time) (Revision, error) {
	return st.Update(id, now, func(Revision) (Draft, error) { return d, nil })
}

// Rename saves a new revision of session id with the latest revision's
// notes and settings under a new name.
func (st *Store) Rename(id, name string, now time.Time) (Revision, error) {
	return st.Update(id, now, func(prev Revision) (Draft, error) {
		return Draft{Name: name, Notes: prev.Notes, Settings: prev.Settings}, nil
	})
}

// Update saves a new revision of session id computed by edit from the
// latest one. edit runs inside the write transaction, so no other save can
// come between the revision it reads and the one it writes; it must be
// quick. An error from edit is returned as is.
func (st *Store) Update(id string, now time.Time, edit func(prev Revision) (Draft, error)) (Revision, error) {
	if err := checkSessionID(id); err != nil {
		return Revision{}, err
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	tx, err := st.db.Begin()
	if err != nil {
		return Revision{}, fmt.Errorf("save session %s: %w", id, err)
	}
	defer tx.Rollback()
	prev, err := latestRevision(tx, id)
	if err != nil {
		return Revision{}, err
	}
	d, err := edit(prev)
	if err != nil {
		return Revision{}, err
	}
	if err := checkDraft(&d); err != nil {
		return Revision{}, err
	}
	settings, err := json.Marshal(d.Settings)
	if err != nil {
		return Revision{}, fmt.Errorf("save session %s: %w", id, err)
	}
	rev := prev.Rev + 1
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

// querier is what *sql.DB and *sql.Tx have in common.
type querier interface {
	QueryRow(query string, args ...any) *sql.Row
	Query(query string, args ...any) (*sql.Rows, error)
}

// latestRevision reads the latest revision of a live (not deleted) session.
func latestRevision(q querier, id string) (Revision, error) {
	var latest int
	var deleted sql.NullInt64
	err := q.QueryRow(`SELECT latest, deleted_ns FROM sessions WHERE id = ?`, id).Scan(&latest, &deleted)
	if errors.Is(err, sql.ErrNoRows) {
		return Revision{}, errSessionNotFound
	}
	if err != nil {
		return Revision{}, fmt.Errorf("read session %s: %w", id, err)
	}
	if deleted.Valid {
		return Revision{}, errSessionDeleted
	}
	return readRevision(q, id, latest)
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
		return Revision{}, errRevNotFound
	}
	if err != nil {
		return Revision{}, fmt.Errorf("read session %s revision %d: %w", id, rev, err)
	}
	r.Settings = engine.Defaults()
	if err := json.Unmarshal([]byte(settings), &r.Settings); err != nil {
		return Revision{}, fmt.Errorf("read session %s revision %d: settings: %w", id, rev, err)
	}
	r.Time = time.Unix(0, ns).UTC()
	return r, nil
}

// Latest returns the latest revision of session id.
func (st *Store) Latest(id string) (Revision, error) {
	if err := checkSessionID(id); err != nil {
		return Revision{}, err
	}
	return latestRevision(st.db, id)
}

// Get returns session id: its latest revision and its history, with the
// settings each revision changed. A deleted session is returned too, with
// Deleted set.
func (st *Store) Get(id string) (Session, error) {
	if err := checkSessionID(id); err != nil {
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
		Scan(&created, &deleted, &s.Rev)
	if errors.Is(err, sql.ErrNoRows) {
		return Session{}, errSessionNotFound
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
	var prev engine.Settings
	for rows.Next() {
		var r Revision
		var settings string
		var ns int64
		if err := rows.Scan(&r.Rev, &r.Name, &r.Notes, &settings, &ns); err != nil {
			return Session{}, fmt.Errorf("read session %s: %w", id, err)
		}
		r.ID, r.Time = id, time.Unix(0, ns).UTC()
		r.Settings = engine.Defaults()
		if err := json.Unmarshal([]byte(settings), &r.Settings); err != nil {
			return Session{}, fmt.Errorf("read session %s revision %d: settings: %w", id, r.Rev, err)
		}
		info := RevisionInfo{Rev: r.Rev, Name: r.Name, Time: r.Time, Changed: []string{}}
		if len(s.History) > 0 {
			for _, c := range engine.Diff(prev, r.Settings) {
				info.Changed = append(info.Changed, c.Name)
			}
		}
		s.History = append(s.History, info)
		prev = r.Settings
		if r.Rev == s.Rev {
			s.Revision = r
		}
	}
	if err := rows.Err(); err != nil {
		return Session{}, fmt.Errorf("read session %s: %w", id, err)
	}
	if s.Time.IsZero() {
		return Session{}, fmt.Errorf("read session %s: latest revision %d missing", id, s.Rev)
	}
	return s, nil
}

// Revision returns revision rev of session id (deleted or not: check
// Deleted with Get when that matters).
func (st *Store) Revision(id string, rev int) (Revision, error) {
	if err := checkSessionID(id); err != nil {
		return Revision{}, err
	}
	if rev < 1 {
		return Revision{}, &engine.FieldError{Field: "rev", Value: strconv.Itoa(rev), Allowed: "a revision number from 1"}
	}
	var deleted sql.NullInt64
	err := st.db.QueryRow(`SELECT deleted_ns FROM sessions WHERE id = ?`, id).Scan(&deleted)
	if errors.Is(err, sql.ErrNoRows) {
		return Revision{}, errSessionNotFound
	}
	if err != nil {
		return Revision{}, fmt.Errorf("read session %s: %w", id, err)
	}
	if deleted.Valid {
		return Revision{}, errSessionDeleted
	}
	return readRevision(st.db, id, rev)
}

// List returns the sessions whose latest name contains q (case-insensitive;
// every session for an empty q), the most recently saved first. Deleted
// sessions are left out unless withDeleted is set.
func (st *Store) List(q string, withDeleted bool) ([]Summary, error) {
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

// Delete marks session id deleted at now. Deleting a deleted session keeps
// its first deletion time.
func (st *Store) Delete(id string, now time.Time) error {
	if err := checkSessionID(id); err != nil {
		return err
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.updateSession("delete", id, `UPDATE sessions SET deleted_ns = coalesce(deleted_ns, ?) WHERE id = ?`, now.UnixNano(), id)
}

// Restore undeletes session id, if it was deleted less than restoreWindow
// before now. Restoring a live session does nothing.
func (st *Store) Restore(id string, now time.Time) error {
	if err := checkSessionID(id); err != nil {
		return err
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	// No row: unknown, or deleted too long ago to restore (purged or about
	// to be).
	return st.updateSession("restore", id, `UPDATE sessions SET deleted_ns = NULL
		WHERE id = ? AND (deleted_ns IS NULL OR deleted_ns >= ?)`, id, now.Add(-restoreWindow).UnixNano())
}

// updateSession runs query, an UPDATE of session id's row, and reports
// errSessionNotFound when it changed no row. The caller holds st.mu.
func (st *Store) updateSession(op, id, query string, args ...any) error {
	res, err := st.db.Exec(query, args...)
	if err != nil {
		return fmt.Errorf("%s session %s: %w", op, id, err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("%s session %s: %w", op, id, err)
	} else if n == 0 {
		return errSessionNotFound
	}
	return nil
}

// Purge removes for good the sessions deleted more than restoreWindow before
// now, with their revisions, and returns how many.
func (st *Store) Purge(now time.Time) (int, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	res, err := st.db.Exec(`DELETE FROM sessions WHERE deleted_ns < ?`, now.Add(-restoreWindow).UnixNano())
	if err != nil {
		return 0, fmt.Errorf("purge sessions: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, fmt.Errorf("purge sessions: %w", err)
	}
	return int(n), nil
}

// newSessionID returns sessionIDLen random characters of sessionIDAlphabet
// (60 bits) read from r.
func newSessionID(r io.Reader) (string, error) {
	var b [sessionIDLen]byte
	if _, err := io.ReadFull(r, b[:]); err != nil {
		return "", fmt.Errorf("new session id: %w", err)
	}
	for i := range b {
		b[i] = sessionIDAlphabet[b[i]&31]
	}
	return string(b[:]), nil
}

// checkSessionID accepts exactly the ids newSessionID makes, so nothing else
// (paths, quotes, "../") reaches a query or a URL.
func checkSessionID(id string) error {
	ok := len(id) == sessionIDLen
	for i := 0; ok && i < len(id); i++ {
		ok = strings.IndexByte(sessionIDAlphabet, id[i]) >= 0
	}
	if !ok {
		return &engine.FieldError{Field: "id", Value: jsonapi.Clip(id, 40),
			Allowed: strconv.Itoa(sessionIDLen) + " characters of a-z and 2-7"}
	}
	return nil
}

// checkDraft validates d and puts it in canonical form: the name trimmed,
// the settings validated by the engine and canonical (techniques in display
// order, once each).
func checkDraft(d *Draft) error {
	d.Name = strings.TrimSpace(d.Name)
	n := utf8.RuneCountInString(d.Name)
	if n == 0 || n > maxNameRunes || !utf8.ValidString(d.Name) || strings.ContainsFunc(d.Name, unicode.IsControl) {
		return &engine.FieldError{Field: "name", Value: jsonapi.Clip(d.Name, 40),
			Allowed: "1 to " + strconv.Itoa(maxNameRunes) + " characters, no control characters"}
	}
	badNotes := func(r rune) bool { return unicode.IsControl(r) && r != '\n' && r != '\r' && r != '\t' }
	if utf8.RuneCountInString(d.Notes) > maxNotesRunes || !utf8.ValidString(d.Notes) || strings.ContainsFunc(d.Notes, badNotes) {
		return &engine.FieldError{Field: "notes", Value: jsonapi.Clip(d.Notes, 40),
			Allowed: "at most " + strconv.Itoa(maxNotesRunes) + " characters, no control characters but tabs and line breaks"}
	}
	if err := d.Settings.Validate(); err != nil {
		return err
	}
	d.Settings = engine.Canonical(d.Settings)
	return nil
}

// foldName is the case-insensitive form of a name for search.
func foldName(s string) string { return strings.ToLower(s) }
