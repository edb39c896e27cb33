package engine

// batch displays every entity of a run with one technique. Entities that
// share their packets share their timing, so a batch does the work that
// depends only on time once per frame (frame), then writes the entities in
// chunks (fill) that the metrics read while they are still in cache.
type batch interface {
	// receive hands over one packet: snaps[e] is entity e's snapshot of
	// the server tick at time tick, arrived at now.
	receive(tick, now float64, snaps []Snapshot)
	// frame prepares the display at now.
	frame(now float64)
	// fill writes what entities lo, lo+1, ... display into out.
	fill(lo int, out []Sample)
}

// rotationSkipper is a batch that can leave out the rotations it fills,
// for a Sim whose poses carry no headings (Sim.SetHeadings): nothing else
// reads them, and positions, metrics and state are the same either way.
type rotationSkipper interface {
	skipRotations(skip bool)
}

// delaySharer is a batch whose entities share their timing, so every
// sample of a frame carries the same Delay: the Sim reads the live delay
// (Sim.LiveDelays) from one of them instead of averaging them all.
type delaySharer interface {
	sharesDelay()
}

func (*bufBatch) sharesDelay()    {}
func (*mirrorBatch) sharesDelay() {}
func (*ngoBatch) sharesDelay()    {}
func (*sourceBatch) sharesDelay() {}
func (*geckosBatch) sharesDelay() {}
func (*unrealBatch) sharesDelay() {}

// perEntity is a batch of one Technique per entity, for any Technique.
type perEntity struct {
	techs []Technique
	now   float64
}

func (p *perEntity) receive(_, now float64, snaps []Snapshot) {
	for e, t := range p.techs {
		t.Receive(snaps[e], now)
	}
}

func (p *perEntity) frame(now float64) { p.now = now }

func (p *perEntity) fill(lo int, out []Sample) {
	for e, t := range p.techs[lo : lo+len(out)] {
		out[e] = t.Sample(p.now)
	}
}

// epicBatch and snapBatch hold their techniques by value, so the calls in
// their loops are static and inline: an interface call per entity and frame
// is dear in WebAssembly.
type epicBatch struct {
	techs []epicTechnique
	now   float64
}

func (b *epicBatch) receive(_, now float64, snaps []Snapshot) {
	for e := range b.techs {
		b.techs[e].Receive(snaps[e], now)
	}
}

func (b *epicBatch) frame(now float64) { b.now = now }

func (b *epicBatch) fill(lo int, out []Sample) {
	for e := range out {
		b.techs[lo+e].sample(b.now, &out[e])
	}
}

type snapBatch []snapTech

func (b snapBatch) receive(_, now float64, snaps []Snapshot) {
	for e := range b {
		b[e].Receive(snaps[e], now)
	}
}

func (b snapBatch) frame(float64) {}

func (b snapBatch) fill(lo int, out []Sample) {
	for e := range out {
		b[lo+e].sample(&out[e])
	}
}

// newBatch returns the named technique for n entities.
func newBatch(name string, s *Settings, n int) batch {
	if d := techniqueDef(name); d.batch != nil {
		return d.batch(s, n)
	}
	return newPerEntity(name, s, n)
}

// newPerEntity returns the named technique as one Technique per entity.
func newPerEntity(name string, s *Settings, n int) *perEntity {
	d := techniqueDef(name)
	p := &perEntity{techs: make([]Technique, n)}
	for e := range p.techs {
		p.techs[e] = d.one(s)
	}
	return p
}

func newEPICBatch(fix bool) func(s *Settings, n int) batch {
	return func(s *Settings, n int) batch {
		b := &epicBatch{techs: make([]epicTechnique, n)}
		for e := range b.techs {
			b.techs[e] = *newEPICTechnique(s, fix).(*epicTechnique)
		}
		return b
	}
}

func newSnapBatch(_ *Settings, n int) batch { return make(snapBatch, n) }
