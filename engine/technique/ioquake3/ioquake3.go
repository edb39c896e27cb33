// Package ioquake3 is the ioquake3 technique: how a Quake III Arena client
// (ioquake3, the id Tech 3 lineage) picks the server time it draws and
// where it draws a remote player.
//
// ioquake3 (ioquake/ioq3, GPL-2.0-or-later), commit
// 5956299e80b29ef3891bcec8e99cd3e680f34b1a (2026-03-09). ioquake3's licence
// is not one the project can take on: this package is written from the
// behaviour described in the project's golden/peers README (ioquake3
// section) alone, never from ioquake3's code, and it is pinned by what the
// real client drew for the packet schedules in testdata/ (see Case),
// exactly in float32 on every frame.
//
// The model, in integer milliseconds and float32 as the game computes:
//
//   - The client clock (client.frame) keeps an offset from its own
//     millisecond clock to the server's, set from the first snapshot and
//     then moved once per frame that brought snapshots: 1 ms later, or 2 ms
//     earlier when since the last move the un-nudged time came within 5 ms
//     of the newest snapshot; halfway to the new offset when they differ by
//     over 100 ms; taken outright (drawing exactly the newest snapshot's
//     time) when they differ by over 500 ms. cl_timeNudge, clamped to
//     [−30, 30] ms, moves the drawn time that much further into the past;
//     the drawn time never goes back except on that reset.
//   - The cgame holds two snapshots around the drawn time, consuming
//     received ones in order, and interpolates the remote player's origin
//     linearly between them in float32; without a next snapshot it holds
//     the newest origin, or with cg_smoothClients 1 moves it along the sent
//     velocity until 50 ms past the player's command time, then stops.
//
// The lab's stream and Quake's wire differ, and the technique bridges them
// so (deliberate simplifications):
//
//   - The server's clock runs in whole frames of 1000/sv_fps ms (integer
//     division: 33 ms at 30 fps, so it runs 1 % slow of real time at 30):
//     a lab snapshot of server time t seconds carries round(t·sv_fps) such
//     frames. Snapshots are ordered (and late or duplicate ones dropped) by
//     that time, as Quake orders them by message number.
//   - The server sends players as a 50 ms linear-stop trajectory whose time
//     is the player's command time (g_smoothClients 1, the game's default).
//     A remote human player's commands come in packets every
//     1000/cl_maxpackets ms across a link like the lab's, so its command
//     time lags the snapshot by the link's latency plus the age of its last
//     packet (the snapshot time modulo that interval); the origin sent is
//     the lab's position taken back to that time along its velocity.
//   - snaps and sv_fps shape what the server sends; the lab's sendRate is
//     the server's send rate, so the technique advises setting
//     min(snaps, sv_fps) equal to it. Positions stay in metres (Quake's
//     whole-unit truncation of the origin is not applied); the rotation is
//     slerped by the same fraction (held and extrapolated frames show the
//     snapshot's). One client, timescale 1, no pause, no teleports.
package ioquake3

import (
	"interplab/engine/param"
	"interplab/engine/technique"
)

// Name is the technique's vocabulary name and its cases' library field.
const Name = "ioquake3"

// Settings are the ioquake3 cvars the technique reads, by their cvar names
// (JSON keys prefixed "ioquake3."), in the game's own units.
type Settings struct {
	// TimeNudge is cl_timeNudge, ms: draw this much further in the past
	// (negative: closer to the newest snapshot), in [−30, 30] (0).
	TimeNudge int `json:"ioquake3.cl_timeNudge"`
	// Snaps is the client's snapshot-rate request, per second (20).
	Snaps int `json:"ioquake3.snaps"`
	// MaxPackets is cl_maxpackets: the packets per second a client sends
	// its commands in (30); it sets how far a remote player's command time
	// lags the snapshots.
	MaxPackets int `json:"ioquake3.cl_maxpackets"`
	// FPS is sv_fps: the server's frames per second (20); snapshot times
	// are whole frames of 1000/sv_fps ms.
	FPS int `json:"ioquake3.sv_fps"`
	// SmoothClients is cg_smoothClients: extrapolate remote players along
	// their velocity up to 50 ms past their command time instead of
	// holding (false).
	SmoothClients bool `json:"ioquake3.cg_smoothClients"`
}

