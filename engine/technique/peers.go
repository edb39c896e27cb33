package technique

import "interplab/engine/geom"

// PeerFrame is what a library technique drew in one client frame of a peer
// case: a packet schedule replayed through the technique the way the real
// library was driven when its output was recorded (see the case types of
// each library technique, MirrorCase and the others, and their Run methods).
// Studios capture such cases from their own builds; `lab peers check`
// compares a technique's frames with the library's.
type PeerFrame struct {
	T     float64   // the frame's client local time, s
	Pos   geom.Vec3 // the drawn position, m; meaningful only when Drawn
	Drawn bool      // false where the library drew nothing (its pos is null)
}

// Peer is f itself, so that a case's replayed row that embeds a PeerFrame
// beside the library's internals is a PeerRow.
func (f PeerFrame) Peer() PeerFrame { return f }

// PeerRow is one frame of a replayed case: what was drawn, and whatever
// else the case's own tests read.
type PeerRow interface{ Peer() PeerFrame }

// PeerFrames is what rows drew, frame by frame, or err: a case's Run over
// its replay.
func PeerFrames[R PeerRow](rows []R, err error) ([]PeerFrame, error) {
	if err != nil {
		return nil, err
	}
	out := make([]PeerFrame, len(rows))
	for i := range rows {
		out[i] = rows[i].Peer()
	}
	return out, nil
}
