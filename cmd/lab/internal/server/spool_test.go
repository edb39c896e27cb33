package server

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"net/http"
	"strings"
	"syscall"
	"testing"

	"interplab/engine"
	"interplab/presets"
)

// fullSpool is a spool on a disk that fills up: its files take room bytes,
// then every write fails with ENOSPC, as os.File's do (a *fs.PathError
// naming the file).
type fullSpool struct {
	room    int
	noFiles bool // creating a file fails too (no inodes left)
}

func (s fullSpool) Create() (SpoolFile, error) {
	if s.noFiles {
		return nil, &fs.PathError{Op: "open", Path: "/var/tmp/secret/lab-upload-1", Err: syscall.ENOSPC}
	}
	return &fullFile{room: s.room}, nil
}

type fullFile struct {
	buf  bytes.Buffer
	room int
}

func (f *fullFile) Read(p []byte) (int, error) { return f.buf.Read(p) }

func (f *fullFile) Write(p []byte) (int, error) {
	if f.buf.Len()+len(p) > f.room {
		n, _ := f.buf.Write(p[:f.room-f.buf.Len()])
		return n, &fs.PathError{Op: "write", Path: "/var/tmp/secret/lab-upload-1", Err: syscall.ENOSPC}
	}
	return f.buf.Write(p)
}

func (f *fullFile) Seek(int64, int) (int64, error) {
	return 0, errors.New("not used after a failed write")
}
func (f *fullFile) Close() error { return nil }

// An upload that finds the spool's disk full is a 507 that names no path
// of the server's, and saves nothing.
func TestUploadSpoolFullIs507(t *testing.T) {
	for _, spool := range []fullSpool{{room: 1000}, {noFiles: true}} {
		_, st := testServer(t, testAssets(t, false), t.TempDir(), nil)
		list, _ := presets.All()
		s, err := New(Deps{Presets: list, Assets: testAssets(t, false), Store: st, Spool: spool})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(s.Close)
		base := serve(t, s).URL
		set := engine.Defaults()
		set.Entities, set.Duration = 2, 30
		tr, err := engine.SyntheticTrace(set)
		if err != nil {
			t.Fatal(err)
		}
		csv := traceCSV(t, tr)
		body, ct := multipartBody(t, "full.csv", [2]string{"file", string(csv)})
		for _, up := range []struct{ ct, body string }{{"text/csv", string(csv)}, {ct, string(body)}} {
			resp, err := http.Post(base+"/api/traces?name=full", up.ct, strings.NewReader(up.body))
			if err != nil {
				t.Fatal(err)
			}
			data, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusInsufficientStorage || strings.Contains(string(data), "/var/tmp") ||
				strings.Contains(string(data), "lab-upload") || !strings.Contains(string(data), "full") {
				t.Errorf("upload (%s) to a full spool %+v = %d %s, want 507 naming no path", up.ct, spool, resp.StatusCode, data)
			}
		}
		if _, err := st.TraceInfo("full"); err == nil {
			t.Errorf("a trace was saved from an upload the spool could not hold")
		}
	}
}
