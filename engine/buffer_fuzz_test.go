package engine

import (
	"math"
	"testing"

	"interplab/engine/geom"
	"interplab/engine/technique"
	"interplab/engine/technique/buffer"
)

// bufFuzzBytes reads the fuzzer's input a byte at a time, as zeros once it
// runs out.
type bufFuzzBytes []byte

func (b *bufFuzzBytes) next() byte {
	if len(*b) == 0 {
		return 0
	}
	x := (*b)[0]
	*b = (*b)[1:]
	return x
}

// unit returns the next byte as a fraction in [0, 1].
func (b *bufFuzzBytes) unit() float64 { return float64(b.next()) / 255 }

// signed returns the next two bytes as a number in [−1, 1).
func (b *bufFuzzBytes) signed() float64 {
	return float64(int16(uint16(b.next())<<8|uint16(b.next()))) / 32768
}

// bufFuzzSettings returns settings within the parameter table's ranges (though
// not always valid together: the cap may be under the base delay).
func bufFuzzSettings(b *bufFuzzBytes) *Settings {
	s := Defaults()
	for range 4 {
		bufFuzzSetting(b, &s)
	}
	return &s
}

// bufFuzzSetting changes one setting the buffer reads.
func bufFuzzSetting(b *bufFuzzBytes, s *Settings) {
	switch b.next() % 9 {
	case 0:
		s.Delay = 0.5 * b.unit()
	case 1:
		s.Adaptive = !s.Adaptive
	case 2:
		s.Margin = 0.2 * b.unit()
	case 3:
		s.DelayCap = b.unit()
	case 4:
		s.AdaptWindow = 4 + int(b.next())
	case 5:
		s.ExtrapolateCap = b.unit()
	case 6:
		s.SpeedClamp = !s.SpeedClamp
	case 7:
		s.Rotation = buffer.Rotations[b.next()%2]
	case 8:
		s.MaxSpeed = 0.5 + 49.5*b.unit()
		s.SendRate = 1 + float64(b.next()%128)
	}
}

// bufFuzzRot returns a unit rotation: a yaw, or a turn about a tilted axis.
func bufFuzzRot(b *bufFuzzBytes) geom.Quat {
	yaw := math.Pi * b.signed()
	if b.next()%2 == 0 {
		return geom.QuatFromYaw(yaw)
	}
	axis := geom.Vec3{1 + b.unit(), b.signed(), b.signed()}
	axis = axis.Scale(1 / axis.Len())
	s, c := math.Sincos(yaw)
	return geom.Quat{axis[0] * s, axis[1] * s, axis[2] * s, c}
}

func bufFuzzFiniteQuat(q geom.Quat) bool {
	return geom.Finite(q[0]) && geom.Finite(q[1]) && geom.Finite(q[2]) && geom.Finite(q[3])
}

// FuzzSnapBuffer plays a random sequence of packets (late, duplicated,
// wild), frames and slider moves of game-world magnitudes into snap, buffer
// and hermite, and checks what must always hold: no panic, nothing
// non-finite, a unit rotation, Time never running backwards, Empty exactly
// until the first snapshot, Depth and Delay in range, and dead reckoning
// within its cap and speed limit.
func FuzzSnapBuffer(f *testing.F) {
	f.Add(bufFuzzSeedSteady())
	f.Add(bufFuzzSeedRough())
	f.Add([]byte{})
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff})
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3, 3, 1, 255, 1, 255, 3})

	f.Fuzz(func(t *testing.T, data []byte) {
		for _, kind := range []string{TechSnap, TechBuffer, TechHermite} {
			in := bufFuzzBytes(data)
			s := bufFuzzSettings(&in)
			env := envOf(s) // refreshed as a Sim does when a setting changes
			tech := techniqueDef(kind).one(s, &env)
			bufFuzzPlay(t, kind, tech, s, &env, in)
		}
	})
}

