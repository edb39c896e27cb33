package geckos

import (
	"bytes"
	"encoding/json"
	"math"
	"path/filepath"
	"strconv"
	"testing"

	"interplab/engine/geom"
	"interplab/engine/internal/peertest"
	"interplab/engine/param"
	"interplab/engine/technique"
)

// geckosGolden is a case of golden/peers/geckos with the library's output.
type geckosGolden struct {
	Case
	Out []struct {
		T          float64     `json:"t"`
		Pos        *[3]float64 `json:"pos"`
		Percentage *float64    `json:"percentage"`
		OlderIdx   *int        `json:"olderIdx"`
		NewerIdx   *int        `json:"newerIdx"`
	} `json:"out"`
}

func loadGeckosGoldens(t *testing.T) map[string]*geckosGolden {
	t.Helper()
	paths, all := peertest.Decode[geckosGolden](t, "testdata")
	cases := map[string]*geckosGolden{}
	for i, c := range all {
		cases[filepath.Base(paths[i])] = c
	}
	return cases
}

// geckosDiff compares a replay with the library's rows: frames whose
// null-ness, snapshots (by packet index) or position (beyond tol, m) differ,
// the first of them, and the largest position and fraction errors over the
// frames both drew (ours rounded to 9 decimals, as the library's are).
type geckosDiff struct {
	bad, first     int
	why            string
	maxPos, maxPct float64
	maxRaw         float64 // the largest position error before rounding
}

func compareGeckos(c *geckosGolden, rows []geckosRow, tol float64) geckosDiff {
	d := geckosDiff{first: -1}
	fail := func(i int, why string) {
		d.bad++
		if d.first < 0 {
			d.first, d.why = i, why
		}
	}
	round9 := func(v float64) float64 { return math.Round(v*1e9) / 1e9 }
	for i := range c.Out {
		want, got := &c.Out[i], &rows[i]
		if got.T != want.T {
			fail(i, "t = "+param.FormatNumber(got.T)+", want "+param.FormatNumber(want.T))
			continue
		}
		if (want.Pos != nil) != got.Drawn {
			fail(i, "drawn = "+strconv.FormatBool(got.Drawn)+", want "+strconv.FormatBool(want.Pos != nil))
			continue
		}
		if want.Pos == nil {
			continue
		}
		if got.Older != *want.OlderIdx || got.Newer != *want.NewerIdx {
			fail(i, "older, newer = packets "+strconv.Itoa(got.Older)+", "+strconv.Itoa(got.Newer)+
				"; want "+strconv.Itoa(*want.OlderIdx)+", "+strconv.Itoa(*want.NewerIdx))
			continue
		}
		e := 0.0
		for k := range 3 {
			e = max(e, math.Abs(round9(got.Pos[k])-want.Pos[k]))
			d.maxRaw = max(d.maxRaw, math.Abs(got.Pos[k]-want.Pos[k]))
		}
		d.maxPos = max(d.maxPos, e)
		d.maxPct = max(d.maxPct, math.Abs(round9(got.P)-*want.Percentage))
		if !(e <= tol) {
			fail(i, "pos error "+param.FormatNumber(e)+" m")
		}
	}
	return d
}

// TestGeckosGolden replays every case of the real library through the
// technique: every frame's null-ness and snapshots exactly, the position
// to the project's 1e-6 m, and, since the technique does the library's
// double operations in its order, position and fraction to the 1.5e-9 the
// library's 9-decimal rounding allows.
func TestGeckosGolden(t *testing.T) {
	frames, nulls, worst, raw := 0, 0, 0.0, 0.0
	for name, c := range loadGeckosGoldens(t) {
		rows, err := c.run()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(rows) != len(c.Out) {
			t.Fatalf("%s: %d frames, want %d", name, len(rows), len(c.Out))
		}
		d := compareGeckos(c, rows, 1e-6)
		if d.bad > 0 {
			t.Errorf("%s: %d of %d frames differ; first, frame %d: %s", name, d.bad, len(rows), d.first, d.why)
		}
		if d.maxPos > 1.5e-9 || d.maxPct > 1.5e-9 {
			t.Errorf("%s: largest pos, percentage errors %.3g m, %.3g; want ≤ 1.5e-9 (same operations, same order)", name, d.maxPos, d.maxPct)
		}
		frames += len(rows)
		for _, r := range rows {
			if !r.Drawn {
				nulls++
			}
		}
		worst, raw = max(worst, d.maxPos), max(raw, d.maxRaw)
	}
	t.Logf("geckos: %d frames (%d null) reproduced; largest position error %.3g m rounded to 9 decimals as the library's, %.3g m unrounded",
		frames, nulls, worst, raw)
}

