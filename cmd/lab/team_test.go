package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/jackc/pgx/v5"

	"interplab/cmd/lab/internal/link"
	"interplab/cmd/lab/internal/pgtest"
	"interplab/cmd/lab/internal/report"
	"interplab/engine"
	"interplab/engine/study"
	"interplab/presets"
)

// teamProc is a lab serve or lab worker process of a team test.
type teamProc struct {
	cmd *exec.Cmd
	log *os.File
	url string // a lab's
}

// startTeamProc starts bin with args (lab serve gets -addr) and, for a
// lab, waits until /readyz answers 200.
func startTeamProc(t testing.TB, bin string, serve bool, args ...string) *teamProc {
	t.Helper()
	p := &teamProc{}
	if serve {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close()
		args = append([]string{"serve", "-addr", addr}, args...)
		p.url = "http://" + addr
	} else {
		args = append([]string{"worker"}, args...)
	}
	var err error
	if p.log, err = os.CreateTemp(t.TempDir(), "team-*.log"); err != nil {
		t.Fatal(err)
	}
	p.cmd = exec.Command(bin, args...)
	p.cmd.Stdout, p.cmd.Stderr = p.log, p.log
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.kill)
	if !serve {
		return p
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		resp, err := http.Get(p.url + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return p
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("lab serve %v not ready in 30 s: %v\n%s", args, err, p.logText())
		}
	}
}

// kill ends the process with SIGKILL: no shutdown of any kind.
func (p *teamProc) kill() {
	if p.cmd.ProcessState == nil {
		p.cmd.Process.Kill()
		p.cmd.Wait()
	}
}

func (p *teamProc) logText() string {
	b, _ := os.ReadFile(p.log.Name())
	return string(b)
}

