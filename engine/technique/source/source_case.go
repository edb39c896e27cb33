package source

import (
	"slices"
	"strconv"

	"interplab/engine/geom"
	"interplab/engine/param"
	"interplab/engine/technique"
)

// Case is a golden case of the Source engine (library "source"): a
// packet schedule, the client's frame times and what a Source SDK 2013
// client drew in each (see the golden/peers README). Run replays it through
// the source technique.
type Case struct {
	Name      string `json:"name"`
	Library   string `json:"library"`
	SDKCommit string `json:"sdkCommit"`
	Settings  struct {
		Tickrate            float64 `json:"tickrate"`
		TickInterval        float64 `json:"tick_interval"`
		ClUpdaterate        float64 `json:"cl_updaterate"`
		ClInterp            float64 `json:"cl_interp"`
		ClInterpRatio       float64 `json:"cl_interp_ratio"`
		ClExtrapolate       int     `json:"cl_extrapolate"`
		ClExtrapolateAmount float64 `json:"cl_extrapolate_amount"`
		ClInterpolate       int     `json:"cl_interpolate"`
		SvMinupdaterate     float64 `json:"sv_minupdaterate"`
		SvMaxupdaterate     float64 `json:"sv_maxupdaterate"`
		SvClientMinRatio    float64 `json:"sv_client_min_interp_ratio"`
		SvClientMaxRatio    float64 `json:"sv_client_max_interp_ratio"`
		ClClockCorrection   int     `json:"cl_clock_correction"`
		ClClockdriftMaxMs   float64 `json:"cl_clockdrift_max_ms"`
		ClClockAdjMinOffset float64 `json:"cl_clock_correction_adjustment_min_offset"`
		ClClockAdjMaxOffset float64 `json:"cl_clock_correction_adjustment_max_offset"`
		ClClockAdjMaxAmount float64 `json:"cl_clock_correction_adjustment_max_amount"`
	} `json:"settings"`
	Derived struct {
		InterpAmount       float64 `json:"interpAmount"`
		ClientInterpAmount float64 `json:"clientInterpAmount"`
	} `json:"derived"`
	Packets []Packet  `json:"packets"`
	Frames  []float64 `json:"frames"` // client local times of the frames, s
	Out     []Out     `json:"out"`
}

// Packet is one snapshot of a Source case.
type Packet struct {
	Send   float64    `json:"send"`   // server time: tick · tick_interval, s
	Tick   int64      `json:"tick"`   // server tick
	Arrive float64    `json:"arrive"` // client local arrival time, s
	Pos    [3]float64 `json:"pos"`    // origin, m
}

// Out is what the engine did in one frame of a Source case.
type Out struct {
	T          float64     `json:"t"`
	Pos        *[3]float64 `json:"pos"` // nil before the entity exists
	Curtime    float64     `json:"curtime"`
	InterpTime float64     `json:"interpTime"`
	Mode       string      `json:"mode"`
	Idx        [3]int      `json:"idx"`
	Hist       int         `json:"hist"`
	Recv       int         `json:"recv"`
	Drop       int         `json:"drop"`
}

// settings checks the case's settings and returns them as the
// technique's.
func (c *Case) settings() (Settings, error) {
	cs := &c.Settings
	s := param.Defaults(Params)
	ss := &s
	ss.Tickrate = strconv.FormatFloat(cs.Tickrate, 'g', -1, 64)
	i := slices.Index(Tickrates, ss.Tickrate)
	if i < 0 {
		return s, &param.FieldError{Field: "settings.tickrate", Value: ss.Tickrate, Allowed: "one of 66, 64, 128"}
	}
	if float32(cs.TickInterval) != sourceIntervals[i] {
		return s, &param.FieldError{Field: "settings.tick_interval", Value: param.FormatNumber(cs.TickInterval),
			Allowed: param.FormatNumber(float64(sourceIntervals[i])) + " s for tickrate " + ss.Tickrate}
	}
	bools := []struct {
		name string
		v    int
		dst  *bool
	}{
		{"cl_extrapolate", cs.ClExtrapolate, &ss.ClExtrapolate},
		{"cl_interpolate", cs.ClInterpolate, &ss.ClInterpolate},
		{"cl_clock_correction", cs.ClClockCorrection, &ss.ClClockCorrection},
	}
	for _, b := range bools {
		if b.v != 0 && b.v != 1 {
			return s, &param.FieldError{Field: "settings." + b.name, Value: strconv.Itoa(b.v), Allowed: "0 or 1"}
		}
		*b.dst = b.v == 1
	}
	ss.ClUpdaterate, ss.ClInterp, ss.ClInterpRatio = cs.ClUpdaterate, cs.ClInterp, cs.ClInterpRatio
	ss.ClExtrapolateAmount = cs.ClExtrapolateAmount
	ss.SvMinupdaterate, ss.SvMaxupdaterate = cs.SvMinupdaterate, cs.SvMaxupdaterate
	ss.SvClientMinRatio, ss.SvClientMaxRatio = cs.SvClientMinRatio, cs.SvClientMaxRatio
	ss.ClClockdriftMaxMs = cs.ClClockdriftMaxMs
	ss.ClClockAdjMinOffset, ss.ClClockAdjMaxOffset, ss.ClClockAdjMaxAmount = cs.ClClockAdjMinOffset, cs.ClClockAdjMaxOffset, cs.ClClockAdjMaxAmount
	for _, p := range Params {
		if err := p.Check(p.Read(&s)); err != nil {
			err.(*param.FieldError).Field = "settings." + p.Name[len("source."):]
			return s, err
		}
	}
	if err := check(&s); err != nil {
		return s, err
	}
	return s, nil
}

