package netsim

import (
	"errors"
	"math"
	"slices"
	"strconv"

	"interplab/engine/param"
)

// MirrorLatencySimCase is a message schedule with what Mirror's real
// LatencySimulation did with it (a case file of golden/netsim's
// mirror-latencysim, whose README describes the format): the settings, the
// server frames' clock times, the sends, the noise and random values the
// component drew, and what it delivered, dropped and still held. Its Run
// replays the inputs through the model; Check compares.
type MirrorLatencySimCase struct {
	Name         string `json:"name"`
	Library      string `json:"library"` // "mirror-latencysim"
	MirrorCommit string `json:"mirrorCommit"`
	Settings     struct {
		Latency            float64 `json:"latency"`            // ms
		Jitter             float64 `json:"jitter"`             // s
		JitterSpeed        float64 `json:"jitterSpeed"`        //
		UnreliableLoss     float64 `json:"unreliableLoss"`     // %
		UnreliableScramble float64 `json:"unreliableScramble"` // %
	} `json:"settings"`
	Frames []float64 `json:"frames"` // the server frames' clock times, s, increasing
	Sends  []struct {
		ID      int    `json:"id"`
		Frame   int    `json:"frame"`   // index into Frames
		Channel string `json:"channel"` // "reliable" or "unreliable"
		Conn    int    `json:"conn"`
	} `json:"sends"` // in call order
	Noise  []float64 `json:"noise"` // Noise()'s value for each send, in call order
	Random []struct {
		Call  string  `json:"call"` // "NextDouble" or "Next"
		Arg   *int    `json:"arg"`  // Next(0, arg); null for NextDouble
		Value float64 `json:"value"`
	} `json:"random"`
	Delivered []Delivery `json:"delivered"` // in the order the wrapped transport got them
	Dropped   []int      `json:"dropped"`   // ids, in send order
	Pending   []int      `json:"pending"`   // ids still queued after the last frame
}

// Delivery is one message a simulator handed on: its id, the clock
// time and index of the frame that flushed it, and when it was due, s.
type Delivery struct {
	ID    int     `json:"id"`
	Time  float64 `json:"time"`
	Frame int     `json:"frame"`
	Due   float64 `json:"due"`
}

// Outcome is what a simulator did with a case's messages.
type Outcome struct {
	Delivered []Delivery
	Dropped   []int
	Pending   []int
}

// recordedDraws feeds LatencySimulation's Noise and System.Random from a
// case's recorded values and keeps the first misuse: a draw past the end, a
// call of another kind, or Next with another bound.
type recordedDraws struct {
	c      *MirrorLatencySimCase
	ni, ri int
	err    error
}

func (d *recordedDraws) fail(msg string) {
	if d.err == nil {
		d.err = errors.New(msg)
	}
}

func (d *recordedDraws) noise(float32) float32 {
	if d.ni >= len(d.c.Noise) {
		d.fail("noise: the model drew value " + strconv.Itoa(d.ni+1) + ", the case has " + strconv.Itoa(len(d.c.Noise)))
		d.ni++
		return 0
	}
	v := d.c.Noise[d.ni]
	d.ni++
	return float32(v)
}

// draw returns the next recorded random value, checking that it was a call
// of the kind asked for (and for Next, with the bound asked for).
func (d *recordedDraws) draw(call string, arg int) float64 {
	i := d.ri
	d.ri++
	if i >= len(d.c.Random) {
		d.fail("random: the model drew value " + strconv.Itoa(i+1) + " (" + call + "), the case has " + strconv.Itoa(len(d.c.Random)))
		return 0
	}
	r := &d.c.Random[i]
	switch {
	case r.Call != call:
		d.fail("random[" + strconv.Itoa(i) + "]: the model called " + call + ", Mirror called " + r.Call)
	case call == "Next" && (r.Arg == nil || *r.Arg != arg):
		d.fail("random[" + strconv.Itoa(i) + "]: the model called Next(0, " + strconv.Itoa(arg) + "), Mirror a different bound")
	}
	return r.Value
}

func (d *recordedDraws) nextDouble() float64 { return d.draw("NextDouble", 0) }
func (d *recordedDraws) next(max int) int    { return int(d.draw("Next", max)) }

// sim returns the case's settings as LatencySimulation's float fields, or an
// error naming the field that is out of Mirror's range.
func (c *MirrorLatencySimCase) sim() (MirrorLatencySim, error) {
	cs := &c.Settings
	fields := []struct {
		name     string
		v        float64
		min, max float64
	}{
		{"latency", cs.Latency, 0, 10000},
		{"jitter", cs.Jitter, 0, 1},
		{"jitterSpeed", cs.JitterSpeed, 0, math.MaxFloat32},
		{"unreliableLoss", cs.UnreliableLoss, 0, 100},
		{"unreliableScramble", cs.UnreliableScramble, 0, 100},
	}
	for _, f := range fields {
		if !(f.v >= f.min && f.v <= f.max) {
			return MirrorLatencySim{}, errors.New("settings." + f.name + " = " + param.FormatNumber(f.v) +
				": want [" + param.FormatNumber(f.min) + ", " + param.FormatNumber(f.max) + "]")
		}
	}
	return MirrorLatencySim{
		Latency: float32(cs.Latency), Jitter: float32(cs.Jitter), JitterSpeed: float32(cs.JitterSpeed),
		UnreliableLoss: float32(cs.UnreliableLoss), UnreliableScramble: float32(cs.UnreliableScramble),
	}, nil
}

