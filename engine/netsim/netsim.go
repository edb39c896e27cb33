package netsim

// Simulators are the netSim setting's choices: the lab's own link, or a model
// of a game engine's own network simulator playing the script the lab's
// export for that engine writes (see Plan), for "what QA will get
// with this export": "unity" is Unity Transport 2.3 to 2.5's, "unity-2.6"
// Transport 2.6's and later's (see UnityTransport26). Source's fake lag is
// not among them: Valve documents what its cvars set, not how packets are
// delayed, jittered and dropped.
var Simulators = []string{"lab", "mirror", "unity", "unreal", "unity-2.6"}

// Lab is the netSim choice of the lab's own link.
const Lab = "lab"

// netSimulator is a game engine's network simulator in place of the lab's
// link: like Link.Send, send takes a packet sent at time sent, s, and
// appends the times it arrives at the client (none when dropped).
type netSimulator interface {
	send(sent float64, arrivals []float64) []float64
}

// Random streams of the simulator models, apart from the link's and the
// clock's.
const (
	netSimStreamMirror = 101 + iota
	netSimStreamUnity
	netSimStreamUnreal
)

// newNetSimulator returns the model s.NetSim chooses, nil for the lab's own
// link.
func newNetSimulator(s *Settings, duration *float64, seed uint64) netSimulator {
	switch s.NetSim {
	case "mirror":
		return newMirrorNetSim(s, duration, seed)
	case "unity":
		return newUnityNetSim(s, duration, seed, false)
	case "unity-" + UnityTransport26:
		return newUnityNetSim(s, duration, seed, true)
	case "unreal":
		return newUnrealNetSim(s, duration, seed)
	}
	return nil
}
