package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"interplab/cmd/lab/internal/pgtest"
)

func TestMain(m *testing.M) {
	code := m.Run()
	if bin, err := labBinaryOnce(); err == nil {
		os.RemoveAll(filepath.Dir(bin))
	}
	pgtest.Stop()
	os.Exit(code)
}

// hostile is a request that must not end the process or answer 5xx.
type hostile struct {
	name, method, path, ctype, body string
	origin                          string
	status                          int  // the answer wanted; 0 for any but a 5xx
	chunked                         bool // the body is sent without a length
}

// The real lab process survives what an attacker or a careless client
// sends, and answers every request without a 5xx. (A tuning with a weight
// of 1e308 once made a cost of +Inf that the job runner could not encode,
// and its panic ended the process.)
func TestServeSurvivesHostileRequests(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the lab binary")
	}
	url, proc, _ := startLabProcess(t, labBinary(t), filepath.Join(t.TempDir(), "data"))
	const tuneBase = `"base":"q:preset=harbor-before&duration=2&entities=2","budget":4`
	cases := []hostile{
		{"huge weight", "POST", "/api/tunes", "application/json", `{"technique":"buffer",` + tuneBase + `,"weights":{"errP95":1e308}}`, "", 0, false},
		{"overflowing number", "POST", "/api/tunes", "application/json", `{"technique":"buffer",` + tuneBase + `,"weights":{"errP95":1e999}}`, "", 0, false},
		{"infinite bound", "POST", "/api/tunes", "application/json", `{"technique":"buffer",` + tuneBase + `,"constraints":[{"metric":"addedLatency","max":1e999}]}`, "", 0, false},
		{"cross-site text/plain sweep", "POST", "/api/sweeps", "text/plain", `{"technique":"buffer","x":{"name":"delay","min":0,"max":0.2,"steps":3}}`, "https://evil.example", 0, false},
		{"cross-site cancel", "POST", "/api/jobs/0123456789abcdef/cancel", "", "", "https://evil.example", 0, false},
		{"sweep of an unknown parameter", "POST", "/api/sweeps", "application/json", `{"technique":"buffer","x":{"name":"nope","min":0,"max":1,"steps":2}}`, "", 0, false},
		{"sweep too big", "POST", "/api/sweeps", "application/json", `{"technique":"buffer","x":{"name":"delay","min":0,"max":0.5,"steps":100000}}`, "", 0, false},
		{"NaN in a session", "POST", "/api/sessions", "application/json", `{"name":"x","settings":{"loss":NaN}}`, "", 0, false},
		{"binary trace", "POST", "/api/traces?name=junk", "text/csv", "\x00\x01\x02\xff\xfe", "", 0, false},
		{"a trace of one endless line", "POST", "/api/traces?name=long", "text/plain", strings.Repeat("9", 1<<20), "", 0, false},
		{"deep JSON", "POST", "/api/sessions", "application/json", strings.Repeat("[", 100000), "", 0, false},
	}
	// The second hardening round's (issue 21): every error a clear 4xx.
	var session struct{ ID string }
	resp, err := http.Post(url+"/api/sessions", "application/json", strings.NewReader(`{"name":"target"}`))
	if err != nil || resp.StatusCode != http.StatusCreated || json.NewDecoder(resp.Body).Decode(&session) != nil {
		t.Fatalf("create a session: %v, %v", resp, err)
	}
	resp.Body.Close()
	sess := "/api/sessions/" + session.ID
	eightTraces := []string{"v=q:duration%3D3600%26entities%3D2000"}
	for range 7 {
		eightTraces = append(eightTraces, "v=trace:sample-4g")
	}
	cases = append(cases,
		hostile{"duplicate keys", "POST", "/api/sessions", "application/json", `{"name":"a","name":"b"}`, "", 400, false},
		hostile{"invalid UTF-8", "PUT", sess, "application/json", "{\"rev\":1,\"notes\":\"\xff\"}", "", 400, false},
		hostile{"scenario text that does not parse", "PUT", sess, "application/json",
			`{"rev":1,"settings":{"scenario":"custom","scenarioText":"spike at=1 for=soon delay=0.1"}}`, "", 400, false},
		hostile{"endless outage", "PUT", sess, "application/json",
			`{"rev":1,"settings":{"scenario":"custom","scenarioText":"outage at=1 for=1e308"}}`, "", 400, false},
		hostile{"notes over the cap", "PUT", sess, "application/json", `{"rev":1,"notes":"` + strings.Repeat("n", 70000) + `"}`, "", 400, false},
		hostile{"chunked delete over the cap", "DELETE", sess, "application/json", `{"x":"` + strings.Repeat("x", 196<<10) + `"}`, "", 413, true},
		hostile{"chunked preset over the cap", "POST", "/api/presets", "application/json", `{"x":"` + strings.Repeat("x", 300<<10) + `"}`, "", 413, true},
		hostile{"flat of no trace", "GET", "/api/traces/nope/flat", "", "", "", 404, false},
		hostile{"compare of too much work with seven replays", "GET", "/compare.csv?chart=metrics&" + strings.Join(eightTraces, "&"), "", "", "", 400, false},
	)
	hc := &http.Client{Timeout: 30 * time.Second}
	for _, c := range cases {
		var body io.Reader = strings.NewReader(c.body)
		if c.chunked {
			body = io.MultiReader(body)
		}
		req, _ := http.NewRequest(c.method, url+c.path, body)
		if c.ctype != "" {
			req.Header.Set("Content-Type", c.ctype)
		}
		if c.origin != "" {
			req.Header.Set("Origin", c.origin)
		}
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatalf("%s: %v (the process: %v)", c.name, err, alive(proc))
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode >= 500 {
			t.Errorf("%s: %s %.80s = %d, want no 5xx", c.name, c.method, c.path, resp.StatusCode)
		}
		if c.status != 0 && resp.StatusCode != c.status {
			t.Errorf("%s: %s %.80s = %d, want %d", c.name, c.method, c.path, resp.StatusCode, c.status)
		}
		if c.origin != "" && resp.StatusCode != http.StatusForbidden {
			t.Errorf("%s: %d, want 403", c.name, resp.StatusCode)
		}
	}
	// The session survived every refused change.
	var after struct {
		Rev     int
		Deleted *time.Time
	}
	resp, err = hc.Get(url + sess)
	if err != nil || json.NewDecoder(resp.Body).Decode(&after) != nil || after.Rev != 1 || after.Deleted != nil {
		t.Errorf("after the hostile requests the session is %+v (%v), want rev 1, not deleted", after, err)
	}
	resp.Body.Close()
	// Give a job that might still die in the background its chance to.
	time.Sleep(500 * time.Millisecond)
	resp, err = hc.Get(url + "/api/params")
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("after the hostile requests: GET /api/params = %v, %v; the process: %v", resp, err, alive(proc))
	}
	resp.Body.Close()
}

