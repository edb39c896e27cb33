package buffer

import (
	"fmt"
	"math"
	"testing"

	"interplab/engine/geom"
	"interplab/engine/technique"
)

// TestBufferDelaySlewBits checks the delay a frame uses against the slew
// written out, to the bit, frame after frame, while the slider moves (up,
// down, back to where the delay is) and, once, now steps back: render keeps
// the delay without working the slew out while it is at its target, which
// must change none of its values.
func TestBufferDelaySlewBits(t *testing.T) {
	s := bufSettings()
	b := newBufBatch(&s.Settings, &s.Env, false, 1)
	b.SkipRotations(true)
	const frame = 1.0 / 60
	moves := map[int]float64{30: 0.3, 45: 0.1, 200: 0.1 + 1e-12, 260: 0.05, 262: 0.12, 400: 0}
	var want, last float64
	started, kept := false, 0
	for k := range 600 {
		now := 1 + float64(k)*frame
		if k == 500 {
			now -= 0.05 // against the contract: the step is not positive
		}
		if d, ok := moves[k]; ok {
			s.Delay = d
		}
		target := s.Delay
		if !(target > 0) {
			target = adaptiveDelay(&s.Settings, &b.jitter)
		}
		b.Receive(math.Floor(now*20)/20, now, []technique.Snapshot{bufLinear(math.Floor(now*20) / 20)})
		b.FrameLean(now)
		if !started {
			want, started = target, true
		} else {
			if want == target {
				kept++
			}
			want = geom.SlewTowards(want, target, float64(delaySlew*(now-last)))
		}
		last = now
		if math.Float64bits(b.dly) != math.Float64bits(want) {
			t.Fatalf("frame %d: delay %v, the slew written out gives %v", k, b.dly, want)
		}
	}
	if kept < 100 {
		t.Errorf("%d frames at the target: the case does not reach the kept delay", kept)
	}
}

// TestBufferOneSameAsMany checks that a batch of one, whose Receive writes
// its one slot without the batch's slices, shows to the bit what the same
// entity shows in a batch of three, in every mode (interpolated, held,
// dead-reckoned, frozen) and with Hermite positions, which read the
// velocities, and the rotations read.
func TestBufferOneSameAsMany(t *testing.T) {
	for _, hermite := range []bool{false, true} {
		s := bufSettings()
		s.Delay, s.ExtrapolateCap = 0.1, 0.05
		one, many := newBufBatch(&s.Settings, &s.Env, hermite, 1), newBufBatch(&s.Settings, &s.Env, hermite, 3)
		ps := leanStream(7, 0.3, 0.03)
		var out1 [1]technique.Sample
		var out3 [3]technique.Sample
		seen := map[technique.Mode]int{}
		for k := range 60 * 30 {
			now := float64(k)/60 - 0.2
			for len(ps) > 0 && ps[0].at <= now {
				sn := ps[0].sn
				sn.Rot = geom.QuatFromYaw(sn.Time)
				other := sn
				other.Pos[0], other.Vel[1], other.Rot = -sn.Pos[0], 3, geom.QuatFromYaw(-sn.Time)
				one.Receive(sn.Time, ps[0].at, []technique.Snapshot{sn})
				many.Receive(sn.Time, ps[0].at, []technique.Snapshot{other, sn, other})
				ps = ps[1:]
			}
			one.Frame(now)
			one.Fill(0, out1[:])
			many.Frame(now)
			many.Fill(0, out3[:])
			if got, want := out1[0], out3[1]; got != want {
				t.Fatalf("hermite %v, frame %d: a batch of one shows %+v, entity 1 of three %+v", hermite, k, got, want)
			}
			seen[out1[0].Mode]++
		}
		for _, m := range []technique.Mode{technique.Interpolate, technique.Extrapolate, technique.Freeze} {
			if seen[m] == 0 {
				t.Errorf("hermite %v: no frame in mode %v: the case does not reach it", hermite, m)
			}
		}
	}
}

