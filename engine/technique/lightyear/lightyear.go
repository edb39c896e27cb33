// Package lightyear is the lightyear technique: the client-side
// interpolation of lightyear, the Bevy networking library (Rust), as a
// client shows one interpolated entity.
//
// lightyear (cBournhonesque/lightyear, MIT OR Apache-2.0), commit
// 03c79316d20b4bb3962f9a9198a0ba4e2b17bb15 (2026-08-21, main after 0.26;
// Bevy 0.19). The behaviour comes from the project's golden/peers README
// (lightyear section) and from reading, no code copied:
//
//   - crates/core/sync/src/ping/{manager,estimator,store}.rs: pings every
//     ping_interval, a 128-slot store, the RTT EWMA (1/12, 1/6) with its
//     outlier cap, jitter = half the RTT's mean deviation;
//   - crates/core/sync/src/timeline/remote.rs: the remote tick estimate,
//     moved by every packet's header tick once 3 pongs were used, its offset
//     smoothed by an EMA whose weight falls from 0.10 to 0.02 as the jitter
//     grows from 1 to 10 ms;
//   - crates/core/sync/src/timeline/sync.rs and
//     crates/replication/interpolation/src/timeline.rs: the interpolation
//     timeline's objective, estimate − (max(send_interval_ratio × send
//     interval, min_delay) + jitter_multiple × jitter + jitter_margin
//     ticks), the first sync (a snap) and the controller (resync past
//     max_error_margin, speed 1 ± (speedup_factor − 1)·2·|e|/max after
//     consecutive_errors_threshold errors beyond error_margin of one sign,
//     else relax a tenth back to 1), run on frames that accepted a packet;
//   - crates/core/core/src/{time,history_buffer}.rs and
//     crates/replication/interpolation/src/interpolate.rs: 32.32 fixed-point
//     ticks, f32 durations, the confirmed history (drained to keep the
//     entry before the cursor), its linear f32 sample, holding the newest
//     value past it: never an extrapolation.
//
// It is pinned by what lightyear's own client rendered for the packet
// schedules in testdata/ (see Case): every fixed-point bit of both
// timelines, every RTT and jitter to the nanosecond, and the drawn position
// to 1e-9 m on every frame.
//
// The lab's stream and lightyear's wire differ, and the technique bridges
// them so (deliberate simplifications):
//
//   - A snapshot of server time s is the replicated update of server tick
//     round(s × tickRate), with the lab's tickRate as lightyear's tick and
//     its sendRate as the server's send interval. Packets are handled in
//     the next frame, as lightyear handles them in PreUpdate.
//   - The lab's link carries no pings, so the technique models them: a ping
//     leaves every ping_interval on the client's frames, and its pong comes
//     back after twice the link's nominal latency plus the jitter of two
//     recent snapshots (how much later than the quickest they arrived): a
//     round trip with the jitter of the link the snapshots cross. The
//     server holds a ping no time.
//   - A fresh client's interpolation timeline starts at tick 0 while a
//     real server is far ahead of it, so nothing is ever at or before the
//     cursor until the first sync snaps it; the lab's server starts at tick
//     0 too, so the technique draws nothing (and drains nothing) until the
//     first sync, as the game would.
//   - Rotation is a component of its own in a Bevy game; here it rides the
//     position's history and is slerped by the same fraction.
package lightyear

import (
	"math"

	"interplab/engine/param"
	"interplab/engine/technique"
)

// Name is the technique's vocabulary name and its cases' library field.
const Name = "lightyear"

// Settings are lightyear's InterpolationConfig (min_delay,
// send_interval_ratio), its SyncConfig (the rest but ping_interval) and
// PingConfig's ping_interval, under lightyear's field names (JSON keys
// prefixed "lightyear."), in lightyear's units: durations in seconds
// (Duration), margins in ticks. The tick and the server's send interval
// are the lab's tickRate and sendRate.
type Settings struct {
	MinDelay                   float64 `json:"lightyear.min_delay"`                    // s
	SendIntervalRatio          float64 `json:"lightyear.send_interval_ratio"`          // × the server's send interval (f32)
	JitterMultiple             int     `json:"lightyear.jitter_multiple"`              // × the jitter (u8)
	JitterMargin               float64 `json:"lightyear.jitter_margin"`                // ticks (f32)
	HandshakePings             int     `json:"lightyear.handshake_pings"`              // used pongs before the first sync (u8)
	ErrorMargin                float64 `json:"lightyear.error_margin"`                 // ticks (f32)
	MaxErrorMargin             float64 `json:"lightyear.max_error_margin"`             // ticks (f32)
	ConsecutiveErrorsThreshold int     `json:"lightyear.consecutive_errors_threshold"` // samples (u8)
	SpeedupFactor              float64 `json:"lightyear.speedup_factor"`               // ratio (f32)
	PingInterval               float64 `json:"lightyear.ping_interval"`                // s
}

