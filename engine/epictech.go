package engine

import (
	"interplab/engine/geom"
	"interplab/engine/technique"
)

// epicTechnique is the Technique of EPIC (TechEPIC) and of its variant
// without the jump (TechEPICFix), in float64 on Vec3.
type epicTechnique struct {
	settings *Settings
	fix      bool
	started  bool // a snapshot has been received and epic made from it
	epic     EPIC[geom.Vec3, float64]
	rot      geom.Quat // rotation of the newest snapshot: EPIC has none of its own
}

// newEPICTechnique returns the Technique of the seed's interpolator, or of
// its variant without the jump if fix is true. It reads calcAhead,
// displayBehind and slopTime from s on every call, so a slider moved
// between frames takes effect at once.
//
// The interpolator is made from the first snapshot received, which is its
// initial position, velocity and time, as the seed advises; every later
// snapshot is an Update, and snapshots older than the newest are discarded.
func newEPICTechnique(s *Settings, fix bool) technique.Technique {
	return &epicTechnique{settings: s, fix: fix}
}

func (t *epicTechnique) epicSettings() EPICSettings[float64] {
	s := t.settings
	return EPICSettings[float64]{CalcAhead: s.CalcAhead, DisplayBehind: s.DisplayBehind, SlopTime: s.SlopTime}
}

func (t *epicTechnique) Receive(s technique.Snapshot, now float64) {
	if !t.started {
		if t.fix {
			t.epic = *NewEPICFix(t.epicSettings(), s.Pos, s.Vel, s.Time)
		} else {
			t.epic = *NewEPIC(t.epicSettings(), s.Pos, s.Vel, s.Time)
		}
		t.started, t.rot = true, s.Rot
		return
	}
	t.epic.Settings = t.epicSettings()
	if t.epic.Update(s.Pos, s.Vel, s.Time) {
		t.rot = s.Rot
	}
}

func (t *epicTechnique) Sample(now float64) technique.Sample {
	var out technique.Sample
	t.sample(now, &out)
	return out
}

// sample writes Sample(now) into out, which saves a copy per entity and
// frame in the runner's batch.
func (t *epicTechnique) sample(now float64, out *technique.Sample) {
	if !t.started {
		*out = technique.Sample{Mode: technique.Empty, Time: now}
		return
	}
	s := t.settings
	t.epic.Settings = EPICSettings[float64]{CalcAhead: s.CalcAhead, DisplayBehind: s.DisplayBehind, SlopTime: s.SlopTime}
	mode := technique.Freeze
	var vel geom.Vec3
	if t.epic.Read(now, &out.Pos, &vel) {
		mode = technique.Extrapolate
	}
	out.Rot, out.Mode, out.Time, out.Newest = t.rot, mode, now, t.epic.Newest()
	out.Depth, out.Delay = 0, 0
}

// epicBatch holds its techniques by value, so the calls in its loops are
// static and inline: an interface call per entity and frame is dear in
// WebAssembly.
type epicBatch struct {
	techs []epicTechnique
	now   float64
}

func (b *epicBatch) Receive(_, now float64, snaps []technique.Snapshot) {
	for e := range b.techs {
		b.techs[e].Receive(snaps[e], now)
	}
}

func (b *epicBatch) Frame(now float64) { b.now = now }

func (b *epicBatch) Fill(lo int, out []technique.Sample) {
	for e := range out {
		b.techs[lo+e].sample(b.now, &out[e])
	}
}

func newEPICBatch(fix bool) func(s *Settings, n int) technique.Batch {
	return func(s *Settings, n int) technique.Batch {
		b := &epicBatch{techs: make([]epicTechnique, n)}
		for e := range b.techs {
			b.techs[e] = *newEPICTechnique(s, fix).(*epicTechnique)
		}
		return b
	}
}
