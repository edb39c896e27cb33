package motion

import (
	"flag"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"interplab/engine/geom"
	"interplab/engine/internal/goldentest"
)

type motionCase struct {
	script   string
	entity   int
	maxSpeed float64
	seed     uint64
}

// motionCases are the movers the motion tests run: each script (and mix)
// at a slow, the default and the largest speed, for a few entities.
func motionCases() []motionCase {
	var cs []motionCase
	for _, script := range Names {
		for _, v := range []float64{0.5, 7, 50} {
			for _, e := range []int{0, 7, 9999} {
				cs = append(cs, motionCase{script, e, v, uint64(e) + 3})
			}
		}
	}
	return cs
}

func (c motionCase) String() string {
	m := NewMover(c.script, c.entity, c.maxSpeed, c.seed)
	return c.script + "(" + m.Script() + ") entity " + strconv.Itoa(c.entity) + " maxSpeed " + strconv.FormatFloat(c.maxSpeed, 'g', -1, 64)
}

// TestMoverSpeed: the 3-D speed never exceeds maxSpeed, neither the
// velocity's (to rounding) nor the finite-difference one between instants
// 1 ms apart over 60 s; and the entity does reach its top speed.
func TestMoverSpeed(t *testing.T) {
	const h = 0.001
	for _, c := range motionCases() {
		m := NewMover(c.script, c.entity, c.maxSpeed, c.seed)
		prev := m.At(0)
		worst, worstFD := 0.0, 0.0
		for i := 1; i <= 60000; i++ {
			st := m.At(float64(i) * h)
			worst = max(worst, st.Vel.Len())
			worstFD = max(worstFD, st.Pos.Sub(prev.Pos).Len()/h)
			prev = st
		}
		if worst > c.maxSpeed*(1+1e-12) {
			t.Errorf("%v: |Vel| reaches %v", c, worst)
		}
		if worstFD > c.maxSpeed*(1+1e-6) {
			t.Errorf("%v: finite-difference speed reaches %v", c, worstFD)
		}
		if worst < c.maxSpeed*0.999 {
			t.Errorf("%v: top speed %v, want maxSpeed", c, worst)
		}
	}
}

// TestMoverVelocityIsDerivative: over every step h, the displacement equals
// the trapezoid h·(v(t) + v(t+h))/2 to within A·h²/4, where A bounds the
// acceleration (measured over the same run); that is exactly what holds when
// Vel is the derivative of Pos. A jump's take-off and landing are the only
// velocity jumps: they are counted (two per jump) and only the continuity of
// the position is asked of them.
func TestMoverVelocityIsDerivative(t *testing.T) {
	const h = 0.0005
	for _, c := range motionCases() {
		m := NewMover(c.script, c.entity, c.maxSpeed, c.seed)
		const n = 40000 // 20 s
		st := make([]State, n+1)
		for i := range st {
			st[i] = m.At(float64(i) * h)
		}
		// A: largest acceleration of the ground motion, and of the vertical
		// one away from impulses (gravity).
		var aXY float64
		for i := range n {
			dv := st[i+1].Vel.Sub(st[i].Vel)
			aXY = max(aXY, math.Hypot(dv[0], dv[1])/h)
		}
		aXY *= 1.01
		impulses := 0
		for i := range n {
			a, b := st[i], st[i+1]
			d := b.Pos.Sub(a.Pos)
			trap := a.Vel.Add(b.Vel).Scale(h / 2)
			round := 1e-12 * (1 + a.Pos.Len())
			if e := math.Hypot(d[0]-trap[0], d[1]-trap[1]); e > aXY*h*h/4+round {
				t.Fatalf("%v: at t=%v ground displacement %v, trapezoid of Vel %v (off %v, allowed %v)",
					c, float64(i)*h, d, trap, e, aXY*h*h/4)
			}
			if dvz := b.Vel[2] - a.Vel[2]; math.Abs(dvz) > motionGravity*h*1.01 {
				impulses++
				if math.Abs(d[2]) > c.maxSpeed*h {
					t.Fatalf("%v: at t=%v height jumps by %v", c, float64(i)*h, d[2])
				}
				continue
			}
			if e := math.Abs(d[2] - trap[2]); e > motionGravity*h*h/4+round {
				t.Fatalf("%v: at t=%v vertical displacement %v, trapezoid %v", c, float64(i)*h, d[2], trap[2])
			}
		}
		if m.Script() != "jump" && impulses > 0 {
			t.Errorf("%v: %d vertical velocity jumps, want none", c, impulses)
		}
		if m.Script() == "jump" {
			jumps := 20 / m.jumpPeriod
			if float64(impulses) < 2*math.Floor(jumps)-1 || float64(impulses) > 2*math.Ceil(jumps)+1 {
				t.Errorf("%v: %d vertical velocity jumps in 20 s, want 2 per jump (%.1f jumps)", c, impulses, jumps)
			}
		}
	}
}

