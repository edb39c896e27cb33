package netsim

import "interplab/engine/param"

// Settings are the knobs of the link between server and client, and
// the rates of both ends: the network group of the parameter table. Times
// in seconds, shares in [0, 1], rates in Hz.
type Settings struct {
	Latency     float64 `json:"latency"`     // base one-way latency, s
	Jitter      float64 `json:"jitter"`      // mean extra one-way delay, s
	JitterDist  string  `json:"jitterDist"`  // distribution of the extra delay
	Loss        float64 `json:"loss"`        // long-run share of packets lost, in [0, 1]
	LossModel   string  `json:"lossModel"`   // random or burst (Gilbert–Elliott)
	BurstLength float64 `json:"burstLength"` // mean length of a loss burst, packets
	Duplicate   float64 `json:"duplicate"`   // share of packets delivered twice, in [0, 1]
	TickRate    float64 `json:"tickRate"`    // server simulation rate, Hz
	SendRate    float64 `json:"sendRate"`    // server snapshot send rate, Hz
	RenderRate  float64 `json:"renderRate"`  // client render rate, Hz
	ClockDrift  float64 `json:"clockDrift"`  // client clock rate error, fraction
	Bandwidth   float64 `json:"bandwidth"`   // bottleneck rate, bit/s; 0 is unlimited
	PacketSize  int     `json:"packetSize"`  // bytes of one snapshot packet on the wire
	QueueLimit  int     `json:"queueLimit"`  // packets the bottleneck queue holds before tail drop
	Reorder     float64 `json:"reorder"`     // share of candidate packets sent ahead of the queue (netem reorder)
	ReorderGap  int     `json:"reorderGap"`  // packets delayed after each reordered one (netem gap)
	UplinkRatio float64 `json:"uplinkRatio"` // client→server latency as a multiple of latency
	Scenario    string  `json:"scenario"`    // none, a built-in scenario, or custom
	Ideal       bool    `json:"ideal"`       // impairments off: every packet once, after exactly latency
	NetSim      string  `json:"netSim"`      // lab, or a game engine's simulator playing the network export (NetSims)

	// ScenarioText is the text of the custom scenario (see Scenario), used
	// when Scenario is "custom". It is not a parameter: no slider or URL
	// carries it; the API and the CLI do.
	ScenarioText string `json:"scenarioText,omitempty"`
}

// Choices of the network's enum parameters.
var (
	JitterDists = []string{"uniform", "normal", "pareto", "lognormal"}
	LossModels  = []string{"random", "burst"}
)

// MaxDuration is the longest run a scenario may be checked against, s:
// the largest value of the run's duration parameter.
const MaxDuration = 3600

// Display scales of the rows: seconds shown in ms, fractions in %.
const (
	ms  = 1000
	pct = 100
)

