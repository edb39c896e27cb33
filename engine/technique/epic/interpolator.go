// Package epic is the seed's EPIC interpolator (Entity Position
// Interpolation Code), exactly as written, and the lab's epic and epicfix
// techniques built on it: epic pinned byte for byte by the seed program's
// outputs (testdata/), epicfix without the seed's jump.
package epic

// Time is the constraint on an Interpolator's time type (the seed's Time): a
// floating-point number of seconds.
type Time interface{ ~float32 | ~float64 }

// Value is the constraint on an Interpolator's value type (the seed's Val): a vector
// of 2, 3 or 4 components of the time type, such as Vec3 or [3]float32.
//
// The seed asks its Val for operator+, operator- and operator*(Time). In Go,
// methods called through a type parameter go through a dictionary and never
// inline (a port written that way measured 4× slower than the seed), so the
// value is constrained to arrays and the Interpolator does the arithmetic in loops over
// their components, which compile for each size to code with no calls and
// no bounds checks.
type Value[T Time] interface {
	~[2]T | ~[3]T | ~[4]T
}

// Settings are the seed's Settings: the behaviour of an
// Interpolator, all in seconds. Set CalcAhead and DisplayBehind near the
// connection's latency and SlopTime to the longest time without updates
// that the entity may keep moving. In float64 they are the epic and
// epicfix techniques' settings, with their vocabulary names.
type Settings[T Time] struct {
	CalcAhead     T `json:"calcAhead"`     // how far forward each packet is extrapolated, s
	DisplayBehind T `json:"displayBehind"` // time to reach the extrapolated packet; below 0.1 ms it snaps, s
	SlopTime      T `json:"slopTime"`      // how long after the newest packet reads still succeed, s
}

// Interpolator is the seed's Interpolator (Entity Position Interpolation Code):
// from a stream of position/velocity/time packets it displays a point that
// moves along a line towards each packet's position extrapolated CalcAhead
// seconds ahead, which it reaches DisplayBehind seconds later, so the
// display never snaps to a packet.
//
// An Interpolator made by New is the seed exactly, arithmetic included: with
// V = [3]float32 and T = float32 it reproduces the seed program's output
// bit for bit. That includes the seed's jump: Update restarts the line at
// the last returned position but times it from the packet's time, so when
// the packet's time differs from the last read time the display jumps by
// velocity × (last read time − packet time). NewFix makes the variant
// without the jump.
//
// The zero Interpolator is not ready for use; make one with New or NewFix.
type Interpolator[V Value[T], T Time] struct {
	// Settings may be changed between calls; they take effect at once.
	Settings Settings[T]

	pos, vel   V // the line: position pos at time origin, velocity vel
	origin     T // the line's time origin
	newest     T // time of the newest accepted packet (the seed's lastTime_)
	returnTime T // time of the last successful read
	returnPos  V // position returned by the last successful read
	fix        bool
}

// New returns the seed's interpolator, starting at pos with velocity vel
// at time t (seconds), typically the first packet received for the entity.
func New[V Value[T], T Time](s Settings[T], pos, vel V, t T) *Interpolator[V, T] {
	return &Interpolator[V, T]{Settings: s, pos: pos, vel: vel, origin: t, newest: t, returnTime: t, returnPos: pos}
}

// NewFix is New for the variant without the seed's jump: Update
// starts the new line where and when the display last was (at the last
// returned position and time) instead of timing it from the packet. The
// packet's time still decides which packets are too old and when reads stop
// (SlopTime). When a packet's time equals the last read time both variants
// give identical results.
func NewFix[V Value[T], T Time](s Settings[T], pos, vel V, t T) *Interpolator[V, T] {
	e := New(s, pos, vel, t)
	e.fix = true
	return e
}

