package mirror

import (
	"errors"
	"strconv"

	"interplab/engine/geom"
	"interplab/engine/param"
	"interplab/engine/technique"
)

// Case is a packet schedule with what a real Mirror client rendered
// for it (a case file of golden/peers/mirror; its README describes the
// format): the settings, the remote object's spawn position, the batches
// in arrival order and the client's frame times. Its Run replays it
// through the mirror technique.
type Case struct {
	Name         string       `json:"name"`
	Library      string       `json:"library"`
	MirrorCommit string       `json:"mirrorCommit"`
	Settings     CaseSettings `json:"settings"`
	SpawnPos     []float64    `json:"spawnPos"` // x, y, z, m
	Packets      []Packet     `json:"packets"`  // in arrival order
	Frames       []float64    `json:"frames"`   // client local times, s
}

// CaseSettings are a case's Mirror settings, named as in Mirror. The
// informational sendInterval is derived from sendRate and not read;
// positionSensitivity is the server's, already applied to the packets.
type CaseSettings struct {
	SendRate                   float64 `json:"sendRate"`
	BufferTimeMultiplier       float64 `json:"bufferTimeMultiplier"`
	BufferLimit                float64 `json:"bufferLimit"`
	CatchupNegativeThreshold   float64 `json:"catchupNegativeThreshold"`
	CatchupPositiveThreshold   float64 `json:"catchupPositiveThreshold"`
	CatchupSpeed               float64 `json:"catchupSpeed"`
	SlowdownSpeed              float64 `json:"slowdownSpeed"`
	DriftEmaDuration           float64 `json:"driftEmaDuration"`
	DynamicAdjustment          *bool   `json:"dynamicAdjustment"`
	DynamicAdjustmentTolerance float64 `json:"dynamicAdjustmentTolerance"`
	DeliveryTimeEmaDuration    float64 `json:"deliveryTimeEmaDuration"`
	SendIntervalMultiplier     float64 `json:"sendIntervalMultiplier"`
	TimelineOffset             *bool   `json:"timelineOffset"`
	OnlySyncOnChange           *bool   `json:"onlySyncOnChange"`
	BufferResetMultiplier      float64 `json:"bufferResetMultiplier"`
	PositionSensitivity        float64 `json:"positionSensitivity"`
}

// Packet is one received batch: its timestamp (server time), its
// arrival (client local time) and the NetworkTransform sync it carried:
// Pos nil for a batch with only the time snapshot, an axis nil where the
// sync did not carry it.
type Packet struct {
	Send   float64    `json:"send"`
	Arrive float64    `json:"arrive"`
	Pos    []*float64 `json:"pos"`
}

// settings checks the case's settings against the mirror parameters'
// ranges and returns them, with the run's Env: the server sends at the
// case's sendRate.
func (c *Case) settings() (Settings, technique.Env, error) {
	s := param.Defaults(Params)
	cs := &c.Settings
	nums := []struct {
		name string
		v    float64
	}{
		{"sendRate", cs.SendRate}, {"bufferTimeMultiplier", cs.BufferTimeMultiplier}, {"bufferLimit", cs.BufferLimit},
		{"catchupNegativeThreshold", cs.CatchupNegativeThreshold}, {"catchupPositiveThreshold", cs.CatchupPositiveThreshold},
		{"catchupSpeed", cs.CatchupSpeed}, {"slowdownSpeed", cs.SlowdownSpeed}, {"driftEmaDuration", cs.DriftEmaDuration},
		{"dynamicAdjustmentTolerance", cs.DynamicAdjustmentTolerance}, {"deliveryTimeEmaDuration", cs.DeliveryTimeEmaDuration},
		{"sendIntervalMultiplier", cs.SendIntervalMultiplier}, {"bufferResetMultiplier", cs.BufferResetMultiplier},
		{"positionSensitivity", cs.PositionSensitivity},
	}
	for _, n := range nums {
		if err := caseParam(&s, n.name, n.v); err != nil {
			return s, technique.Env{}, err
		}
	}
	bools := []struct {
		name string
		v    *bool
	}{{"dynamicAdjustment", cs.DynamicAdjustment}, {"timelineOffset", cs.TimelineOffset}, {"onlySyncOnChange", cs.OnlySyncOnChange}}
	for _, b := range bools {
		if b.v == nil {
			return s, technique.Env{}, &param.FieldError{Field: "settings." + b.name, Value: "", Allowed: "true or false"}
		}
		_ = caseParam(&s, b.name, param.FromBool(*b.v))
	}
	return s, technique.Env{SendRate: float64(s.SendRate)}, nil
}