// TestMoverBounded: every entity stays within 10 m of its start, on or above
// the ground, and faces a yaw in (−π, π].
func TestMoverBounded(t *testing.T) {
	for _, c := range motionCases() {
		m := NewMover(c.script, c.entity, c.maxSpeed, c.seed)
		gx, gy := motionSpiral(c.entity)
		start := geom.Vec3{motionSpacing * float64(gx), motionSpacing * float64(gy)}
		var far, high float64
		for i := range 60 * 240 {
			st := m.At(float64(i) / 240)
			far = max(far, math.Hypot(st.Pos[0]-start[0], st.Pos[1]-start[1]))
			high = max(high, st.Pos[2])
			if st.Pos[2] < -1e-9 {
				t.Fatalf("%v: below ground at %v", c, st.Pos)
			}
			if !(st.Yaw > -math.Pi && st.Yaw <= math.Pi) {
				t.Fatalf("%v: yaw %v outside (−π, π]", c, st.Yaw)
			}
			if !st.Pos.Finite() || !st.Vel.Finite() {
				t.Fatalf("%v: non-finite state %+v", c, st)
			}
		}
		if far > 10 {
			t.Errorf("%v: %.2f m from its start, want ≤ 10", c, far)
		}
		// Jumps peak at w²/2g with w = min(0.6·v, 5 m/s).
		w := min(0.6*c.maxSpeed, 5)
		if want := 0.0; m.Script() == "jump" {
			want = w * w / (2 * motionGravity)
			if math.Abs(high-want) > 0.01*want+1e-3 {
				t.Errorf("%v: jumps %.3f m high, want %.3f", c, high, want)
			}
		} else if high != want {
			t.Errorf("%v: leaves the ground (%v m)", c, high)
		}
	}
}

