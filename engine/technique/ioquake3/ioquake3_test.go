package ioquake3

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"interplab/engine/internal/peertest"
)

// golden is a case of golden/peers/ioquake3 with the game's output.
type golden struct {
	Case
	Out []struct {
		T          int64       `json:"t"`
		ServerTime int64       `json:"serverTime"`
		CgTime     int64       `json:"cgTime"`
		Delta      int64       `json:"delta"`
		Extrap     int         `json:"extrap"`
		Snap       *int64      `json:"snap"`
		Next       *int64      `json:"next"`
		Frac       *float64    `json:"frac"`
		Pos        *[3]float64 `json:"pos"`
		Mode       string      `json:"mode"`
		Adj        string      `json:"adj"`
		Recv       int         `json:"recv"`
		Drop       int         `json:"drop"`
	} `json:"out"`
}

func loadGoldens(t *testing.T) map[string]*golden {
	t.Helper()
	paths, all := peertest.Decode[golden](t, "testdata")
	cases := map[string]*golden{}
	for i, c := range all {
		cases[filepath.Base(paths[i])] = c
	}
	return cases
}

func opt(v int64) string {
	if v < 0 {
		return "null"
	}
	return strconv.FormatInt(v, 10)
}

func optp(p *int64) string {
	if p == nil {
		return "null"
	}
	return strconv.FormatInt(*p, 10)
}

// diff returns what differs between row r and the game's out row i of c,
// "" when nothing does: every field exactly, the float32 fraction and
// position as float64 equality.
func diff(c *golden, i int, r *row) string {
	w := &c.Out[i]
	b := func(v bool) int {
		if v {
			return 1
		}
		return 0
	}
	ints := []struct {
		name      string
		got, want int64
	}{
		{"t", int64(r.T), w.T}, {"serverTime", r.ServerTime, w.ServerTime}, {"cgTime", r.CgTime, w.CgTime},
		{"delta", r.Delta, w.Delta}, {"extrap", int64(b(r.Extrap)), int64(w.Extrap)},
		{"recv", int64(r.Recv), int64(w.Recv)}, {"drop", int64(r.Drop), int64(w.Drop)},
	}
	for _, f := range ints {
		if f.got != f.want {
			return f.name + " = " + strconv.FormatInt(f.got, 10) + ", want " + strconv.FormatInt(f.want, 10)
		}
	}
	if got := drawModeNames[r.Mode]; got != w.Mode {
		return "mode = " + got + ", want " + w.Mode
	}
	if got := adjustNames[r.Adj]; got != w.Adj {
		return "adj = " + strconv.Quote(got) + ", want " + strconv.Quote(w.Adj)
	}
	if opt(r.Snap) != optp(w.Snap) || opt(r.Next) != optp(w.Next) {
		return "snap, next = " + opt(r.Snap) + ", " + opt(r.Next) + "; want " + optp(w.Snap) + ", " + optp(w.Next)
	}
	if (w.Pos != nil) != r.Drawn {
		return "drawn = " + strconv.FormatBool(r.Drawn) + ", want " + strconv.FormatBool(w.Pos != nil)
	}
	if w.Pos == nil {
		return ""
	}
	if w.Frac == nil || float64(r.Frac) != *w.Frac {
		return "frac = " + strconv.FormatFloat(float64(r.Frac), 'g', -1, 32) + ", want " + optf(w.Frac)
	}
	for k := range 3 {
		if float64(r.Pos[k]) != w.Pos[k] {
			return "pos[" + strconv.Itoa(k) + "] = " + strconv.FormatFloat(float64(r.Pos[k]), 'g', -1, 32) +
				", want " + strconv.FormatFloat(w.Pos[k], 'g', -1, 64)
		}
	}
	return ""
}

func optf(p *float64) string {
	if p == nil {
		return "null"
	}
	return strconv.FormatFloat(*p, 'g', -1, 64)
}

