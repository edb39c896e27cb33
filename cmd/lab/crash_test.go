package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// Crash test: kill -9 the real lab binary while clients save; after a
// restart on the same data directory every acknowledged save is there.
func TestCrashKeepsAcknowledgedSaves(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the lab binary")
	}
	bin := labBinary(t)
	data := filepath.Join(t.TempDir(), "data")

	url, stop := startLab(t, bin, data)
	const clients = 4
	type ack struct {
		id   string
		rev  int
		seed int
	}
	var (
		mu    sync.Mutex
		acks  []ack
		wg    sync.WaitGroup
		kill  = make(chan struct{})
		once  sync.Once
		hc    = &http.Client{Timeout: 5 * time.Second}
		start = time.Now()
	)
	killNow := func() { once.Do(func() { close(kill) }) }
	post := func(method, path string, body any) (int, crashRevision, error) {
		data, _ := json.Marshal(body)
		req, _ := http.NewRequest(method, url+path, bytes.NewReader(data))
		req.Header.Set("Content-Type", "application/json")
		resp, err := hc.Do(req)
		if err != nil {
			return 0, crashRevision{}, err
		}
		defer resp.Body.Close()
		var r crashRevision
		err = json.NewDecoder(resp.Body).Decode(&r)
		return resp.StatusCode, r, err
	}
	for c := range clients {
		wg.Go(func() {
			id, rev := "", 0
			for i := range 2000 { // bounded; the kill comes long before
				seed := c*100000 + i
				var status int
				var r crashRevision
				var err error
				if id == "" {
					status, r, err = post("POST", "/api/sessions", map[string]any{
						"name": fmt.Sprint("client ", c), "settings": map[string]any{"seed": seed}})
				} else {
					status, r, err = post("PUT", "/api/sessions/"+id, map[string]any{"rev": rev, "settings": map[string]any{"seed": seed}})
				}
				if err != nil || (status != http.StatusOK && status != http.StatusCreated) {
					return // the server died under us: this save is not acknowledged
				}
				id, rev = r.ID, r.Rev
				mu.Lock()
				acks = append(acks, ack{r.ID, r.Rev, seed})
				if len(acks) >= 80 || time.Since(start) > 5*time.Second {
					killNow()
				}
				mu.Unlock()
			}
		})
	}
	select {
	case <-kill:
	case <-time.After(20 * time.Second):
		t.Log("no kill trigger after 20 s: killing anyway")
	}
	stop() // kill -9 while the clients are still saving
	wg.Wait()

	mu.Lock()
	defer mu.Unlock()
	if len(acks) < clients {
		t.Fatalf("only %d acknowledged saves before the kill: too few to test", len(acks))
	}
	url, stop = startLab(t, bin, data)
	defer stop()
	latest := map[string]int{}
	for _, a := range acks {
		req, _ := http.NewRequest("GET", fmt.Sprintf("%s/api/sessions/%s/revisions/%d", url, a.id, a.rev), nil)
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatalf("after restart: %v", err)
		}
		var r crashRevision
		json.NewDecoder(resp.Body).Decode(&r)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || r.Settings.Seed != a.seed {
			t.Errorf("after restart, acknowledged %s rev %d: status %d seed %d, want 200 seed %d",
				a.id, a.rev, resp.StatusCode, r.Settings.Seed, a.seed)
		}
		latest[a.id] = max(latest[a.id], a.rev)
	}
	for id, rev := range latest {
		req, _ := http.NewRequest("GET", url+"/api/sessions/"+id, nil)
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var s crashSession
		json.NewDecoder(resp.Body).Decode(&s)
		resp.Body.Close()
		if s.Rev < rev || len(s.Revisions) != s.Rev {
			t.Errorf("after restart %s is at rev %d with %d revisions, want at least %d, contiguous", id, s.Rev, len(s.Revisions), rev)
		}
	}
	if !t.Failed() {
		t.Logf("%d acknowledged saves over %d sessions survived kill -9", len(acks), len(latest))
	}
}

// crashRevision is the part of a revision in the API the test reads.
type crashRevision struct {
	ID       string
	Rev      int
	Settings struct{ Seed int }
}

// crashSession is the part of a session in the API the test reads.
type crashSession struct {
	Rev       int
	Revisions []struct{ Rev int }
}

// labBinaryOnce builds the lab binary once for the tests that run it as a
// process.
var labBinaryOnce = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "lab-bin-*")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "lab")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build: %v\n%s", err, out)
	}
	return bin, nil
})

// labBinary returns the path of the lab binary, built from this package.
func labBinary(t testing.TB) string {
	t.Helper()
	bin, err := labBinaryOnce()
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// startLab starts lab serve on a free loopback port and waits until it
// answers; stop kills it with SIGKILL.
func startLab(t *testing.T, bin, data string) (url string, stop func()) {
	url, _, stop = startLabProcess(t, bin, data)
	return url, stop
}

// startLabProcess is startLab, with the process.
func startLabProcess(t *testing.T, bin, data string) (url string, proc *os.Process, stop func()) {
	t.Helper()
	return startLabProcessWith(t, bin, data, nil, "/api/sessions")
}

// startLabProcessWith is startLabProcess with env added to the lab's
// environment, waiting until GET ready answers 200.
func startLabProcessWith(t *testing.T, bin, data string, env []string, ready string) (url string, proc *os.Process, stop func()) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	out, err := os.CreateTemp(t.TempDir(), "lab-serve-*.log")
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	cmd := exec.Command(bin, "serve", "-addr", addr, "-data", data)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cmd.Process.Kill() // SIGKILL: no shutdown, no flush
			cmd.Wait()
		})
	}
	t.Cleanup(stop)
	url = "http://" + addr
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		resp, err := http.Get(url + ready)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return url, cmd.Process, stop
			}
		}
		if time.Now().After(deadline) {
			stop()
			log, _ := os.ReadFile(out.Name())
			t.Fatalf("lab serve did not answer GET %s with 200 within 20 s (last: %v)\n%s", ready, err, log)
		}
	}
}
