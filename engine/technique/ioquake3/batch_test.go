package ioquake3

import (
	"math"
	"testing"

	"interplab/engine/geom"
	"interplab/engine/param"
	"interplab/engine/technique"
)

// stream runs the technique on a lab stream: a player moving along x at
// speed m/s, snapshots every 1/rate s taking latency s to arrive, frames at
// 60 Hz until end s, sends stopping at stop s. It returns the samples.
func stream(s *Settings, env *technique.Env, speed, stop, end float64) []technique.Sample {
	tech := Def.One(s, env)
	var out []technique.Sample
	next := 0
	for f := 0; float64(f)/60 <= end; f++ {
		now := float64(f) / 60
		for {
			send := float64(next) / env.SendRate
			if send > stop || send+env.Latency > now {
				break
			}
			tech.Receive(technique.Snapshot{Time: send, Pos: geom.Vec3{speed * send}, Vel: geom.Vec3{speed}, Rot: geom.Quat{0, 0, 0, 1}}, send+env.Latency)
			next++
		}
		out = append(out, tech.Sample(now))
	}
	return out
}

func defaults() Settings { return param.Defaults(Params) }

// TestStream: on a steady 20 Hz stream the client draws nothing before the
// first snapshot, then interpolates about half a snapshot interval behind
// the newest (its Delay), cl_timeNudge moves the drawn time that much
// further back, and when the stream stops it holds the newest origin, or
// with cg_smoothClients moves on for 50 ms past the command time.
func TestStream(t *testing.T) {
	env := &technique.Env{SendRate: 20, TickRate: 20, RenderRate: 60, MaxSpeed: 10, Latency: 0.05}
	s := defaults()
	got := stream(&s, env, 5, 10, 12)
	if got[0].Mode != technique.Empty || got[2].Mode != technique.Empty {
		t.Errorf("frames 0, 2: mode %v, %v; want empty before the first snapshot arrives at 0.05 s", got[0].Mode, got[2].Mode)
	}
	var delay, n float64
	for _, smp := range got[5*60 : 9*60] {
		if smp.Mode != technique.Interpolate && smp.Mode != technique.Freeze {
			t.Fatalf("mode %v at t = %g, want interpolate or hold", smp.Mode, smp.Time)
		}
		delay += smp.Delay
		n++
	}
	if d := delay / n; d < 0.005 || d > 0.045 {
		t.Errorf("mean delay behind the newest snapshot %g s, want about half the 50 ms interval", d)
	}
	// Held after the stream stops: the newest origin (sent at 10 s, taken
	// back by the command lag: 50 ms latency plus 10000 mod 33 ms).
	last := got[len(got)-1]
	lag := (50 + 10000%33) / 1000.0
	if want := float32(5 * (10 - lag)); last.Mode != technique.Freeze || float32(last.Pos[0]) != want {
		t.Errorf("after the stream stops: %v at %g, want a hold at %g", last.Mode, last.Pos[0], want)
	}

	nudged := defaults()
	nudged.TimeNudge = 20
	gotN := stream(&nudged, env, 5, 10, 12)
	var shift float64
	for i := 5 * 60; i < 9*60; i++ {
		shift += got[i].Time - gotN[i].Time
	}
	if m := shift / (4 * 60); math.Abs(m-0.020) > 0.002 {
		t.Errorf("cl_timeNudge 20 draws %g s further back on average, want 0.020", m)
	}

	smooth := defaults()
	smooth.SmoothClients = true
	gotS := stream(&smooth, env, 5, 10, 12)
	end := gotS[len(gotS)-1]
	// Pushed forward from the command time by at most 50 ms.
	want := float32(float32(5*(10-lag)) + float32(float32(5)*float32(float32(min(lag*1000, 50))*float32(0.001))))
	if end.Mode != technique.Freeze || float32(end.Pos[0]) != want {
		t.Errorf("cg_smoothClients after the stream stops: %v at %.9g, want frozen at %.9g", end.Mode, end.Pos[0], want)
	}
}

