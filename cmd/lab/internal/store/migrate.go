package store

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"strconv"

	"interplab/engine/netsim"
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

	// 7: a plain number in a scenario's text is in the display unit now
	// (latency=40 is 40 ms, loss=2 is 2 %), where it was in the stored unit
	// (seconds, a fraction, bit/s): the saved texts get their old units
	// written out, so they read as they did. Done in Go: see dataSteps.
	`-- 7: scenario texts in display units (upgradeScenarioUnits)`,
}

// dataSteps are the steps that rewrite data in Go, run in the same
// transaction right after the SQL step of the same number.
var dataSteps = map[int]func(*sql.Tx) error{
	7: upgradeScenarioUnits,
}

// upgradeScenarioUnits rewrites the scenario text of every saved revision
// and custom preset with engine.UpgradeScenarioText. Settings that are not
// a JSON object are left alone (a damaged revision stays as it was, and is
// reported as damaged where it is read).
func upgradeScenarioUnits(tx *sql.Tx) error {
	for _, table := range []struct{ name, key string }{
		{"revisions", "session_id || ':' || rev"},
		{"presets", "name"},
	} {
		// The table and key names are constants of this program.
		rows, err := tx.Query(`SELECT ` + table.key + `, settings FROM ` + table.name +
			` WHERE json_valid(settings) AND json_type(settings, '$.scenarioText') = 'text'`)
		if err != nil {
			return fmt.Errorf("%s: %w", table.name, err)
		}
		type change struct{ key, settings string }
		var changes []change
		for rows.Next() {
			var key, settings string
			if err := rows.Scan(&key, &settings); err != nil {
				rows.Close()
				return fmt.Errorf("%s: %w", table.name, err)
			}
			var m map[string]json.RawMessage
			var text string
			if json.Unmarshal([]byte(settings), &m) != nil || json.Unmarshal(m["scenarioText"], &text) != nil {
				continue
			}
			up := netsim.UpgradeScenarioText(text)
			if up == text {
				continue
			}
			m["scenarioText"], _ = json.Marshal(up)
			b, err := json.Marshal(m)
			if err != nil {
				rows.Close()
				return fmt.Errorf("%s %s: %w", table.name, key, err)
			}
			changes = append(changes, change{key, string(b)})
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fmt.Errorf("%s: %w", table.name, err)
		}
		for _, c := range changes {
			if _, err := tx.Exec(`UPDATE `+table.name+` SET settings = ? WHERE `+table.key+` = ?`, c.settings, c.key); err != nil {
				return fmt.Errorf("%s %s: %w", table.name, c.key, err)
			}
		}
	}
	return nil
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
		if step := dataSteps[i+1]; step != nil {
			if err := step(tx); err != nil {
				return fmt.Errorf("migrate to version %d: %w", i+1, err)
			}
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
