package lightyear

import (
	"math"
	"testing"

	"interplab/engine/geom"
	"interplab/engine/param"
	"interplab/engine/technique"
)

func defaults() Settings { return param.Defaults(Params) }

// run drives a batch of n entities on a lab stream: entity e moves along x
// at e+1 m/s, a snapshot every 1/sendRate s arrives latency s plus a jitter
// of up to jitter s later (deterministic), every 7th is lost; frames at 60
// Hz until end s. It returns every frame's samples.
func run(s *Settings, env *technique.Env, n int, jitter, end float64) [][]technique.Sample {
	b := Def.Batch(s, env, n)
	snaps := make([]technique.Snapshot, n)
	var frames [][]technique.Sample
	sent := 0
	for f := 0; float64(f)/60 <= end; f++ {
		now := float64(f) / 60
		for {
			send := float64(sent) / env.SendRate
			arrive := send + env.Latency + jitter*float64((sent*37)%11)/10
			if arrive > now {
				break
			}
			if sent%7 != 3 {
				for e := range snaps {
					v := float64(e + 1)
					snaps[e] = technique.Snapshot{Time: send, Pos: geom.Vec3{v * send, 1, 0}, Vel: geom.Vec3{v}, Rot: geom.QuatFromYaw(send)}
				}
				b.Receive(send, arrive, snaps)
			}
			sent++
		}
		out := make([]technique.Sample, n)
		b.Frame(now)
		b.Fill(0, out)
		frames = append(frames, out)
	}
	return frames
}

// TestStream: nothing is drawn until the timeline has synced (3 pongs used,
// then a packet accepted); after that every frame is drawn, between two
// received updates or holding the newest, never past it (no
// extrapolation); and send_interval_ratio moves the delay by that many
// send intervals.
func TestStream(t *testing.T) {
	env := &technique.Env{SendRate: 30, TickRate: 60, RenderRate: 60, MaxSpeed: 10, Latency: 0.04, Jitter: 0.01}
	s := defaults()
	frames := run(&s, env, 2, 0.02, 8)
	first := -1
	for i, f := range frames {
		if f[0].Mode != technique.Empty && first < 0 {
			first = i
		}
		if first >= 0 && f[0].Mode == technique.Empty {
			t.Fatalf("frame %d: nothing drawn after the first drawn frame %d", i, first)
		}
	}
	// Pings at 0.1, 0.2, 0.3 s come back about 0.08–0.12 s later.
	if first < 20 || first > 40 {
		t.Errorf("first drawn frame %d, want one after the third pong (about 0.4–0.6 s)", first)
	}
	for i, f := range frames[first:] {
		for e, smp := range f {
			if smp.Mode != technique.Interpolate && smp.Mode != technique.Freeze {
				t.Fatalf("frame %d entity %d: mode %v, want interpolate or hold", first+i, e, smp.Mode)
			}
			// Positions are x = v·t of the server time: never past the
			// newest received.
			if x := smp.Pos[0] / float64(e+1); x > smp.Newest+1e-6 {
				t.Fatalf("frame %d entity %d: draws server time %g past the newest %g", first+i, e, x, smp.Newest)
			}
		}
	}
	meanDelay := func(s *Settings) float64 {
		fr := run(s, env, 1, 0.02, 8)
		sum := 0.0
		for _, f := range fr[4*60:] {
			sum += f[0].Delay
		}
		return sum / float64(len(fr[4*60:]))
	}
	more := defaults()
	more.SendIntervalRatio = 2.7
	d0, d1 := meanDelay(&s), meanDelay(&more)
	if diff := d1 - d0; math.Abs(diff-1.0/30) > 0.004 {
		t.Errorf("send_interval_ratio 1.7 → 2.7 moves the mean delay by %g s, want one send interval, 0.0333", diff)
	}
}

// TestBatchMatchesOne: a batch of entities sharing their packets shows each
// what a technique of one shows.
func TestBatchMatchesOne(t *testing.T) {
	env := &technique.Env{SendRate: 20, TickRate: 60, RenderRate: 60, Latency: 0.05, Jitter: 0.01}
	s := defaults()
	const n = 3
	batch := run(&s, env, n, 0.03, 5)
	for e := range n {
		// Entity e of the batch moves as entity 0 of a run at speed e+1:
		// rerun one entity with that speed by scaling positions.
		one := Def.One(&s, env)
		sent := 0
		for f := range batch {
			now := float64(f) / 60
			for {
				send := float64(sent) / env.SendRate
				arrive := send + env.Latency + 0.03*float64((sent*37)%11)/10
				if arrive > now {
					break
				}
				if sent%7 != 3 {
					v := float64(e + 1)
					one.Receive(technique.Snapshot{Time: send, Pos: geom.Vec3{v * send, 1, 0}, Vel: geom.Vec3{v}, Rot: geom.QuatFromYaw(send)}, arrive)
				}
				sent++
			}
			if got, want := one.Sample(now), batch[f][e]; got != want {
				t.Fatalf("frame %d entity %d: one %+v, batch %+v", f, e, got, want)
			}
		}
	}
}

