package export

import "net/url"

// netSimOf maps each network export whose target's simulator the engine
// models to the netSim choice that plays it (netsim.Simulators).
var netSimOf = map[string]string{
	"mirror-network": "mirror",
	"unity-network":  "unity",
	"unreal-network": "unreal",
}

// netSimVersions are, per netSim choice, the choices that model other
// versions of the same engine's simulator, previewed beside it: Unity
// Transport 2.6 and later draw the jitter one-sided (netsim.UnityTransport26).
var netSimVersions = map[string][]string{
	"unity": {"unity-2.6"},
}

// NetSim returns the netSim setting that runs the lab's techniques over a
// model of the game engine's own simulator playing the named export ("what
// QA will get with this export"), or "" when the format has none (Source's
// fake lag is not modelled: Valve documents its cvars, not what they do to
// packets).
func NetSim(format string) string { return netSimOf[format] }

// NetSimVersions returns the netSim choices that model other versions of
// the engine simulator netSim, which the preview shows beside it.
func NetSimVersions(netSim string) []string { return netSimVersions[netSim] }

// PreviewURL is the comparison page of the settings of a share query run
// over the lab's own network, over the simulator netSim, and over each of
// its other versions (NetSimVersions), every technique's metrics side by
// side.
func PreviewURL(netSim, query string) string {
	v := url.Values{}
	both := query
	if both != "" {
		both += "&"
	}
	v.Add("v", "q:"+query)
	for _, sim := range append([]string{netSim}, netSimVersions[netSim]...) {
		v.Add("v", "q:"+both+"netSim="+sim)
	}
	return "/compare?" + v.Encode()
}

// qaOf says, per network export, for which engine versions and build kinds
// it holds and what a studio's QA build gets from it.
var qaOf = map[string]string{
	"unity-network": "NGO 2.x on Unity Transport 2.3-2.5: the simulator as written, previewed by netSim unity; " +
		"Transport 2.6 and later: the jitter only adds (each delay SendDelayMS or more), previewed by netSim unity-2.6. " +
		"The Editor and development builds; a release build only with UNITY_MP_TOOLS_NETSIM_ENABLED_IN_RELEASE " +
		"(else the component logs an error naming it). On the server only; NetworkTransform resends lost updates (reliable) " +
		"unless Use Unreliable Deltas.",
	"mirror-network": "Mirror (commit c885a6a4) LatencySimulation, previewed by netSim mirror: in every build kind, " +
		"so leave it out of what you ship; loss touches only unreliable messages, reliable ones arrive on time even in an outage.",
	"unreal-network": "Unreal Engine 5.4 packet simulation, previewed by netSim unreal: the editor and development builds " +
		"(shipping builds compile it out); no PktDup copies while PktLag > 0.",
	"source-network": "Source SDK 2013 fake lag: any build, on a server with sv_cheats 1; net_fakeloss n drops (n+1)/101 " +
		"of the packets, written so the game gets the lab's loss or listed; not previewed (Valve documents the cvars only).",
	"netem": "Linux tc netem on a test machine's interface: any engine and build; the lab's own link (netSim lab) is what it plays.",
}

// QA returns what a studio's QA build gets from the network export format,
// per engine version and build kind; "" for an export that is not a network.
func QA(format string) string { return qaOf[format] }