// TestMoverScripts checks that each script does what its name says, at the
// default speed for a dozen entities (their tempos make rates vary by 25%).
func TestMoverScripts(t *testing.T) {
	const v, dt, dur = 7.0, 0.002, 60.0
	for e := range 12 {
		seed := uint64(100 + e)
		gx, gy := motionSpiral(e)
		start := geom.Vec3{motionSpacing * float64(gx), motionSpacing * float64(gy)}
		for _, script := range Names[:6] {
			m := NewMover(script, e, v, seed)
			first := m.At(0)
			var (
				standing, moving, reversals int
				turned, yawMiss             float64 // total |Δyaw|; worst 1 − facing·direction
				fullDir, axis               geom.Vec3
				rMin, rMax                  = math.Inf(1), 0.0
			)
			prevYaw := first.Yaw
			for i := range int(dur / dt) {
				st := m.At(float64(i) * dt)
				dy := st.Yaw - prevYaw
				dy -= 2 * math.Pi * math.Round(dy/(2*math.Pi))
				turned += math.Abs(dy)
				prevYaw = st.Yaw
				ground := geom.Vec3{st.Vel[0], st.Vel[1]}
				speed := ground.Len()
				if speed < 1e-9 {
					standing++
					continue
				}
				moving++
				dir := ground.Scale(1 / speed)
				top := v
				if script == "jump" {
					top = math.Sqrt(v*v - math.Pow(min(0.6*v, 5), 2))
				}
				full := speed > top*(1-1e-12)
				if full {
					if fullDir.Dot(dir) < -0.99 {
						reversals++
					}
					fullDir = dir
					facing := geom.Vec3{math.Cos(st.Yaw), math.Sin(st.Yaw)}
					if script != "strafe" && script != "stopgo" {
						yawMiss = max(yawMiss, 1-facing.Dot(dir))
					}
				}
				switch script {
				case "strafe":
					if axis == (geom.Vec3{}) {
						axis = dir
					}
					facing := geom.Vec3{math.Cos(st.Yaw), math.Sin(st.Yaw)}
					if math.Abs(axis.Dot(dir)) < 1-1e-9 || math.Abs(facing.Dot(axis)) > 1e-9 {
						t.Fatalf("strafe entity %d: moves along %v facing %v, want along %v facing across", e, dir, facing, axis)
					}
				case "circle":
					r := math.Hypot(st.Pos[0]-start[0], st.Pos[1]-start[1])
					rMin, rMax = min(rMin, r), max(rMax, r)
				}
			}
			// What each script must show over the minute; the entity's
			// tempo shortens every duration to 80–100%.
			per := func(x float64) float64 { return x / dur }
			checks := []struct {
				what     string
				got      float64
				min, max float64
			}{}
			switch script {
			case "strafe":
				// Four reversals every 1.95 s, facing fixed.
				checks = append(checks,
					struct {
						what     string
						got      float64
						min, max float64
					}{"reversals a second", per(float64(reversals)), 4 / 1.95 * 0.97, 4 / 1.95 / 0.8 * 1.03},
					struct {
						what     string
						got      float64
						min, max float64
					}{"radians turned", turned, 0, 0})
			case "turn":
				// A half turn every 1.8 s, in 0.2 s.
				checks = append(checks, struct {
					what     string
					got      float64
					min, max float64
				}{"half turns a second", per(turned / math.Pi), 1 / 1.8 * 0.97, 1 / 1.8 / 0.8 * 1.03})
			case "stopgo":
				// Four 90° turns and 2 s standing every 6.8 s.
				checks = append(checks,
					struct {
						what     string
						got      float64
						min, max float64
					}{"share of time standing", float64(standing) / float64(standing+moving), 2 / 6.8 * 0.97, 2 / 6.8 * 1.03},
					struct {
						what     string
						got      float64
						min, max float64
					}{"quarter turns a second", per(turned / (math.Pi / 2)), 4 / 6.8 * 0.97, 4 / 6.8 / 0.8 * 1.03})
			case "circle":
				// A circle of radius 6 s·v/2π·tempo about the start.
				checks = append(checks,
					struct {
						what     string
						got      float64
						min, max float64
					}{"radius", rMax, 6 * v / (2 * math.Pi) * 0.8, 6 * v / (2 * math.Pi)},
					struct {
						what     string
						got      float64
						min, max float64
					}{"radius variation", rMax - rMin, 0, 1e-9})
			case "zigzag":
				// Eight 90° corners every 4.8 s.
				checks = append(checks, struct {
					what     string
					got      float64
					min, max float64
				}{"quarter turns a second", per(turned / (math.Pi / 2)), 8 / 4.8 * 0.97, 8 / 4.8 / 0.8 * 1.03})
			case "jump":
				// Around the oval once every 4.4 s.
				checks = append(checks, struct {
					what     string
					got      float64
					min, max float64
				}{"laps a second", per(turned / (2 * math.Pi)), 1 / 4.4 * 0.97, 1 / 4.4 / 0.8 * 1.03})
			}
			for _, c := range checks {
				if !(c.got >= c.min && c.got <= c.max) {
					t.Errorf("%s entity %d: %s = %.4g, want in [%.4g, %.4g]", script, e, c.what, c.got, c.min, c.max)
				}
			}
			if yawMiss > 1e-12 {
				t.Errorf("%s entity %d: facing strays %.3g from the direction of motion at full speed", script, e, yawMiss)
			}
		}
	}
}

