package ioquake3

import (
	"errors"
	"math"
	"strconv"

	"interplab/engine/param"
	"interplab/engine/technique"
)

// Case is a case of ioquake3 (golden/peers/ioquake3): a packet schedule
// replayed through the real client and cgame. Times are integer
// milliseconds, positions Quake units. Only the inputs are decoded; the
// checker and the tests read out.
type Case struct {
	Name     string `json:"name"`
	Library  string `json:"library"` // "ioquake3"
	Settings struct {
		TimeNudge      *float64 `json:"cl_timeNudge"`
		SmoothClients  *float64 `json:"cg_smoothClients"`
		GSmoothClients *float64 `json:"g_smoothClients"`
		GamestateSeq   *float64 `json:"gamestateSeq"`
		Timescale      *float64 `json:"timescale"`
	} `json:"settings"`
	Packets []Packet  `json:"packets"` // in arrival order
	Frames  []float64 `json:"frames"`  // client times, ms, non-decreasing
}

// Packet is one snapshot datagram of a Case.
type Packet struct {
	Seq    float64   `json:"seq"`    // message number
	Send   float64   `json:"send"`   // the snapshot's server time, ms
	Arrive float64   `json:"arrive"` // client time of arrival, ms
	Pos    []float64 `json:"pos"`    // the player's origin, units
	Vel    []float64 `json:"vel"`    // its velocity, units/s
	TrTime float64   `json:"trTime"` // its trajectory time (command time), ms
}

// row is one frame of a replayed case with the client's internals, as the
// case's out rows give them.
type row struct {
	technique.PeerFrame
	ServerTime, CgTime, Delta int64
	Extrap                    bool
	Snap, Next                int64 // -1: none
	Frac                      float32
	Pos                       [3]float32
	Mode                      drawMode
	Adj                       adjust
	Recv, Drop                int
}

// Run checks the case's inputs and replays it through the technique's
// client: in each frame, every packet not yet handled with arrive ≤ frame
// is received in file order, then the client clock and the cgame run. A
// frame is Drawn when the cgame had a snapshot; its position is in Quake
// units (the cases' unit), the float32 the game drew.
func (c *Case) Run() ([]technique.PeerFrame, error) {
	return technique.PeerFrames(c.run())
}

// whole reads v, a field named at, as an integer in [lo, hi].
func whole(v float64, at string, lo, hi float64) (int64, error) {
	if !(v >= lo && v <= hi) || v != math.Trunc(v) {
		return 0, errors.New(at + " = " + param.FormatNumber(v) + ": want a whole number in [" +
			param.FormatNumber(lo) + ", " + param.FormatNumber(hi) + "]")
	}
	return int64(v), nil
}

// caseTime bounds the cases' times, ms: about 24 days, what a 32-bit
// millisecond clock holds.
const caseTime = math.MaxInt32

// setup checks the case and returns its client.
func (c *Case) setup() (*client, error) {
	if c.Library != "" && c.Library != Name {
		return nil, errors.New("library = " + strconv.Quote(c.Library) + ": want \"ioquake3\"")
	}
	cs := &c.Settings
	need := func(v *float64, at string, lo, hi float64) (int64, error) {
		if v == nil {
			return 0, errors.New("settings." + at + " missing")
		}
		return whole(*v, "settings."+at, lo, hi)
	}
	tn, err := need(cs.TimeNudge, "cl_timeNudge", -caseTime, caseTime)
	if err != nil {
		return nil, err
	}
	cg, err := need(cs.SmoothClients, "cg_smoothClients", 0, 1)
	if err != nil {
		return nil, err
	}
	g, err := need(cs.GSmoothClients, "g_smoothClients", 0, 1)
	if err != nil {
		return nil, err
	}
	gs, err := need(cs.GamestateSeq, "gamestateSeq", 0, caseTime)
	if err != nil {
		return nil, err
	}
	if cs.Timescale != nil && *cs.Timescale != 1 {
		return nil, errors.New("settings.timescale = " + param.FormatNumber(*cs.Timescale) + ": only 1 is modelled")
	}
	for i := range c.Packets {
		p := &c.Packets[i]
		at := "packets[" + strconv.Itoa(i) + "]"
		for _, f := range [...]struct {
			v    float64
			name string
		}{{p.Seq, ".seq"}, {p.Send, ".send"}, {p.Arrive, ".arrive"}, {p.TrTime, ".trTime"}} {
			if _, err := whole(f.v, at+f.name, 0, caseTime); err != nil {
				return nil, err
			}
		}
		if i > 0 && p.Arrive < c.Packets[i-1].Arrive {
			return nil, errors.New(at + ".arrive = " + param.FormatNumber(p.Arrive) + ": want ≥ the previous packet's (packets are listed in arrival order)")
		}
		if len(p.Pos) != 3 || len(p.Vel) != 3 {
			return nil, errors.New(at + ": pos and vel want [x, y, z], 3 numbers each")
		}
		for k := range 3 {
			if !finite(p.Pos[k]) || !finite(p.Vel[k]) {
				return nil, errors.New(at + ": pos and vel want finite numbers")
			}
		}
	}
	if len(c.Frames) == 0 {
		return nil, errors.New("frames: want at least one frame time")
	}
	for i, f := range c.Frames {
		at := "frames[" + strconv.Itoa(i) + "]"
		if _, err := whole(f, at, 0, caseTime); err != nil {
			return nil, err
		}
		if i > 0 && f < c.Frames[i-1] {
			return nil, errors.New(at + " = " + param.FormatNumber(f) + ": want times in non-decreasing order")
		}
	}
	return newClient(1, gs, min(max(tn, -30), 30), cg == 1 && g == 1), nil
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// run replays the case (see Run), with the internals.
func (c *Case) run() ([]row, error) {
	cl, err := c.setup()
	if err != nil {
		if c.Name != "" {
			return nil, errors.New("ioquake3 case " + strconv.Quote(c.Name) + ": " + err.Error())
		}
		return nil, errors.New("ioquake3 case: " + err.Error())
	}
	rows := make([]row, len(c.Frames))
	next := 0
	for i, ff := range c.Frames {
		f := int64(ff)
		r := &rows[i]
		for next < len(c.Packets) && int64(c.Packets[next].Arrive) <= f {
			p := &c.Packets[next]
			next++
			slot, ok := cl.receive(int64(p.Seq), int64(p.Send), int64(p.TrTime))
			if !ok {
				r.Drop++
				continue
			}
			r.Recv++
			for k := range 3 {
				cl.pos[slot][k], cl.vel[slot][k] = float32(p.Pos[k]), float32(p.Vel[k])
			}
		}
		cl.frame(f)
		r.T, r.ServerTime, r.CgTime, r.Delta = ff, cl.drawTime, cl.viewTime, cl.offset
		r.Extrap, r.Mode, r.Adj, r.Frac = cl.nearNewest, cl.mode, cl.adj, cl.frac
		r.Snap, r.Next = -1, -1
		if cl.mode != drawNone {
			r.Snap = cl.snap.t
			if cl.hasNx {
				r.Next = cl.next.t
			}
		}
		if o, ok := cl.origin(0); ok {
			r.Pos, r.Drawn = o, true
			r.PeerFrame.Pos = [3]float64{float64(o[0]), float64(o[1]), float64(o[2])}
		}
	}
	return rows, nil
}
