package store

import (
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"
)

// Backup writes a consistent copy of the database to path, which must not
// exist yet: SQLite's VACUUM INTO, one read transaction's snapshot, so it
// may run while the lab serves and saves (`lab backup`).
func (st *DB) Backup(path string) error {
	if st.db.pg {
		return ErrPostgresBackup
	}
	if _, err := os.Stat(path); err == nil {
		return fmt.Errorf("backup: %s exists: choose a new file", path)
	}
	if _, err := st.db.Exec(`VACUUM INTO ?`, path); err != nil {
		return fmt.Errorf("backup to %s: %w", path, err)
	}
	return nil
}

// ErrPostgresBackup is Backup's error on PostgreSQL, whose own tools
// copy a database consistently while labs serve it.
var ErrPostgresBackup = errors.New("the lab's data is in PostgreSQL: back it up with pg_dump " +
	"(pg_dump -Fc -f lab.dump \"$LAB_DB\") and restore it with pg_restore (pg_restore --clean --if-exists -d \"$LAB_DB\" lab.dump)")

// CheckBackup opens the database file at path read-only and tells whether
// it is a lab database that passes SQLite's quick_check.
func CheckBackup(path string) error {
	if fi, err := os.Stat(path); err != nil {
		return err
	} else if fi.Size() == 0 {
		return fmt.Errorf("%s is empty: not a backup", path)
	}
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		return err
	}
	defer db.Close()
	st := &DB{db: sqlDB{DB: db}}
	if err := st.check(path); err != nil {
		return err
	}
	v, err := st.schemaVersion()
	if err != nil {
		return fmt.Errorf("%s is not a lab database: %w", path, err)
	}
	if v < 1 {
		return fmt.Errorf("%s is not a lab database: it has no sessions table", path)
	}
	if v > latestVersion() {
		return fmt.Errorf("%s comes from a newer lab (schema %d; this one reads up to %d)", path, v, latestVersion())
	}
	return nil
}

// Restore makes the backup at path the database of dir, for a lab that is
// not running: the caller holds dir's lock (Lock). The backup is checked
// first (CheckBackup); the database it replaces, with its journal files, is
// moved aside to lab.db.before-restore-TIME, and its path returned ("" when
// there was none). The new database is written beside the old and renamed
// over it, so an interrupted restore leaves one or the other, never half.
func Restore(dir, path string, now time.Time) (kept string, err error) {
	if err := CheckBackup(path); err != nil {
		return "", fmt.Errorf("restore: %w", err)
	}
	db := filepath.Join(dir, dbFile)
	tmp := db + ".restoring"
	if err := copyFile(path, tmp); err != nil {
		os.Remove(tmp)
		return "", fmt.Errorf("restore: %w", err)
	}
	if _, err := os.Stat(db); err == nil {
		kept = db + ".before-restore-" + now.UTC().Format("20060102T150405Z")
		for _, suffix := range []string{"", "-wal", "-shm"} {
			if err := os.Rename(db+suffix, kept+suffix); err != nil && !errors.Is(err, os.ErrNotExist) {
				os.Remove(tmp)
				return "", fmt.Errorf("restore: keep the old database: %w", err)
			}
		}
	}
	if err := os.Rename(tmp, db); err != nil {
		return kept, fmt.Errorf("restore: %w", err)
	}
	if d, err := os.Open(dir); err == nil {
		d.Sync() // the renames are durable
		d.Close()
	}
	return kept, nil
}

// copyFile copies src to dst and syncs it.
func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Sync(); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// Path is the database file of a data directory, for messages.
func Path(dir string) string { return filepath.Join(dir, dbFile) }