// TestFrameLeanRenderWrittenOut checks FrameLean, which writes render out
// for a delay at its target, against Frame and Fill, to the bit, with the
// delay fixed and adaptive, while the delay slider moves (so that frames go
// both ways, and the way back must find the time of the last frame) and
// now sometimes steps back (against the contract: the render time is held).
func TestFrameLeanRenderWrittenOut(t *testing.T) {
	for _, adaptive := range []bool{false, true} {
		s := bufSettings()
		s.Adaptive, s.DelayCap = adaptive, 0.3
		lean, full := newBufBatch(&s.Settings, &s.Env, false, 1), newBufBatch(&s.Settings, &s.Env, false, 1)
		lean.SkipRotations(true)
		full.SkipRotations(true)
		ps := leanStream(3, 0.1, 0.03)
		moves := map[int]float64{300: 0.2, 700: 0.08, 1100: 0.15}
		back, kept := 0, 0
		for k := range 60 * 30 {
			now := float64(k)/60 - 0.2
			if k%97 == 50 {
				now -= 0.04 // a step back
				back++
			}
			if d, ok := moves[k]; ok {
				s.Delay = d
			}
			ps = arrive(ps, now, lean, full)
			if lean.dly == adaptiveDelay(&s.Settings, &lean.jitter) {
				kept++
			}
			got, want := frameBoth(lean, full, now)
			if !sameLean(got, want) {
				t.Fatalf("adaptive %v, frame %d: FrameLean(%v) = %+v, Frame and Fill give %+v", adaptive, k, now, got, want)
			}
			if math.Float64bits(lean.rt) != math.Float64bits(full.rt) || math.Float64bits(lean.dly) != math.Float64bits(full.dly) {
				t.Fatalf("adaptive %v, frame %d: FrameLean's render time and delay %v, %v, Frame's %v, %v", adaptive, k, lean.rt, lean.dly, full.rt, full.dly)
			}
		}
		if back < 10 || kept < 500 || kept > 60*30-100 {
			t.Errorf("adaptive %v: %d steps back, %d frames at the target: want at least 10 steps, at least 500 frames at the target and 100 off it", adaptive, back, kept)
		}
	}
}

// TestAdaptiveDelayWrittenOut checks adaptiveDelay, which reads the p95 in
// place as the least of the window's top, against the target written out
// from the window's times (their p95 by nearest rank), to the bit, over
// windows filling, full, shortened and lengthened.
func TestAdaptiveDelayWrittenOut(t *testing.T) {
	s := bufSettings()
	s.Adaptive, s.Margin, s.DelayCap = true, 0.01, 0.3
	r := geom.NewRNG(21, 1)
	w := newJitterWindow(40)
	var all []float64
	keep, over := 0, 0
	for i := range 4000 {
		if i%300 == 0 {
			s.AdaptWindow = []int{40, 7, 120, 1, 60}[i/300%5]
		}
		if i%300 != 150 { // half way, a frame without a packet first
			x := 0.02 + 0.2*r.Float64()*r.Float64()
			w.add(x, s.AdaptWindow)
			all = append(all, x)
			keep = min(keep, s.AdaptWindow-1) + 1
		}
		want := s.Delay
		if keep > 0 {
			if p := adaptP95(all[len(all)-keep:]) + s.Margin; p > want {
				want = p
				over++
			}
		}
		want = min(want, s.DelayCap)
		if got := adaptiveDelay(&s.Settings, &w); math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("packet %d, window %d: adaptiveDelay = %v, want %v", i, s.AdaptWindow, got, want)
		}
	}
	if empty := newJitterWindow(8); adaptiveDelay(&s.Settings, &empty) != s.Delay {
		t.Errorf("empty window: adaptiveDelay = %v, want the base %v", adaptiveDelay(&s.Settings, &empty), s.Delay)
	}
	if over < 1000 {
		t.Errorf("%d targets above the base, want at least 1000", over)
	}
}