func bufFuzzPlay(t *testing.T, kind string, tech technique.Technique, s *Settings, env *technique.Env, in bufFuzzBytes) {
	now := 20 * in.signed()
	var (
		newest   technique.Snapshot
		received int
		lastTime = math.Inf(-1)
	)
	for step := 0; len(in) > 0 && step < 10000; step++ {
		switch in.next() % 4 {
		case 0: // a packet: a snapshot from up to 1 s before now to 0.3 s after
			sn := technique.Snapshot{
				Time: now - 1 + 1.3*in.unit(),
				Pos:  geom.Vec3{1000 * in.signed(), 1000 * in.signed(), 10 * in.signed()},
				Vel:  geom.Vec3{100 * in.signed(), 100 * in.signed(), 20 * in.signed()},
				Rot:  bufFuzzRot(&in),
			}
			if in.next()%4 == 0 && received > 0 { // a duplicate or a stale copy
				sn.Time = newest.Time - 0.05*in.unit()
			}
			tech.Receive(sn, now)
			if received == 0 || sn.Time > newest.Time {
				newest = sn
				received++
			}
			continue
		case 1:
			now += 0.1 * in.unit()
		case 2:
			bufFuzzSetting(&in, s)
			*env = envOf(s)
			continue
		case 3: // a frame at the same now
		}
		got := tech.Sample(now)
		if !got.Pos.Finite() || !bufFuzzFiniteQuat(got.Rot) || !geom.Finite(got.Time) || !geom.Finite(got.Newest) || !geom.Finite(got.Delay) {
			t.Fatalf("%s step %d: Sample(%g) = %+v: not finite", kind, step, now, got)
		}
		if (got.Mode == technique.Empty) != (received == 0) {
			t.Fatalf("%s step %d: Mode = %v after %d snapshots", kind, step, got.Mode, received)
		}
		if got.Mode == technique.Empty {
			if kind == TechSnap {
				continue // snap's Empty Time is 0, not a render time
			}
		} else {
			if n := math.Sqrt(got.Rot[0]*got.Rot[0] + got.Rot[1]*got.Rot[1] + got.Rot[2]*got.Rot[2] + got.Rot[3]*got.Rot[3]); math.Abs(n-1) > 1e-9 {
				t.Fatalf("%s step %d: |Rot| = %.17g, want 1", kind, step, n)
			}
			if got.Newest != newest.Time {
				t.Fatalf("%s step %d: Newest = %g, want %g", kind, step, got.Newest, newest.Time)
			}
		}
		if got.Mode != technique.Empty { // the render clock starts with the first snapshot
			if got.Time < lastTime {
				t.Fatalf("%s step %d: Time = %g after %g: ran backwards", kind, step, got.Time, lastTime)
			}
			lastTime = got.Time
		}
		if got.Depth < 0 || got.Depth > received || got.Delay < 0 || got.Delay > 1 {
			t.Fatalf("%s step %d: Depth, Delay = %d, %g, want in [0, %d], [0, 1]", kind, step, got.Depth, got.Delay, received)
		}
		if got.Mode == technique.Extrapolate || got.Mode == technique.Freeze {
			ahead := min(got.Time-newest.Time, s.ExtrapolateCap)
			speed := newest.Vel.Len()
			if s.SpeedClamp {
				speed = min(speed, s.MaxSpeed)
			}
			if d := got.Pos.Sub(newest.Pos).Len(); d > speed*ahead*(1+1e-9)+1e-9 {
				t.Fatalf("%s step %d: %v %g m from the newest snapshot, want ≤ %g m/s × %g s", kind, step, got.Mode, d, speed, ahead)
			}
		}
	}
}

// bufFuzzSeed writes inputs in the order bufFuzzPlay reads them, to build
// realistic seeds.
type bufFuzzSeed []byte

// setting writes a slider move (see bufFuzzSetting): which, then its bytes.
func (e *bufFuzzSeed) setting(which byte, args ...byte) {
	*e = append(*e, which)
	*e = append(*e, args...)
}

