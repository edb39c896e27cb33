package engine

import (
	"math"

	"interplab/engine/param"
)

// Run simulates s.Duration seconds of s and returns every technique's metrics.
func Run(s Settings) (Result, error) { return RunSeries(s, 0) }

// RunSeries is Run that also records, for every technique, the RMS position
// error over each window of step seconds (the last window may be shorter),
// for charts of error over time. A step of 0 records none.
func RunSeries(s Settings, step float64) (Result, error) {
	if !(step >= 0) || step > s.Duration {
		return Result{}, &FieldError{Field: "step", Value: param.FormatNumber(step),
			Allowed: "[0, duration = " + param.FormatNumber(s.Duration) + "] s"}
	}
	m, err := newQuietSim(s)
	if err != nil {
		return Result{}, err
	}
	return m.runFor(step), nil
}

// runFor runs m, at time 0, for its settings' duration, recording series of
// step seconds (none for 0; the caller checked it), and returns the result.
func (m *Sim) runFor(step float64) Result {
	s := &m.set
	if step > 0 {
		m.series = &seriesAcc{step: step, sq: make([]float64, len(m.techs)), n: make([]int, len(m.techs)),
			out: make([][]float64, len(m.techs))}
	}
	m.StepFrames(int(math.Round(s.Duration * s.RenderRate)))
	return m.result(step)
}

// result is the result of m's run, its frames stepped, with series of step
// seconds if it recorded them.
func (m *Sim) result(step float64) Result {
	r := Result{Settings: m.Settings(), SeriesStep: step}
	if m.series != nil {
		m.series.flush()
	}
	ph, span, ok := m.Phases()
	if ok {
		r.Scenario = &span
	}
	for k, mt := range m.Metrics(nil) {
		tr := TechniqueResult{Name: m.techs[k], Metrics: mt}
		if m.series != nil {
			tr.Series = m.series.out[k]
		}
		if ok {
			tr.Phases = &ph[k]
		}
		r.Techniques = append(r.Techniques, tr)
	}
	return r
}

// seriesAcc gathers the RMS error of each technique per window of step
// seconds, from the frame just taken in. A window
// in which a technique displayed nothing records 0, keeping JSON valid.
type seriesAcc struct {
	step   float64
	window int
	sq     []float64
	n      []int
	out    [][]float64
}

func (a *seriesAcc) frame(m *Sim, t float64) {
	if w := int((t - float64(0.5*m.dt)) / a.step); w != a.window {
		a.flush()
		a.window = w
	}
	shown := m.shown[(m.frames-1)%3] // frame has counted this frame
	for k := range a.sq {
		for e := 0; e < m.n; e++ {
			i := k*m.n + e
			if m.valid[i] == 0 {
				continue
			}
			a.sq[k] += distSq(shown[i], m.truth[e])
			a.n[k]++
		}
	}
}

func (a *seriesAcc) flush() {
	for k := range a.sq {
		v := 0.0
		if a.n[k] > 0 {
			v = math.Sqrt(a.sq[k] / float64(a.n[k]))
		}
		a.out[k] = append(a.out[k], v)
		a.sq[k], a.n[k] = 0, 0
	}
}

// Result is the outcome of a whole run.
type Result struct {
	Settings   Settings          `json:"settings"`
	SeriesStep float64           `json:"seriesStep,omitempty"` // s, when RunSeries recorded series
	Scenario   *ScenarioSpan     `json:"scenario,omitempty"`   // the scenario the link went through, if any
	Techniques []TechniqueResult `json:"techniques"`
}

// TechniqueResult is one technique's metrics in a Result.
type TechniqueResult struct {
	Name    string        `json:"name"`
	Metrics Metrics       `json:"metrics"`
	Series  []float64     `json:"series,omitempty"` // RMS error per SeriesStep window, m
	Phases  *PhaseMetrics `json:"phases,omitempty"` // by phase of the scenario, if any
}
