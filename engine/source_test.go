package engine

import (
	"compress/gzip"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// sourceGoldenTol is the project's bar for a library frame, m.
const sourceGoldenTol = 1e-6

// loadSourceCases reads the Source golden cases under testdata/peers/source.
func loadSourceCases(t testing.TB) map[string]*SourceCase {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("testdata", "peers", "source", "*.json.gz"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no Source cases (%v)", err)
	}
	cases := map[string]*SourceCase{}
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		zr, err := gzip.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		var c SourceCase
		if err := json.NewDecoder(zr).Decode(&c); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		f.Close()
		cases[c.Name] = &c
	}
	return cases
}

// sourceCompare returns the largest position error of frames against the
// case's out rows and the first frame that differs (−1 if none).
func sourceCompare(c *SourceCase, frames []PeerFrame) (maxErr float64, first int, why string) {
	first = -1
	for i, o := range c.Out {
		g := frames[i]
		bad := ""
		switch {
		case (o.Pos != nil) != g.Drawn:
			bad = "drawn differs"
		case o.Pos != nil:
			for j := range 3 {
				d := math.Abs(g.Pos[j] - o.Pos[j])
				maxErr = max(maxErr, d)
				if !(d <= sourceGoldenTol) {
					bad = "position differs"
				}
			}
		}
		if bad != "" && first < 0 {
			first, why = i, bad
		}
	}
	return maxErr, first, why
}

// TestSourceGolden replays every Source case twice: with the case's render
// curtime (the interpolation alone) and with the technique's clock model
// (the whole client), and requires every frame, null ones included, within
// 1e-6 m of what the SDK's code drew.
func TestSourceGolden(t *testing.T) {
	cases := loadSourceCases(t)
	for _, caseClock := range []bool{true, false} {
		name := "clockModel"
		if caseClock {
			name = "caseCurtime"
		}
		t.Run(name, func(t *testing.T) {
			total, worst := 0, 0.0
			for _, c := range cases {
				frames, modes, err := c.run(caseClock)
				if err != nil {
					t.Fatalf("%s: %v", c.Name, err)
				}
				maxErr, first, why := sourceCompare(c, frames)
				worst = max(worst, maxErr)
				total += len(frames)
				if first >= 0 {
					o := c.Out[first]
					t.Errorf("%s: frame %d (t=%v): %s: got %v drawn=%v mode %v, want %v mode %s (max err %.3g m)",
						c.Name, first, o.T, why, frames[first].Pos, frames[first].Drawn, modes[first], o.Pos, o.Mode, maxErr)
					continue
				}
				for i, o := range c.Out {
					if m := modes[i].String(); m != o.Mode {
						t.Errorf("%s: frame %d (t=%v): mode %s, want %s", c.Name, i, o.T, m, o.Mode)
						break
					}
				}
			}
			t.Logf("%d cases, %d frames, max error %.3g m", len(cases), total, worst)
		})
	}
}

// TestSourceClockCurtime checks the clock model alone: the render curtime
// of every frame, which the cases carry.
func TestSourceClockCurtime(t *testing.T) {
	for _, c := range loadSourceCases(t) {
		s, err := c.settings()
		if err != nil {
			t.Fatal(err)
		}
		k := s.SourceSettings.config()
		tech := &sourceTechnique{settings: &s}
		next := 0
		for f, now := range c.Frames {
			for ; next < len(c.Packets) && c.Packets[next].Arrive <= now; next++ {
				p := &c.Packets[next]
				tech.Receive(Snapshot{Time: p.Send, Pos: Vec3(p.Pos)}, p.Arrive)
			}
			tech.read(now, &k)
			if got, want := tech.clock.curtime(&k.clock), float32(c.Out[f].Curtime); got != want {
				t.Errorf("%s: frame %d (t=%v): curtime = %v, want %v", c.Name, f, now, got, want)
				break
			}
		}
	}
}
