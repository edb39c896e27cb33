package lightyear

import (
	"testing"

	"interplab/engine/geom"
	"interplab/engine/technique"
)

// FuzzStream drives the technique with a stream the fuzzer shapes: each
// pair of bytes is a snapshot (server time step, arrival delay, position)
// or a frame (local time step), with the settings' edges mixed in. Nothing
// may panic, and every drawn position must be finite and a value received
// or between two (no extrapolation: within the received coordinates'
// range).
func FuzzStream(f *testing.F) {
	f.Add([]byte{0, 10, 1, 20, 2, 30, 0, 10, 1, 200, 1, 1, 0, 5, 1, 16, 1, 16, 0, 250, 1, 90})
	f.Add([]byte{7, 7, 7, 7, 0, 0, 0, 0, 1, 255, 1, 255, 1, 255})
	f.Fuzz(func(t *testing.T, ops []byte) {
		s := defaults()
		if len(ops) > 0 {
			s.HandshakePings = int(ops[0] % 4)
			s.ConsecutiveErrorsThreshold = int(ops[0] % 5)
			s.PingInterval = 0.01 + float64(ops[0]%8)*0.05
		}
		env := &technique.Env{SendRate: 20, TickRate: 60, RenderRate: 60, Latency: 0.03, Jitter: 0.01}
		tech := Def.One(&s, env)
		now, server := 0.0, 0.0
		lo, hi, seen := 0.0, 0.0, false
		for i := 0; i+1 < len(ops); i += 2 {
			op, v := ops[i], float64(ops[i+1])
			if op%2 == 0 {
				server += float64(op%16) / 60
				x := v - 128
				if !seen {
					lo, hi, seen = x, x, true
				}
				lo, hi = min(lo, x), max(hi, x)
				tech.Receive(technique.Snapshot{Time: server, Pos: geom.Vec3{x, 0, -x}, Rot: geom.QuatFromYaw(x)}, now+v/1000)
				continue
			}
			now += v / 500
			smp := tech.Sample(now)
			if smp.Mode == technique.Empty {
				continue
			}
			if !smp.Pos.Finite() || smp.Pos[0] < float64(float32(lo))-1e-3 || smp.Pos[0] > float64(float32(hi))+1e-3 {
				t.Fatalf("op %d: drew %v, outside the received [%g, %g]", i, smp.Pos, lo, hi)
			}
		}
	})
}
