package store

import (
	"os"
	"testing"

	"interplab/cmd/lab/internal/pgtest"
)

func TestMain(m *testing.M) {
	code := m.Run()
	pgtest.Stop()
	os.Exit(code)
}

// eachBackend runs test on SQLite (dir a new data directory) and on
// PostgreSQL (dir the address of a new database on a server the test
// binary starts: see package pgtest), as subtests named after them.
func eachBackend(t *testing.T, test func(t *testing.T, dir string)) {
	t.Run("sqlite", func(t *testing.T) { test(t, t.TempDir()) })
	t.Run("postgres", func(t *testing.T) { test(t, pgtest.New(t)) })
}
