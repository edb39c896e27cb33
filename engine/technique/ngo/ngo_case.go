package ngo

import (
	"math"
	"strconv"

	"interplab/engine/geom"
	"interplab/engine/param"
	"interplab/engine/technique"
)

// Case is a case of Unity Netcode for GameObjects (library "ngo"): a
// packet schedule (connection approval, TimeSync messages and one
// NetworkTransform's states, each with its on-wire tick and client arrival
// time), the transport's round-trip readings and the client's frame times,
// as recorded from NGO 2.1.1 (golden/peers/ngo). Run replays it through the
// same client code the ngo technique runs in the lab.
//
// Fields the replay does not read (the scenario, the recorded outputs) are
// left out; peers.Checker compares the outputs.
type Case struct {
	Name     string       `json:"name"`
	Library  string       `json:"library"`
	Version  string       `json:"ngoVersion"`
	Settings CaseSettings `json:"settings"`
	RTT      []NGORTT     `json:"rtt"`
	Packets  []NGOPacket  `json:"packets"`
	Frames   []float64    `json:"frames"` // client local times of the frames, s
}

// CaseSettings are a case's settings, under the names of the case format
// (NGOSettings without the prefix; positionThreshold is the sender's and
// tickInterval follows from tickRate, so neither is read).
type CaseSettings struct {
	TickRate                 int     `json:"tickRate"`
	TicksAgo                 int     `json:"ticksAgo"`
	LocalBufferSec           float64 `json:"localBufferSec"`
	ServerBufferSec          float64 `json:"serverBufferSec"`
	HardResetThresholdSec    float64 `json:"hardResetThresholdSec"`
	AdjustmentRatio          float64 `json:"adjustmentRatio"`
	ApprovalRttSec           float64 `json:"approvalRttSec"`
	MaximumInterpolationTime float64 `json:"maximumInterpolationTime"`
	MaxInterpolationBound    float64 `json:"maxInterpolationBound"`
	MaximumDeltaTime         float64 `json:"maximumDeltaTime"`
	UseUnreliableDeltas      bool    `json:"useUnreliableDeltas"`
}

// NGORTT is one reading of the transport's round trip, from client local
// time At on.
type NGORTT struct {
	At float64 `json:"at"` // s
	MS int     `json:"ms"` // whole milliseconds
}

// NGOPacket is one message of a case. Type is "approve" (Pos: the spawn
// position), "time" (a TimeSyncMessage) or "nt" (a NetworkTransform state;
// Pos holds the axes sent, nil for an axis not sent).
type NGOPacket struct {
	Type      string      `json:"type"`
	Tick      int64       `json:"tick"`
	Arrive    float64     `json:"arrive"` // client local time, s
	Pos       [3]*float64 `json:"pos"`
	FrameSync bool        `json:"frameSync"`
}

// ngoCaseFrame is one frame of a replay with the client's internals, the
// values a case's out rows record.
type ngoCaseFrame struct {
	technique.PeerFrame
	server, local, render float64 // NaN before the connection
	segStart, segEnd      float64
	buffered              int
	reset                 bool
}

// Run replays the case and returns what the client drew in each frame.
func (c *Case) Run() ([]technique.PeerFrame, error) {
	return technique.PeerFrames(c.replay())
}

// settings returns the case's settings as the technique's, checked against
// the parameter table.
func (c *Case) settings() (Settings, error) {
	cs := &c.Settings
	s := Settings{
		TickRate: cs.TickRate, TicksAgo: cs.TicksAgo, LocalBufferSec: cs.LocalBufferSec,
		ServerBufferSec: cs.ServerBufferSec, HardResetThresholdSec: cs.HardResetThresholdSec,
		AdjustmentRatio: cs.AdjustmentRatio, ApprovalRttSec: cs.ApprovalRttSec,
		MaximumInterpolationTime: cs.MaximumInterpolationTime, MaxInterpolationBound: cs.MaxInterpolationBound,
		MaximumDeltaTime: cs.MaximumDeltaTime, UseUnreliableDeltas: cs.UseUnreliableDeltas,
		PositionThreshold: ngoDefaultPositionThreshold,
	}
	for i := range Params {
		p := &Params[i]
		if err := p.Check(p.Read(&s)); err != nil {
			fe := err.(*param.FieldError)
			fe.Field = "settings." + fe.Field[len("ngo."):]
			return s, fe
		}
	}
	return s, nil
}