// Params are the rows of Settings, the parameters of the link. Their
// defaults (param.Defaults) are the lab's default link.
var Params = []param.Param[*Settings]{
	{Name: "latency", Group: "network", Unit: "s", Min: 0, Max: 1, Step: 0.001, Default: 0.05, Display: "ms", Scale: ms,
		Doc:   "Base one-way latency from server to client (half the ping).",
		Read:  func(s *Settings) float64 { return s.Latency },
		Write: func(s *Settings, v float64) { s.Latency = v }},
	{Name: "jitter", Group: "network", Unit: "s", Min: 0, Max: 0.5, Step: 0.001, Default: 0.01, Display: "ms", Scale: ms,
		Doc:   "Mean extra one-way delay on top of the latency; reordering emerges from it.",
		Read:  func(s *Settings) float64 { return s.Jitter },
		Write: func(s *Settings, v float64) { s.Jitter = v }},
	param.EnumOf(param.Param[*Settings]{Name: "jitterDist", Group: "network", Default: 1, Choices: JitterDists,
		Doc: "Distribution of the extra delay: pareto and lognormal have long right tails."},
		func(s *Settings) *string { return &s.JitterDist }),
	{Name: "loss", Group: "network", Unit: "fraction", Min: 0, Max: 0.9, Step: 0.001, Default: 0, Display: "%", Scale: pct,
		Doc:   "Long-run share of packets lost.",
		Read:  func(s *Settings) float64 { return s.Loss },
		Write: func(s *Settings, v float64) { s.Loss = v }},
	param.EnumOf(param.Param[*Settings]{Name: "lossModel", Group: "network", Default: 0, Choices: LossModels,
		Doc: "random loses packets independently; burst loses them in runs (Gilbert–Elliott)."},
		func(s *Settings) *string { return &s.LossModel }),
	{Name: "burstLength", Group: "network", Unit: "packets", Min: 1, Max: 50, Step: 0.5, Default: 3, Display: "packets", Scale: 1,
		Doc:   "Mean number of packets in a loss burst (burst loss model only).",
		Read:  func(s *Settings) float64 { return s.BurstLength },
		Write: func(s *Settings, v float64) { s.BurstLength = v }},
	{Name: "duplicate", Group: "network", Unit: "fraction", Min: 0, Max: 0.5, Step: 0.001, Default: 0, Display: "%", Scale: pct,
		Doc:   "Share of packets delivered twice.",
		Read:  func(s *Settings) float64 { return s.Duplicate },
		Write: func(s *Settings, v float64) { s.Duplicate = v }},
	{Name: "tickRate", Group: "network", Unit: "Hz", Min: 1, Max: 128, Step: 1, Default: 60, Display: "Hz", Scale: 1,
		Doc:   "Server simulation rate; snapshots carry the state of the latest tick.",
		Read:  func(s *Settings) float64 { return s.TickRate },
		Write: func(s *Settings, v float64) { s.TickRate = v }},
	{Name: "sendRate", Group: "network", Unit: "Hz", Min: 1, Max: 128, Step: 1, Default: 20, Display: "Hz", Scale: 1,
		Doc:   "Snapshots the server sends per second; at most the tick rate.",
		Read:  func(s *Settings) float64 { return s.SendRate },
		Write: func(s *Settings, v float64) { s.SendRate = v }},
	{Name: "renderRate", Group: "network", Unit: "Hz", Min: 10, Max: 240, Step: 1, Default: 60, Display: "Hz", Scale: 1,
		Doc:   "Frames the client renders per second; metrics are taken once a frame.",
		Read:  func(s *Settings) float64 { return s.RenderRate },
		Write: func(s *Settings, v float64) { s.RenderRate = v }},
	{Name: "clockDrift", Group: "network", Unit: "fraction", Min: -0.01, Max: 0.01, Step: 0.0001, Default: 0, Display: "ppm", Scale: 1e6,
		Doc:   "How much faster the client's clock runs than the server's, in parts per million (1000 ppm = 0.1% = 1 ms a second).",
		Read:  func(s *Settings) float64 { return s.ClockDrift },
		Write: func(s *Settings, v float64) { s.ClockDrift = v }},
	{Name: "bandwidth", Group: "network", Unit: "bit/s", Min: 0, Max: 1e8, Step: 1000, Default: 0, Display: "kbit/s", Scale: 0.001,
		Doc:   "Bottleneck rate the snapshots queue for (serialization, queueing, tail drop); 0 is unlimited.",
		Read:  func(s *Settings) float64 { return s.Bandwidth },
		Write: func(s *Settings, v float64) { s.Bandwidth = v }},
	{Name: "packetSize", Group: "network", Kind: param.Int, Unit: "bytes", Min: 20, Max: 65535, Step: 1, Default: 200, Display: "bytes", Scale: 1,
		Doc:   "Bytes of one snapshot packet on the wire, headers included; sets its serialization time at the bandwidth.",
		Read:  func(s *Settings) float64 { return float64(s.PacketSize) },
		Write: func(s *Settings, v float64) { s.PacketSize = int(v) }},
	{Name: "queueLimit", Group: "network", Kind: param.Int, Unit: "packets", Min: 1, Max: 10000, Step: 1, Default: 1000, Display: "packets", Scale: 1,
		Doc:   "Packets the bottleneck queue holds; one more is dropped (tail drop). netem's default is 1000.",
		Read:  func(s *Settings) float64 { return float64(s.QueueLimit) },
		Write: func(s *Settings, v float64) { s.QueueLimit = int(v) }},
	{Name: "reorder", Group: "network", Unit: "fraction", Min: 0, Max: 0.5, Step: 0.001, Default: 0, Display: "%", Scale: pct,
		Doc:   "Share of candidate packets sent at once, skipping latency and jitter, so they overtake those in flight (netem reorder).",
		Read:  func(s *Settings) float64 { return s.Reorder },
		Write: func(s *Settings, v float64) { s.Reorder = v }},
	{Name: "reorderGap", Group: "network", Kind: param.Int, Unit: "packets", Min: 1, Max: 100, Step: 1, Default: 1, Display: "packets", Scale: 1,
		Doc:   "Every reorderGap-th packet after a reordered one is a candidate (netem gap; 1 makes every packet one).",
		Read:  func(s *Settings) float64 { return float64(s.ReorderGap) },
		Write: func(s *Settings, v float64) { s.ReorderGap = int(v) }},
	{Name: "uplinkRatio", Group: "network", Unit: "ratio", Min: 0.1, Max: 10, Step: 0.05, Default: 1, Display: "×", Scale: 1,
		Doc:   "Client→server latency as a multiple of latency; ≠ 1 biases round-trip clock sync by half the difference.",
		Read:  func(s *Settings) float64 { return s.UplinkRatio },
		Write: func(s *Settings, v float64) { s.UplinkRatio = v }},
	{Name: "ideal", Group: "network", Kind: param.Bool, Max: 1, Step: 1, Default: 0,
		Doc:   "Impairments off: the same sends, each arriving once after exactly latency (no jitter, loss, queue or scenario), for an A/B.",
		Read:  func(s *Settings) float64 { return param.FromBool(s.Ideal) },
		Write: func(s *Settings, v float64) { s.Ideal = v != 0 }},
	param.EnumOf(param.Param[*Settings]{Name: "scenario", Group: "network", Default: 0, Choices: Scenarios, Restart: true,
		Doc: "Conditions that change over the run (spikes, outages, ramps); custom reads scenarioText."},
		func(s *Settings) *string { return &s.Scenario }),
	param.EnumOf(param.Param[*Settings]{Name: "netSim", Group: "network", Default: 0, Choices: Simulators, Restart: true,
		Doc: "The link: the lab's own, or a model of the game engine's network simulator playing this network's export (what QA will get)."},
		func(s *Settings) *string { return &s.NetSim }),
}
