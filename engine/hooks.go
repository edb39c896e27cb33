package engine

import (
	"math"
	"slices"

	"interplab/engine/netsim"
	"interplab/engine/technique"
)

// What the studies (engine/study: sweeps, tunings, population runs) need of
// a run beyond Run and Sim's everyday methods, exported so that they reach
// nothing inside.

// A Canceller tells a long run when to give up: its Err is non-nil once the
// run should stop. A context.Context is one; the engine takes this
// interface so that it does not depend on package context.
type Canceller interface {
	Err() error
}

// stepChunk is about how many entity-frames a long run simulates between
// two looks at its Canceller: a millisecond or so of work.
const stepChunk = 2000

// NewQuietSim is NewSim for a run that only measures: no packet or frame
// records are kept for Drain, which saves their allocation and a copy per
// packet and frame (runs, sweeps, population entities, which never drain),
// and its Poses carry no headings, as after SetHeadings(false): the
// techniques skip blending rotations that nothing reads.
func NewQuietSim(s Settings) (*Sim, error) { return newSim(s, true) }

// NewLeanSim is NewQuietSim for a run that reads only Counts and Metrics
// but their Smoothness, as a population run does. A Sim of one entity then
// leaves out what nothing else reads: the two frames of history the
// smoothness needs (its Metrics' Smoothness is NaN), the poses (Poses
// holds no frame), the live delays (LiveDelays are NaN) and, when every
// technique can do without them, the snapshots' rotations. Every other
// figure is the same, to the bit, as NewQuietSim's. With more entities it
// runs as NewQuietSim. At any size it keeps no phases of a scenario
// (Phases reports none) and SetHeadings does nothing.
func NewLeanSim(s Settings) (*Sim, error) { return makeSim(s, true, true) }

// StepAll steps m, at time 0, through its settings' duration (see
// StepFramesUntil).
func (m *Sim) StepAll(c Canceller) error {
	return m.StepFramesUntil(c, int(math.Round(m.set.Duration*m.set.RenderRate)))
}

// StepFramesUntil advances m by n client frames, in chunks, giving up with
// c.Err() when c says so. Stepping in chunks gives the same numbers as one
// StepFrames.
func (m *Sim) StepFramesUntil(c Canceller, n int) error {
	chunk := max(1, stepChunk/max(1, m.n*len(m.techs)))
	for done := 0; done < n; {
		if err := c.Err(); err != nil {
			return err
		}
		k := min(chunk, n-done)
		m.StepFrames(k)
		done += k
	}
	return nil
}

// SetLatencyStride makes the added latency take in only every k-th frame
// (every frame for k ≤ 1): population runs, whose entities are each alone
// in a Sim for hours, would otherwise spend most of their time on it.
func (m *Sim) SetLatencyStride(k int) {
	m.lagStride, m.lagPhase = k, (m.frames-m.lagStart)%max(k, 1)
}

// FrameCounts are a technique's frames so far, in whole frames: those that
// underran, those that snapped, and those that were frozen.
type FrameCounts struct {
	Underrun, Snaps, Frozen int
}

// Counts appends, per running technique in Techniques order, its
// FrameCounts since time 0.
func (m *Sim) Counts(dst []FrameCounts) []FrameCounts {
	for k := range m.accs {
		a := &m.accs[k]
		dst = append(dst, FrameCounts{Underrun: a.underrun, Snaps: a.snaps, Frozen: a.frozen})
	}
	return dst
}

// InOrder returns the known techniques among names, each once, in the
// technique list's order: the order a Sim runs them in.
func InOrder(names []string) []string { return techList(uint64(techMask(names))) }

// TechniqueTune returns the parameters the tuner searches by default for
// the named technique, over their whole ranges; nil when it has no settings
// to tune or the name is unknown.
func TechniqueTune(name string) []string {
	if i := techniqueIndex(name); i >= 0 {
		return slices.Clone(techDefs[i].tune)
	}
	return nil
}

// TechniqueReach returns how far past what it received the named technique
// may draw (see technique.Reach); technique.Ahead, no floor, for an
// unknown name.
func TechniqueReach(name string) technique.Reach {
	if i := techniqueIndex(name); i >= 0 {
		return techDefs[i].reach
	}
	return technique.Ahead
}

// Canonicalize makes s, a variation of base in the named technique's tuned
// parameters, valid and canonical, as the technique's Def says (the
// buffer's margin and delayCap do nothing without the adaptive delay, so
// they keep base's), and as its rows' inert rules say: a tuned knob with no
// effect in s (Mirror's bufferTimeMultiplier while dynamicAdjustment is on)
// keeps base's value, so the tuner never tries a knob that does nothing.
func Canonicalize(name string, s, base *Settings) {
	i := techniqueIndex(name)
	if i < 0 {
		return
	}
	if techDefs[i].canonical != nil {
		techDefs[i].canonical(s, base)
	}
	for _, n := range techDefs[i].tune {
		if p, ok := Lookup(n); ok && len(p.Inert) > 0 && p.InertIn(params, s) != "" {
			p.Write(s, p.Read(base))
		}
	}
}

// ScenarioOf returns the scenario s selects, checked against its run: nil
// for none (see netsim.ScenarioOf).
func ScenarioOf(s *Settings) (*netsim.Scenario, error) {
	return netsim.ScenarioOf(&s.NetworkSettings, s.Duration)
}
