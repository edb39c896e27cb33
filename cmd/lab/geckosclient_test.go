package main

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// The geckos.io client (clients/geckos/index.js) in Node 20 against the
// real @geckos.io/snapshot-interpolation 1.1.1 and a real lab serve with an
// access token: a knob a designer's tab sets takes effect in the
// SnapshotInterpolation within 100 ms, and a recorded capture comes back
// from the lab as the trace of exactly what was recorded.
func TestGeckosClientInNode(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the lab binary and runs Node")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node not found: %v", err)
	}
	pkg := geckosPackage(t)
	const token = "geckos-client-test-token-0123456789"
	base, _, _ := startLabProcessWith(t, labBinary(t), filepath.Join(t.TempDir(), "data"), []string{"LAB_TOKEN=" + token}, "/login")
	api := func(method, path, body string) []byte {
		t.Helper()
		req, _ := http.NewRequest(method, base+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		data, _ := io.ReadAll(resp.Body)
		if resp.StatusCode >= 300 {
			t.Fatalf("%s %s = %s: %s", method, path, resp.Status, data)
		}
		return data
	}
	var sess struct{ ID string }
	json.Unmarshal(api("POST", "/api/sessions", `{"name":"geckos live","settings":{"techniques":["geckos"]}}`), &sess)

	client, err := filepath.Abs("../../clients/geckos/index.js")
	if err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(t.TempDir(), "game.mjs")
	if err := os.WriteFile(script, []byte(geckosGame), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, "--experimental-websocket", script)
	cmd.Env = append(os.Environ(), "GECKOS_PKG="+pkg, "CLIENT=file://"+client, "SESSION_URL="+base+"/s/"+sess.ID, "TOKEN="+token)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	type line struct {
		At       int64          `json:"at"`
		Buffer   float64        `json:"buffer"`
		Vault    int            `json:"vault"`
		Auto     bool           `json:"auto"`
		Log      string         `json:"log"`
		Recorded [][]float64    `json:"recorded"`
		Saved    map[string]any `json:"saved"`
		Stats    map[string]any `json:"stats"`
	}
	lines := make(chan line, 100)
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			var l line
			if json.Unmarshal(sc.Bytes(), &l) == nil {
				lines <- l
			}
		}
		close(lines)
	}()
	next := func(what string, ok func(line) bool) line {
		t.Helper()
		timeout := time.After(30 * time.Second)
		for {
			select {
			case l, open := <-lines:
				if !open {
					t.Fatalf("node ended waiting for %s; stderr:\n%s", what, stderr.String())
				}
				if l.Log != "" {
					t.Logf("client: %s", l.Log)
				}
				if ok(l) {
					return l
				}
			case <-timeout:
				t.Fatalf("no %s from node within 30 s; stderr:\n%s", what, stderr.String())
			}
		}
	}
	// The constructor's serverFPS 20: a buffer of 150 ms, the default vault.
	first := next("the first configuration", func(l line) bool { return l.At != 0 })
	if first.Buffer != 150 || first.Vault != 120 || !first.Auto {
		t.Errorf("after the first config: buffer %v, vault %d, auto %v; want 150, 120, true", first.Buffer, first.Vault, first.Auto)
	}

	// A designer's tab sets knobs over the page's WebSocket.
	h := http.Header{"Authorization": {"Bearer " + token}, "Origin": {base}}
	tab, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(base, "http")+"/ws/sessions/"+sess.ID, h)
	if err != nil {
		t.Fatal(err)
	}
	defer tab.Close()
	for _, k := range []struct {
		set  string
		want func(line) bool
	}{
		{`{"type":"set","name":"geckos.interpolationBuffer","value":180}`, func(l line) bool { return l.Buffer == 180 }},
		{`{"type":"set","name":"geckos.vaultSize","value":60}`, func(l line) bool { return l.Vault == 60 }},
		{`{"type":"set","name":"geckos.autoCorrectTimeOffset","value":false}`, func(l line) bool { return !l.Auto }},
		{`{"type":"set","name":"geckos.interpolationBuffer","value":-1}`, func(l line) bool { return l.Buffer == 150 }},
	} {
		sent := time.Now()
		if err := tab.WriteMessage(websocket.TextMessage, []byte(k.set)); err != nil {
			t.Fatal(err)
		}
		got := next(k.set, func(l line) bool { return l.At != 0 && k.want(l) })
		if d := time.UnixMilli(got.At).Sub(sent); d > 100*time.Millisecond {
			t.Errorf("%s took effect in SnapshotInterpolation after %v, want within 100 ms", k.set, d)
		} else {
			t.Logf("%s: in SnapshotInterpolation after %v", k.set, d)
		}
	}

	// Record 600 snapshots of 5 entities, and end the capture.
	io.WriteString(stdin, `{"record":600}`+"\n")
	rec := next("the recorded updates", func(l line) bool { return l.Recorded != nil })
	io.WriteString(stdin, `{"close":true}`+"\n")
	saved := next("the saved capture", func(l line) bool { return l.Stats != nil })
	if saved.Saved["trace"] != "geckos-node" || saved.Saved["updates"] != float64(len(rec.Recorded)) {
		t.Fatalf("saved = %v (client %v), want the trace geckos-node with %d updates", saved.Saved, saved.Stats, len(rec.Recorded))
	}

	// The trace, as the lab serves it (engine.Trace.AppendFlat's numbers).
	flat := api("GET", "/api/traces/geckos-node/flat", "")
	nums := make([]float64, len(flat)/8)
	for i := range nums {
		nums[i] = math.Float64frombits(binary.LittleEndian.Uint64(flat[8*i:]))
	}
	const head, stride = 3, 15
	if n := int(nums[2]); n != len(rec.Recorded) || int(nums[1]) != 5 {
		t.Fatalf("trace: %v packets of %v entities, want %d of 5", nums[2], nums[1], len(rec.Recorded))
	}
	type prev struct {
		sent float64
		pos  [3]float64
		seq  int
	}
	last := map[int]*prev{}
	for i, r := range rec.Recorded { // entity, sent, arrive, x, y, z, qx, qy, qz, qw (0 0 0 0: none)
		p := nums[head+i*stride : head+(i+1)*stride]
		e := int(r[0])
		seq, vel := 0, [3]float64{}
		if l := last[e]; l != nil {
			seq = l.seq + 1
			for k := range 3 {
				vel[k] = (r[3+k] - l.pos[k]) / (r[1] - l.sent)
			}
		}
		last[e] = &prev{r[1], [3]float64{r[3], r[4], r[5]}, seq}
		want := []float64{r[0], float64(seq), r[1], r[2], r[3], r[4], r[5], vel[0], vel[1], vel[2], 0, 0, 0, 1, 0}
		if r[9] != 0 {
			copy(want[10:], r[6:10])
			want[14] = 1
		}
		for k := range want {
			if p[k] != want[k] {
				t.Fatalf("packet %d = %v, want %v (recorded %v)", i, p, want, r)
			}
		}
	}
}

