package netsim

import (
	"math"

	"interplab/engine/geom"
)

// Unity Transport 2's global network simulator (com.unity.transport 2.3,
// NetworkSimulatorParameter), as the unity-network export drives it on the
// server's driver for Netcode for GameObjects 2.x, modelled from Unity's
// documentation only (the package's source is not used).
//
// Documented (NetworkSimulatorParameter, 2.3): SendDelayMS is a fixed delay
// applied to sent packets, in whole milliseconds (uint); SendJitterMS the
// jitter of that delay, in whole milliseconds (uint); SendPacketLossPercent
// and ReceivePacketLossPercent the percentages (0-100, float) of sent and
// received packets to drop; SendDuplicatePercent the percentage of sent
// packets duplicated; the simulator applies to all traffic through the
// driver, control traffic included; the parameters are set with
// NetworkSettings.WithNetworkSimulatorParameters when the driver is created
// and changed with NetworkDriver.ModifyNetworkSimulatorParameters.
//
// Assumed (not documented): the jitter spreads each packet's delay evenly
// over SendDelayMS ± SendJitterMS (as SimulatorUtility.Parameters documents
// for its PacketJitterMs), independently per packet, so packets can
// overtake each other; a delay never goes below 0; a duplicate gets its own
// delay; delayed packets leave when the server's driver updates, once a
// server frame (tickRate), in the first update at or after their time.

// UnityNetworkSimulator holds the NetworkSimulatorParameter fields the
// unity-network export sets, in their C# types' values: delay and jitter in
// whole ms, loss and duplication in percent (float).
type UnityNetworkSimulator struct {
	SendDelayMS           uint32
	SendJitterMS          uint32
	SendPacketLossPercent float32
	SendDuplicatePercent  float32
}

// UnityNetworkSimulatorFor returns the fields the unity-network export sets
// for one step of the plan of s: the mean one-way delay (latency + jitter +
// a spike's delay) and the jitter, each rounded to the millisecond; the
// step's loss (100 in an outage) and the duplicate share, in percent.
func UnityNetworkSimulatorFor(s *Settings, st *Step) UnityNetworkSimulator {
	return UnityNetworkSimulator{
		SendDelayMS:           uint32(math.Round(st.Delay() * 1000)),
		SendJitterMS:          uint32(math.Round(st.C.Jitter * 1000)),
		SendPacketLossPercent: float32(st.Loss() * 100),
		SendDuplicatePercent:  float32(s.Duplicate * 100),
	}
}

// unityNetSim is the netSim "unity" link: the server's global simulator
// playing the unity-network export's steps over a LAN.
type unityNetSim struct {
	s    *Settings
	plan netSimSchedule
	r    *geom.RNG
}

func newUnityNetSim(s *Settings, duration *float64, seed uint64) *unityNetSim {
	return &unityNetSim{s: s, plan: netSimSchedule{s: s, duration: duration}, r: geom.NewRNG(seed, netSimStreamUnity)}
}

// send draws four numbers per packet, whatever happens to it: the loss, the
// delay, the duplication and the duplicate's delay.
func (u *unityNetSim) send(sent float64, arrivals []float64) []float64 {
	p := UnityNetworkSimulatorFor(u.s, u.plan.at(sent))
	uLoss, u1, uDup, u2 := u.r.Float64(), u.r.Float64(), u.r.Float64(), u.r.Float64()
	if uLoss < float64(p.SendPacketLossPercent)/100 {
		return arrivals
	}
	arrivals = append(arrivals, u.arrival(sent, p, u1))
	if uDup < float64(p.SendDuplicatePercent)/100 {
		arrivals = append(arrivals, u.arrival(sent, p, u2))
	}
	return arrivals
}

// arrival returns when a packet sent at sent with the delay draw v in
// [0, 1) reaches the client.
func (u *unityNetSim) arrival(sent float64, p UnityNetworkSimulator, v float64) float64 {
	delay := float64(p.SendDelayMS) + float64(p.SendJitterMS)*float64(2*v-1)
	return max(sent, nextFrame(sent+max(0, delay)/1000, u.s.TickRate))
}
