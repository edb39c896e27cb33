package netsim

import (
	"path/filepath"
	"strings"
	"testing"

	"interplab/engine/internal/peertest"
)

// TestMirrorLatencySimGolden replays every case recorded from Mirror's real
// LatencySimulation through the model: the same messages delivered in the
// same order and frames, the same drops, times and due times within 1e-9 s
// (bit for bit in practice), and the recorded noise and random values
// consumed exactly.
func TestMirrorLatencySimGolden(t *testing.T) {
	paths, cases := peertest.Decode[MirrorLatencySimCase](t, filepath.Join("testdata", "mirror-latencysim"))
	for i, c := range cases {
		t.Run(filepath.Base(paths[i]), func(t *testing.T) {
			res, err := c.Check(1e-9)
			if err != nil {
				t.Fatal(err)
			}
			if res.FirstDiff != "" {
				t.Fatalf("%s: %s (max error %g s)", c.Name, res.FirstDiff, res.MaxErr)
			}
			if res.MaxErr != 0 {
				t.Errorf("%s: max error %g s, want 0 (Mirror's float32 steps reproduced bit for bit)", c.Name, res.MaxErr)
			}
		})
	}
}

// TestMirrorLatencySimFloat32 shows why the model keeps Mirror's float32
// steps: 100 ms is 0.1f, a little above 0.1, so on an exact 60 Hz grid a
// message sent at a frame is due just after the sixth frame after it and
// leaves in the seventh.
func TestMirrorLatencySimFloat32(t *testing.T) {
	mq := mirrorSimQueue{sim: MirrorLatencySim{Latency: 100, JitterSpeed: 1}}
	d := &fixedDraws{}
	due, kept := mq.send(1, 0, true, d)
	if !kept || due <= 1+0.1 {
		t.Fatalf("send at 1 s, latency 100 ms: due %.17g, kept %v; want just after 1.1 s, kept", due, kept)
	}
	if out := mq.flush(1+6.0/60, nil); len(out) != 0 {
		t.Errorf("flush at 1 + 6/60 s delivered %v, want nothing (0.1f > 0.1)", out)
	}
	if out := mq.flush(1+7.0/60, nil); len(out) != 1 {
		t.Errorf("flush at 1 + 7/60 s delivered %v, want the message", out)
	}
}

// fixedDraws is a mirrorSimDraws that returns fixed values.
type fixedDraws struct {
	n  float32
	u  []float64
	ui int
	k  int
}

func (d *fixedDraws) noise(float32) float32 { return d.n }
func (d *fixedDraws) nextDouble() float64 {
	if d.ui >= len(d.u) {
		return 0.5
	}
	d.ui++
	return d.u[d.ui-1]
}
func (d *fixedDraws) next(int) int { return d.k }

// TestMirrorLatencySimCaseRefusesMisuse: a case whose recorded draws the
// model would consume differently, or whose inputs are malformed, is an
// error naming what differs, not a silent pass.
func TestMirrorLatencySimCaseRefusesMisuse(t *testing.T) {
	_, cases := peertest.Decode[MirrorLatencySimCase](t, filepath.Join("testdata", "mirror-latencysim"))
	base := cases[0]
	tests := []struct {
		name   string
		change func(c *MirrorLatencySimCase)
		errHas string
	}{
		{"one noise value short", func(c *MirrorLatencySimCase) { c.Noise = c.Noise[:len(c.Noise)-1] }, "noise"},
		{"one random value too many", func(c *MirrorLatencySimCase) { c.Random = append(c.Random, c.Random[0]) }, "random values"},
		{"a Next where NextDouble was drawn", func(c *MirrorLatencySimCase) { c.Random[0].Call = "Next" }, "called NextDouble"},
		{"loss out of range", func(c *MirrorLatencySimCase) { c.Settings.UnreliableLoss = 101 }, "settings.unreliableLoss"},
		{"frame out of range", func(c *MirrorLatencySimCase) { c.Sends[0].Frame = len(c.Frames) }, "sends[0].frame"},
		{"another library", func(c *MirrorLatencySimCase) { c.Library = "mirror" }, "library"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := *base
			c.Noise = append([]float64(nil), base.Noise...)
			c.Random = append(c.Random[:0:0], base.Random...)
			c.Sends = append(c.Sends[:0:0], base.Sends...)
			tt.change(&c)
			_, err := c.Run()
			if err == nil || !strings.Contains(err.Error(), tt.errHas) {
				t.Fatalf("Run() error = %v, want one containing %q", err, tt.errHas)
			}
		})
	}
	// And a recorded outcome that differs is reported, not passed.
	c := *base
	c.Delivered = append(c.Delivered[:0:0], base.Delivered...)
	c.Delivered[3].Frame++
	res, err := c.Check(1e-6)
	if err != nil || !strings.Contains(res.FirstDiff, "delivered[3]") {
		t.Fatalf("Check with a moved delivery = %+v, %v; want the difference at delivered[3]", res, err)
	}
}