// The chaos test of a team on one PostgreSQL database: two labs, two
// workers. A population run starts on lab A while an editor on A makes
// 100 live edits of a session that a viewer on B watches. The run is
// units of entities that both workers take. Mid-run, once units are
// recorded, lab A and a worker that has just started a unit are killed
// with SIGKILL. The editor reconnects to B and sends again the edit it
// had no acknowledgement for; the killed unit goes back on the queue and
// the other worker runs it, and the rest. Then: no acknowledged edit is
// lost (the live state is every edit applied in order), the killed unit
// ran again and no recorded unit did, and the run's result is lab
// population -json's, byte for byte (and its CSV lab population -csv's).
func TestTeamChaos(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a PostgreSQL server and four lab processes")
	}
	url := pgtest.New(t)
	bin := labBinary(t)
	labA := startTeamProc(t, bin, true, "-db", url)
	labB := startTeamProc(t, bin, true, "-db", url)
	workers := []*teamProc{startTeamProc(t, bin, false, "-db", url), startTeamProc(t, bin, false, "-db", url)}

	// The session, made on A, and its viewer on B.
	resp, err := http.Post(labA.url+"/api/sessions", "application/json", strings.NewReader(`{"name":"chaos"}`))
	if err != nil {
		t.Fatal(err)
	}
	var sess struct{ ID string }
	json.NewDecoder(resp.Body).Decode(&sess)
	resp.Body.Close()
	ws := func(lab *teamProc) string {
		return "ws" + strings.TrimPrefix(lab.url, "http") + "/ws/sessions/" + sess.ID
	}
	viewer, _, err := websocket.DefaultDialer.Dial(ws(labB), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer viewer.Close()

	// The study.
	const popArgs = `"base":"preset:harbor-before","techniques":["buffer"],"entities":600,"rounds":4,"round":60`
	resp, err = http.Post(labA.url+"/api/populations", "application/json", strings.NewReader(`{`+popArgs+`}`))
	if err != nil {
		t.Fatal(err)
	}
	var job struct{ ID string }
	if err := json.NewDecoder(resp.Body).Decode(&job); err != nil || resp.StatusCode != http.StatusAccepted {
		t.Fatalf("start the population run: %d, %v", resp.StatusCode, err)
	}
	resp.Body.Close()

	// The edits: edit i sets one of three parameters; each waits for its
	// acknowledgement, and after a lost connection is sent again on B.
	edits := func(i int) (name, text string, check func(engine.Settings) bool) {
		switch i % 3 {
		case 0:
			v := 1000 + i
			return "seed", strconv.Itoa(v), func(s engine.Settings) bool { return s.Seed == v }
		case 1:
			v := float64(i+1) / 1000
			return "latency", strconv.Itoa(i+1) + "ms", func(s engine.Settings) bool { return s.Latency == v }
		default:
			v := float64(i%40) / 1000
			return "jitter", strconv.Itoa(i%40) + "ms", func(s engine.Settings) bool { return s.Jitter == v }
		}
	}
	editor, _, err := websocket.DefaultDialer.Dial(ws(labA), nil)
	if err != nil {
		t.Fatal(err)
	}
	var you string
	readHello := func(c *websocket.Conn) {
		var m struct{ You string }
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		if err := c.ReadJSON(&m); err != nil {
			t.Fatalf("hello: %v", err)
		}
		you = m.You
	}
	readHello(editor)
	acked, resent, killed := 0, 0, false
	var victim *teamProc
	var killedUnit int
	recordedAtKill := false
	for i := 0; i < 100; {
		if i == 40 && !killed {
			// Mid-run: lab A and a worker mid-unit die.
			victim, killedUnit = waitMidUnit(t, workers, labB.url, job.ID)
			labA.kill()
			victim.kill()
			recordedAtKill = unitRecorded(t, url, job.ID, killedUnit)
			killed = true
		}
		name, text, check := edits(i)
		ok := editor.WriteJSON(map[string]any{"type": "set", "name": name, "value": text}) == nil
		for ok {
			var m struct {
				Type, From string
				Config     struct{ Settings engine.Settings }
			}
			editor.SetReadDeadline(time.Now().Add(3 * time.Second))
			if editor.ReadJSON(&m) != nil {
				ok = false
				break
			}
			if m.Type == "config" && m.From == you && check(m.Config.Settings) {
				break
			}
		}
		if !ok {
			// No acknowledgement: the lab is gone. Reconnect to B and
			// send the edit again.
			editor.Close()
			if editor, _, err = websocket.DefaultDialer.Dial(ws(labB), nil); err != nil {
				t.Fatal(err)
			}
			readHello(editor)
			resent++
			continue
		}
		acked++
		i++
	}
	editor.Close()
	if !killed || resent == 0 {
		t.Logf("note: the kill came between edits (resent %d)", resent)
	}

	// Every acknowledged edit is in the live state, in order.
	want := engine.Defaults()
	for i := range 100 {
		name, text, _ := edits(i)
		p, _ := engine.Lookup(name)
		v, err := p.Parse(text)
		if err != nil {
			t.Fatal(err)
		}
		p.Set(&want, v)
	}
	fresh, _, err := websocket.DefaultDialer.Dial(ws(labB), nil)
	if err != nil {
		t.Fatal(err)
	}
	var hello struct {
		Config struct{ Settings engine.Settings }
	}
	fresh.SetReadDeadline(time.Now().Add(5 * time.Second))
	if err := fresh.ReadJSON(&hello); err != nil {
		t.Fatal(err)
	}
	fresh.Close()
	got := hello.Config.Settings
	if got.Seed != want.Seed || got.Latency != want.Latency || got.Jitter != want.Jitter {
		t.Errorf("after the chaos the live state has seed %d latency %v jitter %v; want %d, %v, %v: acknowledged edits lost",
			got.Seed, got.Latency, got.Jitter, want.Seed, want.Latency, want.Jitter)
	}
	t.Logf("%d edits acknowledged, %d sent again after lab A died", acked, resent)

	// The run completes, on the other worker.
	deadline := time.Now().Add(3 * time.Minute)
	for {
		resp, err := http.Get(labB.url + "/api/jobs/" + job.ID)
		if err != nil {
			t.Fatal(err)
		}
		var st struct{ State, Error string }
		json.NewDecoder(resp.Body).Decode(&st)
		resp.Body.Close()
		if st.State == "done" {
			break
		}
		if st.State != "running" {
			t.Fatalf("the run ended %s (%s), want done", st.State, st.Error)
		}
		if time.Now().After(deadline) {
			t.Fatalf("the run is not done 3 minutes after the kill")
		}
		time.Sleep(200 * time.Millisecond)
	}

	// The killed unit was not recorded when its worker died: it ran again
	// on the other worker, the only unit that ran twice.
	if recordedAtKill {
		t.Errorf("unit %d was recorded before its worker was killed: the kill was not mid-unit", killedUnit)
	}
	starts := map[int][]*teamProc{}
	for _, w := range workers {
		for _, u := range unitsStarted(w.logText(), job.ID) {
			starts[u] = append(starts[u], w)
		}
	}
	for u, ws := range starts {
		switch {
		case u == killedUnit:
			if len(ws) != 2 || ws[0] == ws[1] || ws[0] != victim && ws[1] != victim {
				t.Errorf("the killed unit %d started %d times, want on the killed worker, then on the other", u, len(ws))
			}
		case len(ws) != 1:
			t.Errorf("unit %d started %d times: a unit recorded must not run again", u, len(ws))
		}
	}
	t.Logf("%d units; unit %d killed mid-run and run again", len(starts), killedUnit)

	// Its result is lab population's, byte for byte.
	cliArgs := []string{"population", "-preset", "harbor-before", "-techniques", "buffer", "-entities", "600", "-rounds", "4", "-round", "60"}
	cliJSON := runLabBin(t, bin, append(cliArgs, "-json")...)
	csvFile := t.TempDir() + "/pop.csv"
	runLabBin(t, bin, append(cliArgs, "-csv", csvFile)...)
	conn, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var result string
	if err := conn.QueryRow(context.Background(), `SELECT result FROM jobs WHERE id = $1`, job.ID).Scan(&result); err != nil {
		t.Fatal(err)
	}
	var res study.PopulationResult
	if err := json.Unmarshal([]byte(result), &res); err != nil {
		t.Fatal(err)
	}
	pp, _ := presets.GetPopulation(presets.DefaultPopulation)
	base, _ := presets.Get("harbor-before")
	base.Settings.Techniques = []string{"buffer"}
	pop := pp.Population.With(600, 4, 60)
	urlOf := func(e int) string { return "/?" + link.Query("harbor-before", pop.EntitySettings(base.Settings, e)) }
	var jobJSON bytes.Buffer
	enc := json.NewEncoder(&jobJSON)
	enc.SetIndent("", "  ")
	if err := enc.Encode(report.NewPopulationJSON("harbor-before", pp.Name, &res, urlOf)); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(jobJSON.Bytes(), cliJSON) {
		t.Errorf("the queued run's JSON differs from lab population -json's:\n%s\nwant\n%s", firstDiff(jobJSON.Bytes(), cliJSON), "")
	}
	resp, err = http.Get(labB.url + "/population/" + job.ID + "/data.csv")
	if err != nil {
		t.Fatal(err)
	}
	served, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	wantCSV, _ := os.ReadFile(csvFile)
	if !bytes.Equal(served, wantCSV) {
		t.Errorf("the queued run's CSV (%d bytes) differs from lab population -csv's (%d bytes):\n%s", len(served), len(wantCSV), firstDiff(served, wantCSV))
	}
	// The unit was put back: the other worker's log says so.
	retried := false
	for _, w := range workers {
		retried = retried || w != victim && strings.Contains(w.logText(), "goes back on the queue")
	}
	if !retried {
		t.Errorf("no worker put the killed worker's unit back on the queue")
	}
}

