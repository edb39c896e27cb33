package main

import (
	"fmt"
	"io"
	"time"

	"interplab/cmd/lab/internal/cli"
	"interplab/cmd/lab/internal/store"
)

const backupUsage = `Usage: lab backup [-data ./data] FILE

Copies every saved session, revision, trace and job record of the data
directory to FILE (a new SQLite database), consistently, even while lab
serve runs and saves. Restore it with lab restore.

A lab on PostgreSQL (lab serve -db) is backed up with PostgreSQL's own
tools, consistently while labs serve it: pg_dump -Fc -f lab.dump "$LAB_DB",
and restored with pg_restore --clean --if-exists -d "$LAB_DB" lab.dump.

Flags:
`

// runBackup implements lab backup.
func runBackup(args []string, stdout, stderr io.Writer) int {
	c := cli.New("backup", backupUsage, stdout, stderr)
	data := c.Flags.String("data", "./data", "the data `dir` of the lab")
	db := c.Flags.String("db", "", "a lab's PostgreSQL `url`: says how to back it up (pg_dump)")
	pos, code, ok := c.Args(args, 1)
	if !ok {
		return code
	}
	if *db != "" {
		return c.Fail(store.ErrPostgresBackup)
	}
	return c.WithStore(*data, func(st *store.SQLite) int {
		if err := st.Backup(pos[0]); err != nil {
			return c.Fail(err)
		}
		fmt.Fprintf(stdout, "lab backup: %s backed up to %s\n", store.Path(*data), pos[0])
		return 0
	})
}

const restoreUsage = `Usage: lab restore [-data ./data] FILE

Replaces the data directory's database with the backup FILE (made by lab
backup), after checking it. The lab must not be serving that directory.
The database it replaces is kept beside it, as lab.db.before-restore-TIME.

A lab on PostgreSQL is restored with pg_restore (see lab backup -h).

Flags:
`

// runRestore implements lab restore.
func runRestore(args []string, stdout, stderr io.Writer) int {
	c := cli.New("restore", restoreUsage, stdout, stderr)
	data := c.Flags.String("data", "./data", "the data `dir` of the lab")
	db := c.Flags.String("db", "", "a lab's PostgreSQL `url`: says how to restore it (pg_restore)")
	pos, code, ok := c.Args(args, 1)
	if !ok {
		return code
	}
	if *db != "" {
		return c.Fail(store.ErrPostgresBackup)
	}
	lock, err := store.Lock(*data, time.Now())
	if err != nil {
		return c.Fail(err)
	}
	defer lock.Unlock()
	kept, err := store.Restore(*data, pos[0], time.Now())
	if err != nil {
		return c.Fail(err)
	}
	if kept != "" {
		fmt.Fprintf(stdout, "lab restore: the database it replaced is kept as %s\n", kept)
	}
	fmt.Fprintf(stdout, "lab restore: %s restored from %s\n", store.Path(*data), pos[0])
	return 0
}
