package main

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// runLab runs the lab binary with args and returns its exit code and
// output, or fails after timeout.
func runLab(t *testing.T, timeout time.Duration, args ...string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, labBinary(t), args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("lab %s did not end within %v:\n%s", strings.Join(args, " "), timeout, out.String())
	}
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, out.String()
}

// Two labs on one data directory: the second refuses to start and says
// which process holds it (they used to both run, their live syncs
// reverting each other).
func TestSecondServerRefused(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the lab binary")
	}
	data := filepath.Join(t.TempDir(), "data")
	_, proc, _ := startLabProcess(t, labBinary(t), data)
	code, out := runLab(t, 30*time.Second, "serve", "-addr", "127.0.0.1:0", "-data", data)
	if code != 1 || !strings.Contains(out, "in use by another lab") || !strings.Contains(out, "pid "+strconv.Itoa(proc.Pid)) {
		t.Errorf("a second lab serve on the same -data = exit %d:\n%s\nwant 1 naming pid %d", code, out, proc.Pid)
	}
}

// lab serve refuses a zero-byte or damaged database, saying what to do.
func TestServeRefusesBadDatabase(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the lab binary")
	}
	empty := t.TempDir()
	os.WriteFile(filepath.Join(empty, "lab.db"), nil, 0o644)
	code, out := runLab(t, 30*time.Second, "serve", "-addr", "127.0.0.1:0", "-data", empty)
	if code != 1 || !strings.Contains(out, "empty (0 bytes)") {
		t.Errorf("lab serve on a zero-byte lab.db = exit %d:\n%s", code, out)
	}

	damaged := filepath.Join(t.TempDir(), "data")
	url, stop := startLab(t, labBinary(t), damaged)
	for i := range 200 {
		resp, err := http.Post(url+"/api/sessions", "application/json", strings.NewReader(`{"name":"s`+strconv.Itoa(i)+`","notes":"`+strings.Repeat("x", 500)+`"}`))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	stop()
	// Checkpoint what the killed server left in the WAL, then damage it.
	if code, out := runLab(t, 30*time.Second, "backup", "-data", damaged, filepath.Join(t.TempDir(), "b.db")); code != 0 {
		t.Fatalf("backup: %s", out)
	}
	path := filepath.Join(damaged, "lab.db")
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	fi, _ := f.Stat()
	f.WriteAt(bytes.Repeat([]byte{0xde, 0xad}, 4096), fi.Size()/2/4096*4096)
	f.Close()
	os.Remove(path + "-wal")
	code, out = runLab(t, 30*time.Second, "serve", "-addr", "127.0.0.1:0", "-data", damaged)
	if code != 1 || !strings.Contains(out, "is damaged") || !strings.Contains(out, "lab restore") {
		t.Errorf("lab serve on a damaged lab.db = exit %d:\n%s", code, out)
	}
}

// lab backup runs beside a serving lab; lab restore refuses while one
// serves, then brings the backup back.
func TestBackupRestoreCommands(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the lab binary")
	}
	data := filepath.Join(t.TempDir(), "data")
	url, stop := startLab(t, labBinary(t), data)
	resp, err := http.Post(url+"/api/sessions", "application/json", strings.NewReader(`{"name":"before the backup"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	backup := filepath.Join(t.TempDir(), "lab-backup.db")
	if code, out := runLab(t, 30*time.Second, "backup", "-data", data, backup); code != 0 || !strings.Contains(out, "backed up") {
		t.Fatalf("lab backup beside a serving lab = %d:\n%s", code, out)
	}
	resp, _ = http.Post(url+"/api/sessions", "application/json", strings.NewReader(`{"name":"after the backup"}`))
	resp.Body.Close()
	if code, out := runLab(t, 30*time.Second, "restore", "-data", data, backup); code != 1 || !strings.Contains(out, "in use by another lab") {
		t.Errorf("lab restore while a lab serves = %d:\n%s\nwant 1, refused", code, out)
	}
	stop()
	code, out := runLab(t, 30*time.Second, "restore", "-data", data, backup)
	if code != 0 || !strings.Contains(out, "kept as") {
		t.Fatalf("lab restore = %d:\n%s", code, out)
	}
	url, _ = startLab(t, labBinary(t), data)
	resp, err = http.Get(url + "/api/sessions")
	if err != nil {
		t.Fatal(err)
	}
	var body bytes.Buffer
	body.ReadFrom(resp.Body)
	resp.Body.Close()
	if !strings.Contains(body.String(), "before the backup") || strings.Contains(body.String(), "after the backup") {
		t.Errorf("after restore the sessions are %s, want only the one saved before the backup", body.String())
	}
}