// TestBatchMatchesOne: a batch of players sharing their packets shows each
// what a technique of one shows.
func TestBatchMatchesOne(t *testing.T) {
	env := &technique.Env{SendRate: 30, TickRate: 30, RenderRate: 144, Latency: 0.04}
	s := defaults()
	s.Snaps, s.FPS, s.SmoothClients = 30, 30, true
	const n = 3
	b := Def.Batch(&s, env, n)
	ones := make([]technique.Technique, n)
	for e := range ones {
		ones[e] = Def.One(&s, env)
	}
	snaps := make([]technique.Snapshot, n)
	out := make([]technique.Sample, n)
	sent := 0
	for f := range 1000 {
		now := float64(f) / 144
		for ; float64(sent)/30+0.04+0.01*float64(sent%3) <= now; sent++ {
			if sent%7 == 3 {
				continue // lost
			}
			tick := float64(sent) / 30
			for e := range snaps {
				v := float64(e + 1)
				snaps[e] = technique.Snapshot{Time: tick, Pos: geom.Vec3{v * math.Sin(tick), v * tick, 0}, Vel: geom.Vec3{v * math.Cos(tick), v, 0}, Rot: geom.QuatFromYaw(tick * v)}
				ones[e].Receive(snaps[e], now)
			}
			b.Receive(tick, now, snaps)
		}
		b.Frame(now)
		b.Fill(0, out)
		for e := range ones {
			if w := ones[e].Sample(now); w != out[e] {
				t.Fatalf("frame %d entity %d: batch %+v, one %+v", f, e, out[e], w)
			}
		}
	}
}

// TestAdvice: the technique advises when the server's snapshot rate is not
// the lab's send rate.
func TestAdvice(t *testing.T) {
	s := defaults()
	if a := advice(&s, &technique.Env{SendRate: 20}); a != "" {
		t.Errorf("advice at 20 Hz = %q, want none", a)
	}
	s.Snaps = 40
	s.FPS = 40
	if a := advice(&s, &technique.Env{SendRate: 20}); a == "" {
		t.Error("advice with snaps and sv_fps 40 at 20 Hz: none, want one")
	}
}

// TestFillMatchesOrigin: the batch's inlined interpolation draws what the
// pinned origin draws, in every mode.
func TestFillMatchesOrigin(t *testing.T) {
	env := &technique.Env{SendRate: 20, TickRate: 20, RenderRate: 60, Latency: 0.05}
	for _, smooth := range []bool{false, true} {
		s := defaults()
		s.SmoothClients = smooth
		const n = 4
		b := newBatch(&s, env, n)
		snaps := make([]technique.Snapshot, n)
		out := make([]technique.Sample, n)
		modes := map[drawMode]int{}
		sent := 0
		for f := range 600 {
			now := float64(f) / 60
			for ; float64(sent)/20+0.05+0.04*float64(sent%5)/4 <= now; sent++ {
				if sent%9 == 4 || (sent/40)%3 == 2 {
					continue // lost, and stretches of silence
				}
				tick := float64(sent) / 20
				for e := range snaps {
					v := float64(e) + 0.3
					snaps[e] = technique.Snapshot{Time: tick, Pos: geom.Vec3{v * math.Sin(tick), v * tick, -v}, Vel: geom.Vec3{v * math.Cos(tick), v, 0}, Rot: geom.QuatFromYaw(tick)}
				}
				b.Receive(tick, now, snaps)
			}
			b.Frame(now)
			b.Fill(0, out)
			modes[b.c.mode]++
			for e := range out {
				o, ok := b.c.origin(e)
				if ok != (out[e].Mode != technique.Empty) || ok && out[e].Pos != (geom.Vec3{float64(o[0]), float64(o[1]), float64(o[2])}) {
					t.Fatalf("smooth %v frame %d entity %d: Fill %v, origin %v (%v)", smooth, f, e, out[e].Pos, o, ok)
				}
			}
		}
		if modes[drawInterp] == 0 || modes[drawHold]+modes[drawExtrap] == 0 {
			t.Errorf("smooth %v: modes %v, want interpolation and holds both", smooth, modes)
		}
	}
}

// TestDelay: half a snapshot interval plus the nudge, never below 0.
func TestDelay(t *testing.T) {
	for _, tc := range []struct {
		snaps, fps, nudge int
		want              float64
	}{{20, 20, 0, 0.025}, {40, 20, 10, 0.035}, {30, 30, 0, 0.0165}, {20, 20, -30, 0}} {
		s := defaults()
		s.Snaps, s.FPS, s.TimeNudge = tc.snaps, tc.fps, tc.nudge
		if got := delay(&s, nil); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("delay(snaps %d, sv_fps %d, cl_timeNudge %d) = %g, want %g", tc.snaps, tc.fps, tc.nudge, got, tc.want)
		}
	}
}
