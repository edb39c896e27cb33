package capture

import (
	"math"
	"slices"

	"interplab/cmd/lab/internal/store"
	"interplab/engine"
	"interplab/engine/geom"
)

// Builder turns a capture's updates, in the order they were captured,
// into a trace, by the rules of docs/capture-protocol.md ("How a capture
// becomes a trace"): the game's ids numbered in order of first
// appearance, sent in seconds, packets sorted by sent (stable), seq and a
// missing velocity derived per entity in that order, and arrivals shifted
// when the sender's clock is not the client's. It holds every update: a
// trace is held whole by every reader.
type Builder struct {
	Ticks    bool    // sent is a tick number
	TickRate float64 // Hz, with Ticks

	ids     map[uint32]int
	packets []engine.TracePacket
	flags   []uint8 // each packet's update's flags
	lo      float64 // smallest arrive − sent
}

// Add appends an update.
func (b *Builder) Add(u store.CaptureUpdate) {
	if b.ids == nil {
		b.ids, b.lo = map[uint32]int{}, math.Inf(1)
	}
	e, ok := b.ids[u.ID]
	if !ok {
		e = len(b.ids)
		b.ids[u.ID] = e
	}
	p := engine.TracePacket{Entity: e, Sent: u.Sent, Arrive: u.Arrive, Pos: u.Pos, Vel: u.Vel}
	if b.Ticks {
		p.Seq = int(u.Sent)
		p.Sent = u.Sent / b.TickRate
		// The arrival stays on the client's clock, in seconds.
	}
	if u.Flags&flagRot != 0 {
		p.Rot, p.HasRot = geom.Quat(u.Rot), true
	}
	b.lo = min(b.lo, p.Arrive-p.Sent)
	b.packets = append(b.packets, p)
	b.flags = append(b.flags, u.Flags)
}

// Len returns the updates added.
func (b *Builder) Len() int { return len(b.packets) }

// Trace returns the trace called name, and how many copies (updates with
// the same entity and sent as an earlier one) carried another state than
// their original and were left out. The trace is not validated.
func (b *Builder) Trace(name string) (*engine.Trace, int) {
	order := make([]int32, len(b.packets))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortStableFunc(order, func(i, j int32) int {
		a, c := b.packets[i].Sent, b.packets[j].Sent
		switch {
		case a < c:
			return -1
		case a > c:
			return 1
		}
		return 0
	})
	shift := 0.0
	if b.lo < 0 || b.lo > liveMaxLatency {
		shift = -b.lo
	}
	type last struct {
		seq      int
		sent     float64
		pos, vel geom.Vec3
		rot      geom.Quat
		hasRot   bool
		seen     bool
	}
	lasts := make([]last, len(b.ids))
	tr := &engine.Trace{Name: name, Entities: len(b.ids), Packets: make([]engine.TracePacket, 0, len(b.packets))}
	conflicts := 0
	for _, i := range order {
		p := b.packets[i]
		p.Arrive += shift
		l := &lasts[p.Entity]
		if l.seen && p.Sent == l.sent {
			// A copy: the original's seq and, unless it carries its
			// own, velocity.
			p.Seq = l.seq
			if b.flags[i]&flagVel == 0 {
				p.Vel = l.vel
			}
			if p.Pos != l.pos || p.Vel != l.vel || p.HasRot != l.hasRot || p.HasRot && p.Rot != l.rot {
				conflicts++
				continue
			}
			tr.Packets = append(tr.Packets, p)
			continue
		}
		if !b.Ticks {
			p.Seq = 0
			if l.seen {
				p.Seq = l.seq + 1
			}
		}
		if b.flags[i]&flagVel == 0 {
			p.Vel = geom.Vec3{}
			if l.seen {
				dt := p.Sent - l.sent
				for k := range 3 {
					p.Vel[k] = max(-engine.TraceMaxCoord, min(engine.TraceMaxCoord, (p.Pos[k]-l.pos[k])/dt))
				}
			}
		}
		*l = last{seq: p.Seq, sent: p.Sent, pos: p.Pos, vel: p.Vel, rot: p.Rot, hasRot: p.HasRot, seen: true}
		tr.Packets = append(tr.Packets, p)
	}
	return tr, conflicts
}

// liveMaxLatency is the largest smallest delay taken as a real latency,
// as for live traces (package live).
const liveMaxLatency = 1.0