// caseParam sets the mirror parameter of the case's field name, reporting
// an error against settings.name.
func caseParam(s *Settings, name string, v float64) error {
	p, _ := param.Find(Params, "mirror."+name)
	if err := p.Set(s, v); err != nil {
		return &param.FieldError{Field: "settings." + name, Value: p.ValueText(v), Allowed: p.Allowed()}
	}
	return nil
}

// check checks the case's schedule.
func (c *Case) check() error {
	if c.Library != "" && c.Library != Name {
		return &param.FieldError{Field: "library", Value: c.Library, Allowed: `"mirror"`}
	}
	if len(c.SpawnPos) != 3 || !geom.Vec3(c.SpawnPos).Finite() {
		return &param.FieldError{Field: "spawnPos", Value: caseList(c.SpawnPos...), Allowed: "[x, y, z], finite, m"}
	}
	for i, p := range c.Packets {
		if !geom.Finite(p.Send) || !geom.Finite(p.Arrive) {
			return &param.FieldError{Field: "packets[" + strconv.Itoa(i) + "]", Value: caseNum(p.Send) + " " + caseNum(p.Arrive),
				Allowed: "finite send and arrive times, s"}
		}
		if p.Pos != nil && len(p.Pos) != 3 {
			return &param.FieldError{Field: "packets[" + strconv.Itoa(i) + "].pos", Value: strconv.Itoa(len(p.Pos)) + " values",
				Allowed: "null or [x, y, z], each a number or null"}
		}
		for _, v := range p.Pos {
			if v != nil && !geom.Finite(*v) {
				return &param.FieldError{Field: "packets[" + strconv.Itoa(i) + "].pos", Value: param.FormatNumber(*v), Allowed: "finite numbers, m"}
			}
		}
	}
	if len(c.Frames) == 0 {
		return errors.New("frames: want at least one frame time")
	}
	for i, t := range c.Frames {
		if !geom.Finite(t) || (i > 0 && t < c.Frames[i-1]) {
			return &param.FieldError{Field: "frames[" + strconv.Itoa(i) + "]", Value: param.FormatNumber(t),
				Allowed: "finite times that never run backwards, s"}
		}
	}
	return nil
}

// Run checks the case and replays it through the mirror technique, as the
// Mirror client was driven: at each frame time T, every packet with
// arrive ≤ T not yet handled, in file order, then the frame. The sender
// model is not used: the packets say what the server sent.
func (c *Case) Run() ([]technique.PeerFrame, error) {
	out := make([]technique.PeerFrame, 0, len(c.Frames))
	err := c.run(func(t *mirrorTechnique, T float64, smp *technique.Sample) {
		out = append(out, technique.PeerFrame{T: T, Pos: smp.Pos, Drawn: t.nt.drawn})
	})
	return out, err
}

// run replays the case, calling frame after every frame.
func (c *Case) run(frame func(t *mirrorTechnique, T float64, smp *technique.Sample)) error {
	if err := c.check(); err != nil {
		return &caseError{c.Name, err}
	}
	s, env, err := c.settings()
	if err != nil {
		return &caseError{c.Name, err}
	}
	t := newMirrorTechnique(&s, &env)
	t.nt.spawn(mirrorVec32(geom.Vec3(c.SpawnPos)), geom.QuatIdentity)
	next := 0
	for _, T := range c.Frames {
		for ; next < len(c.Packets) && c.Packets[next].Arrive <= T; next++ {
			p := &c.Packets[next]
			var axes uint8
			var pos [3]float32
			for a, v := range p.Pos {
				if v != nil {
					axes |= 1 << a
					pos[a] = float32(*v)
				}
			}
			t.receive(p.Send, axes, p.Pos != nil, pos, geom.QuatIdentity)
		}
		smp := t.Sample(T)
		frame(t, T, &smp)
	}
	return nil
}

// caseError is an error in the case named name.
type caseError struct {
	name string
	err  error
}

func (e *caseError) Error() string {
	return "mirror case " + strconv.Quote(e.name) + ": " + e.err.Error()
}

func (e *caseError) Unwrap() error { return e.err }

// caseNum writes a number of a case as an error quotes it: the shortest
// form that reads back, 1e-07 and NaN included.
func caseNum(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// caseList writes numbers as an error quotes a list of them: [1 2 3].
func caseList(vs ...float64) string {
	b := []byte("[")
	for i, v := range vs {
		if i > 0 {
			b = append(b, ' ')
		}
		b = strconv.AppendFloat(b, v, 'g', -1, 64)
	}
	return string(append(b, ']'))
}
