package engine

import "slices"

// Technique names, in the order the lab shows them.
const (
	TechEPIC    = "epic"    // the seed's interpolator, exactly as written
	TechEPICFix = "epicfix" // EPIC without the jump when a packet is older than the display
	TechSnap    = "snap"    // apply each snapshot on arrival
	TechBuffer  = "buffer"  // snapshot interpolation: delayed ring buffer, lerp and slerp
	TechHermite = "hermite" // the buffer with cubic Hermite positions
)

// timeBase is the clock a technique reads: the time passed to its Receive
// and Sample (and to a batch's receive and frame).
type timeBase uint8

const (
	// serverEstimate is the client's NTP-style estimate of the server's
	// clock (ClientClock.Estimate).
	serverEstimate timeBase = iota
	// streamTime is the estimate less the transit of the freshest
	// snapshots (streamClock): the buffer's delay counts behind it.
	streamTime
	// localTime is the client's own clock in seconds since it started
	// (ClientClock.Local), drift included: for the libraries that keep
	// their own server clock from the snapshots' timestamps and their
	// local arrival times.
	localTime
)

// techDef is one row of the technique table: what the runner, the
// parameter table and the tuner need to know of a technique.
type techDef struct {
	name  string
	group string   // parameter-table group of its own settings; "" if it has none
	base  timeBase // the clock it reads
	tune  []string // the parameters Tune searches by default, over their whole ranges

	// check, if not nil, checks the constraints between the technique's
	// own settings that the parameter table's ranges cannot express.
	check func(s *Settings) error

	// delay, if not nil, is the display delay behind the newest snapshot
	// that the technique's settings give a game, s, in steady state: for
	// a library, what the designer should expect the shipped game to show
	// (Mirror: bufferTime plus NetworkTransform's timeline offset). Its
	// live counterpart is the Sample.Delay the technique fills in.
	delay func(s *Settings) float64

	// batch makes the technique for n entities that share their packets;
	// nil runs one (one) per entity.
	batch func(s *Settings, n int) batch
	// one makes the technique for one entity; it reads its settings
	// through s on every call.
	one func(s *Settings) Technique
}

// labTechniques is how many of the first rows of techDefs are the lab's own
// techniques: the default set of a run.
const labTechniques = 5

// techDefs is the technique table, in display order.
var techDefs = [...]techDef{
	{name: TechEPIC, group: "epic", base: serverEstimate,
		tune:  []string{"calcAhead", "displayBehind", "slopTime"},
		batch: newEPICBatch(false), one: func(s *Settings) Technique { return newEPICTechnique(s, false) }},
	{name: TechEPICFix, group: "epic", base: serverEstimate,
		tune:  []string{"calcAhead", "displayBehind", "slopTime"},
		batch: newEPICBatch(true), one: func(s *Settings) Technique { return newEPICTechnique(s, true) }},
	{name: TechSnap, base: serverEstimate, batch: newSnapBatch, one: newSnap},
	{name: TechBuffer, group: "buffer", base: streamTime,
		tune:  []string{"delay", "adaptive", "margin", "delayCap", "extrapolateCap", "speedClamp"},
		delay: bufferDelay,
		batch: func(s *Settings, n int) batch { return newBufBatch(s, false, n) },
		one:   func(s *Settings) Technique { return newBuffer(s, false) }},
	{name: TechHermite, group: "buffer", base: streamTime,
		tune:  []string{"delay", "adaptive", "margin", "delayCap", "extrapolateCap", "speedClamp"},
		delay: bufferDelay,
		batch: func(s *Settings, n int) batch { return newBufBatch(s, true, n) },
		one:   func(s *Settings) Technique { return newBuffer(s, true) }},
	mirrorDef,
	geckosDef,
	ngoDef,
	unrealDef,
	sourceDef,
}

// numTechniques is len(techDefs), as a constant for the Set mask and
// FrameRecord.
const numTechniques = len(techDefs)

// TechniqueNames lists every technique, in display order.
var TechniqueNames = func() []string {
	names := make([]string, len(techDefs))
	for i := range techDefs {
		names[i] = techDefs[i].name
	}
	return names
}()

func techniqueIndex(name string) int {
	for i := range techDefs {
		if techDefs[i].name == name {
			return i
		}
	}
	return -1
}

// techniqueDef returns the row of a technique known to be valid.
func techniqueDef(name string) *techDef {
	i := techniqueIndex(name)
	if i < 0 {
		panic("engine: unknown technique " + name)
	}
	return &techDefs[i]
}

// TechniqueGroup returns the parameter-table group of the named technique's
// own settings, or "" when it has none or the name is unknown.
func TechniqueGroup(name string) string {
	if i := techniqueIndex(name); i >= 0 {
		return techDefs[i].group
	}
	return ""
}

// EffectiveDelay returns the display delay behind the newest snapshot that
// technique name has in steady state with settings s, in seconds, counted
// the way its library counts it; ok is false when the technique has no such
// figure (epic, snap) or the name is unknown.
func EffectiveDelay(name string, s *Settings) (delay float64, ok bool) {
	i := techniqueIndex(name)
	if i < 0 || techDefs[i].delay == nil {
		return 0, false
	}
	return techDefs[i].delay(s), true
}

// bufferDelay is the buffer's delay behind the snapshot stream: the base
// delay; with the adaptive delay it may grow up to delayCap.
func bufferDelay(s *Settings) float64 { return s.Delay }

// LibraryTechnique tells whether name is a technique that reproduces a
// netcode library (mirror, ngo, ...) rather than one of the lab's own.
func LibraryTechnique(name string) bool { return techniqueIndex(name) >= labTechniques }

// PrimaryTechnique returns the technique the designer is working on in s:
// the first library technique among s.Techniques (a Mirror game compares
// the lab's buffer against mirror, but tunes and ships mirror); else the
// buffer if it runs (the guide's technique, what the studies started on
// before); else the first of s.Techniques with settings to tune; else the
// buffer. Pages that
// start from the lab (tune, population, sweep, compare, exports) start on
// it.
func (s *Settings) PrimaryTechnique() string {
	for _, t := range s.Techniques {
		if LibraryTechnique(t) {
			return t
		}
	}
	if slices.Contains(s.Techniques, TechBuffer) {
		return TechBuffer
	}
	for _, t := range s.Techniques {
		if i := techniqueIndex(t); i >= 0 && len(techDefs[i].tune) > 0 {
			return t
		}
	}
	return TechBuffer
}
