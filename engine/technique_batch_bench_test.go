package engine

import (
	"math"
	"testing"

	"interplab/engine/geom"
	"interplab/engine/technique"
	"interplab/engine/technique/buffer"
	"interplab/engine/technique/ioquake3"
	"interplab/engine/technique/lightyear"
)

// BenchmarkBatchFrame runs a technique's batch alone, without the
// simulation or its metrics, over 1,000 entities on a synthetic stream
// (20 Hz sends, 60 Hz ticks and frames, 50 ms latency plus up to 30 ms of
// jitter, every 13th snapshot lost, entities on circles), one 60 Hz frame
// per op after 2 s of priming, and reports the cost per entity-frame: the
// newest library techniques (lightyear, ioquake3) at their defaults against
// buffer, whose cost they are held to within 2×.
func BenchmarkBatchFrame(b *testing.B) {
	env := technique.Env{SendRate: 20, TickRate: 60, RenderRate: 60, MaxSpeed: 10, Latency: 0.05, Jitter: 0.015}
	d := Defaults()
	bufS, lyS, q3S := d.BufferSettings, d.LightyearSettings, d.IOQuake3Settings
	for _, tc := range []struct {
		name string
		make func(n int) technique.Batch
	}{
		{buffer.Name, func(n int) technique.Batch { return buffer.Def.Batch(&bufS, &env, n) }},
		{lightyear.Name, func(n int) technique.Batch { return lightyear.Def.Batch(&lyS, &env, n) }},
		{ioquake3.Name, func(n int) technique.Batch { return ioquake3.Def.Batch(&q3S, &env, n) }},
	} {
		b.Run(tc.name, func(b *testing.B) {
			const n = 1000
			bt := tc.make(n)
			// The snapshots of 32 sends, one lap of each entity's circle,
			// made before timing.
			var laps [32][]technique.Snapshot
			for k := range laps {
				laps[k] = make([]technique.Snapshot, n)
				for e := range laps[k] {
					a := 2*math.Pi*float64(k)/32 + float64(e)
					sin, cos := math.Sincos(a)
					laps[k][e] = technique.Snapshot{Pos: geom.Vec3{5 * cos, 5 * sin, 0},
						Vel: geom.Vec3{-5 * sin, 5 * cos, 0}, Rot: geom.QuatFromYaw(a)}
				}
			}
			out := make([]technique.Sample, 256)
			sent, frame := 0, 0
			step := func() {
				now := float64(frame) / 60
				for {
					send := float64(sent) / env.SendRate
					arrive := send + env.Latency + 0.03*float64((sent*37)%11)/10
					if arrive > now {
						break
					}
					if sent%13 != 5 {
						snaps := laps[sent%len(laps)]
						for e := range snaps {
							snaps[e].Time = send
						}
						bt.Receive(send, arrive, snaps)
					}
					sent++
				}
				bt.Frame(now)
				for lo := 0; lo < n; lo += len(out) {
					bt.Fill(lo, out[:min(len(out), n-lo)])
				}
				frame++
			}
			for range 120 {
				step()
			}
			b.ReportAllocs()
			for b.Loop() {
				step()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/entity-frame")
		})
	}
}