// TestGolden replays every case of the real game through the technique's
// client: every field of every frame exactly (server time, cgame time,
// offset, extrapolated flag, the two snapshots, the mode and adjustment,
// datagrams accepted and dropped), pos null-ness exactly, and the float32
// fraction and origin exactly.
func TestGolden(t *testing.T) {
	cases := loadGoldens(t)
	if len(cases) != 10 {
		t.Errorf("%d cases, want the 10 public ones", len(cases))
	}
	frames, nulls := 0, 0
	for name, c := range cases {
		rows, err := c.run()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(rows) != len(c.Out) {
			t.Fatalf("%s: %d frames, want %d", name, len(rows), len(c.Out))
		}
		bad, first, why := 0, -1, ""
		for i := range rows {
			if d := diff(c, i, &rows[i]); d != "" {
				bad++
				if first < 0 {
					first, why = i, d
				}
			}
			if !rows[i].Drawn {
				nulls++
			}
		}
		if bad > 0 {
			t.Errorf("%s: %d of %d frames differ; first, frame %d (t = %g): %s", name, bad, len(rows), first, rows[first].T, why)
		}
		frames += len(rows)
	}
	t.Logf("%d frames in %d cases (%d with nothing drawn) match exactly", frames, len(cases), nulls)
}

// TestRunPeerFrames checks that Run gives what the checker compares: the
// game's pos, widened from float32, or null.
func TestRunPeerFrames(t *testing.T) {
	for name, c := range loadGoldens(t) {
		got, err := c.Run()
		if err != nil {
			t.Fatal(err)
		}
		for i, w := range c.Out {
			if (w.Pos != nil) != got[i].Drawn {
				t.Fatalf("%s frame %d: drawn = %v, want %v", name, i, got[i].Drawn, w.Pos != nil)
			}
			if w.Pos != nil && [3]float64(got[i].Pos) != *w.Pos {
				t.Fatalf("%s frame %d: pos = %v, want %v", name, i, got[i].Pos, *w.Pos)
			}
		}
	}
}

// TestCaseErrors: bad inputs are refused with the field named.
func TestCaseErrors(t *testing.T) {
	one, half := 1.0, 0.5
	base := func() *Case {
		c := &Case{Library: Name, Frames: []float64{0, 10}}
		z := 0.0
		c.Settings.TimeNudge, c.Settings.SmoothClients, c.Settings.GSmoothClients, c.Settings.GamestateSeq = &z, &z, &one, &z
		c.Packets = []Packet{{Seq: 1, Send: 50, Arrive: 5, Pos: []float64{1, 2, 3}, Vel: []float64{0, 0, 0}}}
		return c
	}
	for _, tc := range []struct {
		name string
		mod  func(c *Case)
		want string
	}{
		{"library", func(c *Case) { c.Library = "quake" }, `library = "quake"`},
		{"nudge missing", func(c *Case) { c.Settings.TimeNudge = nil }, "settings.cl_timeNudge missing"},
		{"smooth", func(c *Case) { c.Settings.SmoothClients = &half }, "settings.cg_smoothClients = 0.5"},
		{"seq", func(c *Case) { c.Packets[0].Seq = -1 }, "packets[0].seq = -1"},
		{"pos", func(c *Case) { c.Packets[0].Pos = []float64{1} }, "packets[0]: pos and vel"},
		{"frame order", func(c *Case) { c.Frames = []float64{10, 5} }, "frames[1] = 5: want times in non-decreasing order"},
		{"whole ms", func(c *Case) { c.Frames[1] = 0.5 }, "frames[1] = 0.5: want a whole number"},
		{"no frames", func(c *Case) { c.Frames = nil }, "frames: want at least one"},
	} {
		c := base()
		if _, err := c.run(); err != nil {
			t.Fatalf("base case: %v", err)
		}
		tc.mod(c)
		_, err := c.run()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want it to contain %q", tc.name, err, tc.want)
		}
	}
}
