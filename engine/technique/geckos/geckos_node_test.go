//go:build !js

package geckos

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"interplab/engine/param"
	"interplab/engine/technique"
)

// geckosNPMVersion is the package the property test runs.
const geckosNPMVersion = "1.1.1"

// geckosPackageDir returns the directory of @geckos.io/snapshot-interpolation
// installed with npm into $HOME/.cache/interplab-npm/geckos-1.1.1, installing
// it when missing. The test fails, not skips, when node or npm cannot:
// the comparison with the real package is the point.
func geckosPackageDir(t *testing.T) string {
	t.Helper()
	home, err := os.UserHomeDir()
	if err != nil {
		t.Fatalf("no home directory for the npm cache: %v", err)
	}
	root := filepath.Join(home, ".cache", "interplab-npm", "geckos-"+geckosNPMVersion)
	pkg := filepath.Join(root, "node_modules", "@geckos.io", "snapshot-interpolation")
	if geckosInstalled(pkg) {
		return pkg
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		t.Fatalf("npm not found (needed once to install @geckos.io/snapshot-interpolation@%s into %s): %v",
			geckosNPMVersion, root, err)
	}
	// Install beside the cache entry and move it in, so that a run that
	// is interrupted or races another leaves no half-installed package.
	if err := os.MkdirAll(filepath.Dir(root), 0o755); err != nil {
		t.Fatal(err)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(root), "geckos-install-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	cmd := exec.Command(npm, "install", "--prefix", tmp, "--no-audit", "--no-fund", "--no-save",
		"@geckos.io/snapshot-interpolation@"+geckosNPMVersion)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("npm install @geckos.io/snapshot-interpolation@%s failed: %v\n%s", geckosNPMVersion, err, out)
	}
	if err := os.Rename(tmp, root); err != nil && !geckosInstalled(pkg) {
		t.Fatalf("move the npm install into %s: %v", root, err)
	}
	if !geckosInstalled(pkg) {
		t.Fatalf("npm installed no @geckos.io/snapshot-interpolation %s under %s", geckosNPMVersion, root)
	}
	return pkg
}

func geckosInstalled(pkg string) bool {
	data, err := os.ReadFile(filepath.Join(pkg, "package.json"))
	if err != nil {
		return false
	}
	var p struct{ Version string }
	return json.Unmarshal(data, &p) == nil && p.Version == geckosNPMVersion
}

// geckosDriver replays schedules through the real package in the README's
// event order, with SnapshotInterpolation.Now replaced by the schedule's
// clock (ms = s*1000). Input: a JSON array of schedules; output: for each,
// one entry per frame, null or [x, y, z, percentage, older, newer] (the
// packets' indices, which are the snapshots' ids).
const geckosDriver = `'use strict';
const fs = require('fs');
const { SnapshotInterpolation } = require(process.argv[2]);
let now = 0;
SnapshotInterpolation.Now = () => now;
const schedules = JSON.parse(fs.readFileSync(process.argv[3], 'utf8'));
const out = schedules.map((c) => {
  const SI = new SnapshotInterpolation(c.serverFPS === null ? undefined : c.serverFPS,
    { autoCorrectTimeOffset: c.autoCorrectTimeOffset });
  if (c.interpolationBuffer !== null) SI.interpolationBuffer.set(c.interpolationBuffer);
  SI.vault.setMaxSize(c.vaultSize);
  const rows = [];
  let next = 0;
  for (const f of c.frames) {
    while (next < c.packets.length && c.packets[next][1] <= f) {
      const p = c.packets[next];
      now = p[1] * 1000;
      SI.snapshot.add({ id: String(next), time: p[0] * 1000, state: [{ id: 0, x: p[2], y: p[3], z: p[4] }] });
      next++;
    }
    now = f * 1000;
    const r = SI.calcInterpolation('x y z');
    if (!r) { rows.push(null); continue; }
    const e = r.state[0];
    rows.push([e.x, e.y, e.z, r.percentage, Number(r.older), Number(r.newer)]);
  }
  return rows;
});
process.stdout.write(JSON.stringify(out));
`

// geckosWire is a schedule as the driver reads it.
type geckosWire struct {
	ServerFPS             *float64     `json:"serverFPS"`
	InterpolationBuffer   *float64     `json:"interpolationBuffer"`
	VaultSize             int          `json:"vaultSize"`
	AutoCorrectTimeOffset bool         `json:"autoCorrectTimeOffset"`
	Packets               [][5]float64 `json:"packets"` // send, arrive, x, y, z
	Frames                []float64    `json:"frames"`
}

