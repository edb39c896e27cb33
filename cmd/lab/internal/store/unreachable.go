package store

import (
	"database/sql"
	"database/sql/driver"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"interplab/cmd/lab/internal/wire"
)

// ErrUnreachable is what a person is told when the lab cannot reach its
// database (PostgreSQL down, restarting, or cut off): nothing of the
// change was made, and trying again later will do. The cause, which names
// the database's user, address and port, goes to the lab's log only.
var ErrUnreachable = errors.New("the lab cannot reach its database; try again")

// UnreachableRetry is how long a client refused for an unreachable
// database is told to wait (Retry-After) before it tries again.
const UnreachableRetry = 5 * time.Second

// Unreachable tells whether err says the database could not be reached,
// rather than that it refused what was asked: a connection that could not
// be opened (refused, timed out, no such host) or broke (reset, closed),
// a server shutting down or not yet accepting connections (SQLSTATE class
// 08, 57P01–57P03).
func Unreachable(err error) bool {
	if err == nil {
		return false
	}
	if pe, ok := errors.AsType[*pgconn.PgError](err); ok {
		return strings.HasPrefix(pe.Code, "08") || pe.Code == "57P01" || pe.Code == "57P02" || pe.Code == "57P03"
	}
	if _, ok := errors.AsType[*pgconn.ConnectError](err); ok {
		return true
	}
	if _, ok := errors.AsType[*net.OpError](err); ok {
		return true
	}
	for _, e := range []error{driver.ErrBadConn, sql.ErrConnDone, io.ErrUnexpectedEOF,
		syscall.ECONNREFUSED, syscall.ECONNRESET, syscall.EPIPE, syscall.ETIMEDOUT, syscall.EHOSTUNREACH, syscall.ENETUNREACH} {
		if errors.Is(err, e) {
			return true
		}
	}
	return pgconn.SafeToRetry(err)
}

// Outage is the API's answer to err when it says the database could not
// be reached (Unreachable): a 503 with Retry-After saying so in words a
// person can act on (ErrUnreachable), never the cause; nil for any other
// error. The caller logs the cause.
func Outage(err error) *wire.Error {
	if !Unreachable(err) {
		return nil
	}
	return &wire.Error{Status: http.StatusServiceUnavailable, Msg: ErrUnreachable.Error(), RetryAfter: UnreachableRetry}
}
