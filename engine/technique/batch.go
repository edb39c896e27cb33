package technique

// Batch displays every entity of a run with one technique. Entities that
// share their packets share their timing, so a batch does the work that
// depends only on time once per frame (Frame), then writes the entities in
// chunks (Fill) that the metrics read while they are still in cache.
type Batch interface {
	// Receive hands over one packet: snaps[e] is entity e's snapshot of
	// the server tick at time tick, arrived at now.
	Receive(tick, now float64, snaps []Snapshot)
	// Frame prepares the display at now.
	Frame(now float64)
	// Fill writes what entities lo, lo+1, ... display into out.
	Fill(lo int, out []Sample)
}

// RotationSkipper is a batch that can leave out the rotations it fills,
// for a run whose poses carry no headings (the stress view draws dots):
// nothing else reads them, and positions, metrics and state are the same
// either way. Its positions never depend on the snapshots' rotations, so a
// runner that never asks for rotations again may leave Snapshot.Rot the
// identity.
type RotationSkipper interface {
	SkipRotations(skip bool)
}

// DelaySharer is a batch whose entities share their timing, so every
// sample of a frame carries the same Delay: the runner reads the live
// delay from one of them instead of averaging them all.
type DelaySharer interface {
	SharesDelay()
}

// PerEntity is a batch of one Technique per entity, for any Technique.
type PerEntity struct {
	Techs []Technique // entity e's technique
	now   float64
}

// Receive hands snaps[e] to entity e's technique.
func (p *PerEntity) Receive(_, now float64, snaps []Snapshot) {
	for e, t := range p.Techs {
		t.Receive(snaps[e], now)
	}
}

// Frame keeps now for Fill.
func (p *PerEntity) Frame(now float64) { p.now = now }

// Fill samples entities lo, lo+1, ... at the frame's now.
func (p *PerEntity) Fill(lo int, out []Sample) {
	for e, t := range p.Techs[lo : lo+len(out)] {
		out[e] = t.Sample(p.now)
	}
}

// One is a Batch made for one entity, as a Technique.
type One struct {
	Batch Batch
	in    [1]Snapshot
	out   [1]Sample
}

// Receive hands s, arrived at now, to the batch.
func (o *One) Receive(s Snapshot, now float64) {
	o.in[0] = s
	o.Batch.Receive(s.Time, now, o.in[:])
}

// Sample is what the entity shows at now.
func (o *One) Sample(now float64) Sample {
	o.Batch.Frame(now)
	o.Batch.Fill(0, o.out[:])
	return o.out[0]
}

// Lean is the part of a Sample that a runner of one entity which only
// measures reads: the position, and in Flags the mode, the idle flag and
// whether the render time is past the newest snapshot's (Time > Newest).
// Four scalar fields: Go keeps a struct of at most four in registers, so a
// Lean passes from call to call without a trip through memory.
type Lean struct {
	X, Y, Z float64 // Sample.Pos, m
	Flags   LeanFlags
}

// LeanFlags holds a Sample's Mode in its low three bits, and LeanIdle
// and LeanPast.
type LeanFlags uint8

const (
	LeanIdle LeanFlags = 1 << 3 // Sample.Idle
	LeanPast LeanFlags = 1 << 4 // Sample.Time > Sample.Newest
)

// Mode is the Sample's Mode.
func (f LeanFlags) Mode() Mode { return Mode(f & 7) }

// LeanFlagsOf returns the flags of a Sample of mode m, idle flag idle,
// time and newest snapshot time newest (s).
func LeanFlagsOf(m Mode, idle bool, time, newest float64) LeanFlags {
	f := LeanFlags(m)
	if idle {
		f |= LeanIdle
	}
	if time > newest {
		f |= LeanPast
	}
	return f
}

// LeanOf returns the Lean part of smp.
func LeanOf(smp *Sample) Lean {
	return Lean{X: smp.Pos[0], Y: smp.Pos[1], Z: smp.Pos[2], Flags: LeanFlagsOf(smp.Mode, smp.Idle, smp.Time, smp.Newest)}
}

// LeanFramer is a Batch that can frame one entity in one call: FrameLean(now)
// leaves the batch as Frame(now) then Fill(0, out) with an out of one
// would for its later frames, and returns LeanOf(&out[0]), without writing
// the Sample's other fields anywhere. A population's runner, whose every
// entity is alone in its run, spent most of its frame in those two calls
// and the Sample they pass through memory.
type LeanFramer interface {
	FrameLean(now float64) Lean
}