// genGeckosSchedule makes a random schedule: a server sending at tickHz
// from an arbitrary clock, a client with its own (drifting, maybe jumping)
// clock, jitter with heavy tails (offset resets), loss, outages, reordering,
// duplicates, a server clock stepped by whole ticks, and settings that
// cover the buffer's sources and vault overflow.
func genGeckosSchedule(seed uint64) (Case, geckosWire) {
	r := rand.New(rand.NewPCG(seed, 0x6765636b6f73))
	pick := func(xs ...float64) float64 { return xs[r.IntN(len(xs))] }
	uni := func(lo, hi float64) float64 { return lo + r.Float64()*(hi-lo) }
	var w geckosWire

	fps := pick(0, 10, 15, 20, 30, 60)
	switch r.IntN(3) {
	case 0: // not passed
	default:
		w.ServerFPS = &fps
	}
	tickHz := fps
	if tickHz == 0 || r.IntN(5) == 0 {
		tickHz = pick(10, 20, 30, 60)
	}
	if r.IntN(2) == 0 {
		b := pick(0, 80, 150, math.Round(uni(0, 400)), uni(0, 400))
		w.InterpolationBuffer = &b
	}
	switch k := r.IntN(20); {
	case k < 12:
		w.VaultSize = 120
	case k < 17:
		w.VaultSize = 2 + r.IntN(19) // overflows: render time falls before the oldest kept
	case k < 18:
		w.VaultSize = r.IntN(2) // 0 and 1 keep one snapshot
	default:
		w.VaultSize = 21 + r.IntN(280)
	}
	w.AutoCorrectTimeOffset = r.IntN(7) != 0

	var remote0 float64
	switch r.IntN(7) {
	case 0:
		remote0 = 0 // render times within the first ms: the percentage overload
	case 1:
		remote0 = uni(0, 2)
	default:
		remote0 = uni(50, 50000)
	}
	local0 := uni(0, 1000)
	drift := 0.0
	if r.IntN(3) == 0 {
		drift = uni(-0.003, 0.003)
	}
	jumpAt, jumpBy := math.Inf(1), 0.0 // local clock jump, forward only
	if r.IntN(8) == 0 {
		jumpAt, jumpBy = uni(1, 4), pick(0.06, 0.3, 1.5)
	}
	local := func(tau float64) float64 {
		l := local0 + tau*(1+drift)
		if tau >= jumpAt {
			l += jumpBy
		}
		return l
	}
	stepAt, stepTicks := math.Inf(1), 0.0 // server clock stepped by whole ticks
	if r.IntN(8) == 0 {
		stepAt, stepTicks = uni(1, 4), pick(-3, -1, 2, 10)
	}
	lat := uni(0.005, 0.2)
	jitter, heavy := uni(0, 0.04), r.IntN(3) == 0
	loss := pick(0, 0, 0.02, 0.1, 0.3)
	reorder, dup := pick(0, 0, 0.05, 0.2), pick(0, 0, 0.03, 0.1)
	outAt, outLen := math.Inf(1), 0.0
	if r.IntN(5) == 0 {
		outAt, outLen = uni(0.5, 4), uni(0.2, 2)
	}
	dur := uni(2, 6)
	renderHz := pick(30, 60, 144)

	var frames []float64
	for k := 0; float64(k)/renderHz < dur; k++ {
		tau := float64(k)/renderHz + uni(0, 0.002)
		frames = append(frames, local(tau))
	}
	slices.Sort(frames)

	type pkt struct {
		send, arrive float64
		pos          [3]float64
	}
	var pkts []pkt
	for k := 0; float64(k)/tickHz < dur; k++ {
		tau := float64(k) / tickHz
		send := remote0 + tau
		if tau >= stepAt {
			send += stepTicks / tickHz
		}
		pos := [3]float64{10 * math.Sin(0.7*tau), 3 * math.Cos(1.3*tau), tau}
		if r.Float64() < loss || (tau >= outAt && tau < outAt+outLen) {
			continue
		}
		delay := func() float64 {
			d := lat + r.Float64()*jitter
			if heavy && r.IntN(10) == 0 {
				d += uni(0.05, 0.4) // a spike: the offset resets
			}
			if r.Float64() < reorder {
				d += uni(0, 0.15)
			}
			return d
		}
		arrive := local(tau + delay())
		if r.IntN(20) == 0 {
			// Exactly at a frame's time: added before that frame.
			if i, ok := slices.BinarySearch(frames, arrive); i < len(frames) && !ok {
				arrive = frames[i]
			}
		}
		pkts = append(pkts, pkt{send, arrive, pos})
		if r.Float64() < dup {
			pkts = append(pkts, pkt{send, local(tau + delay()), pos})
		}
	}
	slices.SortStableFunc(pkts, func(a, b pkt) int {
		switch {
		case a.arrive < b.arrive:
			return -1
		case a.arrive > b.arrive:
			return 1
		}
		return 0
	})

	w.Frames = frames
	var c Case
	c.Name = "seed " + strconv.FormatUint(seed, 10)
	c.Settings.ServerFPS, c.Settings.InterpolationBuffer = w.ServerFPS, w.InterpolationBuffer
	vs := float64(w.VaultSize)
	c.Settings.VaultSize, c.Settings.AutoCorrectTimeOffset = &vs, &w.AutoCorrectTimeOffset
	c.Frames = frames
	for _, p := range pkts {
		w.Packets = append(w.Packets, [5]float64{p.send, p.arrive, p.pos[0], p.pos[1], p.pos[2]})
		gp := Packet{Send: p.send, Arrive: p.arrive}
		for k := range 3 {
			v := p.pos[k]
			gp.Pos = append(gp.Pos, &v)
		}
		c.Packets = append(c.Packets, gp)
	}
	return c, w
}

