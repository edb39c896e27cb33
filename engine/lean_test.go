package engine

import (
	"errors"
	"math"
	"testing"
)

// TestLeanSimSameFigures checks that a lean Sim of one entity, which takes
// its frames by frameLean, gives every figure a population reads (Counts
// after every chunk; Metrics but Smoothness) to the bit as a quiet Sim of
// the same settings, for every technique alone and all together, on a
// lossy link, through a scenario, and with the latency stride of a
// population and without; and after a change of the frame rate or a
// restart midway, which make frameLean's state anew (setLeanTechs).
func TestLeanSimSameFigures(t *testing.T) {
	type tc struct {
		name   string
		change func(s *Settings)
		stride int
		midway func(m *Sim) error // after the sixth chunk, to both Sims; nil for none
	}
	tests := []tc{
		{"every technique", func(s *Settings) { s.Techniques = TechniqueNames }, 8, nil},
		{"every technique, stride 1", func(s *Settings) { s.Techniques = TechniqueNames }, 1, nil},
		{"every technique, 30 fps midway", func(s *Settings) { s.Techniques = TechniqueNames }, 8, func(m *Sim) error {
			_, err := m.Set("renderRate", 30)
			return err
		}},
		{"every technique, restarted midway", func(s *Settings) { s.Techniques = TechniqueNames }, 8, func(m *Sim) error {
			m.Restart()
			return nil
		}},
		{"buffer adaptive", func(s *Settings) {
			s.Techniques = []string{TechBuffer}
			s.Adaptive, s.Margin, s.DelayCap, s.ExtrapolateCap, s.SpeedClamp = true, 0.025, 0.2, 0.15, true
		}, 8, nil},
		{"buffer outage", func(s *Settings) {
			s.Techniques = []string{TechBuffer}
			s.Scenario = "outage-2s"
		}, 8, nil},
		{"hermite adaptive", func(s *Settings) {
			s.Techniques = []string{TechHermite}
			s.Adaptive, s.Margin, s.DelayCap = true, 0.01, 0.3
		}, 8, nil},
		{"buffer cap 0, lossy", func(s *Settings) {
			s.Techniques = []string{TechBuffer}
			s.Delay, s.ExtrapolateCap, s.Loss = 0.02, 0, 0.3
		}, 8, nil},
		{"buffer no clamp, delay 0", func(s *Settings) {
			s.Techniques = []string{TechBuffer}
			s.Delay, s.SpeedClamp, s.Loss = 0, false, 0.2
		}, 8, nil},
		{"buffer euler", func(s *Settings) {
			s.Techniques = []string{TechBuffer}
			s.Rotation = "euler"
		}, 8, nil},
	}
	for _, name := range TechniqueNames {
		tests = append(tests, tc{name, func(s *Settings) { s.Techniques = []string{name} }, 8, nil})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := Defaults()
			s.Entities, s.Duration = 1, 30
			s.Latency, s.Jitter, s.JitterDist, s.Loss = 0.06, 0.03, "lognormal", 0.05
			tt.change(&s)
			quiet, err := NewQuietSim(s)
			if err != nil {
				t.Fatal(err)
			}
			lean, err := NewLeanSim(s)
			if err != nil {
				t.Fatal(err)
			}
			quiet.SetLatencyStride(tt.stride)
			lean.SetLatencyStride(tt.stride)
			var cq, cl []FrameCounts
			for chunk := range 12 {
				if chunk == 6 && tt.midway != nil {
					if err := errors.Join(tt.midway(quiet), tt.midway(lean)); err != nil {
						t.Fatal(err)
					}
				}
				quiet.StepFrames(97)
				lean.StepFrames(97)
				cq, cl = quiet.Counts(cq[:0]), lean.Counts(cl[:0])
				for k := range cq {
					if cl[k] != cq[k] {
						t.Fatalf("chunk %d, %s: lean Counts = %+v, want %+v", chunk, lean.Techniques()[k], cl[k], cq[k])
					}
				}
			}
			mq, ml := quiet.Metrics(nil), lean.Metrics(nil)
			for k := range mq {
				if !math.IsNaN(ml[k].Smoothness) {
					t.Errorf("%s: lean Smoothness = %v, want NaN (not measured)", lean.Techniques()[k], ml[k].Smoothness)
				}
				ml[k].Smoothness = mq[k].Smoothness
				if ml[k] != mq[k] {
					t.Errorf("%s: lean Metrics = %+v,\nwant %+v", lean.Techniques()[k], ml[k], mq[k])
				}
				if mq[k].Frames == 0 {
					t.Errorf("%s: measured no frame", lean.Techniques()[k])
				}
			}
		})
	}
}

// TestLeanSimAllocationFree checks that a lean Sim of one entity, once its
// buffers have grown to the run, steps without allocating: a population
// runs millions of its frames per entity.
func TestLeanSimAllocationFree(t *testing.T) {
	s := Defaults()
	s.Entities, s.Duration = 1, 600
	s.Latency, s.Jitter, s.JitterDist, s.Loss = 0.04, 0.02, "lognormal", 0.01
	s.Techniques = []string{TechBuffer}
	s.Adaptive, s.Margin, s.DelayCap, s.ExtrapolateCap, s.SpeedClamp = true, 0.025, 0.2, 0.15, true
	m, err := NewLeanSim(s)
	if err != nil {
		t.Fatal(err)
	}
	m.SetLatencyStride(8)
	m.StepFrames(3600) // a minute: the ring, the jitter window and the heap at their size
	if got := testing.AllocsPerRun(20, func() { m.StepFrames(600) }); got != 0 {
		t.Errorf("StepFrames(600) on a lean Sim allocates %v times, want 0", got)
	}
}
