package buffer

import (
	"math"
	"math/rand/v2"
	"testing"

	"interplab/engine/technique"
)

// TestFrameLeanSameAsFrameFill checks that FrameLean, the fused frame of a
// batch of one, gives to the bit what Frame then Fill give (technique.LeanOf
// of the Sample), frame after frame, over settings that reach every way a
// frame can go: empty, before the oldest snapshot, interpolated (lerp and
// Hermite), held at the newest, dead-reckoned with and without the speed
// clamp, frozen at the cap (0 included); fixed, zero and adaptive delays;
// jittered, reordered and lost packets and an outage.
func TestFrameLeanSameAsFrameFill(t *testing.T) {
	tests := []struct {
		name    string
		hermite bool
		change  func(s *bufLab)
		loss    float64 // share of packets lost
		jitter  float64 // mean of the exponential extra delay, s
		rot     bool    // rotations read: FrameLean does Frame and Fill
	}{
		{name: "defaults", jitter: 0.01},
		{name: "hermite", hermite: true, jitter: 0.02, loss: 0.05},
		{name: "adaptive", change: func(s *bufLab) { s.Adaptive, s.Margin, s.DelayCap = true, 0.025, 0.2 }, jitter: 0.04, loss: 0.1},
		{name: "hermite adaptive", hermite: true, change: func(s *bufLab) { s.Adaptive, s.DelayCap = true, 0.3 }, jitter: 0.05, loss: 0.2},
		{name: "delay 0", change: func(s *bufLab) { s.Delay = 0 }, jitter: 0.02},
		{name: "cap 0", change: func(s *bufLab) { s.Delay, s.ExtrapolateCap = 0.02, 0 }, jitter: 0.03, loss: 0.3},
		{name: "no clamp", change: func(s *bufLab) { s.Delay, s.SpeedClamp = 0.03, false }, jitter: 0.03, loss: 0.3},
		{name: "clamped", change: func(s *bufLab) { s.Delay, s.MaxSpeed = 0.03, 5 }, jitter: 0.03, loss: 0.3},
		{name: "long cap", change: func(s *bufLab) { s.Delay, s.ExtrapolateCap = 0.01, 1 }, jitter: 0.08, loss: 0.4},
		{name: "euler rotations read", change: func(s *bufLab) { s.Rotation = "euler" }, jitter: 0.02, loss: 0.1, rot: true},
	}
	seen := map[technique.Mode]int{}
	past := 0
	for _, tt := range tests {
		for seed := range uint64(4) {
			s := bufSettings()
			if tt.change != nil {
				tt.change(s)
			}
			lean, full := newBufBatch(&s.Settings, &s.Env, tt.hermite, 1), newBufBatch(&s.Settings, &s.Env, tt.hermite, 1)
			lean.SkipRotations(!tt.rot)
			full.SkipRotations(!tt.rot)
			ps := leanStream(seed, tt.loss, tt.jitter)
			for k := range 60 * 30 {
				now := float64(k)/60 - 0.2 // the first frames before any packet
				ps = arrive(ps, now, lean, full)
				got, want := frameBoth(lean, full, now)
				if !sameLean(got, want) {
					t.Fatalf("%s, seed %d, frame %d: FrameLean(%v) = %+v, Frame and Fill give %+v", tt.name, seed, k, now, got, want)
				}
				seen[want.Flags.Mode()]++
				if want.Flags&technique.LeanPast != 0 {
					past++
				}
			}
		}
	}
	for _, m := range []technique.Mode{technique.Empty, technique.Interpolate, technique.Extrapolate, technique.Freeze} {
		if seen[m] == 0 {
			t.Errorf("no frame in mode %v: the cases do not reach it", m)
		}
	}
	if past == 0 {
		t.Error("no frame past the newest snapshot: the cases do not reach it")
	}
}

// arrive hands each of bs the packets of ps that have arrived by now, in
// order, and returns the rest.
func arrive(ps []bufPacket, now float64, bs ...*bufBatch) []bufPacket {
	for len(ps) > 0 && ps[0].at <= now {
		sn := ps[0].sn
		for _, b := range bs {
			b.Receive(sn.Time, ps[0].at, []technique.Snapshot{sn})
		}
		ps = ps[1:]
	}
	return ps
}

// frameBoth returns lean's FrameLean at now and full's Frame and Fill at
// now, as a Lean.
func frameBoth(lean, full *bufBatch, now float64) (got, want technique.Lean) {
	var out [1]technique.Sample
	got = lean.FrameLean(now)
	full.Frame(now)
	full.Fill(0, out[:])
	return got, technique.LeanOf(&out[0])
}

// sameLean reports whether a and b are the same to the bit.
func sameLean(a, b technique.Lean) bool {
	return math.Float64bits(a.X) == math.Float64bits(b.X) && math.Float64bits(a.Y) == math.Float64bits(b.Y) &&
		math.Float64bits(a.Z) == math.Float64bits(b.Z) && a.Flags == b.Flags
}

// leanStream is 30 s of a circling, climbing entity's snapshots at 20 Hz,
// a share loss of them lost, each arriving 50 ms plus an exponential extra
// delay of mean jitter after its time (so later ones may overtake), with an
// outage from 12 to 14 s; in arrival order.
func leanStream(seed uint64, loss, jitter float64) []bufPacket {
	r := rand.New(rand.NewPCG(seed, 55))
	var ps []bufPacket
	for i := range 20 * 30 {
		t := float64(i) / 20
		if r.Float64() < loss || (t >= 12 && t < 14) {
			continue
		}
		sn := bufCircle(t)
		sn.Pos[2] = math.Max(0, 2*math.Sin(t)) // off the ground half the time
		ps = append(ps, bufPacket{sn, t + 0.05 + jitter*r.ExpFloat64()})
	}
	sortByArrival(ps)
	return ps
}
