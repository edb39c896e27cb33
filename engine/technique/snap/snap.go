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
func (t *tech) Receive(sn technique.Snapshot, _ float64) {
	if t.have && sn.Time <= t.last.Time {
		return
	}
	t.last, t.have = sn, true
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
	*out = technique.Sample{Pos: t.last.Pos, Rot: t.last.Rot, Mode: technique.Interpolate, Time: t.last.Time, Newest: t.last.Time}
}

// batch holds its entities' techniques by value, so the calls in its loops
// are static and inline: an interface call per entity and frame is dear in
// WebAssembly.
type batch []tech

func (b batch) Receive(_, now float64, snaps []technique.Snapshot) {
	for e := range b {
		b[e].Receive(snaps[e], now)
	}
}

func (b batch) Frame(float64) {}

func (b batch) Fill(lo int, out []technique.Sample) {
	for e := range out {
		b[lo+e].sample(&out[e])
	}
}
