// Package clients holds the game-side clients of the lab, one folder per
// engine; this file tests the C# ones: each compiles with mono's mcs, every
// warning an error, against declarations of its library's public API
// (cmd/lab/internal/export/testdata/csharp, shared with the exports'
// compile test), and runs under mono against a real lab serve.
package clients

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// decls is where the libraries' declarations are.
const decls = "../cmd/lab/internal/export/testdata/csharp"

var (
	monoOnce sync.Once
	monoWhy  string // why mono-mcs could not be had
)

// tool returns the path of mcs or mono. When they are missing and the test
// runs as root (CI), it installs Debian's mono-mcs, which brings both, as
// the exports' compile test does (retrying while another test's apt-get
// holds the lock); a machine where they cannot be had skips the test,
// saying so loudly.
func tool(t *testing.T, name string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("runs mcs, mono and lab serve; skipped with -short")
	}
	monoOnce.Do(func() {
		if _, err := exec.LookPath("mcs"); err == nil {
			return
		}
		if os.Geteuid() != 0 {
			monoWhy = "mcs is not installed and the test is not root, so it cannot apt-get install mono-mcs"
			return
		}
		for try := 0; ; try++ {
			var out []byte
			var err error
			for _, args := range [][]string{{"update", "-qq"}, {"install", "-y", "-qq", "mono-mcs"}} {
				cmd := exec.Command("apt-get", args...)
				cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
				if out, err = cmd.CombinedOutput(); err != nil {
					break
				}
			}
			if err == nil {
				return
			}
			if try == 5 {
				monoWhy = fmt.Sprintf("apt-get install mono-mcs failed: %v: %.300s", err, out)
				return
			}
			time.Sleep(10 * time.Second) // another apt-get may hold the lock
		}
	})
	if monoWhy != "" {
		t.Skipf("SKIPPING THE C# CLIENT TEST: %s", monoWhy)
	}
	p, err := exec.LookPath(name)
	if err != nil {
		t.Skipf("SKIPPING THE C# CLIENT TEST: no %s on PATH after installing mono-mcs", name)
	}
	return p
}

var (
	labOnce sync.Once
	labBin  string
	labErr  error
)

// labBinary builds lab from this tree once (LAB_BIN names a built one).
func labBinary(t *testing.T) string {
	t.Helper()
	labOnce.Do(func() {
		if labBin = os.Getenv("LAB_BIN"); labBin != "" {
			return
		}
		dir, err := os.MkdirTemp("", "interplab-clients-")
		if err != nil {
			labErr = err
			return
		}
		labBin = filepath.Join(dir, "lab")
		if out, err := exec.Command("go", "build", "-o", labBin, "interplab/cmd/lab").CombinedOutput(); err != nil {
			labErr = fmt.Errorf("go build ./cmd/lab: %v\n%s", err, out)
		}
	})
	if labErr != nil {
		t.Fatal(labErr)
	}
	return labBin
}

// testToken is the access token of the labs the tests start with one.
const testToken = "interplab-clients-test-token"

// startLab runs lab serve on a free loopback port and a fresh data
// directory until the end of the test, with the access token testToken
// when token is set, and returns its URL.
func startLab(t *testing.T, token bool) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	var log bytes.Buffer
	cmd := exec.Command(labBinary(t), "serve", "-addr", addr, "-data", t.TempDir())
	cmd.Stdout, cmd.Stderr = &log, &log
	if token {
		cmd.Env = append(os.Environ(), "LAB_TOKEN="+testToken)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		if t.Failed() {
			t.Logf("lab serve's log:\n%s", log.String())
		}
	})
	url := "http://" + addr
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if resp, err := http.Get(url + "/healthz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return url
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("lab serve did not answer within 30 s:\n%s", log.String())
		}
	}
}

// newSession saves a session with settings over the defaults and returns
// its page's URL and its id.
func newSession(t *testing.T, lab string, settings map[string]any) (string, string) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"name": "game", "settings": settings})
	req, _ := http.NewRequest(http.MethodPost, lab+"/api/sessions", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+testToken) // ignored by a lab without a token
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var r struct{ ID string }
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil || resp.StatusCode != http.StatusCreated {
		t.Fatalf("create a session: %d %v", resp.StatusCode, err)
	}
	return lab + "/s/" + r.ID, r.ID
}

// harnessExit is the end every C# test harness shares (HarnessExit.Exit),
// compiled into each Harness.exe beside the harness's own file.
const harnessExit = "testdata/harness_exit.cs"

