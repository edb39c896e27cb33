package main

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"interplab/cmd/lab/internal/pgtest"
)

// A lab and a worker started before PostgreSQL (a studio that starts
// everything at once: compose, systemd, a reboot) wait for it, logging
// each try, the lab's /readyz saying that it waits, and become ready once
// it starts. (They exited within 20 ms.)
func TestStartBeforeTheDatabase(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the lab binary")
	}
	bin := labBinary(t)
	dbURL, proxy := pgtest.NewProxy(t, pgtest.New(t), false) // the database is not up yet
	lab := startTeamProcWaiting(t, bin, "-db", dbURL)
	worker := startTeamProc(t, bin, false, "-db", dbURL)

	// A second in: both still wait, the lab answering /readyz 503.
	time.Sleep(time.Second)
	for _, p := range []*teamProc{lab, worker} {
		if p.cmd.Process.Signal(syscall.Signal(0)) != nil || exited(p) {
			t.Fatalf("%v exited while the database was not up:\n%s", p.cmd.Args, p.logText())
		}
	}
	status, body := getBody(t, lab.url+"/readyz")
	if status != http.StatusServiceUnavailable || !strings.Contains(body, "waiting for the database") {
		t.Errorf("/readyz while the database is not up = %d %s, want 503 waiting for the database", status, body)
	}
	if u, _ := url.Parse(dbURL); strings.Contains(body, u.Port()) {
		t.Errorf("/readyz names the database's port: %s", body)
	}
	for _, p := range []*teamProc{lab, worker} {
		if n := strings.Count(p.logText(), "waiting for the database"); n < 2 {
			t.Errorf("%v logged %d tries in a second, want each try logged:\n%s", p.cmd.Args, n, p.logText())
		}
	}

	if err := proxy.Up(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		status, body = getBody(t, lab.url+"/readyz")
		if status == http.StatusOK && strings.Contains(worker.logText(), "working the queue") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("20 s after the database started: /readyz = %d %s; the worker's log:\n%s", status, body, worker.logText())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if status, body := getBody(t, lab.url+"/api/sessions"); status != http.StatusOK {
		t.Errorf("GET /api/sessions once ready = %d %s", status, body)
	}
}

// -db-wait bounds the wait, for those who prefer to fail fast: past it
// the command fails, saying so.
func TestDBWaitLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the lab binary")
	}
	bin := labBinary(t)
	dbURL, _ := pgtest.NewProxy(t, pgtest.New(t), false)
	for _, args := range [][]string{{"worker", "-db", dbURL, "-db-wait", "600ms"}, {"serve", "-addr", "127.0.0.1:0", "-db", dbURL, "-db-wait", "600ms"}} {
		var out bytes.Buffer
		cmd := exec.Command(bin, args...)
		cmd.Stdout, cmd.Stderr = &out, &out
		start := time.Now()
		err := cmd.Run()
		took := time.Since(start)
		if err == nil || !strings.Contains(out.String(), "-db-wait") || took < 600*time.Millisecond || took > 10*time.Second {
			t.Errorf("lab %s: %v after %v, output:\n%s\nwant a failure after 600 ms naming -db-wait", strings.Join(args[:1], " "), err, took, out.String())
		}
	}
	var out, errb bytes.Buffer
	if code := run([]string{"worker", "-db", dbURL, "-db-wait", "-1s"}, strings.NewReader(""), &out, &errb); code != 2 || !strings.Contains(errb.String(), "-db-wait") {
		t.Errorf("lab worker -db-wait -1s: exit %d %q, want 2 naming -db-wait", code, errb.String())
	}
}

// startTeamProcWaiting starts lab serve with args, and returns once its
// port answers, ready or not.
func startTeamProcWaiting(t *testing.T, bin string, args ...string) *teamProc {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	p := &teamProc{url: "http://" + addr}
	if p.log, err = os.CreateTemp(t.TempDir(), "lab-*.log"); err != nil {
		t.Fatal(err)
	}
	p.cmd = exec.Command(bin, append([]string{"serve", "-addr", addr}, args...)...)
	p.cmd.Stdout, p.cmd.Stderr = p.log, p.log
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.kill)
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		resp, err := http.Get(p.url + "/healthz")
		if err == nil {
			resp.Body.Close()
			return p
		}
		if time.Now().After(deadline) {
			t.Fatalf("lab serve %v does not answer in 30 s: %v\n%s", args, err, p.logText())
		}
	}
}

// exited tells whether p's process has ended (a zombie until waited for).
func exited(p *teamProc) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(p.cmd.Process.Pid) + "/stat")
	if err != nil {
		return true
	}
	_, rest, _ := strings.Cut(string(b), ") ")
	return strings.HasPrefix(rest, "Z")
}

func getBody(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}
