package ngo

import (
	"maps"
	"math"
	"slices"
	"testing"

	"interplab/engine/internal/peertest"
	"interplab/engine/param"
	"interplab/engine/technique"
)

// ngoGolden is a case of testdata/peers/ngo with the rows NGO recorded.
type ngoGolden struct {
	Case
	Out []struct {
		T          float64     `json:"t"`
		Pos        *[3]float64 `json:"pos"`
		ServerTime *float64    `json:"serverTime"`
		LocalTime  *float64    `json:"localTime"`
		RenderTime *float64    `json:"renderTime"`
		SegStart   *float64    `json:"segStart"`
		SegEnd     *float64    `json:"segEnd"`
		Buffered   int         `json:"buffered"`
		Reset      bool        `json:"reset"`
	} `json:"out"`
}

func loadNGOGoldens(t testing.TB) map[string]*ngoGolden {
	t.Helper()
	_, all := peertest.Decode[ngoGolden](t, "testdata")
	cases := map[string]*ngoGolden{}
	for _, g := range all {
		cases[g.Name] = g
	}
	return cases
}

// ngoPosErr compares a replay's frames with the recorded ones: the largest
// position error over frames drawn by both, and the first frame that differs
// (drawn or not, or beyond tol), −1 if none.
func ngoPosErr(g *ngoGolden, got []technique.PeerFrame, tol float64) (maxErr float64, first int) {
	first = -1
	for i, o := range g.Out {
		f := &got[i]
		if (o.Pos != nil) != f.Drawn {
			if first < 0 {
				first = i
			}
			continue
		}
		if o.Pos == nil {
			continue
		}
		for a := range 3 {
			e := math.Abs(f.Pos[a] - o.Pos[a])
			maxErr = max(maxErr, e)
			if !(e <= tol) && first < 0 {
				first = i
			}
		}
	}
	return maxErr, first
}

// TestNGOGolden replays every NGO case and requires every frame to match
// NGO's to 1e-6 m, frames where nothing was drawn included; the clock
// values and the interpolator's segment must match too (1e-6 s).
func TestNGOGolden(t *testing.T) {
	const tol, tolT = 1e-6, 1e-6
	var frames int
	var worst float64
	cases := loadNGOGoldens(t)
	for _, name := range slices.Sorted(maps.Keys(cases)) {
		g := cases[name]
		rows, err := g.replay()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(rows) != len(g.Out) {
			t.Fatalf("%s: %d frames, want %d", name, len(rows), len(g.Out))
		}
		got := make([]technique.PeerFrame, len(rows))
		for i := range rows {
			got[i] = rows[i].PeerFrame
		}
		maxErr, first := ngoPosErr(g, got, tol)
		if first >= 0 {
			o := g.Out[first]
			t.Errorf("%s: frame %d (t = %v): pos = %v (drawn %v), want %v", name, first, o.T, got[first].Pos, got[first].Drawn, o.Pos)
		}
		for i, o := range g.Out {
			r := &rows[i]
			bad := func(got float64, want *float64) bool {
				if want == nil {
					return !math.IsNaN(got)
				}
				return !(math.Abs(got-*want) <= tolT)
			}
			switch {
			case bad(r.server, o.ServerTime), bad(r.local, o.LocalTime),
				bad(r.render, o.RenderTime):
				t.Errorf("%s: frame %d: server, local, render = %v, %v, %v; want %v, %v, %v", name, i,
					r.server, r.local, r.render, deref(o.ServerTime), deref(o.LocalTime), deref(o.RenderTime))
			case o.SegStart != nil && (bad(r.segStart, o.SegStart) || bad(r.segEnd, o.SegEnd)):
				t.Errorf("%s: frame %d: segment = [%v, %v], want [%v, %v]", name, i, r.segStart, r.segEnd, *o.SegStart, *o.SegEnd)
			case r.buffered != o.Buffered || r.reset != o.Reset:
				t.Errorf("%s: frame %d: buffered, reset = %d, %v; want %d, %v", name, i, r.buffered, r.reset, o.Buffered, o.Reset)
			default:
				continue
			}
			break
		}
		frames += len(rows)
		worst = max(worst, maxErr)
		t.Logf("%s: %d frames, max error %.3g m", name, len(rows), maxErr)
	}
	t.Logf("all cases: %d frames, max error %.3g m", frames, worst)
}