// Params are the lightyear technique's knobs; their defaults are
// lightyear's. lightyear bounds none of them; the delay knobs' ranges here
// keep the delay they make within what the lab measures (its added-latency
// fit looks up to 1 s back), several times what a game would set.
var Params = []param.Param[*Settings]{
	{Name: "lightyear.min_delay", Group: Name, Unit: "s", Min: 0, Max: 0.5, Step: 0.001, Default: 0.005, Display: "ms", Scale: 1000,
		Doc:   "InterpolationConfig.min_delay: the least interpolation delay behind the estimated server tick (lightyear 5 ms).",
		Read:  func(s *Settings) float64 { return s.MinDelay },
		Write: func(s *Settings, v float64) { s.MinDelay = v }},
	{Name: "lightyear.send_interval_ratio", Group: Name, Unit: "ratio", Min: 0, Max: 5, Step: 0.1, Default: 1.7, Display: "× send interval", Scale: 1,
		Doc:   "InterpolationConfig.send_interval_ratio: the delay in server send intervals, if above min_delay (lightyear 1.7).",
		Read:  func(s *Settings) float64 { return s.SendIntervalRatio },
		Write: func(s *Settings, v float64) { s.SendIntervalRatio = v }},
	{Name: "lightyear.jitter_multiple", Group: Name, Kind: param.Int, Unit: "ratio", Min: 0, Max: 10, Step: 1, Default: 4, Display: "× jitter", Scale: 1,
		Doc:   "SyncConfig.jitter_multiple: jitters of margin added to the delay (lightyear 4).",
		Read:  func(s *Settings) float64 { return float64(s.JitterMultiple) },
		Write: func(s *Settings, v float64) { s.JitterMultiple = int(v) }},
	{Name: "lightyear.jitter_margin", Group: Name, Unit: "ticks", Min: 0, Max: 10, Step: 0.1, Default: 1, Display: "ticks", Scale: 1,
		Doc:   "SyncConfig.jitter_margin: ticks of margin added to the delay (lightyear 1).",
		Read:  func(s *Settings) float64 { return s.JitterMargin },
		Write: func(s *Settings, v float64) { s.JitterMargin = v }},
	{Name: "lightyear.handshake_pings", Group: Name, Kind: param.Int, Unit: "pings", Min: 0, Max: 50, Step: 1, Default: 3, Display: "pongs", Scale: 1,
		Doc:   "SyncConfig.handshake_pings: pongs used before the timeline first syncs; the estimate itself waits for 3 (lightyear 3).",
		Read:  func(s *Settings) float64 { return float64(s.HandshakePings) },
		Write: func(s *Settings, v float64) { s.HandshakePings = int(v) }},
	{Name: "lightyear.error_margin", Group: Name, Unit: "ticks", Min: 0, Max: 20, Step: 0.1, Default: 1, Display: "ticks", Scale: 1,
		Doc:   "SyncConfig.error_margin: timeline error tolerated without a speed change (lightyear 1 tick).",
		Read:  func(s *Settings) float64 { return s.ErrorMargin },
		Write: func(s *Settings, v float64) { s.ErrorMargin = v }},
	{Name: "lightyear.max_error_margin", Group: Name, Unit: "ticks", Min: 0.1, Max: 100, Step: 0.1, Default: 10, Display: "ticks", Scale: 1,
		Doc:   "SyncConfig.max_error_margin: timeline error that snaps it to the objective (lightyear 10 ticks).",
		Read:  func(s *Settings) float64 { return s.MaxErrorMargin },
		Write: func(s *Settings, v float64) { s.MaxErrorMargin = v }},
	{Name: "lightyear.consecutive_errors_threshold", Group: Name, Kind: param.Int, Unit: "samples", Min: 0, Max: 50, Step: 1, Default: 3, Display: "samples", Scale: 1,
		Doc:   "SyncConfig.consecutive_errors_threshold: errors of one sign beyond error_margin before the speed changes (lightyear 3).",
		Read:  func(s *Settings) float64 { return float64(s.ConsecutiveErrorsThreshold) },
		Write: func(s *Settings, v float64) { s.ConsecutiveErrorsThreshold = int(v) }},
	{Name: "lightyear.speedup_factor", Group: Name, Unit: "ratio", Min: 1, Max: 2, Step: 0.01, Default: 1.05, Display: "×", Scale: 1,
		Doc:   "SyncConfig.speedup_factor: the timeline runs up to 1 ± 2·(factor − 1) times real speed to catch up (lightyear 1.05).",
		Read:  func(s *Settings) float64 { return s.SpeedupFactor },
		Write: func(s *Settings, v float64) { s.SpeedupFactor = v }},
	{Name: "lightyear.ping_interval", Group: Name, Unit: "s", Min: 0.01, Max: 2, Step: 0.01, Default: 0.1, Display: "ms", Scale: 1000,
		Doc:   "PingConfig.ping_interval: how often the client pings the server for its RTT and jitter (lightyear 100 ms).",
		Read:  func(s *Settings) float64 { return s.PingInterval },
		Write: func(s *Settings, v float64) { s.PingInterval = v }},
}

