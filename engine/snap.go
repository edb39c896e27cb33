package engine

// snapTech is the guide's "before": each snapshot is applied the moment it
// arrives, so the entity moves only when packets land and stutters with
// their jitter. A snapshot no newer than the one shown is ignored.
type snapTech struct {
	last Snapshot
	have bool
}

// newSnap returns the snap technique. It has no settings.
func newSnap(_ *Settings) Technique { return &snapTech{} }

// Receive shows sn from now on if it is newer than the snapshot shown.
func (t *snapTech) Receive(sn Snapshot, _ float64) {
	if t.have && sn.Time <= t.last.Time {
		return
	}
	t.last, t.have = sn, true
}

// Sample returns the newest snapshot received, standing for its own time:
// Time = Newest = its time, Depth and Delay 0. Before any it is Empty, and
// every field is zero.
func (t *snapTech) Sample(_ float64) Sample {
	var out Sample
	t.sample(&out)
	return out
}

// sample writes Sample's result into out, saving the runner's batch a copy.
func (t *snapTech) sample(out *Sample) {
	if !t.have {
		*out = Sample{}
		return
	}
	*out = Sample{Pos: t.last.Pos, Rot: t.last.Rot, Mode: Interpolate, Time: t.last.Time, Newest: t.last.Time}
}