// TestGeckosMatchesNPMPackage runs about 200 random schedules through the
// real @geckos.io/snapshot-interpolation 1.1.1 in one node process and
// through the technique, and compares every frame: drawn or not, the
// snapshots used, and the position and fraction to 1.5e-9.
func TestGeckosMatchesNPMPackage(t *testing.T) {
	if testing.Short() {
		t.Skip("runs node; not with -short")
	}
	start := time.Now()
	pkg := geckosPackageDir(t)
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node not found: %v", err)
	}
	const schedules = 200
	cases := make([]Case, schedules)
	wire := make([]geckosWire, schedules)
	for i := range schedules {
		cases[i], wire[i] = genGeckosSchedule(uint64(1000 + i))
	}
	dir := t.TempDir()
	in, driver := filepath.Join(dir, "schedules.json"), filepath.Join(dir, "driver.js")
	data, err := json.Marshal(wire)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(in, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(driver, []byte(geckosDriver), 0o644); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd := exec.Command(node, driver, pkg, in)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node driver: %v\n%s", err, stderr.Bytes())
	}
	var real [][]*[6]float64
	if err := json.Unmarshal(out, &real); err != nil {
		t.Fatalf("driver output: %v", err)
	}
	if len(real) != schedules {
		t.Fatalf("driver returned %d schedules, want %d", len(real), schedules)
	}

	frames, nulls, resets, worst := 0, 0, 0, 0.0
	for i := range cases {
		rows, err := cases[i].run()
		if err != nil {
			t.Fatalf("%s: %v", cases[i].Name, err)
		}
		if err := compareGeckosNPM(rows, real[i], &worst); err != nil {
			t.Errorf("%s (vault %d, fps %v, buffer %v, autoCorrect %t, %d packets): %v", cases[i].Name,
				wire[i].VaultSize, ptrText(wire[i].ServerFPS), ptrText(wire[i].InterpolationBuffer),
				wire[i].AutoCorrectTimeOffset, len(wire[i].Packets), err)
		}
		frames += len(rows)
		for _, r := range rows {
			if !r.Drawn {
				nulls++
			}
		}
		resets += geckosOffsetChanges(&cases[i])
	}
	t.Logf("%d schedules, %d frames (%d null), %d offset resets: largest position/fraction difference %.3g; %v",
		schedules, frames, nulls, resets, worst, time.Since(start).Round(time.Millisecond))
	if nulls == 0 || nulls == frames || resets == 0 {
		t.Errorf("the schedules do not exercise the library: %d null frames of %d, %d offset resets", nulls, frames, resets)
	}
}

func compareGeckosNPM(rows []geckosRow, real []*[6]float64, worst *float64) error {
	if len(rows) != len(real) {
		return errors.New(strconv.Itoa(len(rows)) + " frames, the package " + strconv.Itoa(len(real)))
	}
	for j, want := range real {
		got := &rows[j]
		at := "frame " + strconv.Itoa(j) + " (t " + param.FormatNumber(got.T) + "): "
		if (want != nil) != got.Drawn {
			return errors.New(at + "drawn = " + strconv.FormatBool(got.Drawn) + ", the package " + strconv.FormatBool(want != nil))
		}
		if want == nil {
			continue
		}
		if float64(got.Older) != want[4] || float64(got.Newer) != want[5] {
			return errors.New(at + "older, newer = " + strconv.Itoa(got.Older) + ", " + strconv.Itoa(got.Newer) +
				"; the package " + param.FormatNumber(want[4]) + ", " + param.FormatNumber(want[5]))
		}
		for k, g := range [4]float64{got.Pos[0], got.Pos[1], got.Pos[2], got.P} {
			d := math.Abs(g - want[k])
			*worst = max(*worst, d)
			if !(d <= 1.5e-9) {
				return errors.New(at + "value " + strconv.Itoa(k) + " = " + param.FormatNumber(g) + ", the package " + param.FormatNumber(want[k]))
			}
		}
	}
	return nil
}

// geckosOffsetChanges counts the adds after the first that change the time
// offset in a replay of c.
func geckosOffsetChanges(c *Case) int {
	s, _ := c.settings()
	g := newGeckos(&s).(*geckosTech)
	n, last := 0, math.NaN()
	for i, p := range c.Packets {
		if len(c.Frames) == 0 || p.Arrive > c.Frames[len(c.Frames)-1] {
			break
		}
		g.Receive(technique.Snapshot{Time: p.Send}, p.Arrive)
		if i > 0 && g.offset != last {
			n++
		}
		last = g.offset
	}
	return n
}

func ptrText(v *float64) string {
	if v == nil {
		return "null"
	}
	return param.FormatNumber(*v)
}
