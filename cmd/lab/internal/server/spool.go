package server

import (
	"io"
	"os"
)

// A Spool holds trace uploads while they arrive, before they are parsed
// (traces.go): a slow client holds a file, not memory or a parse slot.
type Spool interface {
	// Create returns a new empty file.
	Create() (SpoolFile, error)
}

// SpoolFile is one upload's spooled copy: written as it arrives, then
// read from the start. Close removes it.
type SpoolFile interface {
	io.Reader
	io.Writer
	io.Seeker
	Close() error
}

// DirSpool spools uploads to temporary files in a directory: the system's
// (os.TempDir) when "".
type DirSpool string

// Create creates a temporary file in the directory.
func (d DirSpool) Create() (SpoolFile, error) {
	f, err := os.CreateTemp(string(d), "lab-upload-*")
	if err != nil {
		return nil, err
	}
	return tempFile{f}, nil
}

// tempFile is a temporary file that Close removes.
type tempFile struct{ *os.File }

func (f tempFile) Close() error {
	err := f.File.Close()
	if rerr := os.Remove(f.Name()); err == nil {
		err = rerr
	}
	return err
}
