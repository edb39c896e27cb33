package store

import (
	"context"
	"database/sql"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"strconv"
	"sync"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/database"
	"github.com/pressly/goose/v3/lock"

	"interplab/engine/netsim"
)

// The schema's steps are goose migrations, one SQL file a step for each
// dialect under migrations/ (the same step numbers in both, so a version
// means the same schema whatever the database), and the steps that
// rewrite data in Go (goSteps), the same for both. Append; never edit a
// released step.
//
// Labs before goose numbered their steps in SQLite's PRAGMA user_version,
// with the same steps 1 to 7: a database at user_version N without goose's
// table is adopted as having run steps 1..N. user_version is kept equal to
// the goose version, so an older lab opening a newer database still
// refuses it as newer.

//go:embed migrations
var migrationFiles embed.FS

// versionTable is goose's table of the steps a database has run.
const versionTable = "goose_db_version"

// goSteps are the steps done in Go, in a transaction of their own.
func goSteps(pg bool) []*goose.Migration {
	return []*goose.Migration{
		// 7: a plain number in a scenario's text is in the display unit
		// now (latency=40 is 40 ms, loss=2 is 2 %), where it was in the
		// stored unit (seconds, a fraction, bit/s): the saved texts get
		// their old units written out, so they read as they did.
		goose.NewGoMigration(7, &goose.GoFunc{RunTx: func(_ context.Context, tx *sql.Tx) error {
			return upgradeScenarioUnits(sqlTx{tx, pg})
		}}, nil),
		// 11: traces saved before the reads were streamed hold whole
		// columns (layout 1), which every read holds at once; they are
		// rewritten in blocks (layout 2), so that every stored trace is
		// read a block at a time.
		goose.NewGoMigration(11, &goose.GoFunc{RunTx: func(_ context.Context, tx *sql.Tx) error {
			return reblockTraces(sqlTx{tx, pg})
		}}, nil),
	}
}

// Test hooks: migrateTo stops the schema at a step (0: the latest), as an
// older lab left it; extraSteps are a later release's steps.
var (
	migrateTo  int64
	extraSteps []*goose.Migration
)

// latestVersion is the step this lab brings a database to.
func latestVersion() int64 {
	v := knownVersion()
	for _, m := range extraSteps {
		v = max(v, m.Version)
	}
	return v
}

// knownVersion is the last of this lab's steps: its SQL files' (both
// dialects') and its Go steps', read once.
var knownVersion = sync.OnceValue(func() int64 {
	var v int64
	for _, m := range goSteps(false) {
		v = max(v, m.Version)
	}
	// The pattern is well formed, so Glob cannot fail; a file whose name
	// has no step number is goose's to refuse, with its name, at migration.
	names, _ := fs.Glob(migrationFiles, "migrations/*/*.sql")
	for _, name := range names {
		if n, err := goose.NumericComponent(name); err == nil {
			v = max(v, n)
		}
	}
	return v
})

