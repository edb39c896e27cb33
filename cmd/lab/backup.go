package main

import (
	"fmt"
	"io"
	"time"

	"interplab/cmd/lab/internal/store"
)

const backupUsage = `Usage: lab backup [-data ./data] FILE

Copies every saved session, revision, trace and job record of the data
directory to FILE (a new SQLite database), consistently, even while lab
serve runs and saves. Restore it with lab restore.

Flags:
`

// runBackup implements lab backup.
func runBackup(args []string, stdout, stderr io.Writer) int {
	fs := labFlags("backup", backupUsage, stderr)
	data := fs.String("data", "./data", "the data `dir` of the lab")
	if code, ok := parseLabFlags(fs, args, 1, stderr); !ok {
		return code
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(stderr, "lab backup: want the backup FILE")
		fs.Usage()
		return 2
	}
	st, err := store.Open(*data, time.Now())
	if err != nil {
		fmt.Fprintf(stderr, "lab backup: %v\n", err)
		return 1
	}
	defer st.Close()
	if err := st.Backup(fs.Arg(0)); err != nil {
		fmt.Fprintf(stderr, "lab backup: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "lab backup: %s backed up to %s\n", store.Path(*data), fs.Arg(0))
	return 0
}

const restoreUsage = `Usage: lab restore [-data ./data] FILE

Replaces the data directory's database with the backup FILE (made by lab
backup), after checking it. The lab must not be serving that directory.
The database it replaces is kept beside it, as lab.db.before-restore-TIME.

Flags:
`

// runRestore implements lab restore.
func runRestore(args []string, stdout, stderr io.Writer) int {
	fs := labFlags("restore", restoreUsage, stderr)
	data := fs.String("data", "./data", "the data `dir` of the lab")
	if code, ok := parseLabFlags(fs, args, 1, stderr); !ok {
		return code
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(stderr, "lab restore: want the backup FILE")
		fs.Usage()
		return 2
	}
	lock, err := store.Lock(*data, time.Now())
	if err != nil {
		fmt.Fprintf(stderr, "lab restore: %v\n", err)
		return 1
	}
	defer lock.Unlock()
	kept, err := store.Restore(*data, fs.Arg(0), time.Now())
	if err != nil {
		fmt.Fprintf(stderr, "lab restore: %v\n", err)
		return 1
	}
	if kept != "" {
		fmt.Fprintf(stdout, "lab restore: the database it replaced is kept as %s\n", kept)
	}
	fmt.Fprintf(stdout, "lab restore: %s restored from %s\n", store.Path(*data), fs.Arg(0))
	return 0
}