// TestFrameLeanRingMoves checks FrameLean, which keeps the next snapshot's
// time and the segment it interpolates on, against Frame and Fill, to the
// bit, while makeRoom moves and drops held snapshots under it: the frames'
// clock stands still for 18 s (against the contract: the render time is
// held) while packets keep arriving, so the ring doubles from 8 to 256 and
// then drops its oldest, past the render time's snapshots; then the clock
// goes on from where it stood, before the oldest snapshot held, at twice
// times the speed.
func TestFrameLeanRingMoves(t *testing.T) {
	for _, hermite := range []bool{false, true} {
		s := bufSettings()
		lean, full := newBufBatch(&s.Settings, &s.Env, hermite, 1), newBufBatch(&s.Settings, &s.Env, hermite, 1)
		lean.SkipRotations(true)
		full.SkipRotations(true)
		ps := leanStream(5, 0.05, 0.02)
		grown, dropped, kept := false, false, 0
		for k := range 60 * 30 {
			now := float64(k)/60 - 0.2
			shown := now
			if now >= 4 {
				shown = max(4, 4+2*(now-22)) // the frames' clock stands still, then catches up
			}
			ps = arrive(ps, now, lean, full)
			if len(lean.ring) == bufMaxRing {
				grown = true
				if lean.first > 0 && lean.next == lean.first {
					dropped = true
				}
			}
			if lean.segNext == lean.next && lean.dly == s.Delay {
				kept++ // the frame takes the segment kept
			}
			got, want := frameBoth(lean, full, shown)
			if !sameLean(got, want) {
				t.Fatalf("hermite %v, frame %d: FrameLean(%v) = %+v, Frame and Fill give %+v", hermite, k, shown, got, want)
			}
			for _, b := range []*bufBatch{lean, full} {
				if err := keptRing(b); err != "" {
					t.Fatalf("hermite %v, frame %d: %s", hermite, k, err)
				}
			}
		}
		if !grown || !dropped || kept < 100 {
			t.Errorf("hermite %v: ring grown to %d %v, oldest dropped past the render time %v, %d frames on a kept segment: want all, and 100",
				hermite, bufMaxRing, grown, dropped, kept)
		}
	}
}

// TestFrameLeanWindowShortened checks FrameLean, which works the adaptive
// delay's target out itself, against Frame and Fill, to the bit, while the
// adaptive window is shortened (the oldest times drop at once, on the
// next frame) and lengthened again.
func TestFrameLeanWindowShortened(t *testing.T) {
	s := bufSettings()
	s.Adaptive, s.Margin, s.DelayCap = true, 0.01, 0.3
	lean, full := newBufBatch(&s.Settings, &s.Env, false, 1), newBufBatch(&s.Settings, &s.Env, false, 1)
	lean.SkipRotations(true)
	full.SkipRotations(true)
	ps := leanStream(8, 0.1, 0.04)
	windows := map[int]int{400: 5, 700: 60, 1100: 4, 1300: 40}
	shortened := 0
	for k := range 60 * 30 {
		now := float64(k)/60 - 0.2
		if w, ok := windows[k]; ok {
			s.AdaptWindow = w
		}
		ps = arrive(ps, now, lean, full)
		if lean.jitter.len() > s.AdaptWindow {
			shortened++
		}
		got, want := frameBoth(lean, full, now)
		if !sameLean(got, want) {
			t.Fatalf("frame %d, window %d: FrameLean(%v) = %+v, Frame and Fill give %+v", k, s.AdaptWindow, now, got, want)
		}
		if math.Float64bits(lean.dly) != math.Float64bits(full.dly) {
			t.Fatalf("frame %d, window %d: FrameLean's delay %v, Frame's %v", k, s.AdaptWindow, lean.dly, full.dly)
		}
	}
	if shortened != 2 {
		t.Errorf("%d frames found the window longer than adaptWindow, want 2 (one a shortening)", shortened)
	}
}

// keptRing checks what b keeps of its ring against the ring itself after a
// frame: next is the first snapshot held newer than the render time (the
// end if none), nextT and newestT the times of next and of the newest
// (NaN when none), and a segment kept for next is the pair before and at
// next. It returns what is wrong, or "".
func keptRing(b *bufBatch) string {
	at := func(i int) float64 { return b.ring[i&b.mask] }
	next := b.first
	for next < b.end && at(next) <= b.rt {
		next++
	}
	nextT, newestT := math.NaN(), math.NaN()
	if next < b.end {
		nextT = at(next)
	}
	if b.end > b.first {
		newestT = at(b.end - 1)
	}
	switch {
	case b.next != next:
		return fmt.Sprintf("next %d, the first held newer than the render time %v is %d (held %d to %d)", b.next, b.rt, next, b.first, b.end)
	case math.Float64bits(b.nextT) != math.Float64bits(nextT) || math.Float64bits(b.newestT) != math.Float64bits(newestT):
		return fmt.Sprintf("nextT, newestT = %v, %v, the ring's %v, %v", b.nextT, b.newestT, nextT, newestT)
	case b.segNext == next && (b.segT0 != at(next-1) || b.segInv != 1/(at(next)-at(next-1)) ||
		!b.hermite && (b.segX0 != b.pos[(next-1)&b.mask][0] || b.segDX != b.pos[next&b.mask][0]-b.segX0) ||
		b.hermite && (b.segI0 != (next-1)&b.mask || b.segI1 != next&b.mask)):
		return fmt.Sprintf("the segment kept for %d is not the pair before and at it", next)
	}
	return ""
}