// TestGeckosGoldenCanFail shows that the golden comparison catches a
// technique that is slightly off: a knob nudged, or the offset reset left
// out, moves frames beyond 1e-6 m or changes what is drawn.
func TestGeckosGoldenCanFail(t *testing.T) {
	cases := loadGeckosGoldens(t)
	tests := []struct {
		name  string
		file  string
		tweak func(c *Case)
	}{
		{"buffer one ms longer", "p01_fps20_r60_clean.json.gz", func(c *Case) {
			v := 151.0
			c.Settings.InterpolationBuffer = &v
		}},
		{"no offset reset", "p07_fps20_r60_localjump_fwd.json.gz", func(c *Case) {
			v := false
			c.Settings.AutoCorrectTimeOffset = &v
		}},
		{"vault of 2", "p05_fps20_r60_outage_drop.json.gz", func(c *Case) {
			v := 2.0
			c.Settings.VaultSize = &v
		}},
		{"serverFPS not passed", "p03_fps30_r60_heavytail.json.gz", func(c *Case) {
			// 100 ms either way: no frame may change.
			c.Settings.ServerFPS = nil
		}},
	}
	for _, tt := range tests {
		c := *cases[tt.file]
		c.Settings = cases[tt.file].Settings
		tt.tweak(&c.Case)
		rows, err := c.run()
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		d := compareGeckos(&c, rows, 1e-6)
		if wantSame := tt.name == "serverFPS not passed"; (d.bad == 0) != wantSame {
			t.Errorf("%s: %d frames differ from %s, want %v", tt.name, d.bad, tt.file, map[bool]string{true: "none", false: "some"}[wantSame])
		}
	}
}

func TestGeckosCaseErrors(t *testing.T) {
	tests := []struct {
		name, json, want string
	}{
		{"vault missing", `{"settings":{"autoCorrectTimeOffset":true},"frames":[1]}`, "settings.vaultSize missing"},
		{"vault fraction", `{"settings":{"vaultSize":1.5,"autoCorrectTimeOffset":true},"frames":[1]}`, "settings.vaultSize = 1.5"},
		{"fps negative", `{"settings":{"serverFPS":-1,"vaultSize":120,"autoCorrectTimeOffset":true},"frames":[1]}`, "settings.serverFPS = -1"},
		{"buffer negative", `{"settings":{"interpolationBuffer":-5,"vaultSize":120,"autoCorrectTimeOffset":true},"frames":[1]}`, "settings.interpolationBuffer = -5"},
		{"flag missing", `{"settings":{"vaultSize":120},"frames":[1]}`, "settings.autoCorrectTimeOffset missing"},
		{"other library", `{"library":"mirror","settings":{"vaultSize":120,"autoCorrectTimeOffset":true},"frames":[1]}`, `library = "mirror"`},
		{"pos short", `{"settings":{"vaultSize":120,"autoCorrectTimeOffset":true},"packets":[{"send":1,"arrive":1,"pos":[1,2]}],"frames":[1]}`, "packets[0].pos"},
		{"pos null", `{"settings":{"vaultSize":120,"autoCorrectTimeOffset":true},"packets":[{"send":1,"arrive":1,"pos":[1,null,2]}],"frames":[1]}`, "packets[0].pos[1]"},
		{"arrival order", `{"settings":{"vaultSize":120,"autoCorrectTimeOffset":true},"packets":[{"send":1,"arrive":2,"pos":[0,0,0]},{"send":2,"arrive":1,"pos":[0,0,0]}],"frames":[1]}`, "packets[1].arrive = 1"},
		{"frames order", `{"settings":{"vaultSize":120,"autoCorrectTimeOffset":true},"frames":[2,1]}`, "frames[1] = 1"},
		{"no frames", `{"settings":{"vaultSize":120,"autoCorrectTimeOffset":true}}`, "frames: want"},
	}
	for _, tt := range tests {
		var c Case
		if err := json.Unmarshal([]byte(tt.json), &c); err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if _, err := c.Run(); err == nil || !bytes.Contains([]byte(err.Error()), []byte(tt.want)) {
			t.Errorf("%s: Run() error = %v, want one containing %q", tt.name, err, tt.want)
		}
	}
}