// Run replays the case's sends through the model, frame by frame: first the
// frame's sends in call order, then the flush. It fails when the inputs are
// malformed or the model does not consume the recorded noise and random
// values exactly as Mirror did.
func (c *MirrorLatencySimCase) Run() (Outcome, error) {
	var out Outcome
	if c.Library != "" && c.Library != "mirror-latencysim" {
		return out, errors.New("library = " + strconv.Quote(c.Library) + ": want \"mirror-latencysim\"")
	}
	sim, err := c.sim()
	if err != nil {
		return out, err
	}
	for i := 1; i < len(c.Frames); i++ {
		if !(c.Frames[i] > c.Frames[i-1]) {
			return out, errors.New("frames[" + strconv.Itoa(i) + "] = " + param.FormatNumber(c.Frames[i]) + ": want frame times that increase")
		}
	}
	for i, s := range c.Sends {
		if s.Frame < 0 || s.Frame >= len(c.Frames) || (i > 0 && s.Frame < c.Sends[i-1].Frame) {
			return out, errors.New("sends[" + strconv.Itoa(i) + "].frame = " + strconv.Itoa(s.Frame) +
				": want a frame index in [0, " + strconv.Itoa(len(c.Frames)) + "), not below the previous send's")
		}
		if s.Channel != "reliable" && s.Channel != "unreliable" {
			return out, errors.New("sends[" + strconv.Itoa(i) + "].channel = " + strconv.Quote(s.Channel) + ": want reliable or unreliable")
		}
	}
	d := &recordedDraws{c: c}
	mq := mirrorSimQueue{sim: sim}
	var flushed []mirrorSimMsg
	k := 0
	for f, T := range c.Frames {
		for ; k < len(c.Sends) && c.Sends[k].Frame == f; k++ {
			s := &c.Sends[k]
			if _, kept := mq.send(T, s.ID, s.Channel == "reliable", d); !kept {
				out.Dropped = append(out.Dropped, s.ID)
			}
		}
		flushed = mq.flush(T, flushed[:0])
		for _, msg := range flushed {
			out.Delivered = append(out.Delivered, Delivery{ID: msg.id, Time: T, Frame: f, Due: msg.due})
		}
	}
	for _, msg := range mq.q {
		out.Pending = append(out.Pending, msg.id)
	}
	if d.err != nil {
		return out, d.err
	}
	if d.ni != len(c.Noise) || d.ri != len(c.Random) {
		return out, errors.New("the model drew " + strconv.Itoa(d.ni) + " noise and " + strconv.Itoa(d.ri) +
			" random values, Mirror " + strconv.Itoa(len(c.Noise)) + " and " + strconv.Itoa(len(c.Random)))
	}
	return out, nil
}

// CaseCheck is how a simulator model's outcome compares with a case's.
type CaseCheck struct {
	Messages  int     // messages compared: sends
	MaxErr    float64 // the largest difference of a delivery's time or due, s
	FirstDiff string  // the first difference, for a person; "" when none
}

// Check runs the case and compares the outcome with the recorded one: the
// delivered ids, their order and frames, the dropped and pending ids
// exactly; the delivery times and due times to within tol seconds.
func (c *MirrorLatencySimCase) Check(tol float64) (CaseCheck, error) {
	got, err := c.Run()
	if err != nil {
		return CaseCheck{}, err
	}
	return compareNetSim(got, Outcome{Delivered: c.Delivered, Dropped: c.Dropped, Pending: c.Pending}, len(c.Sends), tol), nil
}

// compareNetSim compares a model's outcome, got, with a recorded one.
func compareNetSim(got, want Outcome, messages int, tol float64) CaseCheck {
	res := CaseCheck{Messages: messages}
	diff := func(msg string) {
		if res.FirstDiff == "" {
			res.FirstDiff = msg
		}
	}
	n := min(len(got.Delivered), len(want.Delivered))
	for i := range n {
		g, w := &got.Delivered[i], &want.Delivered[i]
		e := max(math.Abs(g.Time-w.Time), math.Abs(g.Due-w.Due))
		if !(e <= res.MaxErr) {
			res.MaxErr = e
		}
		at := "delivered[" + strconv.Itoa(i) + "]: "
		switch {
		case g.ID != w.ID:
			diff(at + "message " + strconv.Itoa(g.ID) + ", the library delivered " + strconv.Itoa(w.ID))
		case g.Frame != w.Frame:
			diff(at + "message " + strconv.Itoa(g.ID) + " in frame " + strconv.Itoa(g.Frame) + ", the library's frame " + strconv.Itoa(w.Frame))
		case !(e <= tol):
			diff(at + "message " + strconv.Itoa(g.ID) + " at " + param.FormatNumber(g.Time) + " s due " + param.FormatNumber(g.Due) +
				" s, the library's " + param.FormatNumber(w.Time) + " s due " + param.FormatNumber(w.Due) + " s")
		}
	}
	if len(got.Delivered) != len(want.Delivered) {
		diff(strconv.Itoa(len(got.Delivered)) + " messages delivered, the library delivered " + strconv.Itoa(len(want.Delivered)))
	}
	if !slices.Equal(got.Dropped, want.Dropped) {
		diff("dropped " + intsText(got.Dropped) + ", the library dropped " + intsText(want.Dropped))
	}
	if !slices.Equal(got.Pending, want.Pending) {
		diff("pending " + intsText(got.Pending) + ", the library held " + intsText(want.Pending))
	}
	return res
}

// intsText lists ids for a message, the first ten of them.
func intsText(ids []int) string {
	s := "["
	for i, id := range ids {
		if i == 10 {
			s += " …"
			break
		}
		if i > 0 {
			s += " "
		}
		s += strconv.Itoa(id)
	}
	return s + "]"
}