// Update feeds a packet: the entity was at pos with velocity vel at time t
// (seconds). A packet older than the newest one accepted is discarded, and
// Update reports whether it was accepted.
func (e *Interpolator[V, T]) Update(pos, vel V, t T) bool {
	if t < e.newest {
		return false
	}
	if float64(e.Settings.DisplayBehind) < 0.0001 {
		e.pos, e.vel, e.origin = pos, vel, t
	} else {
		inv, ahead := 1/e.Settings.DisplayBehind, e.Settings.CalcAhead
		for i := 0; i < len(pos); i++ {
			e.pos[i] = e.returnPos[i]
			e.vel[i] = (pos[i] + T(vel[i]*ahead) - e.pos[i]) * inv
		}
		e.origin = t
		if e.fix {
			e.origin = e.returnTime
		}
	}
	e.newest = t
	return true
}

// update is Update through pointers, for a batch's per-entity loop: in Go's
// WebAssembly an array of more than two float64s passed by value is a
// memory.copy into the callee's arguments, which V8 runs as a call out of
// the module (see technique.CopySnapshot). Update keeps its own body, as
// the seed writes it, rather than calling this: through the extra call and
// the pointers BenchmarkEPIC, the port's anchor against the seed's C++,
// took 9% more instructions (callgrind). TestReadPosUpdateWrittenOut holds
// the two to the same bits; the comments on the arithmetic are here.
func (e *Interpolator[V, T]) update(pos, vel *V, t T) bool {
	if t < e.newest {
		return false
	}
	// The seed compares the float against the double 0.0001, so the
	// comparison is done in float64: float32(0.0001) is below 0.0001.
	if float64(e.Settings.DisplayBehind) < 0.0001 {
		// Avoid a divide by zero, but snap to the packet.
		e.pos, e.vel, e.origin = *pos, *vel, t
	} else {
		// Head from the last returned position to the packet extrapolated
		// CalcAhead ahead, reaching it DisplayBehind later. T(…) rounds
		// the product, as the seed's float code does, so that no
		// architecture fuses it into a multiply-add.
		inv, ahead := 1/e.Settings.DisplayBehind, e.Settings.CalcAhead
		for i := 0; i < len(e.pos); i++ {
			e.pos[i] = e.returnPos[i]
			e.vel[i] = ((*pos)[i] + T((*vel)[i]*ahead) - e.pos[i]) * inv
		}
		e.origin = t
		if e.fix {
			e.origin = e.returnTime
		}
	}
	e.newest = t
	return true
}

// Read stores in *pos and *vel the position and velocity to display at time
// t (seconds), and reports whether t is less than SlopTime past the newest
// packet. When it is not, *pos is the last position returned: the entity
// stays frozen. A successful read is where the next Update starts its line.
//
// Read fills its arguments, as the seed's read does, rather than returning
// arrays: a Go array of more than one element never lives in registers, and
// returning two of them made BenchmarkEPIC 2.5 times slower.
func (e *Interpolator[V, T]) Read(t T, pos, vel *V) bool {
	// This form inlines (cost 78 of the compiler's 80; see -gcflags=-m=2):
	// keep it so when changing it.
	ok := t < e.newest+e.Settings.SlopTime
	if ok {
		dt := t - e.origin
		for i := 0; i < len(e.pos); i++ {
			e.returnPos[i] = e.pos[i] + T(e.vel[i]*dt)
			(*pos)[i] = e.returnPos[i]
		}
		e.returnTime = t
	} else {
		*pos = e.returnPos
	}
	*vel = e.vel
	return ok
}

// readPos is Read without the velocity, for a batch's frames, which draw
// no velocity: the same position, state and result, without copying the
// velocity out (a memory.copy in Go's WebAssembly; see update).
func (e *Interpolator[V, T]) readPos(t T, pos *V) bool {
	ok := t < e.newest+e.Settings.SlopTime
	if ok {
		dt := t - e.origin
		for i := 0; i < len(e.pos); i++ {
			e.returnPos[i] = e.pos[i] + T(e.vel[i]*dt)
			(*pos)[i] = e.returnPos[i]
		}
		e.returnTime = t
	} else {
		for i := 0; i < len(e.pos); i++ {
			(*pos)[i] = e.returnPos[i]
		}
	}
	return ok
}

// Newest returns the time of the newest packet accepted, or the start time
// if none was.
func (e *Interpolator[V, T]) Newest() T { return e.newest }
