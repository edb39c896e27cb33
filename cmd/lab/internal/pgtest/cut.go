package pgtest

import (
	"context"
	"errors"
	"net"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
)

// Cut is a pool's connections to the server, cut all at once as if the
// process holding them died (kill -9): the server sees every connection
// close, so the session locks they hold are released at once, and no
// new one opens. What the process still runs reaches the database no
// more; what it had written stays written.
type Cut struct {
	mu    sync.Mutex
	conns []net.Conn
	dead  bool
}

// errCut is every dial's error once cut.
var errCut = errors.New("pgtest: the connections were cut")

// dial opens a connection unless cut.
func (c *Cut) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.dead {
		return nil, errCut
	}
	conn, err := (&net.Dialer{}).DialContext(ctx, network, addr)
	if err == nil {
		c.conns = append(c.conns, conn)
	}
	return conn, err
}

// Now cuts every connection, and any later dial fails.
func (c *Cut) Now() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.dead = true
	for _, conn := range c.conns {
		conn.Close()
	}
	c.conns = nil
}

// CuttablePool opens a pool on the database at url whose connections go
// through a Cut, and closes it when the test ends.
func CuttablePool(t testing.TB, url string) (*pgxpool.Pool, *Cut) {
	t.Helper()
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	c := &Cut{}
	cfg.ConnConfig.DialFunc = c.dial
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool, c
}
