package engine

import "interplab/engine/netsim"

// The page's scenario editor: it checks a scenario's text against the
// running settings as the designer types, draws the conditions it gives
// over the run, and applies it.

// ScenarioSampleStride is the length of one sample of SampleScenario:
// latency (s), jitter (s), loss (fraction), bandwidth (bit/s, 0 unlimited),
// a spike's or hiccup's extra delay (s), a hiccup's loss (fraction), and 1
// inside an outage.
const ScenarioSampleStride = 7

// CheckScenarioText parses text as the custom scenario of s and checks it
// against s's duration. It returns the scenario, or the error, a
// *ScenarioError naming the line and field.
func CheckScenarioText(s Settings, text string) (*netsim.Scenario, error) {
	s.Scenario, s.ScenarioText = netsim.ScenarioCustom, text
	return ScenarioOf(&s)
}

// SampleScenario appends n samples of the conditions sc gives over s's
// run, at times (i + 0.5)·duration/n, each ScenarioSampleStride numbers.
// A nil sc gives the settings' own conditions.
func SampleScenario(dst []float64, sc *netsim.Scenario, s *Settings, n int) []float64 {
	for i := range n {
		t := (float64(i) + 0.5) * s.Duration / float64(n)
		c := sc.Conditions(&s.NetworkSettings, t)
		down := 0.0
		if _, ok := sc.Outage(t); ok {
			down = 1
		}
		dst = append(dst, c.Latency, c.Jitter, c.Loss, c.Bandwidth, c.Extra, c.Drop, down)
	}
	return dst
}

// SetScenarioText changes the text of the custom scenario. The run
// restarts when the custom scenario is the one running; a text that cannot
// be used is refused (a *ScenarioError naming its line and field) and the
// run keeps its scenario.
func (m *Sim) SetScenarioText(text string) (restarted bool, err error) {
	next := m.Settings()
	next.ScenarioText = text
	if next.Scenario == netsim.ScenarioCustom || text != "" {
		if _, err := CheckScenarioText(next, text); err != nil {
			return false, err
		}
	}
	m.set.ScenarioText = text
	if next.Scenario == netsim.ScenarioCustom {
		m.Restart()
		return true, nil
	}
	return false, nil
}