// TestMoverPure: a mover is a pure function of its arguments and t; the
// order of the calls does not matter.
func TestMoverPure(t *testing.T) {
	for _, script := range Names {
		a, b := NewMover(script, 42, 7, 5), NewMover(script, 42, 7, 5)
		r := geom.NewRNG(1, 0)
		for range 2000 {
			tt := r.Float64() * 3600
			want := a.At(tt)
			b.At(r.Float64() * 100) // interleave other calls
			if got := b.At(tt); got != want {
				t.Fatalf("%s: At(%v) = %+v, then %+v", script, tt, want, got)
			}
		}
	}
}

// TestMoverVariety: entities and seeds differ in where and how they move;
// mix hands the scripts out in turn.
func TestMoverVariety(t *testing.T) {
	for _, script := range Names {
		seen := map[State]bool{}
		for e := range 50 {
			m := NewMover(script, e, 7, 1)
			st := m.At(12.3)
			// Relative to the start, so the grid does not count.
			gx, gy := motionSpiral(e)
			st.Pos = st.Pos.Sub(geom.Vec3{motionSpacing * float64(gx), motionSpacing * float64(gy)})
			seen[st] = true
		}
		if len(seen) < 50 {
			t.Errorf("%s: 50 entities show only %d distinct states", script, len(seen))
		}
		a, b := NewMover(script, 3, 7, 1), NewMover(script, 3, 7, 2)
		if a.At(5) == b.At(5) {
			t.Errorf("%s: seeds 1 and 2 give entity 3 the same state", script)
		}
	}
	for e := range 18 {
		m := NewMover("mix", e, 7, 1)
		if got, want := m.Script(), Names[e%6]; got != want {
			t.Errorf("mix entity %d runs %s, want %s", e, got, want)
		}
		if pure := NewMover(Names[e%6], e, 7, 1); m.At(7.7) != pure.At(7.7) {
			t.Errorf("mix entity %d differs from %s for the same entity", e, Names[e%6])
		}
	}
}

// TestMotionSpiral: the starts fill a square spiral, one entity a cell, so
// 10,000 entities fit in 101 × 101 cells (1 km at 10 m).
func TestMotionSpiral(t *testing.T) {
	cells := map[[2]int]int{}
	for i := range 10000 {
		x, y := motionSpiral(i)
		if j, dup := cells[[2]int{x, y}]; dup {
			t.Fatalf("entities %d and %d share cell (%d, %d)", j, i, x, y)
		}
		cells[[2]int{x, y}] = i
		if r := max(motionAbs(x), motionAbs(y)); r > 50 {
			t.Fatalf("entity %d at (%d, %d), outside the 101 × 101 square", i, x, y)
		}
	}
	// A prefix of (2r+1)² entities fills the square of radius r exactly.
	for _, r := range []int{0, 1, 2, 10} {
		for x := -r; x <= r; x++ {
			for y := -r; y <= r; y++ {
				if i := cells[[2]int{x, y}]; i >= (2*r+1)*(2*r+1) {
					t.Errorf("cell (%d, %d) holds entity %d, want one of the first %d", x, y, i, (2*r+1)*(2*r+1))
				}
			}
		}
	}
	// Neighbours in index are neighbours on the grid.
	for i := 1; i < 10000; i++ {
		x0, y0 := motionSpiral(i - 1)
		x1, y1 := motionSpiral(i)
		if d := max(motionAbs(x1-x0), motionAbs(y1-y0)); d > 1 {
			t.Fatalf("entities %d and %d are %d cells apart", i-1, i, d)
		}
	}
}

