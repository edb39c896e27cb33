package netsim

import (
	"math"

	"interplab/engine/geom"
)

// Unity Transport 2's global network simulator (com.unity.transport,
// NetworkSimulatorParameter), as the unity-network export drives it on the
// server's driver for Netcode for GameObjects 2.x, with what Transport's
// pipelines and NGO's NetworkTransform do above it, modelled from Unity's
// documentation and the behaviour of the published packages (their source is
// not used).
//
// The simulator (NetworkSimulatorParameter): SendDelayMS is a delay applied
// to sent packets, in whole milliseconds (uint); SendJitterMS its jitter, in
// whole milliseconds (uint); SendPacketLossPercent and
// ReceivePacketLossPercent the percentages (0-100, float) of sent and
// received packets to drop; SendDuplicatePercent the percentage of sent
// packets duplicated; it applies to all traffic through the driver, control
// traffic included. A packet's jitter is a whole number of milliseconds drawn
// evenly from [-SendJitterMS, SendJitterMS - 1]. Up to Transport 2.5 the
// delay is SendDelayMS plus that draw (never below 0): for 27 ms and 12 ms
// of jitter, 15 to 38 ms, mean 26.5. From 2.6.0 the first copy's delay is
// SendDelayMS plus max(0, draw), one-sided: 27 to 38 ms, mean 29.75, 54% of
// the packets at exactly 27 ms. A duplicate gets its own draw under the same
// rule (assumed).
//
// Above the simulator (NGO 2.1.1): NetworkTransform sends its updates on the
// reliable-sequenced pipeline by default, unreliable-sequenced with
// UseUnreliableDeltas. Reliable-sequenced: a packet the simulator drops is
// sent again when no acknowledgement came within the resend time, and again,
// until it gets through (an outage's backlog is retransmitted, not dropped);
// the receiver hands on packets in send order, holding one that overtook a
// missing one until the gap is filled, and drops duplicates. The resend time
// is Transport's round-trip estimate clamped to [64, 200] ms
// (ReliableUtility.DefaultMinimumResendTime and DefaultMaximumResendTime);
// the model takes SendDelayMS + SendJitterMS as the estimate (the client's
// acknowledgements are not delayed: only the server's simulator runs) and
// leaves out the window of 32 packets in flight and NGO's send queue, so after
// a long outage the real backlog drains over a few round trips and the
// model's at once. Unreliable-sequenced: a dropped packet is gone, a
// duplicate is dropped (the copy that arrives first counts), and one older
// than the newest received is dropped, which the ngo technique does itself
// (its UseUnreliableDeltas); the model hands on the first copy.
//
// Assumed (not documented): delayed packets and resends leave when the
// server's driver updates, once a server frame (tickRate), in the first
// update at or after their time.

// UnityTransport26 is the first Unity Transport version whose simulator
// draws the first copy's jitter one-sided (see above).
const UnityTransport26 = "2.6"

// unityResendMin and unityResendMax are Transport's
// ReliableUtility.DefaultMinimumResendTime and DefaultMaximumResendTime, s.
const (
	unityResendMin = 0.064
	unityResendMax = 0.200
)

// unityMaxSends caps the sends of one reliable packet in the model, so a
// loss of 100% to the end of the run cannot loop forever; such a packet is
// never delivered.
const unityMaxSends = 1000

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

// DelayMS returns the delay in ms the simulator gives a packet for the
// jitter draw v in [0, 1): SendDelayMS plus a whole jitter k in
// [-SendJitterMS, SendJitterMS - 1], one-sided (max(0, k)) from Transport
// 2.6 (v26), never below 0.
func (p UnityNetworkSimulator) DelayMS(v float64, v26 bool) int {
	j := int(p.SendJitterMS)
	k := 0
	if j > 0 {
		k = min(int(v*float64(2*j)), 2*j-1) - j
	}
	if v26 {
		k = max(0, k)
	}
	return max(0, int(p.SendDelayMS)+k)
}

// resend returns the model's resend time for the simulator's settings, s.
func (p UnityNetworkSimulator) resend() float64 {
	return min(unityResendMax, max(unityResendMin, float64(p.SendDelayMS+p.SendJitterMS)/1000))
}

// unityNetSim is the netSim "unity" (Transport 2.3 to 2.5) and "unity-2.6"
// (2.6 and later) link: the server's global simulator playing the
// unity-network export's steps over a LAN, under NetworkTransform's
// pipeline.
type unityNetSim struct {
	s          *Settings
	plan       netSimSchedule
	r          *geom.RNG
	v26        bool
	unreliable *bool   // NetworkTransform.UseUnreliableDeltas; nil: reliable
	held       float64 // reliable: when the packet sent before was handed on, s
}

func newUnityNetSim(s *Settings, duration *float64, seed uint64, v26 bool) *unityNetSim {
	return &unityNetSim{s: s, plan: netSimSchedule{s: s, duration: duration}, r: geom.NewRNG(seed, netSimStreamUnity),
		v26: v26, held: math.Inf(-1)}
}

// send sends one NetworkTransform update. Each time the packet goes through
// the simulator it draws four numbers, whatever happens to it: the loss, the
// delay, the duplication and the duplicate's delay.
func (u *unityNetSim) send(sent float64, arrivals []float64) []float64 {
	reliable := u.unreliable == nil || !*u.unreliable
	at := sent
	for range unityMaxSends {
		p := UnityNetworkSimulatorFor(u.s, u.plan.at(at))
		uLoss, u1, uDup, u2 := u.r.Float64(), u.r.Float64(), u.r.Float64(), u.r.Float64()
		if uLoss >= float64(p.SendPacketLossPercent)/100 {
			first := u.arrival(at, p, u1)
			if uDup < float64(p.SendDuplicatePercent)/100 {
				first = min(first, u.arrival(at, p, u2))
			}
			if !reliable {
				return append(arrivals, first)
			}
			// Handed on in send order: after the packet sent before.
			u.held = max(u.held, first)
			return append(arrivals, u.held)
		}
		if !reliable {
			return arrivals
		}
		at = max(at, nextFrame(at+p.resend(), u.s.TickRate))
	}
	return arrivals
}

// arrival returns when a packet sent at sent with the delay draw v in
// [0, 1) reaches the client.
func (u *unityNetSim) arrival(sent float64, p UnityNetworkSimulator, v float64) float64 {
	return max(sent, nextFrame(sent+float64(p.DelayMS(v, u.v26))/1000, u.s.TickRate))
}
