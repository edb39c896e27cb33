package peers

import (
	"encoding/json"
	"fmt"

	"interplab/engine"
	"interplab/engine/netsim"
)

// Runners returns the Runner of every library the lab has a technique with
// recorded cases for, by the library field of its cases: each technique's
// own (engine.PeerCases).
func Runners() map[string]Runner {
	out := map[string]Runner{}
	for lib, run := range engine.PeerCases() {
		out[lib] = run
	}
	return out
}

// netSimCase is a network simulator's case type in the engine.
type netSimCase[T any] interface {
	*T
	Check(tol float64) (netsim.CaseCheck, error)
}

// runNetSim decodes a simulator's case of type T and checks it.
func runNetSim[T any, P netSimCase[T]](caseJSON []byte, tol float64) (netsim.CaseCheck, error) {
	var c T
	if err := json.Unmarshal(caseJSON, &c); err != nil {
		return netsim.CaseCheck{}, fmt.Errorf("not a case of this simulator: %w", err)
	}
	return P(&c).Check(tol)
}

// NetSimRunners returns the NetSimRunner of every network simulator the lab
// models from its source, by the library field of its cases.
func NetSimRunners() map[string]NetSimRunner {
	return map[string]NetSimRunner{
		"mirror-latencysim": runNetSim[netsim.MirrorLatencySimCase],
	}
}