func motionAbs(x int) int { return max(x, -x) }

func TestNewMoverPanics(t *testing.T) {
	for _, tt := range []struct {
		name     string
		script   string
		entity   int
		maxSpeed float64
	}{
		{"unknown script", "teleport", 0, 7},
		{"negative entity", "circle", -1, 7},
		{"negative speed", "circle", 0, -1},
		{"NaN speed", "circle", 0, math.NaN()},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: NewMover(%q, %d, %v, 1) did not panic", tt.name, tt.script, tt.entity, tt.maxSpeed)
				}
			}()
			NewMover(tt.script, tt.entity, tt.maxSpeed, 1)
		}()
	}
	// Speed 0 is allowed: the entity stands still at its start.
	m := NewMover("jump", 10, 0, 1)
	gx, gy := motionSpiral(10)
	start := geom.Vec3{motionSpacing * float64(gx), motionSpacing * float64(gy)}
	if st := m.At(3); st.Pos != start || st.Vel.Len() != 0 {
		t.Errorf("maxSpeed 0: At(3) = %+v, want standing at %v", st, start)
	}
}

// TestMoverSegmentKept: a Mover that keeps the segment it last evaluated
// gives the bits of a fresh one, whatever the order of the times: frames
// forward, arrivals a little behind them, jumps back and across periods,
// and times on segment boundaries.
func TestMoverSegmentKept(t *testing.T) {
	for _, script := range Names {
		for e := range 12 {
			kept := NewMover(script, e, 0.5+float64(e)*1.5, 99)
			times := []float64{}
			for f := range 400 {
				tf := float64(f) / 60
				times = append(times, tf, tf-0.0731, tf+float64(e)*3.7)
			}
			// The boundaries of the segments, in path time, mapped back
			// to real time (first period), and their neighbours.
			for _, seg := range kept.path.segs {
				tb := (seg.t0 - kept.phase) / kept.invK
				times = append(times, tb, math.Nextafter(tb, 0), math.Nextafter(tb, 100))
			}
			for _, tt := range times {
				fresh := NewMover(script, e, 0.5+float64(e)*1.5, 99)
				got, want := kept.At(tt), fresh.At(tt)
				if got != want {
					t.Fatalf("%s entity %d: At(%v) = %+v after earlier times, want %+v", script, e, tt, got, want)
				}
				fresh = NewMover(script, e, 0.5+float64(e)*1.5, 99)
				if got, want := kept.Pos(tt), fresh.Pos(tt); got != want {
					t.Fatalf("%s entity %d: Pos(%v) = %v after earlier times, want %v", script, e, tt, got, want)
				}
			}
		}
	}
}

// BenchmarkMoverAt evaluates one script for 1,000 entities at successive
// frames, as the runner does; ns/op is per entity.
func BenchmarkMoverAt(b *testing.B) {
	benchMovers(b, func(m *Mover, t float64) float64 { return m.At(t).Pos[0] })
}

// BenchmarkMoverPos is BenchmarkMoverAt for the position alone, which a
// run's truth reads on most frames.
func BenchmarkMoverPos(b *testing.B) {
	benchMovers(b, func(m *Mover, t float64) float64 { return m.Pos(t)[0] })
}

// benchMovers reads every script's 1,000 entities at successive frames.
func benchMovers(b *testing.B, read func(m *Mover, t float64) float64) {
	for _, script := range Names {
		b.Run(script, func(b *testing.B) {
			movers := make([]Mover, 1000)
			for e := range movers {
				movers[e] = NewMover(script, e, 7, 1)
			}
			var sink float64
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				sink += read(&movers[i%1000], float64(i/1000)/60)
			}
			motionBenchSink = sink
		})
	}
}