// waitMidUnit returns a worker that has just started a unit of study id,
// and the unit's number, once the study has recorded units: a worker that
// logs "unit started" after it has been watched for a while, and has
// units to run that take far longer than this loop's 10 ms.
func waitMidUnit(t *testing.T, workers []*teamProc, lab, id string) (*teamProc, int) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for ; ; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the run recorded no unit in 60 s")
		}
		resp, err := http.Get(lab + "/api/jobs/" + id)
		if err != nil {
			continue
		}
		var st struct{ Done int }
		json.NewDecoder(resp.Body).Decode(&st)
		resp.Body.Close()
		if st.Done > 0 {
			break
		}
	}
	seen := make([]int, len(workers))
	for i, w := range workers {
		seen[i] = len(unitsStarted(w.logText(), id))
	}
	for ; time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		for i, w := range workers {
			if units := unitsStarted(w.logText(), id); len(units) > seen[i] {
				return w, units[len(units)-1]
			}
		}
	}
	t.Fatal("no worker started a unit in 60 s")
	return nil, 0
}

// unitRecorded tells whether unit n of study id has its result in the
// database at url.
func unitRecorded(t *testing.T, url, id string, n int) bool {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var recorded bool
	if err := conn.QueryRow(context.Background(), `SELECT result IS NOT NULL FROM job_units WHERE job = $1 AND n = $2`, id, n).Scan(&recorded); err != nil {
		t.Fatal(err)
	}
	return recorded
}

// unitsStarted returns the units of study id a worker's log says it
// started, in order.
func unitsStarted(log, id string) []int {
	var units []int
	for line := range strings.Lines(log) {
		if !strings.Contains(line, `msg="unit started"`) || !strings.Contains(line, " job="+id+" ") {
			continue
		}
		_, rest, _ := strings.Cut(line, " unit=")
		n, err := strconv.Atoi(strings.Fields(rest)[0])
		if err == nil {
			units = append(units, n)
		}
	}
	return units
}

// runLabBin runs the lab binary and returns its standard output.
func runLabBin(t *testing.T, bin string, args ...string) []byte {
	t.Helper()
	var out, errb bytes.Buffer
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("lab %v: %v\n%s", args, err, errb.String())
	}
	return out.Bytes()
}

// firstDiff shows where a and b first differ.
func firstDiff(a, b []byte) string {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return fmt.Sprintf("at byte %d: %q vs %q", n, a[n:min(len(a), n+80)], b[n:min(len(b), n+80)])
}
