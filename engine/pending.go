package engine

// TEMPORARY: placeholders so that the runner builds while the link, clock,
// motion and technique branches land. Each is deleted by the merge that
// brings the real one.

import "math"

type Link struct {
	s *Settings
}

func NewLink(s *Settings, seed uint64) *Link { return &Link{s: s} }

func (l *Link) Send(sent float64, arrivals []float64) []float64 {
	return append(arrivals, sent+l.s.Latency)
}

type ClientClock struct{}

func NewClientClock(s *Settings, seed uint64) *ClientClock { return &ClientClock{} }
func (c *ClientClock) Advance(t float64)                   {}
func (c *ClientClock) Estimate(t float64) float64          { return t }

type State struct {
	Pos, Vel Vec3
	Yaw      float64
}

type Mover struct {
	start Vec3
	speed float64
}

func NewMover(script string, entity int, maxSpeed float64, seed uint64) Mover {
	return Mover{start: Vec3{float64(entity%100) * 10, float64(entity/100) * 10}, speed: maxSpeed}
}

func (m *Mover) At(t float64) State {
	s, c := math.Sincos(t * m.speed / 5)
	return State{Pos: m.start.Add(Vec3{5 * c, 5 * s}), Vel: Vec3{-m.speed * s, m.speed * c}, Yaw: t*m.speed/5 + math.Pi/2}
}

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