// TestMoverGolden pins every script's states to the bit, for entities at all
// speeds (see checkGolden).
func TestMoverGolden(t *testing.T) {
	var b strings.Builder
	for _, script := range Names {
		d := goldentest.NewDigest()
		for e := range 20 {
			m := NewMover(script, e*37, 0.5+float64(e)*2.5, 2026)
			for f := range 600 {
				st := m.At(float64(f)/60 + 1000)
				d.Add(st.Pos[0], st.Pos[1], st.Pos[2], st.Vel[0], st.Vel[1], st.Vel[2], st.Yaw)
			}
		}
		b.WriteString(script + " " + d.String() + "\n")
	}
	goldentest.Check(t, "motion.golden", b.String(), *update)
}

func ExampleMover_At() {
	m := NewMover("jump", 0, 7, 1)
	for _, t := range []float64{0, 0.3, 0.6, 0.9, 1.2} {
		st := m.At(t)
		fmt.Printf("t = %.1f s: pos (%5.2f, %5.2f, %4.2f) m, speed %.2f m/s\n", t, st.Pos[0], st.Pos[1], st.Pos[2], st.Vel.Len())
	}
	// Output:
	// t = 0.0 s: pos (-0.81, -1.18, 0.84) m, speed 5.71 m/s
	// t = 0.3 s: pos (-2.49, -1.22, 0.06) m, speed 6.91 m/s
	// t = 0.6 s: pos (-4.05, -0.83, 0.00) m, speed 5.60 m/s
	// t = 0.9 s: pos (-4.03,  0.70, 0.00) m, speed 5.60 m/s
	// t = 1.2 s: pos (-2.46,  1.10, 0.61) m, speed 6.09 m/s
}

// FuzzMoverAt: for any script, entity, speed, seed and time the state is
// finite, within its bounds and never faster than maxSpeed.
func FuzzMoverAt(f *testing.F) {
	f.Add(uint8(0), uint16(0), 7.0, uint64(1), 0.0)
	f.Add(uint8(5), uint16(9999), 50.0, uint64(42), 3599.99)
	f.Add(uint8(6), uint16(123), 0.5, uint64(7), -12.5)
	f.Fuzz(func(t *testing.T, script uint8, entity uint16, maxSpeed float64, seed uint64, at float64) {
		if !(maxSpeed >= 0 && maxSpeed <= 50) || !(at > -1e6 && at < 1e6) {
			t.Skip()
		}
		m := NewMover(Names[int(script)%len(Names)], int(entity), maxSpeed, seed)
		st := m.At(at)
		gx, gy := motionSpiral(int(entity))
		off := math.Hypot(st.Pos[0]-motionSpacing*float64(gx), st.Pos[1]-motionSpacing*float64(gy))
		switch {
		case !st.Pos.Finite() || !st.Vel.Finite():
			t.Fatalf("At(%v) = %+v, want finite", at, st)
		case st.Vel.Len() > maxSpeed*(1+1e-12):
			t.Fatalf("At(%v): speed %v above maxSpeed %v", at, st.Vel.Len(), maxSpeed)
		case off > 10 || st.Pos[2] < -1e-9 || st.Pos[2] > 1.3:
			t.Fatalf("At(%v): at %v, %v m from its start", at, st.Pos, off)
		case !(st.Yaw > -math.Pi && st.Yaw <= math.Pi):
			t.Fatalf("At(%v): yaw %v outside (−π, π]", at, st.Yaw)
		}
	})
}

// motionBenchSink keeps the benchmarks' results alive.
var motionBenchSink float64

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

// TestMoverPosIsAtsPos: Pos, which a run's truth reads on most frames, is
// At's position to the bit, jumps and arcs included, across period
// boundaries and at the speeds where the scripts change regime.
func TestMoverPosIsAtsPos(t *testing.T) {
	for _, name := range Names {
		for _, speed := range []float64{0.5, 6, 10, 35} {
			for e := range 5 {
				m := NewMover(name, e, speed, 7)
				for i := range 20000 {
					tt := float64(i)*0.0137 - 3
					if got, want := m.Pos(tt), m.At(tt).Pos; got != want {
						t.Fatalf("%s entity %d at %g m/s: Pos(%v) = %v, want At's %v", name, e, speed, tt, got, want)
					}
				}
			}
		}
	}
}

