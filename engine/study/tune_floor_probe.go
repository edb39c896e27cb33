package study

import (
	"context"
	"encoding/json"
	"math"
	"sync"

	"interplab/engine"
)

// A floor found by search. The bound LatencyFloor derives from the link
// alone is proven but can be far below what a technique reaches: Mirror
// on an 80 ms link with 20 ms of jitter cannot be held under the 83 ms it
// gives, but its knobs go no lower than about 126 ms (its timeline follows
// the mean delivery time, not the least). So LatencyFloor also searches:
// a descent over the corners of the technique's space (each knob at its
// least and its most, one at a time, while one lowers |addedLatency|),
// on a probe of the link, and the floor shown is the least it finds when
// that is above the proven bound. It is what the settings reach, not what
// they cannot beat: a full tuning may find a little lower (the probe is
// short, and a descent can stop at a corner that is not the least), so
// only bounds below the proven floor are refused. Tune starts its search
// from the probe's setting when a bound on latency makes the floor
// matter, so the floor it names is one the search reaches
// (TestTuneFloorReached checks that on ten links and every technique;
// TestTuneFloorHolds that nothing goes below the proven floor).

// The probe: the link of the settings, at most probeEntities entities and
// probeDuration seconds, on the settings' motion; probePasses sweeps of the
// knobs at most.
const (
	probeEntities = 2
	probeDuration = 20 // s
	probePasses   = 3
)

// probed is a probe's outcome: the least |addedLatency| found and the
// searched knobs' values that show it.
type probed struct {
	least  float64
	values []float64 // TuneSpace(name)'s parameters, in order
	ok     bool
}

// probeCache keeps the probes of the links asked about lately: a tuning's
// spec is validated once per candidate when a queue evaluates it.
var probeCache = struct {
	sync.Mutex
	m map[string]probed
}{m: map[string]probed{}}

const probeCacheMax = 256

// probeFloor returns the least |addedLatency| technique name reaches on the
// link of s by the descent described above.
func probeFloor(name string, s *engine.Settings) probed {
	key, err := json.Marshal(struct {
		Name string
		S    *engine.Settings
	}{name, s})
	if err == nil {
		probeCache.Lock()
		p, ok := probeCache.m[string(key)]
		probeCache.Unlock()
		if ok {
			return p
		}
	}
	p := runProbe(name, s)
	if err == nil {
		probeCache.Lock()
		if len(probeCache.m) >= probeCacheMax {
			clear(probeCache.m)
		}
		probeCache.m[string(key)] = p
		probeCache.Unlock()
	}
	return p
}

func runProbe(name string, s *engine.Settings) probed {
	space := TuneSpace(name)
	if space == nil {
		return probed{}
	}
	base := *s
	base.Techniques = []string{name}
	base.Entities = min(base.Entities, probeEntities)
	if base.Duration > probeDuration {
		base.Duration = probeDuration
		base.Round = min(base.Round, base.Duration)
	}
	engine.Canonicalize(name, &base, s)
	params := make([]*engine.Param, len(space))
	for i, r := range space {
		params[i], _ = engine.Lookup(r.Name)
	}
	lag := func(q engine.Settings) float64 {
		ms, err := sweepRun(context.Background(), q)
		if err != nil || ms[0].Frames == 0 || blankShare(ms[0], &q, 1) > maxBlank {
			return math.Inf(1) // draws nothing, or too little to count
		}
		return math.Abs(ms[0].AddedLatency)
	}
	cur, least := base, lag(base)
	for range probePasses {
		moved := false
		for i, r := range space {
			for _, v := range []float64{r.Min, r.Max} {
				if params[i].Read(&cur) == v {
					continue
				}
				q := cur
				params[i].Write(&q, v)
				engine.Canonicalize(name, &q, s)
				if l := lag(q); l < least {
					cur, least, moved = q, l, true
				}
			}
		}
		if !moved {
			break
		}
	}
	if math.IsInf(least, 1) {
		return probed{}
	}
	p := probed{least: least, ok: true, values: make([]float64, len(space))}
	for i := range space {
		p.values[i] = params[i].Read(&cur)
	}
	return p
}

// fastest returns the base with the probe's knobs, those the search
// searches, each within its searched range: the setting of least added
// latency the probe found, to start a search from; ok is false when the
// probe found none.
func (t *tuneSearch) fastest() (engine.Settings, bool) {
	space := TuneSpace(t.spec.Technique)
	p := probeFloor(t.spec.Technique, &t.spec.Base)
	if !p.ok {
		return engine.Settings{}, false
	}
	s := t.spec.Base
	for i, r := range space {
		for _, d := range t.dims {
			if d.p.Name == r.Name {
				d.p.Write(&s, min(max(p.values[i], d.min), d.max))
			}
		}
	}
	t.adjust(&s)
	return s, true
}
