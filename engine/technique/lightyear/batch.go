package lightyear

import (
	"math"

	"interplab/engine/geom"
	"interplab/engine/technique"
)

// pendingPing is a ping whose pong is on its way: due at local time due, ns.
type pendingPing struct {
	id  uint16
	due int64
}

// transitLeak is how fast the least transit the pong model measures
// jitter from forgets, s per s: faster than any clock drift the lab
// simulates, slow beside the jitter.
const transitLeak = 1e-3

// batch is the lightyear technique for n entities that share their
// packets: one client's timing, one history of them all. See the package
// comment for how the lab's stream becomes lightyear's.
type batch struct {
	s   *Settings
	env *technique.Env
	m   timing
	h   history

	pending []uint32 // header ticks received since the last frame
	pings   []pendingPing
	newest  uint32 // the newest tick received
	any     bool

	// The pong model: the least transit (local arrival − server time) seen,
	// forgetting at transitLeak, and the two newest snapshots' transit
	// above it, s.
	least, lastArrive float64
	excess            [2]float64

	gen uint32 // the stamp of the latest update received (0: none yet)

	// Each entity's slerp between the values stamped key[e].
	pair []geom.SlerpPair
	key  [][2]uint32

	// This frame's entry at or before the cursor (-1: nothing drawn) and
	// the fraction to the next, taken before its sync.
	at     int
	t      float32
	common technique.Sample
}

func newBatch(s *Settings, env *technique.Env, n int) *batch {
	return &batch{s: s, env: env, h: newHistory(n), m: newTiming(labConfig(s, env)),
		pair: make([]geom.SlerpPair, n), key: make([][2]uint32, n)}
}

// Receive takes the snapshot of server time tick (s), every entity's state
// in snaps, arrived at local time now (s): the replicated update of server
// tick round(tick × tickRate), inserted into the entities' history; the
// timing sees its header tick in the next frame.
func (b *batch) Receive(tick, now float64, snaps []technique.Snapshot) {
	k := uint32(max(math.Round(tick*b.env.TickRate), 0))
	b.pending = append(b.pending, k)
	if !b.any || k > b.newest {
		b.newest = k
	}
	tr := now - tick
	if !b.any {
		b.least = tr
	} else {
		b.least = min(tr, b.least+transitLeak*max(now-b.lastArrive, 0))
	}
	b.any, b.lastArrive = true, now
	b.excess = [2]float64{tr - b.least, b.excess[0]}
	b.gen++ // 0 is no value's: the pairs start stale
	i := b.h.insert(k, b.gen)
	for e := range b.h.n {
		p := &snaps[e].Pos
		b.h.put(i, e, vec3{float32(p[0]), float32(p[1]), float32(p[2])}, snaps[e].Rot)
	}
}

// Frame runs the client's frame at local time now (s): the clocks advance,
// the packets received move the remote estimate, pongs due are processed,
// the cursor is taken for Fill, then the timeline syncs and a ping may
// leave.
func (b *batch) Frame(now float64) {
	m := &b.m
	m.c = labConfig(b.s, b.env)
	t := durationNs(now)
	m.advance(t)
	for _, k := range b.pending {
		m.receive(k)
	}
	b.pending = b.pending[:0]
	k := 0
	for _, p := range b.pings {
		if p.due <= t {
			m.pong(p.id, 0, t)
		} else {
			b.pings[k] = p
			k++
		}
	}
	b.pings = b.pings[:k]
	// Update: drain the history and find the cursor's entries, before
	// this frame's sync. Before the first sync nothing is drawn.
	rate := b.env.TickRate
	at := float64(m.now) * 0x1p-32
	b.common = technique.Sample{Mode: technique.Empty, Time: at / rate, Newest: float64(b.newest) / rate,
		Delay: max(float64(b.newest)-at, 0) / rate}
	b.at, b.t = -1, 0
	if m.synced {
		cur, over := m.cursor()
		b.h.drain(cur)
		if b.at = b.h.find(cur); b.at >= 0 {
			b.common.Mode, b.common.Depth = technique.Freeze, b.h.len()-1-b.at
			if b.at+1 < b.h.len() {
				b.common.Mode, b.t = technique.Interpolate, b.h.frac(b.at, cur, over)
			}
		}
	}
	m.sync()
	if id, ok := m.ping(t); ok {
		rtt := 2*b.env.Latency + b.excess[0] + b.excess[1]
		b.pings = append(b.pings, pendingPing{id: id, due: t + durationNs(rtt)})
	}
}

// Fill writes what entities lo, lo+1, ... show into out: their values at
// the frame's entries, interpolated or held.
func (b *batch) Fill(lo int, out []technique.Sample) {
	h := &b.h
	if b.at < 0 {
		for i := range out {
			out[i] = b.common
		}
		return
	}
	// The entries' storage and stamps; an entity whose value there is a
	// marker looks further back.
	n := h.n
	sa, ga := int(h.slots[b.at])*n, h.gen[h.slots[b.at]]
	hold := b.common.Mode == technique.Freeze
	sb, gb := sa, ga
	if !hold {
		sb, gb = int(h.slots[b.at+1])*n, h.gen[h.slots[b.at+1]]
	}
	for i := range out {
		e := lo + i
		o := &out[i]
		*o = b.common
		ka, kga := sa+e, ga
		if h.same[ka] {
			ka = h.explicit(b.at, e)
			kga = h.gen[ka/n]
		}
		if hold {
			p := &h.val[ka]
			o.Pos, o.Rot = geom.Vec3{float64(p[0]), float64(p[1]), float64(p[2])}, h.rot[ka]
			continue
		}
		kb, kgb := sb+e, gb
		if h.same[kb] {
			kb = h.explicit(b.at+1, e)
			kgb = h.gen[kb/n]
		}
		p := lerp(&h.val[ka], &h.val[kb], b.t)
		o.Pos = geom.Vec3{float64(p[0]), float64(p[1]), float64(p[2])}
		pr := &b.pair[e]
		if k := [2]uint32{kga, kgb}; b.key[e] != k {
			pr.Init(h.rot[ka], h.rot[kb])
			b.key[e] = k
		}
		o.Rot = pr.At(float64(b.t))
	}
}

// SharesDelay marks the batch's samples as sharing their Delay.
func (*batch) SharesDelay() {}

// newOne is the technique for one entity: a batch of one.
func newOne(s *Settings, env *technique.Env) technique.Technique {
	return &technique.One{Batch: newBatch(s, env, 1)}
}