// pathTime returns the path time at time t, in [0, period), as pos and
// eval work it out, written out there for the inlining budget.
func (m *Mover) pathTime(t float64) float64 {
	tau := float64(t*m.invK) + m.phase
	if !(tau >= m.lo && tau < m.hi) {
		return m.reduce(tau)
	}
	return tau - m.cycleStart
}

// directReduce reduces the raw path time tau into m's period by the
// direct formula, a Floor and a product, then the corrections: the bits
// pos's kept period and window must give.
func directReduce(m *Mover, tau float64) float64 {
	p := m.path
	tau -= float64(p.period * math.Floor(float64(tau*p.invPeriod)))
	if tau < 0 {
		tau += p.period
	} else if tau >= p.period {
		tau -= p.period
	}
	return tau
}

// TestMoverPeriodKept: the path time and the jump a Mover works out from
// the period it last found are the bits of the direct formulas, a Floor and
// a product on every call, for times forward, back, and either side of
// the ends of the periods.
func TestMoverPeriodKept(t *testing.T) {
	directTau := func(m *Mover, t float64) float64 {
		return directReduce(m, float64(t*m.invK)+m.phase)
	}
	directJump := func(m *Mover, t float64) (z, vz float64) {
		j := t + m.jumpPhase
		j -= float64(m.jumpPeriod * math.Floor(float64(j*m.invJump)))
		if j >= 0 && j < m.air {
			return float64(j * (m.vz0 - float64(0.5*motionGravity*j))), m.vz0 - float64(motionGravity*j)
		}
		return 0, 0
	}
	for _, script := range Scripts {
		for e := range 8 {
			m := NewMover(script, e, 0.5+float64(e)*1.7, 7)
			var times []float64
			for f := range 1500 {
				tf := float64(f) / 60
				times = append(times, tf, tf-0.19)
			}
			// The ends of the first periods, of the path and of the
			// jumps, in real time, and their neighbours.
			for k := range 6 {
				ends := []float64{(float64(k)*m.path.period - m.phase) / m.invK}
				if m.air > 0 {
					ends = append(ends, float64(k)*m.jumpPeriod-m.jumpPhase)
				}
				for _, tb := range ends {
					times = append(times, tb, math.Nextafter(tb, -100), math.Nextafter(tb, 100))
				}
			}
			for _, tt := range times {
				if got, want := m.pathTime(tt), directTau(&m, tt); got != want {
					t.Fatalf("%s entity %d: pathTime(%v) = %v, want %v", script, e, tt, got, want)
				}
				if m.air == 0 {
					continue
				}
				z, vz := m.jump(tt)
				if wz, wvz := directJump(&m, tt); z != wz || vz != wvz {
					t.Fatalf("%s entity %d: jump(%v) = %v, %v, want %v, %v", script, e, tt, z, vz, wz, wvz)
				}
			}
		}
	}
}

