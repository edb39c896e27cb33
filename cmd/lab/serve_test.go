package main

import (
	"bytes"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"interplab/cmd/lab/internal/server"
	"interplab/cmd/lab/internal/store"
	"interplab/presets"
)

// labServer serves the lab on a fresh store, as lab serve does, until the
// end of the test; it returns its URL and the store.
func labServer(t *testing.T) (string, *store.SQLite) {
	t.Helper()
	list, err := presets.All()
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(t.TempDir(), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	srv, err := server.New(server.Deps{Presets: list, Assets: fstest.MapFS{}, Store: st})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	return ts.URL, st
}

// TestServeAllowOrigin checks lab serve's -allow-origin values.
func TestServeAllowOrigin(t *testing.T) {
	for _, bad := range []string{"tools.example.com", "ftp://h", "https://h/path", "https://h?x=1", "https://"} {
		var out, errb bytes.Buffer
		if code := run([]string{"serve", "-allow-origin", bad, "-addr", "127.0.0.1:0"}, nil, &out, &errb); code != 2 ||
			!strings.Contains(errb.String(), "not an origin") {
			t.Errorf("lab serve -allow-origin %q = %d, %q; want 2 saying it is not an origin", bad, code, errb.String())
		}
	}
}

// TestServeAllowHost checks lab serve's -allow-host values, and
// LAB_ALLOW_HOST's.
func TestServeAllowHost(t *testing.T) {
	for _, bad := range []string{"http://lab.example", "lab.example:0", "lab example", "lab.example/x"} {
		var out, errb bytes.Buffer
		if code := run([]string{"serve", "-allow-host", bad, "-addr", "127.0.0.1:0", "-data", t.TempDir()}, nil, &out, &errb); code != 2 ||
			!strings.Contains(errb.String(), "is not a host name") {
			t.Errorf("lab serve -allow-host %q = %d, %q; want 2 saying it is not a host name", bad, code, errb.String())
		}
	}
	t.Setenv("LAB_ALLOW_HOST", "lab.example,bad host")
	var out, errb bytes.Buffer
	if code := run([]string{"serve", "-addr", "127.0.0.1:0", "-data", t.TempDir()}, nil, &out, &errb); code != 2 ||
		!strings.Contains(errb.String(), "LAB_ALLOW_HOST") || !strings.Contains(errb.String(), "bad host") {
		t.Errorf("lab serve with LAB_ALLOW_HOST=%q = %d, %q; want 2 naming LAB_ALLOW_HOST and the bad name", "lab.example,bad host", code, errb.String())
	}
}

// TestServeJobs checks lab serve's -jobs values: a clear error naming
// -jobs and its range.
func TestServeJobs(t *testing.T) {
	for _, bad := range []string{"0", "-1", "33", "two", ""} {
		var out, errb bytes.Buffer
		if code := run([]string{"serve", "-jobs", bad, "-addr", "127.0.0.1:0", "-data", t.TempDir()}, nil, &out, &errb); code != 2 ||
			!strings.Contains(errb.String(), "-jobs") || !strings.Contains(errb.String(), "[1, 32]") {
			t.Errorf("lab serve -jobs %q = %d, %q; want 2 naming -jobs and [1, 32]", bad, code, errb.String())
		}
	}
}

// lab serve listens beyond loopback only with an access token, of at least
// 16 characters.
func TestServeNeedsATokenBeyondLoopback(t *testing.T) {
	tests := []struct {
		args []string
		env  string
		want string // in stderr
	}{
		{[]string{"serve", "-addr", ":0"}, "", "listens beyond this machine"},
		{[]string{"serve", "-addr", "0.0.0.0:0"}, "", "listens beyond this machine"},
		{[]string{"serve", "-addr", "127.0.0.1:0", "-token", "short"}, "", "at least 16"},
		{[]string{"serve", "-addr", ":0"}, "short", "at least 16"},
	}
	for _, tt := range tests {
		t.Setenv("LAB_TOKEN", tt.env)
		var out, errb bytes.Buffer
		if code := run(append(tt.args, "-data", t.TempDir()), nil, &out, &errb); code != 2 || !strings.Contains(errb.String(), tt.want) {
			t.Errorf("lab %s (LAB_TOKEN=%q) = %d, %q; want 2 saying %q", strings.Join(tt.args, " "), tt.env, code, errb.String(), tt.want)
		}
	}
}

// A token given with -token shows in ps to every user of the machine:
// lab serve and lab follow say so, and point to LAB_TOKEN, in their help
// and when it is used; the token from LAB_TOKEN draws no warning.
func TestTokenFlagWarnsOfPS(t *testing.T) {
	for _, cmd := range []string{"serve", "follow"} {
		var out, errb bytes.Buffer
		run([]string{cmd, "-h"}, nil, &out, &errb)
		if help := out.String() + errb.String(); !strings.Contains(help, "(ps)") || !strings.Contains(help, "prefer LAB_TOKEN") {
			t.Errorf("lab %s -h does not say that -token shows in ps and to prefer LAB_TOKEN:\n%s", cmd, help)
		}
	}
	t.Setenv("LAB_TOKEN", "")
	var out, errb bytes.Buffer
	// -db names no PostgreSQL database: refused right after the warning.
	run([]string{"serve", "-addr", "127.0.0.1:0", "-token", "long-enough-token-here", "-db", "./nope"}, nil, &out, &errb)
	if !strings.Contains(errb.String(), "ps") || !strings.Contains(errb.String(), "LAB_TOKEN") {
		t.Errorf("lab serve -token warns %q, want it to name ps and LAB_TOKEN", errb.String())
	}
	t.Setenv("LAB_TOKEN", "long-enough-token-here")
	errb.Reset()
	run([]string{"serve", "-addr", "127.0.0.1:0", "-db", "./nope"}, nil, &out, &errb)
	if strings.Contains(errb.String(), "warning") {
		t.Errorf("lab serve with LAB_TOKEN warns %q, want no warning", errb.String())
	}
}
