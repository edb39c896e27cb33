package source

import (
	"math"
	"testing"

	"interplab/engine/geom"
	"interplab/engine/internal/peertest"
	"interplab/engine/param"
	"interplab/engine/technique"
)

// sourceGoldenTol is the project's bar for a library frame, m.
const sourceGoldenTol = 1e-6

// loadSourceCases reads the Source golden cases under testdata/peers/source.
func loadSourceCases(t testing.TB) map[string]*Case {
	t.Helper()
	_, all := peertest.Decode[Case](t, "testdata")
	cases := map[string]*Case{}
	for _, c := range all {
		cases[c.Name] = c
	}
	return cases
}

// sourceCompare returns the largest position error of frames against the
// case's out rows and the first frame that differs (−1 if none).
func sourceCompare(c *Case, frames []technique.PeerFrame) (maxErr float64, first int, why string) {
	first = -1
	for i, o := range c.Out {
		g := frames[i]
		bad := ""
		switch {
		case (o.Pos != nil) != g.Drawn:
			bad = "drawn differs"
		case o.Pos != nil:
			d := g.Pos.Sub(geom.Vec3(*o.Pos)).Len()
			maxErr = max(maxErr, d)
			if !(d <= sourceGoldenTol) {
				bad = "position differs"
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
		k := s.config()
		tech := &sourceTechnique{settings: &s}
		next := 0
		for f, now := range c.Frames {
			for ; next < len(c.Packets) && c.Packets[next].Arrive <= now; next++ {
				p := &c.Packets[next]
				tech.Receive(technique.Snapshot{Time: p.Send, Pos: geom.Vec3(p.Pos)}, p.Arrive)
			}
			tech.read(now, &k)
			if got, want := tech.clock.curtime(&k.clock), float32(c.Out[f].Curtime); got != want {
				t.Errorf("%s: frame %d (t=%v): curtime = %v, want %v", c.Name, f, now, got, want)
				break
			}
		}
	}
}

// TestSourceGoldenCanFail shows the golden comparison has teeth: one tick
// more of cl_interp, extrapolation capped at 5 ms or no clock correction
// moves frames beyond the 1e-6 m bar.
func TestSourceGoldenCanFail(t *testing.T) {
	cases := loadSourceCases(t)
	tests := []struct {
		name    string
		caseN   string
		perturb func(c *Case)
	}{
		{"cl_interp one tick more", "src_00_clean_t66_u20_r60", func(c *Case) { c.Settings.ClInterp += 0.015 }},
		{"cl_extrapolate_amount 5 ms", "src_01_uniform_jitter_t66_u33_r144", func(c *Case) { c.Settings.ClExtrapolateAmount = 0.005 }},
		{"cl_clock_correction off", "src_09_hitches_t66_u33_r60", func(c *Case) { c.Settings.ClClockCorrection = 0 }},
	}
	for _, tt := range tests {
		c := *cases[tt.caseN]
		tt.perturb(&c)
		frames, _, err := c.run(false)
		if err != nil {
			t.Fatal(err)
		}
		if maxErr, first, _ := sourceCompare(&c, frames); first < 0 {
			t.Errorf("%s on %s: max error %.3g m, want a frame beyond %g m", tt.name, tt.caseN, maxErr, sourceGoldenTol)
		}
	}
}

// sourceRig drives one source technique frame by frame at 100 Hz from
// packets of a given server tick, in a 66-tick (15 ms) game.
type sourceRig struct {
	s    Settings
	tech *sourceTechnique
	k    sourceConfig
	now  float64
}

func newSourceRig(edit func(*Settings)) *sourceRig {
	r := &sourceRig{s: param.Defaults(Params)}
	if edit != nil {
		edit(&r.s)
	}
	r.tech = &sourceTechnique{settings: &r.s}
	r.k = r.s.config()
	return r
}

// packet hands over the state of server tick n: position x along X.
func (r *sourceRig) packet(n int64, x float64) {
	r.tech.Receive(technique.Snapshot{Time: float64(n) * 0.015, Pos: geom.Vec3{x, 0, 0}, Rot: geom.QuatIdentity}, r.now)
}

// frame renders the frame at now and returns the drawn x and the mode.
func (r *sourceRig) frame(now float64) (float64, sourceMode) {
	r.now = now
	var out technique.Sample
	r.tech.frame(now, &r.k, &out)
	return out.Pos[0], r.tech.ent.mode
}

func TestSourceInterpAmountRounding(t *testing.T) {
	tests := []struct {
		name                      string
		tickrate                  string
		updaterate, interp, ratio float64
		ticks                     int // the amount in ticks
	}{
		{"cl_interp wins, whole ticks plus one", "66", 20, 0.1, 2, 8}, // 6.67 → 7, + 1
		{"ratio over rate wins", "66", 10, 0.1, 2, 14},                // 0.2 s = 13.3 → 13, + 1
		{"rounded to the nearest tick", "66", 33, 0, 1, 3},            // 2.02 → 2, + 1
		{"64 tick", "64", 64, 0.1, 1, 7},                              // 6.4 → 6, + 1
		{"128 tick", "128", 66, 0, 1, 3},                              // 1.94 → 2, + 1
		{"ratio clamped to the server's floor", "66", 20, 0, 0.5, 4},  // ratio 1: 3.33 → 3, + 1
		{"rate clamped to the server's cap", "66", 128, 0, 2, 3},      // 2/66 s: 2.02 → 2, + 1
	}
	for _, tt := range tests {
		s := param.Defaults(Params)
		ss := &s
		ss.Tickrate, ss.ClUpdaterate, ss.ClInterp, ss.ClInterpRatio = tt.tickrate, tt.updaterate, tt.interp, tt.ratio
		want := ss.tickInterval() * float32(tt.ticks)
		if got := ss.config().amount; got != want {
			t.Errorf("%s: interp amount = %v, want %v", tt.name, got, want)
		}
		if got := Def.Delay(&s, nil); got != float64(want) {
			t.Errorf("%s: Def.Delay = %v, want %v", tt.name, got, want)
		}
	}
}

func TestSourceHoldOldestBeforeData(t *testing.T) {
	r := newSourceRig(nil)
	r.packet(1000, 5)
	for _, now := range []float64{0.01, 0.02, 0.05} {
		if x, m := r.frame(now); x != 5 || m != sourceHold {
			t.Errorf("frame %v: x, mode = %v, %v; want 5, hold", now, x, m)
		}
	}
	if n := len(r.tech.ent.hist); n != 3 {
		t.Errorf("history after the first packet = %d samples, want 3 copies", n)
	}
}

func TestSourceExtrapolationComputedOnceThenHeld(t *testing.T) {
	r := newSourceRig(nil) // interp amount 0.12 s
	r.packet(1000, 0)
	r.frame(0)
	r.packet(1004, 1) // 1 m per 60 ms
	// Clock: tick 1000 at t=0, so curtime = 15 + t. Past the newest sample
	// (15.06 s) from t = 0.18 s; first frame past it at t = 0.2.
	var held float64
	for i, now := range []float64{0.2, 0.25, 0.3, 0.5} {
		x, m := r.frame(now)
		switch i {
		case 0:
			if m != sourceExtrapolate {
				t.Fatalf("first frame past the data: mode %v, want extrapolate", m)
			}
			want := float64(float32(1 + float32(0.02)/0.06)) // 20 ms past, at 1/0.06 m/s
			if math.Abs(x-want) > 1e-4 {
				t.Errorf("extrapolated x = %v, want about %v", x, want)
			}
			held = x
		default:
			if x != held || m != sourceNotInList {
				t.Errorf("frame %v: x, mode = %v, %v; want the extrapolated %v held, notInList", now, x, m, held)
			}
		}
	}
}

func TestSourceNoExtrapolationHoldsNewest(t *testing.T) {
	r := newSourceRig(func(s *Settings) { s.ClExtrapolate = false })
	r.packet(1000, 0)
	r.frame(0)
	r.packet(1004, 1)
	if x, m := r.frame(0.2); x != 1 || m != sourceHold {
		t.Errorf("past the data: x, mode = %v, %v; want 1, hold", x, m)
	}
}

func TestSourceSnapAfterHalfSecondWithoutPackets(t *testing.T) {
	r := newSourceRig(func(s *Settings) { s.ClInterp = 0.5 }) // target stays behind the data
	for i := range int64(10) {
		r.packet(1000+4*i, float64(i))
		r.frame(0.06 * float64(i))
	}
	last := 0.06 * 9
	if _, m := r.frame(last + 0.49); m == sourceSnap {
		t.Errorf("snapped after 0.49 s")
	}
	if x, m := r.frame(last + 0.52); x != 9 || m != sourceSnap {
		t.Errorf("0.52 s without packets: x, mode = %v, %v; want 9, snap", x, m)
	}
}

func TestSourceNetChannelDropsStaleTicks(t *testing.T) {
	r := newSourceRig(nil)
	r.packet(1000, 0)
	r.packet(1008, 2)
	r.packet(1004, 1) // late: older than the last accepted
	r.packet(1008, 2) // duplicate
	r.frame(0)
	if n, newest := len(r.tech.ent.hist), r.tech.ent.hist[0].pos[0]; n != 4 || newest != 2 {
		t.Errorf("history = %d samples, newest x %v; want 3 copies + tick 1008", n, newest)
	}
}

func TestSourceHermiteThroughSamples(t *testing.T) {
	// On a straight line at constant speed the Hermite is the line.
	p0, p1, p2 := [3]float32{0, 0, 0}, [3]float32{1, 2, 0}, [3]float32{2, 4, 0}
	for _, f := range []float32{0, 0.25, 0.5, 1} {
		got := sourceHermite(p0, p1, p2, f)
		if d := math.Abs(float64(got[0]) - float64(1+f)); d > 1e-6 {
			t.Errorf("sourceHermite(line, %v) = %v, want x %v", f, got, 1+f)
		}
	}
}

func TestSourceClockResetsBeyondDriftMax(t *testing.T) {
	var c sourceClock
	k := newSourceRig(nil).k.clock
	c.advance(0, &k)
	c.serverTick(1000, &k)
	c.advance(0.1, &k) // tick 1006, within 150 ms of the server's
	c.serverTick(1006, &k)
	if c.tick != 1006 {
		t.Errorf("client tick = %d, want 1006 kept", c.tick)
	}
	c.serverTick(1030, &k) // 24 ticks = 360 ms off
	if c.tick != 1030 {
		t.Errorf("client tick = %d after a 360 ms error, want reset to 1030", c.tick)
	}
}