// upgradeScenarioUnits rewrites the scenario text of every saved revision
// and custom preset with engine.UpgradeScenarioText. Settings that are not
// a JSON object are left alone (a damaged revision stays as it was, and is
// reported as damaged where it is read).
func upgradeScenarioUnits(tx sqlTx) error {
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

// dialect is goose's name of the store's database.
func (st *DB) dialect() goose.Dialect {
	if st.db.pg {
		return goose.DialectPostgres
	}
	return goose.DialectSQLite3
}

// provider returns goose's migrator of the store's database. On
// PostgreSQL it holds an advisory lock while it migrates, so replicas
// starting together migrate once, one after the other.
func (st *DB) provider() (*goose.Provider, error) {
	dir := "migrations/sqlite"
	opts := []goose.ProviderOption{goose.WithGoMigrations(append(goSteps(st.db.pg), extraSteps...)...),
		goose.WithDisableGlobalRegistry(true), goose.WithSlog(slog.New(slog.DiscardHandler))}
	if st.db.pg {
		dir = "migrations/postgres"
		locker, err := lock.NewPostgresSessionLocker()
		if err != nil {
			return nil, err
		}
		opts = append(opts, goose.WithSessionLocker(locker))
	}
	files, err := fs.Sub(migrationFiles, dir)
	if err != nil {
		return nil, err
	}
	return goose.NewProvider(st.dialect(), st.db.DB, files, opts...)
}

// migrate brings the schema up to date: each step in a transaction of its
// own, so a crash leaves the database after one step or the next. A
// database from a newer lab (a step this one does not know) is refused.
// It returns the step the schema is at.
func (st *DB) migrate() (int64, error) {
	ctx := context.Background()
	if !st.db.pg {
		if err := st.adoptUserVersion(ctx); err != nil {
			return 0, fmt.Errorf("migrate: %w", err)
		}
	}
	p, err := st.provider()
	if err != nil {
		return 0, fmt.Errorf("migrate: %w", err)
	}
	current, err := st.schemaVersion()
	if err != nil {
		return 0, fmt.Errorf("migrate: read schema version: %w", err)
	}
	if current > latestVersion() {
		return 0, fmt.Errorf("migrate: database schema version %d is newer than this lab's (%d)", current, latestVersion())
	}
	target := latestVersion()
	if migrateTo > 0 {
		target = migrateTo
		_, err = p.UpTo(ctx, migrateTo)
	} else {
		_, err = p.Up(ctx)
	}
	if err != nil {
		return 0, fmt.Errorf("migrate: %w", err)
	}
	// Up ran every step up to target that the database had not (another
	// lab may have run some meanwhile), and none past it.
	v := max(current, target)
	if st.db.pg {
		return v, nil
	}
	// PRAGMA takes no parameters; the value is a number of this program.
	if _, err := st.db.Exec("PRAGMA user_version = " + strconv.FormatInt(v, 10)); err != nil {
		return 0, fmt.Errorf("migrate: set schema version: %w", err)
	}
	return v, nil
}

// adoptUserVersion records, in a SQLite database that an older lab
// migrated (PRAGMA user_version N, no goose table), steps 1..N as run.
func (st *DB) adoptUserVersion(ctx context.Context) error {
	tx, err := st.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var n int
	if err := tx.QueryRow(`SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?`, versionTable).Scan(&n); err != nil {
		return err
	}
	var uv int64
	if err := tx.QueryRow("PRAGMA user_version").Scan(&uv); err != nil {
		return err
	}
	if n > 0 || uv == 0 {
		return nil // goose's already, or new
	}
	gs, err := database.NewStore(goose.DialectSQLite3, versionTable)
	if err != nil {
		return err
	}
	if err := gs.CreateVersionTable(ctx, tx.Tx); err != nil {
		return err
	}
	for v := range uv + 1 { // goose's table starts with version 0
		if err := gs.Insert(ctx, tx.Tx, database.InsertRequest{Version: v}); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// undefinedTable is PostgreSQL's SQLSTATE for a relation that does not
// exist.
const undefinedTable = "42P01"

// schemaVersion returns the latest step the database has run: goose's
// version, or an older lab's PRAGMA user_version; 0 for a new database.
func (st *DB) schemaVersion() (int64, error) {
	gs, err := database.NewStore(st.dialect(), versionTable)
	if err != nil {
		return 0, err
	}
	v, err := gs.GetLatestVersion(context.Background(), st.db.DB)
	if st.db.pg {
		// No table yet is a new database. Asking afterwards whether the
		// table exists races with a lab that creates it meanwhile (labs
		// starting together), so the error itself is read: PostgreSQL's
		// undefined_table.
		var pe *pgconn.PgError
		switch {
		case err == nil:
			return v, nil
		case errors.Is(err, database.ErrVersionNotFound), errors.As(err, &pe) && pe.Code == undefinedTable:
			return 0, nil
		}
		return 0, err
	}
	var uv int64
	if qerr := st.db.QueryRow("PRAGMA user_version").Scan(&uv); qerr != nil {
		return 0, qerr
	}
	return max(v, uv), nil // a newer lab may have said so in either
}