// Run replays the case through the source technique, with its own clock
// model, and returns what it drew in each frame.
func (c *Case) Run() ([]technique.PeerFrame, error) {
	frames, _, err := c.run(false)
	return frames, err
}

// run replays the case; with caseClock the render curtime of every frame is
// the case's (out[].curtime), which checks the interpolation apart from the
// clock model. It also returns the technique's mode in each frame.
func (c *Case) run(caseClock bool) ([]technique.PeerFrame, []sourceMode, error) {
	s, err := c.settings()
	if err != nil {
		return nil, nil, err
	}
	if caseClock && len(c.Out) != len(c.Frames) {
		return nil, nil, &param.FieldError{Field: "out", Value: strconv.Itoa(len(c.Out)) + " rows",
			Allowed: strconv.Itoa(len(c.Frames)) + " rows, one per frame"}
	}
	for i := 1; i < len(c.Frames); i++ {
		if !(c.Frames[i] >= c.Frames[i-1]) {
			return nil, nil, &param.FieldError{Field: "frames[" + strconv.Itoa(i) + "]", Value: param.FormatNumber(c.Frames[i]),
				Allowed: "a time not before the frame before it, " + param.FormatNumber(c.Frames[i-1]) + " s"}
		}
	}
	k := s.config()
	// Each packet is read by the first frame at or after its arrival;
	// packets read by the same frame go in file order.
	type read struct{ frame, i int }
	order := make([]read, 0, len(c.Packets))
	for i := range c.Packets {
		p := &c.Packets[i]
		if !geom.Finite(p.Arrive) || !geom.Finite(p.Pos[0]) || !geom.Finite(p.Pos[1]) || !geom.Finite(p.Pos[2]) {
			return nil, nil, &param.FieldError{Field: "packets[" + strconv.Itoa(i) + "]", Value: "non-finite", Allowed: "finite arrive and pos"}
		}
		if sourceTick(p.Send, k.interval) != p.Tick {
			return nil, nil, &param.FieldError{Field: "packets[" + strconv.Itoa(i) + "].send", Value: param.FormatNumber(p.Send),
				Allowed: "tick · tick_interval = " + param.FormatNumber(float64(p.Tick)*float64(k.interval)) + " s"}
		}
		f, _ := slices.BinarySearch(c.Frames, p.Arrive)
		order = append(order, read{f, i})
	}
	slices.SortStableFunc(order, func(a, b read) int { return a.frame - b.frame })

	t := &sourceTechnique{settings: &s}
	frames := make([]technique.PeerFrame, len(c.Frames))
	modes := make([]sourceMode, len(c.Frames))
	var out technique.Sample
	next := 0
	for f, now := range c.Frames {
		for ; next < len(order) && order[next].frame == f; next++ {
			p := &c.Packets[order[next].i]
			t.Receive(technique.Snapshot{Time: p.Send, Pos: geom.Vec3(p.Pos), Rot: geom.QuatIdentity}, p.Arrive)
		}
		if caseClock {
			t.frameAt(now, &k, float32(c.Out[f].Curtime), &out)
		} else {
			t.frame(now, &k, &out)
		}
		frames[f] = technique.PeerFrame{T: now, Pos: out.Pos, Drawn: out.Mode != technique.Empty}
		modes[f] = t.ent.mode
	}
	return frames, modes, nil
}
