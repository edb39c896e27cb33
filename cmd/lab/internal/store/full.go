package store

import (
	"errors"
	"syscall"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// ErrFull is a write that found the disk full (or the database at its size
// cap, OpenOptions.MaxBytes): SQLite rolled it back, so nothing of it was
// kept and everything acknowledged before is intact.
var ErrFull = errors.New("the disk holding the lab's data is full: nothing of this change was saved; free some space and try again")

// fullError is a write's error that is also ErrFull.
type fullError struct{ err error }

func (e fullError) Error() string   { return e.err.Error() }
func (e fullError) Unwrap() []error { return []error{ErrFull, e.err} }

// classify makes *err an ErrFull when SQLite or the system says the disk
// is full: deferred by every write.
func classify(err *error) {
	if *err == nil || errors.Is(*err, ErrFull) {
		return
	}
	var se *sqlite.Error
	if errors.As(*err, &se) && se.Code()&0xff == sqlite3.SQLITE_FULL || errors.Is(*err, syscall.ENOSPC) || pgFull(*err) {
		*err = fullError{*err}
	}
}
