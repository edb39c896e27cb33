package peers

import (
	"encoding/json"
	"fmt"

	"interplab/engine/netsim"
	"interplab/engine/technique"
	"interplab/engine/technique/geckos"
	"interplab/engine/technique/ioquake3"
	"interplab/engine/technique/lightyear"
	"interplab/engine/technique/mirror"
	"interplab/engine/technique/ngo"
	"interplab/engine/technique/source"
)

// peerCase is a library's case type in the engine: decoded from a case
// file's JSON, it replays its packet schedule through the library's
// technique.
type peerCase[T any] interface {
	*T
	Run() ([]technique.PeerFrame, error)
}

// run decodes a case of type T and runs it.
func run[T any, P peerCase[T]](caseJSON []byte) ([]technique.PeerFrame, error) {
	var c T
	if err := json.Unmarshal(caseJSON, &c); err != nil {
		return nil, fmt.Errorf("not a case of this library: %w", err)
	}
	return P(&c).Run()
}

// Runners returns the Runner of every library the lab has a technique for,
// by the library field of its cases.
func Runners() map[string]Runner {
	return map[string]Runner{
		// One line per library technique: "mirror": run[mirror.MirrorCase],
		"mirror":    run[mirror.Case],
		"geckos":    run[geckos.Case],
		"ngo":       run[ngo.Case],
		"source":    run[source.Case],
		"lightyear": run[lightyear.Case],
		"ioquake3":  run[ioquake3.Case],
	}
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