// Def is the lightyear technique's row of the technique list.
var Def = technique.Def[*Settings]{Name: Name, Group: Name, Params: Params,
	Base: technique.LocalTime, Reach: technique.Received,
	Tune:  []string{"lightyear.send_interval_ratio", "lightyear.min_delay", "lightyear.jitter_multiple", "lightyear.jitter_margin"},
	Delay: delay,
	Batch: func(s *Settings, env *technique.Env, n int) technique.Batch { return newBatch(s, env, n) },
	One:   func(s *Settings, env *technique.Env) technique.Technique { return newOne(s, env) },
	Library: &technique.Library{Title: "lightyear", Note: "Bevy (Rust): the interpolation timeline synced to the server tick",
		Group: "lightyear", Version: "main after 0.26", Commit: "03c79316d20b4bb3962f9a9198a0ba4e2b17bb15"},
}

// durationNs is s seconds as whole nanoseconds.
func durationNs(s float64) int64 { return int64(math.Round(s * nsPerSec)) }

// labConfig is the client's configuration for settings s on the lab's
// run env: its tickRate is the tick, its sendRate the server's send rate.
func labConfig(s *Settings, env *technique.Env) config {
	tick := max(durationNs(1/env.TickRate), 1)
	return config{
		tick:           tick,
		sendInterval:   announced(max(durationNs(1/env.SendRate), 1), tick),
		minDelay:       durationNs(s.MinDelay),
		pingInterval:   durationNs(s.PingInterval),
		ratio:          float32(s.SendIntervalRatio),
		jitterMultiple: uint32(s.JitterMultiple),
		jitterMargin:   float32(s.JitterMargin),
		handshakePings: uint32(s.HandshakePings),
		errorMargin:    float32(s.ErrorMargin),
		maxErrorMargin: float32(s.MaxErrorMargin),
		threshold:      uint8(s.ConsecutiveErrorsThreshold),
		speedup:        float32(s.SpeedupFactor),
	}
}

// delay is the steady-state display delay behind the newest snapshot, s:
// the objective's distance behind the estimated server tick,
// max(send_interval_ratio × send interval, min_delay) + jitter_multiple ×
// jitter + jitter_margin ticks, less the newest snapshot's own lag behind
// that estimate (its transit, the latency plus the jitter); 0 when the
// margin is less than the transit, and the client holds. The jitter
// lightyear measures, half the RTT's mean deviation, is taken as half the
// link's mean jitter.
func delay(s *Settings, env *technique.Env) float64 {
	d := max(1/env.SendRate*s.SendIntervalRatio, s.MinDelay) +
		float64(s.JitterMultiple)*env.Jitter/2 + s.JitterMargin/env.TickRate
	return max(d-(env.Latency+env.Jitter), 0)
}
