package store

import (
	"fmt"
	"strconv"
)

// storeMigrations are the schema steps, in order: step i brings a database
// from PRAGMA user_version i to i+1. Append; never edit a released step.
var storeMigrations = []string{
	// 1: sessions and their append-only revisions. sessions caches the
	// latest revision's name (and its lower-case fold, for search) so that
	// listing does not read every revision.
	`CREATE TABLE sessions (
		id         TEXT PRIMARY KEY,
		created_ns INTEGER NOT NULL,
		updated_ns INTEGER NOT NULL,
		deleted_ns INTEGER,
		latest     INTEGER NOT NULL,
		name       TEXT NOT NULL,
		name_fold  TEXT NOT NULL
	) STRICT;
	CREATE TABLE revisions (
		session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
		rev        INTEGER NOT NULL CHECK (rev >= 1),
		name       TEXT NOT NULL,
		notes      TEXT NOT NULL,
		settings   TEXT NOT NULL,
		created_ns INTEGER NOT NULL,
		PRIMARY KEY (session_id, rev)
	) STRICT, WITHOUT ROWID;
	CREATE INDEX sessions_updated ON sessions (updated_ns DESC);`,

	// 2: recorded traces (see traces.go): the metadata a list shows,
	// and the packets as one compressed blob.
	`CREATE TABLE traces (
		name       TEXT PRIMARY KEY,
		created_ns INTEGER NOT NULL,
		format     TEXT NOT NULL,
		packets    INTEGER NOT NULL CHECK (packets >= 1),
		entities   INTEGER NOT NULL CHECK (entities >= 1),
		span       REAL NOT NULL,
		data       BLOB NOT NULL
	) STRICT;`,

	// 3: what each trace measures (TraceInfo.Network as JSON, and
	// MaxSpeed), so the traces page lists them without decoding every
	// trace. NULL for traces saved before; Open fills them in.
	`ALTER TABLE traces ADD COLUMN network TEXT;
	ALTER TABLE traces ADD COLUMN max_speed REAL;`,

	// 4: the records of sweeps and tunings (see jobs.go), so their pages
	// outlive the process.
	`CREATE TABLE jobs (
		id         TEXT PRIMARY KEY,
		kind       TEXT NOT NULL,
		state      TEXT NOT NULL,
		error      TEXT NOT NULL,
		done       INTEGER NOT NULL,
		total      INTEGER NOT NULL,
		spec       TEXT NOT NULL,
		result     TEXT,
		created_ns INTEGER NOT NULL,
		ended_ns   INTEGER
	) STRICT;
	CREATE INDEX jobs_created ON jobs (created_ns DESC);`,

	// 5: the custom presets designers save from the lab page or import
	// (see presets.go): a preset file's fields, the settings as JSON.
	`CREATE TABLE presets (
		name       TEXT PRIMARY KEY,
		title      TEXT NOT NULL,
		doc        TEXT NOT NULL,
		settings   TEXT NOT NULL,
		created_ns INTEGER NOT NULL
	) STRICT;`,

	// 6: the browsers signed in to a lab served with a token (see
	// logins.go): hashes of their cookies' ids and of the token.
	`CREATE TABLE logins (
		id         TEXT PRIMARY KEY,
		token      TEXT NOT NULL,
		created_ns INTEGER NOT NULL,
		expires_ns INTEGER NOT NULL
	) STRICT;
	CREATE INDEX logins_created ON logins (created_ns DESC);`,
}

// migrate applies the schema steps the database has not seen, in one
// transaction, so a crash leaves it at the old version or the new one.
func (st *SQLite) migrate() error {
	st.mu.Lock()
	defer st.mu.Unlock()
	tx, err := st.db.Begin()
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	defer tx.Rollback()
	var version int
	if err := tx.QueryRow("PRAGMA user_version").Scan(&version); err != nil {
		return fmt.Errorf("migrate: read schema version: %w", err)
	}
	if version > len(storeMigrations) {
		return fmt.Errorf("migrate: database schema version %d is newer than this lab's (%d)", version, len(storeMigrations))
	}
	if version == len(storeMigrations) {
		return nil
	}
	for i := version; i < len(storeMigrations); i++ {
		if _, err := tx.Exec(storeMigrations[i]); err != nil {
			return fmt.Errorf("migrate to version %d: %w", i+1, err)
		}
	}
	// PRAGMA takes no parameters; the value is a constant of this program.
	if _, err := tx.Exec("PRAGMA user_version = " + strconv.Itoa(len(storeMigrations))); err != nil {
		return fmt.Errorf("migrate: set schema version: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	return nil
}

// schemaVersion returns the database's PRAGMA user_version.
func (st *SQLite) schemaVersion() (int, error) {
	var v int
	err := st.db.QueryRow("PRAGMA user_version").Scan(&v)
	return v, err
}
