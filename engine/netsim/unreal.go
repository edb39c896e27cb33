package netsim

import (
	"math"

	"interplab/engine/geom"
)

// Unreal Engine 5.4's packet simulation (FPacketSimulationSettings: the
// [PacketSimulationSettings] section of DefaultEngine.ini and the
// NetEmulation.* console variables), as the unreal-network export sets it on
// the server, modelled from Epic's public documentation only.
//
// Documented: PktLag delays each outgoing packet by that many milliseconds;
// PktLagVariance adds a random ± that many milliseconds to it; PktLoss is the
// percentage chance (a whole number) that an outgoing packet is discarded;
// PktDup the percentage chance that one is sent twice, which Unreal does only
// for a packet it sends at once, not one it delays: with PktLag > 0 no
// packet is duplicated; PktOrder sends packets
// out of order, and is a separate mode (the export never combines it with
// PktLag, which the packet simulation does not); PktIncomingLagMin/Max and
// PktIncomingLoss do the same to incoming packets; packet simulation is
// compiled out of shipping builds.
//
// Assumed (not documented): the variance is spread evenly over
// PktLag ± PktLagVariance; delayed packets leave in the order they were sent
// (only PktOrder reorders), so a packet never leaves before the one sent
// before it; they leave when the server's net driver ticks, once a server
// frame (tickRate), in the first tick at or after their time; a duplicate
// (PktLag 0 only) follows its packet at once.

// UnrealPacketSim holds the packet simulation settings the unreal-network
// export writes: PktLag and PktLagVariance in ms, PktLoss and PktDup in
// whole percent.
type UnrealPacketSim struct {
	PktLag, PktLagVariance, PktLoss, PktDup int
}

// UnrealPacketSimFor returns the settings the unreal-network export writes
// for one step of the plan of s: the mean one-way delay and the jitter, each
// rounded to the millisecond; the step's loss (100 in an outage) and the
// duplicate share, rounded to the nearest whole percent.
func UnrealPacketSimFor(s *Settings, st *Step) UnrealPacketSim {
	return UnrealPacketSim{
		PktLag:         int(math.Round(st.Delay() * 1000)),
		PktLagVariance: int(math.Round(st.C.Jitter * 1000)),
		PktLoss:        WholePercent(st.Loss()),
		PktDup:         WholePercent(s.Duplicate),
	}
}

// WholePercent returns a share in [0, 1] as the nearest whole percent, as
// the exports to whole-percent settings write it (each lists the loss of
// precision when there is one).
func WholePercent(f float64) int { return int(math.Round(f * 100)) }

// unrealNetSim is the netSim "unreal" link: the server's packet simulation
// playing the unreal-network export's steps over a LAN.
type unrealNetSim struct {
	s    *Settings
	plan netSimSchedule
	r    *geom.RNG
	last float64 // when the packet sent before left, s
}

func newUnrealNetSim(s *Settings, duration *float64, seed uint64) *unrealNetSim {
	return &unrealNetSim{s: s, plan: netSimSchedule{s: s, duration: duration}, r: geom.NewRNG(seed, netSimStreamUnreal), last: math.Inf(-1)}
}

// send draws three numbers per packet, whatever happens to it: the loss,
// the delay and the duplication.
func (u *unrealNetSim) send(sent float64, arrivals []float64) []float64 {
	p := UnrealPacketSimFor(u.s, u.plan.at(sent))
	uLoss, v, uDup := u.r.Float64(), u.r.Float64(), u.r.Float64()
	if uLoss < float64(p.PktLoss)/100 {
		return arrivals
	}
	delay := float64(p.PktLag) + float64(p.PktLagVariance)*float64(2*v-1)
	leave := max(sent, nextFrame(sent+max(0, delay)/1000, u.s.TickRate), u.last)
	u.last = leave
	arrivals = append(arrivals, leave)
	if p.PktLag == 0 && uDup < float64(p.PktDup)/100 {
		arrivals = append(arrivals, leave)
	}
	return arrivals
}
