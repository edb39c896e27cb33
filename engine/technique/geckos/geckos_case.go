package geckos

import (
	"errors"
	"math"
	"strconv"

	"interplab/engine/geom"
	"interplab/engine/param"
	"interplab/engine/technique"
)

// Case is a case of the geckos library (golden/peers/geckos): a
// packet schedule replayed through @geckos.io/snapshot-interpolation with
// its Now() replaced by the simulated client clock. Times are in seconds,
// positions in metres. Only the inputs are decoded; meta, out and debug are
// what the checker and the tests read.
type Case struct {
	Name     string `json:"name"`
	Library  string `json:"library"` // "geckos"
	Version  string `json:"version"` // the package version, "1.1.1"
	Settings struct {
		ServerFPS             *float64 `json:"serverFPS"`           // null: not passed
		InterpolationBuffer   *float64 `json:"interpolationBuffer"` // ms; null: the constructor's default
		VaultSize             *float64 `json:"vaultSize"`
		AutoCorrectTimeOffset *bool    `json:"autoCorrectTimeOffset"`
	} `json:"settings"`
	Packets []Packet  `json:"packets"` // in arrival order
	Frames  []float64 `json:"frames"`  // client local render times, s, non-decreasing
}

// Packet is one snapshot of a Case.
type Packet struct {
	Send   float64    `json:"send"`   // the snapshot's server time, s
	Arrive float64    `json:"arrive"` // client local arrival time, s
	Pos    []*float64 `json:"pos"`    // the entity's [x, y, z], m; null is refused
	pos    geom.Vec3  // Pos, checked
}

// Run checks the case's inputs and replays it through the geckos technique:
// for each frame, every packet not yet added with arrive ≤ frame is added at
// its arrival time (snapshot.add), then the frame samples
// (calcInterpolation). A frame is Drawn when calcInterpolation returned a
// state.
func (c *Case) Run() ([]technique.PeerFrame, error) {
	return technique.PeerFrames(c.run())
}

// geckosRow is one frame of a replayed case with the library's internals:
// the indices in Packets of the snapshots interpolated (-1 when nothing was
// drawn) and the fraction.
type geckosRow struct {
	technique.PeerFrame
	Older, Newer int
	P            float64
}

// settings returns the case's settings as the technique's, or an error
// naming the field.
func (c *Case) settings() (Settings, error) {
	var s Settings
	cs := &c.Settings
	if c.Library != "" && c.Library != Name {
		return s, errors.New("library = " + strconv.Quote(c.Library) + ": want \"geckos\"")
	}
	if v := cs.ServerFPS; v != nil {
		if !(*v >= 0) || math.IsInf(*v, 0) {
			return s, errors.New("settings.serverFPS = " + param.FormatNumber(*v) + ": want null, 0 or a positive number of frames per second")
		}
		s.ServerFPS = *v
	}
	s.InterpolationBuffer = -1
	if v := cs.InterpolationBuffer; v != nil {
		if !(*v >= 0) || math.IsInf(*v, 0) {
			return s, errors.New("settings.interpolationBuffer = " + param.FormatNumber(*v) + ": want null (the default) or a number of ms ≥ 0")
		}
		s.InterpolationBuffer = *v
	}
	switch v := cs.VaultSize; {
	case v == nil:
		return s, errors.New("settings.vaultSize missing: want a whole number of snapshots ≥ 0 (120 is the default)")
	case !(*v >= 0) || *v != math.Trunc(*v) || *v > math.MaxInt32:
		return s, errors.New("settings.vaultSize = " + param.FormatNumber(*v) + ": want a whole number of snapshots ≥ 0 (120 is the default)")
	default:
		s.VaultSize = int(*v)
	}
	if cs.AutoCorrectTimeOffset == nil {
		return s, errors.New("settings.autoCorrectTimeOffset missing: want true or false")
	}
	s.AutoCorrectTimeOffset = *cs.AutoCorrectTimeOffset
	return s, nil
}

// check checks the packets and frames.
func (c *Case) check() error {
	finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
	for i := range c.Packets {
		p := &c.Packets[i]
		at := "packets[" + strconv.Itoa(i) + "]"
		if !finite(p.Send) || !finite(p.Arrive) {
			return errors.New(at + ": send and arrive must be finite numbers of seconds")
		}
		if i > 0 && p.Arrive < c.Packets[i-1].Arrive {
			return errors.New(at + ".arrive = " + param.FormatNumber(p.Arrive) + ": want ≥ the previous packet's " +
				param.FormatNumber(c.Packets[i-1].Arrive) + " (packets are listed in arrival order)")
		}
		if len(p.Pos) != 3 {
			return errors.New(at + ".pos: want [x, y, z], 3 numbers; got " + strconv.Itoa(len(p.Pos)))
		}
		for k, v := range p.Pos {
			if v == nil || !finite(*v) {
				return errors.New(at + ".pos[" + strconv.Itoa(k) + "]: want a finite number of metres")
			}
			p.pos[k] = *v
		}
	}
	if len(c.Frames) == 0 {
		return errors.New("frames: want at least one frame time")
	}
	for i, f := range c.Frames {
		if !finite(f) || (i > 0 && f < c.Frames[i-1]) {
			return errors.New("frames[" + strconv.Itoa(i) + "] = " + param.FormatNumber(f) + ": want finite times in non-decreasing order")
		}
	}
	return nil
}

// run replays the case (see Run), with the internals.
func (c *Case) run() ([]geckosRow, error) {
	s, err := c.settings()
	if err == nil {
		err = c.check()
	}
	if err != nil {
		if c.Name != "" {
			return nil, errors.New("geckos case " + strconv.Quote(c.Name) + ": " + err.Error())
		}
		return nil, errors.New("geckos case: " + err.Error())
	}
	tech := newGeckos(&s).(*geckosTech)
	rows := make([]geckosRow, len(c.Frames))
	next := 0
	for i, f := range c.Frames {
		for next < len(c.Packets) && c.Packets[next].Arrive <= f {
			p := &c.Packets[next]
			tech.Receive(technique.Snapshot{Time: p.Send, Pos: p.pos, Rot: geom.Quat{0, 0, 0, 1}}, p.Arrive)
			next++
		}
		smp := tech.Sample(f)
		r := geckosRow{PeerFrame: technique.PeerFrame{T: f}, Older: -1, Newer: -1, P: math.NaN()}
		if smp.Mode == technique.Interpolate {
			// Packets are added in file order: the add sequence number is
			// the packet's index.
			r.Pos, r.Drawn = smp.Pos, true
			r.Older, r.Newer, r.P = tech.older, tech.newer, tech.p
		}
		rows[i] = r
	}
	return rows, nil
}
