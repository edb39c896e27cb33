package lightyear

import (
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"interplab/engine/internal/peertest"
)

// golden is a case of golden/peers/lightyear with the library's output.
type golden struct {
	Case
	Out []struct {
		T                  float64     `json:"t"`
		Pos                *[3]float64 `json:"pos"`
		Tick               uint32      `json:"tick"`
		Overstep           float64     `json:"overstep"`
		NowBits            uint64      `json:"nowBits"`
		Start              *int64      `json:"start"`
		End                *int64      `json:"end"`
		HistoryLen         int         `json:"historyLen"`
		Synced             bool        `json:"synced"`
		Speed              float64     `json:"speed"`
		RemoteEstimateBits uint64      `json:"remoteEstimateBits"`
	} `json:"out"`
	Debug struct {
		RemoteSendIntervalNs int64   `json:"remoteSendIntervalNs"`
		NullFrames           int     `json:"nullFrames"`
		Pongs                [][]any `json:"pongs"`
	} `json:"debug"`
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

func optTick(v int64) string {
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

// diff returns what differs between row r and the library's out row i of
// c, "" when nothing does: the internals exactly, pos null-ness exactly and
// pos, rounded to 9 decimals as the library's are, within tol m.
func diff(c *golden, i int, r *row, tol float64) string {
	w := &c.Out[i]
	switch {
	case r.T != w.T:
		return "t = " + strconv.FormatFloat(r.T, 'g', -1, 64)
	case r.NowBits != w.NowBits:
		return "nowBits = " + strconv.FormatUint(r.NowBits, 10) + ", want " + strconv.FormatUint(w.NowBits, 10)
	case float64(r.Speed) != w.Speed:
		return "speed = " + strconv.FormatFloat(float64(r.Speed), 'g', -1, 32) + ", want " + strconv.FormatFloat(w.Speed, 'g', -1, 64)
	case r.RemoteEstimateBits != w.RemoteEstimateBits:
		return "remoteEstimateBits = " + strconv.FormatUint(r.RemoteEstimateBits, 10) + ", want " + strconv.FormatUint(w.RemoteEstimateBits, 10)
	case r.Synced != w.Synced:
		return "synced = " + strconv.FormatBool(r.Synced)
	case r.Tick != w.Tick || float64(r.Overstep) != w.Overstep:
		return "tick, overstep = " + strconv.FormatUint(uint64(r.Tick), 10) + ", " + strconv.FormatFloat(float64(r.Overstep), 'g', -1, 32)
	case r.HistoryLen != w.HistoryLen:
		return "historyLen = " + strconv.Itoa(r.HistoryLen) + ", want " + strconv.Itoa(w.HistoryLen)
	case optTick(r.Start) != optp(w.Start) || optTick(r.End) != optp(w.End):
		return "start, end = " + optTick(r.Start) + ", " + optTick(r.End) + "; want " + optp(w.Start) + ", " + optp(w.End)
	case r.Drawn != (w.Pos != nil):
		return "drawn = " + strconv.FormatBool(r.Drawn) + ", want " + strconv.FormatBool(w.Pos != nil)
	}
	if w.Pos == nil {
		return ""
	}
	for k := range 3 {
		got := math.Round(r.Pos[k]*1e9) / 1e9
		if e := math.Abs(got - w.Pos[k]); !(e <= tol) {
			return "pos[" + strconv.Itoa(k) + "] = " + strconv.FormatFloat(got, 'g', -1, 64) + ", want " + strconv.FormatFloat(w.Pos[k], 'g', -1, 64)
		}
	}
	return ""
}

// TestGolden replays every case of the real library through the
// technique's client: every frame's internals exactly (the interpolation
// timeline's and the remote estimate's fixed-point bits, the speed, the
// cursor, the history around it and its length), pos null-ness exactly,
// and pos to the 1e-9 the library's 9-decimal rounding allows (the
// project's bar is 1e-6 m), every processed pong's RTT and jitter to the
// nanosecond, and the send interval as the client received it.
func TestGolden(t *testing.T) {
	cases := loadGoldens(t)
	if len(cases) != 10 {
		t.Errorf("%d cases, want the 10 public ones", len(cases))
	}
	frames, nulls, holds := 0, 0, 0
	for name, c := range cases {
		cfg, err := c.Settings.config()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if cfg.sendInterval != c.Debug.RemoteSendIntervalNs {
			t.Errorf("%s: send interval as received %d ns, want %d", name, cfg.sendInterval, c.Debug.RemoteSendIntervalNs)
		}
		rows, err := c.run()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(rows) != len(c.Out) {
			t.Fatalf("%s: %d frames, want %d", name, len(rows), len(c.Out))
		}
		bad, first, why := 0, -1, ""
		var pongs [][]any
		for i := range rows {
			if d := diff(c, i, &rows[i], 1.5e-9); d != "" {
				bad++
				if first < 0 {
					first, why = i, d
				}
			}
			if !rows[i].Drawn {
				nulls++
			} else if rows[i].End < 0 {
				holds++
			}
			for _, p := range rows[i].Pongs {
				pongs = append(pongs, []any{float64(i), float64(p.ID), p.Used, float64(p.RTT), float64(p.Jitter), float64(p.Samples)})
			}
		}
		if bad > 0 {
			t.Errorf("%s: %d of %d frames differ; first, frame %d (t = %g): %s", name, bad, len(rows), first, rows[first].T, why)
		}
		if len(pongs) != len(c.Debug.Pongs) {
			t.Errorf("%s: %d pongs processed, want %d", name, len(pongs), len(c.Debug.Pongs))
		} else {
			for k := range pongs {
				for j := range pongs[k] {
					if pongs[k][j] != c.Debug.Pongs[k][j] {
						t.Errorf("%s: pong row %d = %v, want %v", name, k, pongs[k], c.Debug.Pongs[k])
						break
					}
				}
			}
		}
		frames += len(rows)
	}
	t.Logf("%d frames in %d cases (%d with nothing drawn, %d holding) match", frames, len(cases), nulls, holds)
}

// TestCaseErrors: bad inputs are refused with the field named.
func TestCaseErrors(t *testing.T) {
	c0 := loadGoldens(t)["p01_default_60_clean.json.gz"]
	for _, tc := range []struct {
		name string
		mod  func(c *Case)
		want string
	}{
		{"library", func(c *Case) { c.Library = "bevy" }, `library = "bevy"`},
		{"tick missing", func(c *Case) { c.Settings.TickNs = nil }, "settings.tickNs: want a whole number"},
		{"ratio text", func(c *Case) { c.Settings.SendIntervalRatio = "fast" }, `settings.sendIntervalRatio = "fast"`},
		{"threshold", func(c *Case) { v := int64(300); c.Settings.ConsecutiveErrorsThreshold = &v }, "settings.consecutiveErrorsThreshold"},
		{"pos", func(c *Case) { c.Packets[0].Pos = []float64{1, 2} }, "packets[0].pos"},
		{"arrival order", func(c *Case) { c.Packets[1].Arrive = 0 }, "packets[1].arrive"},
		{"frame order", func(c *Case) { c.Frames[2] = 0 }, "frames[2] = 0"},
	} {
		c := c0.Case
		c.Packets = append([]Packet(nil), c0.Packets...)
		c.Frames = append([]float64(nil), c0.Frames...)
		tc.mod(&c)
		_, err := c.run()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want it to contain %q", tc.name, err, tc.want)
		}
	}
}