// geckosStep is one event of a behaviour script: an add (snapshot.add at
// local time now, s, of the snapshot of server time at, s, and position x)
// or, with sample set, a calcInterpolation at now and what it must give.
type geckosStep struct {
	now, at, x float64
	sample     bool
	mode       technique.Mode
	wantX      float64 // the drawn (or held) x
	older      int     // add sequence numbers of the snapshots used; -1 = any
	newer      int
	offset     float64 // after an add: the offset, ms; NaN = unchecked
}

func add(now, at, x float64) geckosStep {
	return geckosStep{now: now, at: at, x: x, offset: math.NaN()}
}
func addOff(now, at, x, offset float64) geckosStep {
	return geckosStep{now: now, at: at, x: x, offset: offset}
}
func sample(now float64, mode technique.Mode, x float64, older, newer int) geckosStep {
	return geckosStep{now: now, sample: true, mode: mode, wantX: x, older: older, newer: newer}
}

// TestGeckosBehaviours pins, each by name, the library behaviours the
// golden/peers README lists, on small scripts (times in s, offsets in ms).
func TestGeckosBehaviours(t *testing.T) {
	const none = -1
	tests := []struct {
		name  string
		set   func(s *Settings)
		steps []geckosStep
	}{
		{"buffer is three server frames", func(s *Settings) { s.ServerFPS = 10 }, []geckosStep{
			// offset 0: render time = now - 300 ms.
			addOff(100, 100, 0, 0), add(100.1, 100.1, 10),
			sample(100.35, technique.Interpolate, 5, 0, 1),
		}},
		{"interpolationBuffer.set overrides serverFPS", func(s *Settings) { s.ServerFPS = 10; s.InterpolationBuffer = 50 }, []geckosStep{
			add(100, 100, 0), add(100.1, 100.1, 10),
			sample(100.1, technique.Interpolate, 5, 0, 1),
		}},
		{"offset kept within 50 ms", nil, []geckosStep{
			addOff(10, 100, 0, -90000), addOff(10.15, 100.1, 1, -90000), // +50 ms exactly: no reset
			addOff(9.95, 100, 2, -90000), // -50 ms: no reset either
		}},
		{"offset reset beyond 50 ms", nil, []geckosStep{
			addOff(10, 100, 0, -90000), addOff(10.1505, 100.1, 1, -89949.5),
			addOff(10.2, 100.2, 2, -90000), // flip-flop back down
		}},
		{"offset fixed without autoCorrectTimeOffset", func(s *Settings) { s.AutoCorrectTimeOffset = false }, []geckosStep{
			addOff(10, 100, 0, -90000), addOff(11, 100.1, 1, -90000),
		}},
		{"offset of exactly -1 reads as unset", nil, []geckosStep{
			addOff(99.999, 100, 0, -1), addOff(100.5, 100.1, 1, 400),
		}},
		{"no extrapolation: hold the last drawn", func(s *Settings) { s.InterpolationBuffer = 100 }, []geckosStep{
			sample(99, technique.Empty, 0, none, none),
			add(100, 100, 0),
			sample(100.05, technique.Empty, 0, none, none), // before the oldest, nothing drawn yet
			add(100.1, 100.1, 10),
			sample(100.15, technique.Interpolate, 5, 0, 1),
			sample(100.2, technique.Hold, 5, none, none), // render time at the newest: nothing
			sample(100.3, technique.Hold, 5, none, none),
		}},
		{"a late snapshot beyond 50 ms steps the render time back", func(s *Settings) { s.InterpolationBuffer = 0 }, []geckosStep{
			add(100, 100, 0), add(100.1, 100.1, 10), add(100.2, 100.2, 20),
			sample(100.15, technique.Interpolate, 15, 1, 2),
			addOff(100.2, 99.9, 30, 300), // 300 ms late: offset up, render time back 300 ms
			sample(100.25, technique.Interpolate, 15, 3, 0),
		}},
		{"vault drops the oldest when full", func(s *Settings) { s.InterpolationBuffer = 100; s.VaultSize = 2 }, []geckosStep{
			add(100, 100, 0), add(100.1, 100.1, 10), add(100.2, 100.2, 20),
			sample(100.15, technique.Empty, 0, none, none), // 100.05 is before the oldest kept, 100.1
			sample(100.25, technique.Interpolate, 15, 1, 2),
		}},
		{"vault appends a late snapshot even when full", func(s *Settings) {
			s.InterpolationBuffer, s.VaultSize, s.AutoCorrectTimeOffset = 100, 2, false
		}, []geckosStep{
			add(100, 100, 0), add(100.1, 100.1, 10), add(100.12, 100.02, 2), // evicts 100, keeps 100.02
			sample(100.13, technique.Interpolate, 2+float64(8*(0.01/0.08)), 2, 1),
		}},
		{"late snapshots are sorted in and used", func(s *Settings) { s.InterpolationBuffer, s.AutoCorrectTimeOffset = 100, false }, []geckosStep{
			add(100, 100, 0), add(100.2, 100.2, 20), add(100.21, 100.1, 10),
			sample(100.25, technique.Interpolate, 15, 2, 1),
		}},
		{"equal times: older is the earliest added, newer the latest", func(s *Settings) { s.InterpolationBuffer = 100 }, []geckosStep{
			add(100, 100, 0), add(100.01, 100, 1), add(100.1, 100.1, 10), add(100.11, 100.1, 11),
			sample(100.15, technique.Interpolate, 5.5, 0, 3),
		}},
		{"duplicates take their own slots", func(s *Settings) { s.InterpolationBuffer = 100; s.VaultSize = 3 }, []geckosStep{
			add(100, 100, 0), add(100.1, 100.1, 10), add(100.1, 100.1, 10), add(100.2, 100.2, 20),
			sample(100.15, technique.Empty, 0, none, none),  // 100 was evicted by the duplicate
			sample(100.25, technique.Interpolate, 15, 1, 3), // the earliest added of the pair
		}},
		{"render time at or below 1 ms is taken as the fraction", func(s *Settings) {
			s.InterpolationBuffer, s.AutoCorrectTimeOffset = 0, false
		}, []geckosStep{
			add(0, 0, 0), add(0, 0.1, 10), // offset 0: render time = now in ms
			sample(0.0005, technique.Interpolate, 5, 0, 1), // 0.5 ms: p = 0.5, not 0.005
			sample(0.0015, technique.Interpolate, float64(10*(1.5/100)), 0, 1),
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := Settings{ServerFPS: 20, InterpolationBuffer: -1, VaultSize: 120, AutoCorrectTimeOffset: true}
			if tt.set != nil {
				tt.set(&s)
			}
			g := newGeckos(&s).(*geckosTech)
			for i, st := range tt.steps {
				if !st.sample {
					g.Receive(technique.Snapshot{Time: st.at, Pos: geom.Vec3{st.x}, Rot: geom.Quat{0, 0, 0, 1}}, st.now)
					if !math.IsNaN(st.offset) && math.Abs(g.offset-st.offset) > 1e-6 {
						t.Errorf("step %d: offset = %v ms, want %v", i, g.offset, st.offset)
					}
					continue
				}
				smp := g.Sample(st.now)
				if smp.Mode != st.mode || math.Abs(smp.Pos[0]-st.wantX) > 1e-9 {
					t.Errorf("step %d: Sample(%v) = %v at x %v, want %v at x %v", i, st.now, smp.Mode, smp.Pos[0], st.mode, st.wantX)
				}
				if st.older >= 0 && (g.older != st.older || g.newer != st.newer) {
					t.Errorf("step %d: older, newer = adds %d, %d; want %d, %d", i, g.older, g.newer, st.older, st.newer)
				}
			}
		})
	}
}

// TestGeckosBufferDefault pins the constructor's buffer per serverFPS.
func TestGeckosBufferDefault(t *testing.T) {
	tests := []struct {
		fps, set, want float64
	}{
		{10, -1, 300}, {20, -1, 150}, {30, -1, 100}, {60, -1, 50}, {0, -1, 100}, {20, 0, 0}, {20, 80, 80},
	}
	for _, tt := range tests {
		s := Settings{ServerFPS: tt.fps, InterpolationBuffer: tt.set}
		if got := geckosBuffer(&s); got != tt.want {
			t.Errorf("geckosBuffer(serverFPS %v, set %v) = %v, want %v", tt.fps, tt.set, got, tt.want)
		}
	}
	def := param.Defaults(Params)
	if d := Def.Delay(&def, nil); d != 0.15 {
		t.Errorf("Def.Delay(defaults) = %v, want 0.15", d)
	}
}