// TestMoverPosVelYaw: PosVel and PosVelYaw store At's position and
// velocity, and PosVelYaw returns its yaw, the same bits, over whatever
// their destinations held, after any earlier times.
func TestMoverPosVelYaw(t *testing.T) {
	for _, script := range Names {
		for e := range 6 {
			kept, keptPV := NewMover(script, e, 1+float64(e)*1.9, 3), NewMover(script, e, 1+float64(e)*1.9, 3)
			for f := range 900 {
				tt := float64(f)/60 - float64(f%3)*0.07
				fresh := NewMover(script, e, 1+float64(e)*1.9, 3)
				want := fresh.At(tt)
				pos, vel := geom.Vec3{math.NaN(), 1, 2}, geom.Vec3{3, math.Inf(1), 5}
				yaw := kept.PosVelYaw(tt, &pos, &vel)
				if pos != want.Pos || vel != want.Vel || math.Float64bits(yaw) != math.Float64bits(want.Yaw) {
					t.Fatalf("%s entity %d: PosVelYaw(%v) = %v, %v, %v, want %v, %v, %v", script, e, tt, pos, vel, yaw, want.Pos, want.Vel, want.Yaw)
				}
				pos, vel = geom.Vec3{math.NaN(), 1, 2}, geom.Vec3{3, math.Inf(1), 5}
				keptPV.PosVel(tt, &pos, &vel)
				if pos != want.Pos || vel != want.Vel {
					t.Fatalf("%s entity %d: PosVel(%v) = %v, %v, want %v, %v", script, e, tt, pos, vel, want.Pos, want.Vel)
				}
			}
		}
	}
}

// TestMoverPeriodWindow: every raw path time in the window a Mover keeps
// for its period, its ends included, reduces by the direct formula (a
// Floor and a product, then the corrections) to raw − cycleStart, the one
// subtraction pos makes there; and the window is not empty for the
// periods of positive times, so that pos takes that way.
func TestMoverPeriodWindow(t *testing.T) {
	for _, script := range Scripts {
		for e := range 8 {
			m := NewMover(script, e, 0.5+float64(e)*1.7, 11)
			for f := -600; f < 20000; f += 7 {
				m.Pos(float64(f) / 60)
				if m.lo == 0 && m.hi == 0 {
					if f >= 0 {
						t.Fatalf("%s entity %d: no window for the period of t = %v", script, e, float64(f)/60)
					}
					continue
				}
				last := math.Nextafter(m.hi, math.Inf(-1))
				for _, tau := range []float64{m.lo, math.Nextafter(m.lo, math.Inf(1)), last, math.Nextafter(last, math.Inf(-1))} {
					if got, want := tau-m.cycleStart, directReduce(&m, tau); got != want {
						t.Fatalf("%s entity %d: window [%v, %v) of period %v: raw path time %v reduces to %v, want %v",
							script, e, m.lo, m.hi, m.cycle, tau, got, want)
					}
				}
			}
		}
	}
}

// TestSegHoldBits: a segment taken at constant velocity gives the line's
// general formulas to the bit, and one whose velocity is −0 is not taken
// so (its general formula gives +0 where the short one gives −0).
func TestSegHoldBits(t *testing.T) {
	line := func(seg *motionSeg, s float64) (px, vx float64) {
		hs := float64(0.5 * s)
		return seg.x + float64(s*(seg.vx+float64(hs*seg.ax))), seg.vx + float64(seg.ax*s)
	}
	holds := 0
	for k := range motionPaths {
		for i := range motionPaths[k].segs {
			seg := motionPaths[k].segs[i]
			if seg.kind != segHold {
				continue
			}
			holds++
			for j := range 101 {
				s := (seg.end - seg.t0) * float64(j) / 100
				for _, c := range [2]motionSeg{seg, {x: seg.y, vx: seg.vy, ax: seg.ay}} {
					px, vx := line(&c, s)
					if got := c.x + float64(s*c.vx); math.Float64bits(got) != math.Float64bits(px) || math.Float64bits(c.vx) != math.Float64bits(vx) {
						t.Fatalf("script %s segment %d at %v: constant velocity gives %v, %v, the line %v, %v", Scripts[k], i, s, got, c.vx, px, vx)
					}
				}
			}
		}
	}
	if holds == 0 {
		t.Fatal("no segment at constant velocity")
	}
	neg := motionSeg{x: math.Copysign(0, -1), vx: math.Copysign(0, -1)}
	if px, _ := line(&neg, 0); math.Signbit(px) || neg.kindOf() != segLine {
		t.Errorf("segment with velocity −0: line gives %v, kind %v, want +0 and segLine", px, neg.kindOf())
	}
}
