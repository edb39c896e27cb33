package epic

import (
	"interplab/engine/geom"
	"interplab/engine/param"
	"interplab/engine/technique"
)

// The techniques' names.
const (
	Name    = "epic"    // the seed's interpolator, exactly as written
	FixName = "epicfix" // EPIC without the jump when a packet is older than the display
)

// ms is the display scale of the rows' times: seconds shown in milliseconds.
const ms = 1000

// Params are the rows of the epic and epicfix techniques' settings. Their
// defaults (param.Defaults) are the seed driver's 0.2 s, 0.2 s and 0.5 s.
var Params = []param.Param[*Settings[float64]]{
	{Name: "calcAhead", Group: "epic", Unit: "s", Min: 0, Max: 1, Step: 0.001, Default: 0.2, Display: "ms", Scale: ms,
		Doc:   "How far forward EPIC extrapolates each packet; set it near the latency.",
		Read:  func(s *Settings[float64]) float64 { return s.CalcAhead },
		Write: func(s *Settings[float64], v float64) { s.CalcAhead = v }},
	{Name: "displayBehind", Group: "epic", Unit: "s", Min: 0, Max: 1, Step: 0.001, Default: 0.2, Display: "ms", Scale: ms,
		Doc:   "How long EPIC takes to converge on each new extrapolated line; below 0.1 ms it snaps.",
		Read:  func(s *Settings[float64]) float64 { return s.DisplayBehind },
		Write: func(s *Settings[float64], v float64) { s.DisplayBehind = v }},
	{Name: "slopTime", Group: "epic", Unit: "s", Min: 0, Max: 5, Step: 0.01, Default: 0.5, Display: "ms", Scale: ms,
		Doc:   "How long EPIC keeps extrapolating without updates before it freezes.",
		Read:  func(s *Settings[float64]) float64 { return s.SlopTime },
		Write: func(s *Settings[float64], v float64) { s.SlopTime = v }},
}

// Def is the seed's interpolator, exactly as written; FixDef is
// EPIC without the jump when a packet is older than the display.
var (
	Def = technique.Def[*Settings[float64]]{Name: Name, Group: "epic", Params: Params,
		Base: technique.ServerEstimate, Reach: technique.Ahead, UnderrunByDesign: true,
		Tune:  []string{"calcAhead", "displayBehind", "slopTime"},
		Batch: newBatch(false),
		One: func(s *Settings[float64], _ *technique.Env) technique.Technique {
			return newTech(s, false)
		}}
	FixDef = technique.Def[*Settings[float64]]{Name: FixName, Group: "epic",
		Base: technique.ServerEstimate, Reach: technique.Ahead, UnderrunByDesign: true,
		Tune:  []string{"calcAhead", "displayBehind", "slopTime"},
		Batch: newBatch(true),
		One:   func(s *Settings[float64], _ *technique.Env) technique.Technique { return newTech(s, true) }}
)

// tech is the Technique of EPIC (Name) and of its variant without the
// jump (FixName), in float64 on geom.Vec3.
type tech struct {
	settings *Settings[float64]
	fix      bool
	started  bool // a snapshot has been received and epic made from it
	epic     Interpolator[geom.Vec3, float64]
	rot      geom.Quat // rotation of the newest snapshot: EPIC has none of its own
}

// newTech returns the Technique of the seed's interpolator, or of
// its variant without the jump if fix is true. It reads calcAhead,
// displayBehind and slopTime from s on every call, so a slider moved
// between frames takes effect at once.
//
// The interpolator is made from the first snapshot received, which is its
// initial position, velocity and time, as the seed advises; every later
// snapshot is an Update, and snapshots older than the newest are discarded.
func newTech(s *Settings[float64], fix bool) technique.Technique {
	return &tech{settings: s, fix: fix}
}

func (t *tech) epicSettings() Settings[float64] { return *t.settings }

func (t *tech) Receive(s technique.Snapshot, now float64) { t.receive(&s) }

// receive is Receive through a pointer, for the batch: see
// technique.CopySnapshot.
func (t *tech) receive(s *technique.Snapshot) {
	if !t.started {
		if t.fix {
			t.epic = *NewFix(t.epicSettings(), s.Pos, s.Vel, s.Time)
		} else {
			t.epic = *New(t.epicSettings(), s.Pos, s.Vel, s.Time)
		}
		t.started, t.rot = true, s.Rot
		return
	}
	t.epic.Settings = t.epicSettings()
	if t.epic.update(&s.Pos, &s.Vel, s.Time) {
		t.rot[0], t.rot[1], t.rot[2], t.rot[3] = s.Rot[0], s.Rot[1], s.Rot[2], s.Rot[3]
	}
}

func (t *tech) Sample(now float64) technique.Sample {
	var out technique.Sample
	t.sample(now, &out)
	return out
}

// sample writes Sample(now) into out, which saves a copy per entity and
// frame in the runner's batch.
func (t *tech) sample(now float64, out *technique.Sample) {
	if !t.started {
		*out = technique.Sample{Mode: technique.Empty, Time: now}
		return
	}
	t.epic.Settings = *t.settings
	mode := technique.Freeze
	if t.epic.readPos(now, &out.Pos) {
		mode = technique.Extrapolate
	}
	// Element by element: see technique.CopySnapshot.
	out.Rot[0], out.Rot[1], out.Rot[2], out.Rot[3] = t.rot[0], t.rot[1], t.rot[2], t.rot[3]
	out.Mode, out.Time, out.Newest = mode, now, t.epic.Newest()
	out.Depth, out.Delay = 0, 0
}

// batch holds its techniques by value, so the calls in its loops are
// static and inline: an interface call per entity and frame is dear in
// WebAssembly.
type batch struct {
	techs []tech
	now   float64
}

func (b *batch) Receive(_, _ float64, snaps []technique.Snapshot) {
	for e := range b.techs {
		b.techs[e].receive(&snaps[e])
	}
}

func (b *batch) Frame(now float64) { b.now = now }

func (b *batch) Fill(lo int, out []technique.Sample) {
	for e := range out {
		b.techs[lo+e].sample(b.now, &out[e])
	}
}

func newBatch(fix bool) func(s *Settings[float64], _ *technique.Env, n int) technique.Batch {
	return func(s *Settings[float64], _ *technique.Env, n int) technique.Batch {
		b := &batch{techs: make([]tech, n)}
		for e := range b.techs {
			b.techs[e] = *newTech(s, fix).(*tech)
		}
		return b
	}
}