// TestNothingDrawnUnsynced: in every recorded case, no frame was drawn
// before the timeline's first sync, the rule the lab's batch applies.
func TestNothingDrawnUnsynced(t *testing.T) {
	for name, c := range loadGoldens(t) {
		for i, o := range c.Out {
			if !o.Synced && o.Pos != nil {
				t.Errorf("%s frame %d: drawn before the first sync", name, i)
			}
		}
	}
}

// TestDelay: the steady-state delay grows with the send interval ratio
// and the jitter margin, and is 0 when the link's transit exceeds it.
func TestDelay(t *testing.T) {
	env := &technique.Env{SendRate: 30, TickRate: 60, Latency: 0.02}
	s := defaults()
	// max(1.7/30, 0.005) + 4·0 + 1/60 − 0.02
	if got, want := delay(&s, env), 1.7/30+1.0/60-0.02; math.Abs(got-want) > 1e-12 {
		t.Errorf("delay = %g, want %g", got, want)
	}
	env.Latency = 1
	if got := delay(&s, env); got != 0 {
		t.Errorf("delay with a 1 s transit = %g, want 0 (the client holds)", got)
	}
}

// TestMarkersInBatch: an entity that stands still gets "same as before"
// markers while the other moves, late packets land before them and change
// what they stand for, and each entity of the batch shows what a technique
// of one shows and what the history reads the way the cases pin it.
func TestMarkersInBatch(t *testing.T) {
	env := &technique.Env{SendRate: 30, TickRate: 60, RenderRate: 60, Latency: 0.05, Jitter: 0.05}
	s := defaults()
	// Entity 1 stands at 0 but for a blip to 1 on every 5th send, whose
	// packet arrives after the next three: they were stored as markers of
	// the 0 before the blip, and resolve to the blip once it lands.
	state := func(e, k int) technique.Snapshot {
		send := float64(k) / 30
		x := send
		if e == 1 {
			x = 0
			if k%5 == 2 {
				x = 1
			}
		}
		return technique.Snapshot{Time: send, Pos: geom.Vec3{x, 1, 0}, Rot: geom.QuatFromYaw(x)}
	}
	const n = 2
	b := newBatch(&s, env, n)
	ones := [n]technique.Technique{Def.One(&s, env), Def.One(&s, env)}
	snaps := make([]technique.Snapshot, n)
	out := make([]technique.Sample, n)
	type pkt struct {
		k      int
		arrive float64
	}
	var sched []pkt
	for k := range 180 {
		late := 0.0
		if k%5 == 2 {
			late = 0.11
		}
		sched = append(sched, pkt{k, float64(k)/30 + 0.05 + late})
	}
	markers := 0
	for f := range 6 * 60 {
		now := float64(f) / 60
		for _, p := range sched {
			if p.arrive > now-1.0/60 && p.arrive <= now {
				for e := range snaps {
					snaps[e] = state(e, p.k)
					ones[e].Receive(snaps[e], p.arrive)
				}
				b.Receive(float64(p.k)/30, p.arrive, snaps)
			}
		}
		b.Frame(now)
		b.Fill(0, out)
		for _, m := range b.h.same {
			if m {
				markers++
			}
		}
		for e := range ones {
			if w := ones[e].Sample(now); w != out[e] {
				t.Fatalf("frame %d entity %d: batch %+v, one %+v", f, e, out[e], w)
			}
			// Against the history read the way the pinned cases read it.
			if b.at < 0 {
				continue
			}
			p := b.h.val[b.h.explicit(b.at, e)]
			if b.at+1 < b.h.len() {
				p = lerp(&p, &b.h.val[b.h.explicit(b.at+1, e)], b.t)
			}
			if got := out[e].Pos; got != (geom.Vec3{float64(p[0]), float64(p[1]), float64(p[2])}) {
				t.Fatalf("frame %d entity %d: Fill draws %v, the history reads %v", f, e, got, p)
			}
		}
	}
	if markers == 0 {
		t.Error("no marker was ever stored: the test does not reach them")
	}
}
