// Package snap is the guide's "before": each snapshot is applied the moment
// it arrives, so the entity moves only when packets land and stutters with
// their jitter. It has no settings.
package snap

import "interplab/engine/technique"

// Name is the technique's name.
const Name = "snap"

// Def is the snap technique's row of the technique list.
var Def = technique.Def[*technique.None]{
	Name: Name, Base: technique.ServerEstimate, Reach: technique.Received,
	Batch: func(_ *technique.None, _ *technique.Env, n int) technique.Batch { return make(batch, n) },
	One:   func(*technique.None, *technique.Env) technique.Technique { return &tech{} },
}

// tech is the technique of one entity. A snapshot no newer than the one
// shown is ignored.
type tech struct {
	last technique.Snapshot
	have bool
}

// Receive shows sn from now on if it is newer than the snapshot shown.
func (t *tech) Receive(sn technique.Snapshot, _ float64) { t.receive(&sn) }

// receive is Receive through a pointer, for the batch: see sample.
func (t *tech) receive(sn *technique.Snapshot) {
	if t.have && sn.Time <= t.last.Time {
		return
	}
	technique.CopySnapshot(&t.last, sn)
	t.have = true
}

// Sample returns the newest snapshot received, standing for its own time:
// Time = Newest = its time, Depth and Delay 0. Before any it is Empty, and
// every field is zero.
func (t *tech) Sample(_ float64) technique.Sample {
	var out technique.Sample
	t.sample(&out)
	return out
}

// sample writes Sample's result into out, saving the runner's batch a copy.
func (t *tech) sample(out *technique.Sample) {
	if !t.have {
		*out = technique.Sample{}
		return
	}
	// Field by field, every field: see technique.CopySnapshot.
	l := &t.last
	out.Pos[0], out.Pos[1], out.Pos[2] = l.Pos[0], l.Pos[1], l.Pos[2]
	out.Rot[0], out.Rot[1], out.Rot[2], out.Rot[3] = l.Rot[0], l.Rot[1], l.Rot[2], l.Rot[3]
	out.Mode, out.Idle = technique.Interpolate, false
	out.Time, out.Newest, out.Depth, out.Delay = l.Time, l.Time, 0, 0
}

// batch holds its entities' techniques by value, so the calls in its loops
// are static and inline: an interface call per entity and frame is dear in
// WebAssembly.
type batch []tech

func (b batch) Receive(_, _ float64, snaps []technique.Snapshot) {
	for e := range b {
		b[e].receive(&snaps[e])
	}
}

func (b batch) Frame(float64) {}

func (b batch) Fill(lo int, out []technique.Sample) {
	for e := range out {
		b[lo+e].sample(&out[e])
	}
}