// alive says whether proc still runs.
func alive(proc *os.Process) string {
	if _, err := os.Stat("/proc/" + strconv.Itoa(proc.Pid)); err != nil {
		return "exited"
	}
	return "running"
}

// peakRSS returns the process's peak resident memory (VmHWM), bytes.
func peakRSS(t *testing.T, pid int) int64 {
	t.Helper()
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Skip("no VmHWM in /proc/PID/status")
	return 0
}

// bigTrace returns a valid CSV trace of about size bytes (10 entities at
// 20 Hz, every number at full precision).
func bigTrace(size int) []byte {
	var b bytes.Buffer
	b.WriteString("entity,seq,sent,arrive,x,y,z,vx,vy,vz,qx,qy,qz,qw\n")
	for seq := 0; b.Len() < size-2000; seq++ {
		for e := range 10 {
			sent := 1764000000.123456789 + float64(seq)*0.05
			fmt.Fprintf(&b, "%d,%d,%.9f,%.9f,%.9f,%.9f,0.000000000,7.123456789,-3.987654321,0.000000000,0.000000000,0.000000000,0.382683432,0.923879533\n",
				e, seq, sent, sent+0.04+float64((seq*7+e)%13)*0.001, 123.456789012+float64(seq)*0.35, -45.678901234-float64(e))
		}
	}
	return b.Bytes()
}

// Eight 30 MiB trace uploads at once stay well under 1 GiB of resident
// memory in the real lab process: under 600 MiB, since only two are parsed
// at a time (the others wait on disk). When each upload was read whole and
// all were parsed at once they took 930 MiB here (2.1 GiB on the machine
// the hardening issue measured); spooled and streamed, 347–388 MiB, and
// 250–274 MiB since a save encodes the packets a block at a time (three
// runs each, 2026-11-27; the README quotes it).
func TestUploadsBoundedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the lab binary with 240 MiB of uploads")
	}
	url, proc, _ := startLabProcess(t, labBinary(t), filepath.Join(t.TempDir(), "data"))
	before := peakRSS(t, proc.Pid)
	data := bigTrace(30 << 20)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := range 8 {
		wg.Go(func() {
			resp, err := http.Post(fmt.Sprintf("%s/api/traces?name=big-%d", url, i), "text/csv", bytes.NewReader(data))
			if err != nil {
				errs <- err
				return
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusCreated {
				errs <- fmt.Errorf("upload %d: %d %s", i, resp.StatusCode, body)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	peak := peakRSS(t, proc.Pid)
	t.Logf("8 concurrent uploads of %.1f MiB: peak RSS %.0f MiB (%.0f MiB before)", float64(len(data))/(1<<20), float64(peak)/(1<<20), float64(before)/(1<<20))
	if peak > 600<<20 {
		t.Errorf("peak RSS %.0f MiB, want under 600 MiB", float64(peak)/(1<<20))
	}
}