// Params are the ioquake3 technique's knobs; their defaults are the game's.
var Params = []param.Param[*Settings]{
	{Name: "ioquake3.cl_timeNudge", Group: Name, Kind: param.Int, Unit: "ms", Min: -30, Max: 30, Step: 1, Default: 0, Display: "ms", Scale: 1,
		Doc:   "cl_timeNudge: draw remote players this many ms further in the past (negative: nearer the newest snapshot); the game clamps it to ±30.",
		Read:  func(s *Settings) float64 { return float64(s.TimeNudge) },
		Write: func(s *Settings, v float64) { s.TimeNudge = int(v) }},
	{Name: "ioquake3.snaps", Group: Name, Kind: param.Int, Unit: "Hz", Min: 1, Max: 125, Step: 1, Default: 20, Display: "Hz", Scale: 1,
		Doc:   "snaps: snapshots per second the client asks for; the server sends at most sv_fps (the lab's sendRate plays the server).",
		Read:  func(s *Settings) float64 { return float64(s.Snaps) },
		Write: func(s *Settings, v float64) { s.Snaps = int(v) }},
	{Name: "ioquake3.cl_maxpackets", Group: Name, Kind: param.Int, Unit: "Hz", Min: 15, Max: 125, Step: 1, Default: 30, Display: "Hz", Scale: 1,
		Doc:   "cl_maxpackets: command packets per second a client sends; a remote player's command time lags by its packets' age.",
		Read:  func(s *Settings) float64 { return float64(s.MaxPackets) },
		Write: func(s *Settings, v float64) { s.MaxPackets = int(v) }},
	{Name: "ioquake3.sv_fps", Group: Name, Kind: param.Int, Unit: "Hz", Min: 10, Max: 125, Step: 1, Default: 20, Display: "Hz", Scale: 1,
		Doc:   "sv_fps: server frames per second; snapshot times are whole frames of 1000/sv_fps ms.",
		Read:  func(s *Settings) float64 { return float64(s.FPS) },
		Write: func(s *Settings, v float64) { s.FPS = int(v) }},
	{Name: "ioquake3.cg_smoothClients", Group: Name, Kind: param.Bool, Max: 1, Step: 1, Default: 0,
		Doc:   "cg_smoothClients: move remote players along their velocity up to 50 ms past their command time instead of holding (game default off).",
		Read:  func(s *Settings) float64 { return param.FromBool(s.SmoothClients) },
		Write: func(s *Settings, v float64) { s.SmoothClients = v != 0 }},
}

// Def is the ioquake3 technique's row of the technique list.
var Def = technique.Def[*Settings]{Name: Name, Group: Name, Params: Params,
	Base: technique.LocalTime, Reach: technique.Transit,
	Tune:   []string{"ioquake3.cl_timeNudge", "ioquake3.cg_smoothClients"},
	Advice: advice,
	Delay:  delay,
	Batch:  func(s *Settings, env *technique.Env, n int) technique.Batch { return newBatch(s, env, n) },
	One:    func(s *Settings, env *technique.Env) technique.Technique { return newOne(s, env) },
	Library: &technique.Library{Title: "Quake III (ioquake3)", Note: "id Tech 3 shooters: cl_timeNudge, snaps, cg_smoothClients",
		Group: "Quake III (ioquake3)", Commit: "5956299e80b29ef3891bcec8e99cd3e680f34b1a"},
}

// frameMsec is the server frame, ms: 1000/sv_fps in whole ms.
func frameMsec(s *Settings) int64 { return 1000 / int64(max(s.FPS, 1)) }

// snapshotMsec is the interval between snapshots, ms: 1000/min(snaps,
// sv_fps) in whole ms.
func snapshotMsec(s *Settings) int64 { return 1000 / int64(max(min(s.Snaps, s.FPS), 1)) }

// nudge is cl_timeNudge as the client uses it: clamped to [−30, 30].
func nudge(s *Settings) int64 { return int64(min(max(s.TimeNudge, -30), 30)) }

// delay is the steady-state display delay behind the newest snapshot, s:
// the clock settles about half a snapshot interval behind the newest
// snapshot, and cl_timeNudge adds to it; 0 when a negative nudge takes it
// past the newest (the player is then held there).
func delay(s *Settings, _ *technique.Env) float64 {
	return max(float64(snapshotMsec(s))/2+float64(nudge(s)), 0) / 1000
}

// advice says when the server's snapshot rate, min(snaps, sv_fps), is not
// the lab's send rate.
func advice(s *Settings, env *technique.Env) string {
	rate := float64(min(s.Snaps, s.FPS))
	if rate == env.SendRate {
		return ""
	}
	return technique.RateAdvice("min(ioquake3.snaps, ioquake3.sv_fps)", rate, env, "the game's server sends that many snapshots a second")
}
