package netsim

// The built-in scenarios, by the names the scenario setting takes. Each fits
// the default 60 s run and leaves at least 10 s before its first event, so
// that the before phase gives a steady state to recover to.
var builtinScenarios = [...]struct{ name, text string }{
	{"wifi-hiccups", `title Wi-Fi hiccups
# A laptop on busy Wi-Fi: every 8 s the radio stalls for a quarter second
# (a scan, a neighbour's burst), holding packets 150 ms and losing a third.
hiccup at=10 until=50 every=8 for=250ms delay=150ms loss=30%
`},
	{"mobile-handover", `title mobile handover
# A phone moving between cells: the old link degrades for 2 s, the handover
# drops everything for 600 ms, and the new cell is a little slower.
ramp at=20 for=2 latency=90ms jitter=25ms loss=3%
outage at=22 for=600ms backlog=drop
step at=22.6 latency=70ms jitter=15ms loss=1%
`},
	{"congested-uplink", `title congested uplink
# Someone starts an upload on the server's line: 28 kbit/s for 15 s, less
# than 20 packets of 200 bytes a second need, so the queue grows (bufferbloat)
# and drains when the upload ends.
step at=15 for=15 bandwidth=28kbit jitter=20ms
`},
	{"outage-2s", `title 2 s outage
# The link goes down for 2 s; what was sent meanwhile arrives as one burst.
outage at=20 for=2 backlog=burst
`},
	{"spike-300ms", `title latency spike 300 ms
# A routing change: packets sent in half a second take 300 ms longer.
spike at=20 for=500ms delay=300ms
`},
	{"ramp-40-180", `title slow ramp 40→180 ms
# Latency climbs from 40 to 180 ms over 40 s, as on a train leaving a city.
set latency=40ms
ramp at=10 for=40 latency=180ms
`},
}

// ScenarioNone and ScenarioCustom are the scenario setting's choices besides
// the built-in scenarios: no scenario (the settings hold for the whole run),
// and the text in Settings.ScenarioText.
const (
	ScenarioNone   = "none"
	ScenarioCustom = "custom"
)

// Scenarios lists the scenario setting's choices: none, the built-in
// scenarios, custom.
var Scenarios = func() []string {
	names := []string{ScenarioNone}
	for _, b := range builtinScenarios {
		names = append(names, b.name)
	}
	return append(names, ScenarioCustom)
}()

// BuiltinScenario returns the built-in scenario of the given name.
func BuiltinScenario(name string) (*Scenario, bool) {
	for _, b := range builtinScenarios {
		if b.name == name {
			sc, err := ParseScenario(b.text)
			if err != nil {
				panic("engine: built-in scenario " + name + ": " + err.Error())
			}
			return sc, true
		}
	}
	return nil, false
}

// BuiltinScenarioText returns the text form of the named built-in scenario,
// as written (comments included), or "" for an unknown name.
func BuiltinScenarioText(name string) string {
	for _, b := range builtinScenarios {
		if b.name == name {
			return b.text
		}
	}
	return ""
}

// ScenarioOf returns the scenario that s selects: nil for none, a built-in
// one by name, or s.ScenarioText parsed for custom. It checks the scenario
// against a run of duration seconds (not against the run's end when
// duration is 0); errors are *ScenarioError.
func ScenarioOf(s *Settings, duration float64) (*Scenario, error) {
	var sc *Scenario
	switch s.Scenario {
	case ScenarioNone, "":
		return nil, nil
	case ScenarioCustom:
		if s.ScenarioText == "" {
			return nil, &ScenarioError{Field: "scenarioText", Msg: "scenario is custom but scenarioText is empty: give the scenario's text, or pick a built-in scenario"}
		}
		var err error
		if sc, err = ParseScenario(s.ScenarioText); err != nil {
			return nil, err
		}
	default:
		var ok bool
		if sc, ok = BuiltinScenario(s.Scenario); !ok {
			return nil, &ScenarioError{Field: "scenario", Msg: "unknown scenario " + s.Scenario}
		}
	}
	if err := sc.Validate(duration); err != nil {
		return nil, err
	}
	return sc, nil
}