// geckosPackage returns the directory of @geckos.io/snapshot-interpolation
// 1.1.1 installed by npm under $HOME/.cache/interplab-npm, as the geckos
// technique's differential test installs it (package geckos), installing
// it there when missing.
func geckosPackage(t *testing.T) string {
	t.Helper()
	home, err := os.UserHomeDir()
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(home, ".cache", "interplab-npm", "geckos-1.1.1")
	pkg := filepath.Join(root, "node_modules", "@geckos.io", "snapshot-interpolation")
	if data, err := os.ReadFile(filepath.Join(pkg, "package.json")); err == nil && bytes.Contains(data, []byte(`"version": "1.1.1"`)) {
		return pkg
	}
	tmp, err := os.MkdirTemp(t.TempDir(), "npm-")
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("npm", "install", "--prefix", tmp, "--no-audit", "--no-fund", "--no-save", "@geckos.io/snapshot-interpolation@1.1.1").CombinedOutput()
	if err != nil {
		t.Fatalf("npm install @geckos.io/snapshot-interpolation@1.1.1: %v\n%s", err, out)
	}
	return filepath.Join(tmp, "node_modules", "@geckos.io", "snapshot-interpolation")
}

// geckosGame is a game in Node: a real SnapshotInterpolation followed by
// the client; it prints the library's state after every configuration,
// records snapshots on {"record":N} (printing what it recorded) and ends on
// {"close":true} (printing what the lab saved).
const geckosGame = `
import { createRequire } from 'node:module'
import readline from 'node:readline'
const require = createRequire(import.meta.url)
const { SnapshotInterpolation } = require(process.env.GECKOS_PKG)
const { follow } = await import(process.env.CLIENT)

const out = (o) => process.stdout.write(JSON.stringify(o) + '\n')
const SI = new SnapshotInterpolation(20)
let clock = Date.now()
const h = follow(process.env.SESSION_URL, SI, {
  token: process.env.TOKEN, name: 'geckos-node', flushMs: 20,
  now: () => clock,
  log: (line) => out({ log: line }),
  onSettings: () => out({ at: Date.now(), buffer: SI.interpolationBuffer.get(), vault: SI.vault.getMaxSize(), auto: SI.config.autoCorrectTimeOffset }),
})

const rl = readline.createInterface({ input: process.stdin })
for await (const line of rl) {
  const cmd = JSON.parse(line)
  if (cmd.record) {
    const recorded = []
    for (let k = 0; k < cmd.record; k++) {
      clock += 50
      const time = clock - 40 - (k % 7)
      const state = []
      for (let e = 0; e < 5; e++) {
        const ent = { id: 'p' + e, x: k * 0.25 + e, y: Math.sin(k / 10) * 3, z: e === 4 ? undefined : 1.5 }
        if (e % 2 === 0) ent.q = { x: 0, y: Math.sin(k / 20), z: 0, w: Math.cos(k / 20) }
        state.push(ent)
      }
      const snap = { id: SnapshotInterpolation.NewId(), time, state }
      SI.snapshot.add(snap)
      h.record(snap)
      for (let e = 0; e < 5; e++) {
        const s = state[e]
        const q = s.q ? [s.q.x, s.q.y, s.q.z, s.q.w] : [0, 0, 0, 0]
        recorded.push([e, time / 1000, clock / 1000, s.x, s.y, s.z ?? 0, ...q])
      }
    }
    out({ recorded })
  } else if (cmd.close) {
    const saved = await h.close()
    out({ saved, stats: h.stats })
    process.exit(0)
  }
}
`

