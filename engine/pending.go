package engine

// TEMPORARY: placeholders so that the runner builds while the link, clock,
// motion and technique branches land. Each is deleted by the merge that
// brings the real one.

type pendingSnap struct {
	last Snapshot
	have bool
}

func newSnap(s *Settings) Technique { return &pendingSnap{} }
func (p *pendingSnap) Receive(s Snapshot, now float64) {
	if !p.have || s.Time > p.last.Time {
		p.last, p.have = s, true
	}
}
func (p *pendingSnap) Sample(now float64) Sample {
	if !p.have {
		return Sample{}
	}
	return Sample{Pos: p.last.Pos, Rot: p.last.Rot, Mode: Interpolate, Time: p.last.Time, Newest: p.last.Time}
}

func newEPICTechnique(s *Settings, fix bool) Technique { return newSnap(s) }
func newBuffer(s *Settings, hermite bool) Technique    { return newSnap(s) }
