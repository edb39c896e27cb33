package source

import (
	"interplab/engine/geom"
	"interplab/engine/technique"
)

// sourceBatch is the source technique for every entity of a run. The
// client's clock and net channel are one per client in the engine, so the
// batch keeps one for all entities; each entity has its own history. It
// runs the same code as sourceTechnique.
type sourceBatch struct {
	settings *Settings
	k        sourceConfig
	clock    sourceClock
	net      sourceNet
	ents     []sourceEntity
	now      float64
	curtime  float32
	delay    float64 // the frame's live game delay (sourceLiveDelay)

	// Packets that arrived since the last frame: their server times, and
	// their snapshots, len(ents) per packet.
	pendTime []float64
	pendPos  [][3]float32
	pendRot  []geom.Quat
}

func newSourceBatch(s *Settings, _ *technique.Env, n int) technique.Batch {
	return &sourceBatch{settings: s, ents: make([]sourceEntity, n)}
}

func (b *sourceBatch) Receive(tick, _ float64, snaps []technique.Snapshot) {
	b.pendTime = append(b.pendTime, tick)
	for e := range b.ents {
		b.pendPos = append(b.pendPos, sourcePos(snaps[e].Pos))
		b.pendRot = append(b.pendRot, snaps[e].Rot)
	}
}

func (b *sourceBatch) Frame(now float64) {
	b.k = b.settings.config()
	k := &b.k
	b.now = now
	b.clock.advance(now, &k.clock)
	n := len(b.ents)
	for j, st := range b.pendTime {
		tick := sourceTick(st, k.interval)
		if !b.net.accept(tick) {
			continue
		}
		b.clock.serverTick(tick, &k.clock)
		pos, rot := b.pendPos[j*n:(j+1)*n], b.pendRot[j*n:(j+1)*n]
		for e := range b.ents {
			b.ents[e].receive(tick, pos[e], rot[e], now, k)
		}
	}
	b.pendTime, b.pendPos, b.pendRot = b.pendTime[:0], b.pendPos[:0], b.pendRot[:0]
	b.curtime = b.clock.curtime(&k.clock)
	b.delay = sourceLiveDelay(&b.clock, k)
}

func (b *sourceBatch) Fill(lo int, out []technique.Sample) {
	for e := range out {
		b.ents[lo+e].render(b.now, b.curtime, &b.k, &out[e])
		out[e].Delay = b.delay
	}
}

func (*sourceBatch) SharesDelay() {}