func (e *bufFuzzSeed) signed(x float64) { // x in [−1, 1)
	v := uint16(int16(x * 32768))
	*e = append(*e, byte(v>>8), byte(v))
}

// start writes the initial now, s in [−20, 20).
func (e *bufFuzzSeed) start(now float64) { e.signed(now / 20) }

// receive writes a packet whose snapshot is ago seconds older than now
// (in [−0.3, 1]), at pos with vel and yaw (radians), tilted or not; dup
// makes it a stale copy instead, back from the newest by stale × 0.05 s.
func (e *bufFuzzSeed) receive(ago float64, pos, vel geom.Vec3, yaw float64, tilted bool, dup bool, stale byte) {
	*e = append(*e, 0, byte((1-ago)/1.3*255+0.5))
	e.signed(pos[0] / 1000)
	e.signed(pos[1] / 1000)
	e.signed(pos[2] / 10)
	e.signed(vel[0] / 100)
	e.signed(vel[1] / 100)
	e.signed(vel[2] / 20)
	e.signed(math.Remainder(yaw, 2*math.Pi) / math.Pi * 0.99999)
	if tilted {
		*e = append(*e, 1, 128)
		e.signed(0.3)
		e.signed(-0.2)
	} else {
		*e = append(*e, 0)
	}
	if dup {
		*e = append(*e, 0, stale)
	} else {
		*e = append(*e, 1)
	}
}

// frame advances now by dt (s, up to 0.1) and samples.
func (e *bufFuzzSeed) frame(dt float64) { *e = append(*e, 1, byte(dt/0.1*255+0.5)) }

// bufFuzzSeedSteady is a 20 Hz stream with 26 ms latency, sampled at 60 Hz
// with the default delay: interpolation throughout, then a dry spell into
// extrapolation and freezing.
func bufFuzzSeedSteady() []byte {
	var e bufFuzzSeed
	e.setting(0, 51) // delay 0.1 s
	e.setting(5, 38) // extrapolateCap 0.15 s
	e.setting(3, 51) // delayCap 0.2 s
	e.setting(7, 0)  // slerp
	e.start(0)
	for i := range 60 {
		t := float64(i) * 0.05
		e.receive(0.026, geom.Vec3{3 * t, -2 * t, 0}, geom.Vec3{3, -2, 0}, 1.5*t, false, false, 0)
		for range 3 {
			e.frame(1.0 / 60)
		}
	}
	for range 30 {
		e.frame(1.0 / 60)
	}
	return e
}

// bufFuzzSeedRough is a jittered stream with duplicates, stale copies, an
// outage, tilted rotations and slider moves, adaptive on, Euler rotation,
// and frames that repeat now.
func bufFuzzSeedRough() []byte {
	var e bufFuzzSeed
	e.setting(1)          // adaptive
	e.setting(4, 36)      // adaptWindow 40
	e.setting(7, 1)       // euler
	e.setting(8, 10, 127) // maxSpeed 2.4 m/s, sendRate 128 Hz
	e.start(-3)
	for i := range 80 {
		t := float64(i) * 0.05
		if i < 40 || i > 55 { // an outage
			jitter := float64((i*37)%11) * 0.012
			e.receive(0.02+jitter, geom.Vec3{5 * math.Cos(t), 5 * math.Sin(t), 0}, geom.Vec3{-5 * math.Sin(t), 5 * math.Cos(t), 0}, t*4, i%3 == 0, false, 0)
			if i%4 == 1 {
				e.receive(0, geom.Vec3{900, 900, 9}, geom.Vec3{90, 90, 0}, 0, false, true, byte(i*29))
			}
		}
		if i%13 == 5 {
			e.setting(0, byte(i*19)) // delay
			e.setting(5, byte(i*7))  // extrapolateCap
		}
		e.frame(1.0 / 60)
		e.frame(0)
		e.frame(2.0 / 60)
	}
	return e
}
