package export

import "net/url"

// netSimOf maps each network export whose target's simulator the engine
// models to the netSim choice that plays it (engine.NetSims).
var netSimOf = map[string]string{
	"mirror-network": "mirror",
	"unity-network":  "unity",
	"unreal-network": "unreal",
}

// NetSim returns the netSim setting that runs the lab's techniques over a
// model of the game engine's own simulator playing the named export ("what
// QA will get with this export"), or "" when the format has none (Source's
// fake lag is not modelled: Valve documents its cvars, not what they do to
// packets).
func NetSim(format string) string { return netSimOf[format] }

// PreviewURL is the comparison page of the settings of a share query run
// twice: over the lab's own network and over the simulator netSim, every
// technique's metrics side by side.
func PreviewURL(netSim, query string) string {
	v := url.Values{}
	both := query
	if both != "" {
		both += "&"
	}
	v.Add("v", "q:"+query)
	v.Add("v", "q:"+both+"netSim="+netSim)
	return "/compare?" + v.Encode()
}