// build compiles, every warning an error, the declarations of a client's
// library into their assemblies, the client against them (so it can use
// their public API only), and harness with harnessExit into Harness.exe; it
// returns the directory holding them.
func build(t *testing.T, library, libraryDLL string, client []string, harness string) string {
	t.Helper()
	mcs := tool(t, "mcs")
	dir := t.TempDir()
	run := func(args ...string) {
		t.Helper()
		args = append([]string{"-nologo", "-warnaserror+"}, args...)
		if out, err := exec.Command(mcs, args...).CombinedOutput(); err != nil {
			t.Fatalf("mcs %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	out := func(name string) string { return "-out:" + filepath.Join(dir, name) }
	ref := func(name string) string { return "-r:" + filepath.Join(dir, name) }
	run("-target:library", out("UnityEngine.dll"), filepath.Join(decls, "unity.cs"), "testdata/ivt.cs")
	run("-target:library", out(libraryDLL), ref("UnityEngine.dll"), filepath.Join(decls, library), "testdata/ivt.cs")
	run(append([]string{"-target:library", out("InterpLab.dll"), ref("UnityEngine.dll"), ref(libraryDLL)}, client...)...)
	run("-target:exe", out("Harness.exe"), ref("UnityEngine.dll"), ref(libraryDLL), ref("InterpLab.dll"), harness, harnessExit)
	return dir
}

// harness runs Harness.exe under mono with args until the end of the test;
// its output lines come on the channel, each with when it was read.
type line struct {
	text string
	at   time.Time
}

func startHarness(t *testing.T, dir string, args ...string) (<-chan line, *exec.Cmd) {
	t.Helper()
	cmd := exec.Command(tool(t, "mono"), append([]string{filepath.Join(dir, "Harness.exe")}, args...)...)
	cmd.Dir = dir // where mono would write a crash report
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan line, 1<<16)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- line{sc.Text(), time.Now()}
		}
	}()
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return lines, cmd
}

// await returns the first line for which ok holds, failing after d with
// everything the harness printed.
func await(t *testing.T, lines <-chan line, d time.Duration, what string, ok func(string) bool) line {
	t.Helper()
	var seen []string
	timeout := time.After(d)
	for {
		select {
		case l, open := <-lines:
			if !open {
				t.Fatalf("%s: the harness ended; it printed:\n%s", what, strings.Join(seen, "\n"))
			}
			seen = append(seen, l.text)
			if ok(l.text) {
				return l
			}
		case <-timeout:
			t.Fatalf("%s: not within %v; the harness printed:\n%s", what, d, strings.Join(seen, "\n"))
		}
	}
}

// designer connects to the session's live sync as the lab's page does (a
// browser's Origin), and drains what it is sent.
func designer(t *testing.T, lab, id string) *websocket.Conn {
	t.Helper()
	c, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(lab, "http")+"/ws/sessions/"+id,
		http.Header{"Origin": {lab}, "Authorization": {"Bearer " + testToken}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	go func() {
		for {
			if _, _, err := c.ReadMessage(); err != nil {
				return
			}
		}
	}()
	return c
}

// knobSet is one designer's set and the line the harness prints once the
// declared library object has it.
type knobSet struct {
	name  string
	value any
	want  string
}

// follower runs the reference game client, lab follow, on the session
// page until the end of the test: its config lines, as the C# clients'
// baseline.
func follower(t *testing.T, page, token string) <-chan line {
	t.Helper()
	cmd := exec.Command(labBinary(t), "follow", page)
	cmd.Env = append(os.Environ(), "LAB_TOKEN="+token)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	lines := make(chan line, 1024)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			lines <- line{sc.Text(), time.Now()}
		}
	}()
	return lines
}

// checkSets sends each set from a browser-side WebSocket and asserts that
// it reaches the declared settings object within 100 ms; it logs that
// time beside the time the same set takes to reach lab follow (base), the
// reference client, in the same run.
func checkSets(t *testing.T, lines, base <-chan line, d *websocket.Conn, sets []knobSet) {
	t.Helper()
	var game, follow []time.Duration
	for _, s := range sets {
		sent := time.Now()
		if err := d.WriteJSON(map[string]any{"type": "set", "name": s.name, "value": s.value}); err != nil {
			t.Fatal(err)
		}
		l := await(t, lines, 10*time.Second, s.name, func(text string) bool { return text == s.want })
		b := await(t, base, 10*time.Second, s.name+" in lab follow", func(text string) bool {
			var c struct{ Settings map[string]any }
			return json.Unmarshal([]byte(text), &c) == nil && fmt.Sprint(c.Settings[s.name]) == fmt.Sprint(s.value)
		})
		took := l.at.Sub(sent)
		game, follow = append(game, took), append(follow, b.at.Sub(sent))
		t.Logf("%s = %v reached the game in %v (lab follow: %v)", s.name, s.value, took.Round(time.Microsecond), b.at.Sub(sent).Round(time.Microsecond))
		if took >= 100*time.Millisecond {
			t.Errorf("%s = %v took %v to reach the declared object, want under 100 ms", s.name, s.value, took)
		}
	}
	slices.Sort(game)
	slices.Sort(follow)
	g, f := game[len(game)/2], follow[len(follow)/2]
	t.Logf("median of %d sets: the game %v, lab follow %v: %.2f× the reference client's; slowest: the game %v, lab follow %v",
		len(sets), g.Round(time.Microsecond), f.Round(time.Microsecond), float64(g)/float64(f),
		game[len(game)-1].Round(time.Microsecond), follow[len(follow)-1].Round(time.Microsecond))
}