// The geckos client alone, in Node: a value it cannot apply is refused
// with one log line and the library keeps its value; record never holds
// more than maxBuffer updates, dropping the oldest and counting them.
func TestGeckosClientRefusesAndBounds(t *testing.T) {
	if testing.Short() {
		t.Skip("runs Node")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node not found: %v", err)
	}
	pkg := geckosPackage(t)
	client, err := filepath.Abs("../../clients/geckos/index.js")
	if err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(t.TempDir(), "alone.mjs")
	os.WriteFile(script, []byte(`
import { createRequire } from 'node:module'
const require = createRequire(import.meta.url)
const { SnapshotInterpolation } = require(process.env.GECKOS_PKG)
const { applyGeckos, follow } = await import(process.env.CLIENT)
const logs = []
const SI = new SnapshotInterpolation(20)
SI.vault.setMaxSize = undefined // a build without it
const applied = {}
applyGeckos(SI, { 'geckos.interpolationBuffer': 5000, 'geckos.vaultSize': 60, 'geckos.autoCorrectTimeOffset': false }, applied, (l) => logs.push(l))
applyGeckos(SI, { 'geckos.interpolationBuffer': 5000, 'geckos.vaultSize': 60, 'geckos.autoCorrectTimeOffset': false }, applied, (l) => logs.push(l))
class NoSocket { constructor () {} close () {} }
const h = follow('http://127.0.0.1:1/s/k3v9x2m4q7ab', new SnapshotInterpolation(20), { WebSocket: NoSocket, maxBuffer: 10, log: (l) => logs.push(l) })
for (let k = 0; k < 3; k++) h.record({ time: 1000 + k, state: [0, 1, 2, 3, 4].map((e) => ({ id: e, x: k, y: e })) })
console.log(JSON.stringify({ logs, buffer: SI.interpolationBuffer.get(), auto: SI.config.autoCorrectTimeOffset, stats: h.stats }))
process.exit(0)
`), 0o644)
	cmd := exec.Command(node, script)
	cmd.Env = append(os.Environ(), "GECKOS_PKG="+pkg, "CLIENT=file://"+client)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, out)
	}
	var got struct {
		Logs   []string
		Buffer float64
		Auto   bool
		Stats  struct{ Pending, Dropped int }
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	want := []string{
		"interplab: refused geckos.interpolationBuffer = 5000: want a number in [-1, 2000]; kept undefined",
		"interplab: refused geckos.vaultSize: this SnapshotInterpolation has no vault.setMaxSize",
	}
	if strings.Join(got.Logs, "\n") != strings.Join(want, "\n") {
		t.Errorf("logs:\n%s\nwant:\n%s", strings.Join(got.Logs, "\n"), strings.Join(want, "\n"))
	}
	if got.Buffer != 150 || got.Auto {
		t.Errorf("buffer %v, auto %v: want 150 (kept) and false (applied)", got.Buffer, got.Auto)
	}
	if got.Stats.Pending != 10 || got.Stats.Dropped != 5 {
		t.Errorf("after 15 updates with maxBuffer 10: %+v, want 10 pending and 5 dropped", got.Stats)
	}
}
