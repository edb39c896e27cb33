package technique

import (
	"interplab/engine/geom"
	"interplab/engine/param"
)

// Snapshot is one entity's state as the server sent it.
type Snapshot struct {
	Time float64   // server time at which the state was true (its tick), s
	Pos  geom.Vec3 // position, m
	Vel  geom.Vec3 // velocity, m/s
	Rot  geom.Quat // orientation
}

// Mode tells what a technique is doing for the frame it displays.
type Mode uint8

const (
	Empty       Mode = iota // nothing received yet; the pose is the zero value
	Interpolate             // between received states (or showing one, for snap)
	Extrapolate             // past the newest state, by dead reckoning or a line
	Freeze                  // past every limit: holding the last pose
	// Hold: the library drew nothing this frame (geckos.io on underrun);
	// the pose is the last one drawn, as a game built on it keeps it.
	Hold
)

var modeNames = [...]string{"empty", "interpolate", "extrapolate", "freeze", "hold"}

func (m Mode) String() string {
	if int(m) < len(modeNames) {
		return modeNames[m]
	}
	return "mode(" + param.FormatNumber(float64(m)) + ")"
}

// Sample is what a technique displays for one entity in one frame, with the
// internals the lab's timeline and metrics read.
type Sample struct {
	Pos  geom.Vec3
	Rot  geom.Quat
	Mode Mode
	// Idle says that the sender deliberately sent nothing new for Time:
	// a send-on-change library's sender told the client, in snapshots it
	// received, that the entity had not moved beyond the library's change
	// threshold (IdleSpans.Covers(Time)). A frame that holds or runs past
	// Newest while Idle is an idle hold, which the lab counts apart from
	// underruns and freezes (engine's idle metric). Always false for a
	// technique whose sender sends every snapshot. (It sits beside Mode,
	// in its padding.)
	Idle bool

	// Time is the server time the displayed pose stands for: the render
	// time for the buffer, the read time for EPIC, the snapshot's time for
	// snap.
	Time float64
	// Newest is the server time of the newest snapshot received.
	Newest float64
	// Depth is the number of received snapshots newer than Time.
	Depth int
	// Delay is the technique's game delay as its state has it now, s: the
	// display delay behind the newest snapshot, counted the way
	// Def.Delay counts it in steady state (the buffer's delay as the
	// adaptive delay moves it; Mirror's bufferTime as dynamic adjustment
	// moves it plus NetworkTransform's offset; ...). 0 where there is none.
	// The runner averages it over the entities.
	Delay float64
}

// Technique displays one remote entity from the snapshots it receives. The
// simulation runner owns one per entity and technique and feeds them all the
// same packets.
//
// Both methods take now, in seconds, on the clock the technique's Def names
// (its TimeBase); it never runs backwards between calls. A technique reads
// its settings and its Env through the pointers it was made with, so a
// slider moved between frames takes effect on the next one.
type Technique interface {
	// Receive hands over a snapshot that arrived at now. Snapshots may
	// arrive out of order or twice.
	Receive(s Snapshot, now float64)
	// Sample returns what to display at now.
	Sample(now float64) Sample
}