func deref(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}

// TestNGOGoldenCanFail shows the golden comparison has teeth: each knob
// moved a little, or a quirk of NGO dropped, moves frames beyond 1e-6 m.
func TestNGOGoldenCanFail(t *testing.T) {
	cases := loadNGOGoldens(t)
	tests := []struct {
		name  string
		cas   string
		tweak func(s *CaseSettings)
	}{
		{"ticksAgo 3", "ngo_00_clean_30tick_60fps", func(s *CaseSettings) { s.TicksAgo = 3 }},
		{"serverBufferSec +1 ms", "ngo_00_clean_30tick_60fps", func(s *CaseSettings) { s.ServerBufferSec += 0.001 }},
		{"maximumInterpolationTime 0.11", "ngo_01_uniform_jitter_60tick_60fps", func(s *CaseSettings) { s.MaximumInterpolationTime = 0.11 }},
		{"adjustmentRatio 0.02", "ngo_02_pareto_jitter_30tick_144fps", func(s *CaseSettings) { s.AdjustmentRatio = 0.02 }},
		{"hardResetThresholdSec 0.3", "ngo_07_latency_step_60tick_144fps", func(s *CaseSettings) { s.HardResetThresholdSec = 0.3 }},
		{"maximumDeltaTime 0.01", "ngo_09_interp_settings_60tick_60fps", func(s *CaseSettings) { s.MaximumDeltaTime = 0.01 }},
		{"approvalRttSec 0.5", "ngo_08_asym_rtt_30tick_60fps", func(s *CaseSettings) { s.ApprovalRttSec = 0.5 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g0, ok := cases[tt.cas]
			if !ok {
				t.Fatalf("no case %s", tt.cas)
			}
			g := *g0
			tt.tweak(&g.Settings)
			got, err := g.Run()
			if err != nil {
				t.Fatal(err)
			}
			maxErr, first := ngoPosErr(&g, got, 1e-6)
			if first < 0 {
				t.Errorf("%s with %s: max error %.3g m, want a frame beyond 1e-6 m", tt.cas, tt.name, maxErr)
			}
		})
	}
}

// TestNGOCaseErrors checks that a case's bad inputs are refused with the
// field named.
func TestNGOCaseErrors(t *testing.T) {
	g := loadNGOGoldens(t)["ngo_00_clean_30tick_60fps"]
	tests := []struct {
		name   string
		field  string
		break_ func(c *Case)
	}{
		{"library", "library", func(c *Case) { c.Library = "mirror" }},
		{"version", "ngoVersion", func(c *Case) { c.Version = "1.9.1" }},
		{"no frames", "frames", func(c *Case) { c.Frames = nil }},
		{"frames backwards", "frames[2]", func(c *Case) { c.Frames = []float64{0, 1, 0.5} }},
		{"packet type", "packets[0].type", func(c *Case) { c.Packets = []NGOPacket{{Type: "spawn"}} }},
		{"approve without axis", "packets[0].pos[1]", func(c *Case) {
			c.Packets = []NGOPacket{{Type: "approve", Pos: [3]*float64{new(float64), nil, new(float64)}}}
		}},
		{"tick rate", "settings.tickRate", func(c *Case) { c.Settings.TickRate = 0 }},
		{"interpolation time", "settings.maximumInterpolationTime", func(c *Case) { c.Settings.MaximumInterpolationTime = 0 }},
		{"rtt order", "rtt[1]", func(c *Case) { c.RTT = []NGORTT{{At: 1}, {At: 0.5}} }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := g.Case
			c.Settings = g.Settings
			tt.break_(&c)
			_, err := c.Run()
			fe, ok := err.(*param.FieldError)
			if !ok || fe.Field != tt.field {
				t.Errorf("Run() error = %v, want a FieldError on %s", err, tt.field)
			}
		})
	}
}