// captureProtocol skips a capture test when this tree's lab does not speak
// the capture protocol (docs/capture-protocol.md), unless LAB_BIN names a
// lab to test against.
func captureProtocol(t *testing.T) {
	t.Helper()
	if _, err := os.Stat("../docs/capture-protocol.md"); err != nil && os.Getenv("LAB_BIN") == "" {
		t.Skip("SKIPPING THE CAPTURE TEST: this tree's lab has no capture protocol (docs/capture-protocol.md)")
	}
}

// fetch GETs path from the lab.
func fetch(t *testing.T, lab, path string) []byte {
	t.Helper()
	resp, err := http.Get(lab + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %v: %.300s", path, resp.StatusCode, err, data)
	}
	return data
}

// awaitSaved waits for a capture harness to say that the lab saved its
// capture, with nothing dropped, and to exit.
func awaitSaved(t *testing.T, lines <-chan line, cmd *exec.Cmd) {
	t.Helper()
	if l := await(t, lines, 5*time.Minute, "the capture's end", func(s string) bool {
		return s == "saved" || s == "not saved" || s == "no config"
	}); l.text != "saved" {
		t.Fatalf("the harness: %s", l.text)
	}
	if l := await(t, lines, 10*time.Second, "the dropped count", func(s string) bool { return strings.HasPrefix(s, "dropped ") }); l.text != "dropped 0" {
		t.Errorf("the client %s, want none", l.text)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("the harness: %v", err)
	}
}

// checkCaptureMatchesCSV uploads the harness's CSV of the updates it
// captured and checks that the capture's trace is whole and that the lab
// replays the two alike: their packets, as the page replays them, are the
// same bytes.
func checkCaptureMatchesCSV(t *testing.T, lab, trace, csvPath string, updates int) {
	t.Helper()
	csv, err := os.ReadFile(csvPath)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Post(lab+"/api/traces?name="+trace+"-csv", "text/csv", bytes.NewReader(csv))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated && resp.StatusCode != http.StatusOK {
		t.Fatalf("upload the CSV: %d %s", resp.StatusCode, body)
	}
	var info struct{ Packets, Entities int }
	if err := json.Unmarshal(fetch(t, lab, "/api/traces/"+trace), &info); err != nil {
		t.Fatal(err)
	}
	if info.Packets != updates || info.Entities != 50 {
		t.Errorf("the capture's trace holds %d packets of %d entities, want %d of 50", info.Packets, info.Entities, updates)
	}
	captured, fromCSV := fetch(t, lab, "/api/traces/"+trace+"/flat"), fetch(t, lab, "/api/traces/"+trace+"-csv/flat")
	if !bytes.Equal(captured, fromCSV) {
		t.Errorf("the capture's packets (%d bytes) differ from its CSV's (%d bytes): %s", len(captured), len(fromCSV), flatDiff(captured, fromCSV))
	}
}

// flatDiff names the first number where two flat traces (engine.AppendFlat:
// 3 header numbers, then 15 a packet, little-endian float64s) differ.
func flatDiff(a, b []byte) string {
	fields := []string{"entity", "seq", "sent", "arrive", "x", "y", "z", "vx", "vy", "vz", "qx", "qy", "qz", "qw", "hasRot"}
	for i := 0; i+8 <= min(len(a), len(b)); i += 8 {
		x, y := math.Float64frombits(binary.LittleEndian.Uint64(a[i:])), math.Float64frombits(binary.LittleEndian.Uint64(b[i:]))
		if x == y || math.IsNaN(x) && math.IsNaN(y) {
			continue
		}
		n := i / 8
		if n < 3 {
			return fmt.Sprintf("header number %d: %v, want %v", n, x, y)
		}
		return fmt.Sprintf("packet %d's %s: %v, want %v", (n-3)/15, fields[(n-3)%15], x, y)
	}
	return "lengths"
}