// check checks the case's inputs other than its settings.
func (c *Case) check() error {
	if c.Library != "" && c.Library != "ngo" {
		return &param.FieldError{Field: "library", Value: c.Library, Allowed: "ngo"}
	}
	if c.Version != "" && c.Version != Version {
		return &param.FieldError{Field: "ngoVersion", Value: c.Version, Allowed: Version}
	}
	if len(c.Frames) == 0 {
		return &param.FieldError{Field: "frames", Value: "[]", Allowed: "one or more client frame times"}
	}
	for i, t := range c.Frames {
		if !geom.Finite(t) || (i > 0 && t < c.Frames[i-1]) {
			return &param.FieldError{Field: "frames[" + strconv.Itoa(i) + "]", Value: param.FormatNumber(t),
				Allowed: "finite client times in s, never decreasing"}
		}
	}
	for i, r := range c.RTT {
		if !geom.Finite(r.At) || r.MS < 0 || (i > 0 && r.At < c.RTT[i-1].At) {
			return &param.FieldError{Field: "rtt[" + strconv.Itoa(i) + "]", Value: param.FormatNumber(r.At),
				Allowed: "readings in time order, at finite client times, with ms ≥ 0"}
		}
	}
	for i := range c.Packets {
		p := &c.Packets[i]
		at := "packets[" + strconv.Itoa(i) + "]"
		switch p.Type {
		case "approve", "time", "nt":
		default:
			return &param.FieldError{Field: at + ".type", Value: p.Type, Allowed: "one of approve, time, nt"}
		}
		if !geom.Finite(p.Arrive) || (i > 0 && p.Arrive < c.Packets[i-1].Arrive) {
			return &param.FieldError{Field: at + ".arrive", Value: param.FormatNumber(p.Arrive),
				Allowed: "finite client times in s, in file order"}
		}
		if p.Tick < 0 || p.Tick > 1<<40 {
			return &param.FieldError{Field: at + ".tick", Value: strconv.FormatInt(p.Tick, 10), Allowed: "a tick in [0, 2^40]"}
		}
		for k, v := range p.Pos {
			if (v == nil && p.Type == "approve") || (v != nil && !geom.Finite(*v)) {
				return &param.FieldError{Field: at + ".pos[" + strconv.Itoa(k) + "]", Value: "null or not finite",
					Allowed: "finite metres (null for an axis an nt state does not carry)"}
			}
		}
	}
	return nil
}

// replay runs the case's frame model (golden/peers/README.md, NGO): per
// frame, the round trip of the last reading, then every packet arrived by
// then in file order, then UpdateTime, then the transform's interpolation.
func (c *Case) replay() ([]ngoCaseFrame, error) {
	if err := c.check(); err != nil {
		return nil, err
	}
	s, err := c.settings()
	if err != nil {
		return nil, err
	}
	k := newNGOConst(&s)
	var cl ngoClient
	var x ngoTransform
	spawned := false
	out := make([]ngoCaseFrame, len(c.Frames))
	next, ri, rttMS := 0, 0, 0
	for i, T := range c.Frames {
		for ri < len(c.RTT) && c.RTT[ri].At <= T {
			rttMS = c.RTT[ri].MS
			ri++
		}
		rtt := ngoRTT(rttMS)
		for ; next < len(c.Packets) && c.Packets[next].Arrive <= T; next++ {
			p := &c.Packets[next]
			pos, has := p.vec()
			switch p.Type {
			case "approve":
				cl.approve(p.Tick, &k)
				x.spawn(pos, geom.QuatIdentity)
				spawned = true
			case "time":
				cl.timeSync(p.Tick, rtt, &k)
			case "nt":
				if spawned {
					x.state(p.Tick, pos, has, p.FrameSync, geom.QuatIdentity, &k)
				}
			}
		}
		var dt float32
		if i > 0 {
			dt = float32(T - c.Frames[i-1])
		}
		cl.frame(dt, rtt, &k)
		f := &out[i]
		f.T = T
		f.server, f.local, f.render = math.NaN(), math.NaN(), math.NaN()
		if cl.connected {
			f.server, f.local, f.render, f.reset = cl.server, cl.time.localTime(), cl.render, cl.reset
		}
		if spawned {
			x.lerp.update(k.deltaTime(dt), cl.render, cl.server, &k, false)
			f.Pos, f.Drawn = x.lerp.cur.vec3(), true
		}
		f.segStart, f.segEnd, f.buffered = x.lerp.start, x.lerp.end, len(x.lerp.buf)
	}
	return out, nil
}

// vec returns the packet's position as a Unity Vector3 and which axes it
// carries.
func (p *NGOPacket) vec() (v vec32, has [3]bool) {
	for i, a := range p.Pos {
		if a != nil {
			v[i], has[i] = float32(*a), true
		}
	}
	return v, has
}

// ngoRTT is the transport's round trip in whole milliseconds as NGO reads
// it, in seconds.
func ngoRTT(ms int) float64 { return float64(ms) / 1000 }
