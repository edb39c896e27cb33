package live

import (
	"context"
	"os"
	"testing"
	"time"

	"interplab/cmd/lab/internal/pgtest"
	"interplab/cmd/lab/internal/store"
)

func TestMain(m *testing.M) {
	code := m.Run()
	pgtest.Stop()
	os.Exit(code)
}

// eachBus runs test with a hub alone (bus nil: SQLite's one lab) and with
// a hub on a PostgreSQL bus (a new database on the test binary's server),
// as subtests named after them.
func eachBus(t *testing.T, test func(t *testing.T, bus Bus)) {
	t.Run("memory", func(t *testing.T) { test(t, nil) })
	t.Run("postgres", func(t *testing.T) { test(t, pgBus(t, pgtest.New(t))) })
}

// pgBus opens the store at url (migrating it) and returns a bus on it;
// both close when the test ends, the bus first.
func pgBus(t testing.TB, url string) *PGBus {
	t.Helper()
	st, err := store.OpenPostgres(context.Background(), url, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	bus, err := NewPGBus(st.Pool())
	if err != nil {
		st.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		bus.Close()
		st.Close()
	})
	return bus
}
