package store

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// lockFile is the data directory's lock: the one lab serve that holds it
// owns the directory, and a second one refuses to start, so two servers
// never serve (and live-sync) the same sessions.
const lockFile = "lab.lock"

// DirLock is a held lock on a data directory. The operating system
// releases it when the process ends, however it ends (kill -9 included),
// so a stale lock file never blocks a restart.
type DirLock struct {
	f *os.File
}

// LockedError is Lock's error when another process holds the directory.
type LockedError struct {
	Dir    string
	Holder string // what the holder wrote: its pid, host and start time
}

func (e *LockedError) Error() string {
	return fmt.Sprintf("the data directory %s is in use by another lab (%s): stop it first, or use another -data directory",
		e.Dir, strings.TrimSpace(e.Holder))
}

// Lock takes dir's lock (creating dir if needed) and writes into the lock
// file who holds it: this process's pid and host and now. It fails with a
// *LockedError when another process holds it.
func Lock(dir string, now time.Time) (*DirLock, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("lock %s: %w", dir, err)
	}
	path := filepath.Join(dir, lockFile)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", dir, err)
	}
	held, err := tryLock(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	if !held {
		holder, _ := os.ReadFile(path)
		f.Close()
		return nil, &LockedError{Dir: dir, Holder: string(holder)}
	}
	host, _ := os.Hostname()
	if err := f.Truncate(0); err == nil {
		fmt.Fprintf(f, "pid %d on %s since %s\n", os.Getpid(), host, now.UTC().Format(time.RFC3339))
		f.Sync()
	}
	return &DirLock{f: f}, nil
}

// Unlock releases the lock.
func (l *DirLock) Unlock() error {
	if err := unlock(l.f); err != nil {
		l.f.Close()
		return err
	}
	return l.f.Close()
}
