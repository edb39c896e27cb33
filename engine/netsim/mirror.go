package netsim

import "interplab/engine/geom"

// Mirror's LatencySimulation transport, the network simulator a Mirror game
// runs for QA (Mirror commit c885a6a4, 2026-08-06,
// Assets/Mirror/Transports/Latency/LatencySimulation.cs, MIT), modelled from
// its source and pinned by cases recorded from the real component under mono
// (testdata/netsim/mirror-latencysim, copied from the project's
// golden/netsim set; TestMirrorLatencySimGolden). Its fields are C# floats,
// and the model keeps Mirror's float32 steps where Mirror has them.
//
// What the component does, per message its own process sends (a server's
// LatencySimulation delays what the server sends, a client's what the
// client sends), in the server frame T it is sent in:
//
//  1. latency: spike = Noise(float32(T)·jitterSpeed)·jitter, with Noise
//     Unity's Mathf.PerlinNoise(x, x) in [0, 1]; the message is due at
//     T + float64(latency/1000 + spike), the same formula on both channels;
//  2. reliable messages are appended to the one queue (shared by every
//     connection and both channels);
//  3. an unreliable one is dropped when NextDouble() < unreliableLoss/100;
//     otherwise a second draw below unreliableScramble/100 inserts it at
//     Next(0, n+1) of the n queued messages, else it is appended;
//  4. each LateUpdate, after the frame's sends, hands on in queue order
//     every message due by the frame's time and keeps the rest.
//
// So delivery is quantized to the frames (a message leaves in the first frame
// at or after it is due), the scramble only reorders what leaves in one frame,
// and loss touches only the unreliable channel.

// MirrorLatencySim holds LatencySimulation's inspector fields, as the C#
// floats they are: Latency in ms (both channels), Jitter in s (the
// amplitude of the noise spike, in [0, 1]), JitterSpeed (noise per second of
// clock), UnreliableLoss and UnreliableScramble in percent.
type MirrorLatencySim struct {
	Latency            float32
	Jitter             float32
	JitterSpeed        float32
	UnreliableLoss     float32
	UnreliableScramble float32
}

// mirrorSimDraws is where LatencySimulation's randomness comes from: its
// Noise (Mathf.PerlinNoise on the diagonal) and its System.Random.
type mirrorSimDraws interface {
	noise(x float32) float32 // Noise(x), about [0, 1]
	nextDouble() float64     // System.Random.NextDouble(), in [0, 1)
	next(max int) int        // System.Random.Next(0, max), in [0, max)
}

// latency returns the one-way delay LatencySimulation gives a message sent
// at clock time T, s, as the float32 SimulateLatency returns: latency/1000
// plus the noise spike at float32(T)·jitterSpeed. It consumes one noise
// value.
//
// Every step is a float32 operation, as in C#, and each is rounded on its own
// (the explicit conversions keep Go from fusing a multiply and an add).
func (m *MirrorLatencySim) latency(T float64, d mirrorSimDraws) float32 {
	x := float32(float32(T) * m.JitterSpeed)
	spike := float32(d.noise(x) * m.Jitter)
	return float32(m.Latency/1000) + spike
}

// drop decides, for an unreliable message, whether the loss drops it: one
// NextDouble() below the float32 unreliableLoss/100, widened.
func (m *MirrorLatencySim) drop(d mirrorSimDraws) bool {
	return d.nextDouble() < float64(float32(m.UnreliableLoss/100))
}

// insertAt returns where an unreliable message that survived the loss goes
// in a queue of n messages: n (appended) unless the scramble draw, always
// taken, is below unreliableScramble/100, when Next(0, n+1) chooses.
func (m *MirrorLatencySim) insertAt(n int, d mirrorSimDraws) int {
	if d.nextDouble() < float64(float32(m.UnreliableScramble/100)) {
		return d.next(n + 1)
	}
	return n
}

// send takes the steps of one message sent at clock time T, in Mirror's
// order and with its draws: it returns when the message is due, where it
// goes in a queue of n messages (n for a reliable one, appended) and
// whether it is kept (false: the loss dropped it). mirrorSimQueue, which
// the recorded cases pin, and the lab's mirrorNetSim both send through it.
func (m *MirrorLatencySim) send(T float64, reliable bool, n int, d mirrorSimDraws) (due float64, at int, kept bool) {
	due = T + float64(m.latency(T, d))
	if reliable {
		return due, n, true
	}
	if m.drop(d) {
		return due, n, false
	}
	return due, m.insertAt(n, d), true
}

// mirrorSimMsg is a queued message: its id and when it is due, s.
type mirrorSimMsg struct {
	id  int
	due float64
}

// mirrorSimQueue is LatencySimulation's one queue of messages in flight.
type mirrorSimQueue struct {
	sim MirrorLatencySim
	q   []mirrorSimMsg
}

// send queues message id, sent at clock time T on the reliable or the
// unreliable channel, and returns when it is due and whether it was kept
// (false: the loss dropped it).
func (mq *mirrorSimQueue) send(T float64, id int, reliable bool, d mirrorSimDraws) (due float64, kept bool) {
	due, i, kept := mq.sim.send(T, reliable, len(mq.q), d)
	if !kept {
		return due, false
	}
	mq.q = append(mq.q, mirrorSimMsg{})
	copy(mq.q[i+1:], mq.q[i:])
	mq.q[i] = mirrorSimMsg{id: id, due: due}
	return due, true
}

// flush is a LateUpdate at clock time T: it appends to out, in queue order,
// every message due by T (due ≤ T) and keeps the others in their order.
func (mq *mirrorSimQueue) flush(T float64, out []mirrorSimMsg) []mirrorSimMsg {
	kept := mq.q[:0]
	for _, msg := range mq.q {
		if msg.due <= T {
			out = append(out, msg)
		} else {
			kept = append(kept, msg)
		}
	}
	mq.q = kept
	return out
}

// MirrorLatencySimFor returns the fields the mirror-network export sets on
// LatencySimulation for one step of the plan of s: latency the step's
// latency plus a spike's delay, in ms; jitter twice the lab's mean jitter
// (the noise averages about one half), at most Mirror's 1 s; jitterSpeed 1
// (Mirror's default); unreliableLoss the step's loss (100 in an outage);
// unreliableScramble the lab's reorder share, in percent.
func MirrorLatencySimFor(s *Settings, st *Step) MirrorLatencySim {
	return MirrorLatencySim{
		Latency:            float32((st.C.Latency + st.C.Extra) * 1000),
		Jitter:             float32(min(2*st.C.Jitter, 1)),
		JitterSpeed:        1,
		UnreliableLoss:     float32(st.Loss() * 100),
		UnreliableScramble: float32(s.Reorder * 100),
	}
}

// mirrorNetSim is the netSim "mirror" link: the server's LatencySimulation
// playing the mirror-network export's steps, the snapshots on the unreliable
// channel, over a wrapped transport on a LAN (no delay of its own). Server
// frames come at tickRate; a snapshot is sent in the frame of its send time
// and reaches the client in the frame that flushes it.
//
// What the lab does not carry over: Mathf.PerlinNoise is not public, so the
// noise is Perlin's improved gradient noise on the diagonal (mirrorNoise),
// a curve of the same kind, not Unity's values; the order inside one flush
// (where the scramble acts) reaches the techniques as send order, since what
// one frame hands on arrives at one instant; and the client clock's pings
// keep the lab's link.
type mirrorNetSim struct {
	s     *Settings
	plan  netSimSchedule
	draws mirrorLabDraws
}

func newMirrorNetSim(s *Settings, duration *float64, seed uint64) *mirrorNetSim {
	return &mirrorNetSim{s: s, plan: netSimSchedule{s: s, duration: duration}, draws: mirrorLabDraws{r: geom.NewRNG(seed, netSimStreamMirror)}}
}

func (m *mirrorNetSim) send(sent float64, arrivals []float64) []float64 {
	sim := MirrorLatencySimFor(m.s, m.plan.at(sent))
	// A snapshot is an unreliable message. No queue is kept: the scramble
	// only orders a flush, whose messages arrive at one instant.
	due, _, kept := sim.send(sent, false, 0, &m.draws)
	if !kept {
		return arrivals
	}
	return append(arrivals, max(sent, nextFrame(due, m.s.TickRate)))
}

// mirrorLabDraws is LatencySimulation's randomness in the lab: the noise
// curve and a seeded stream for System.Random.
type mirrorLabDraws struct{ r *geom.RNG }

func (d *mirrorLabDraws) noise(x float32) float32 { return mirrorNoise(x) }
func (d *mirrorLabDraws) nextDouble() float64     { return d.r.Float64() }
func (d *mirrorLabDraws) next(max int) int        { return int(d.r.Float64() * float64(max)) }

// mirrorNoise stands in for Unity's Mathf.PerlinNoise(x, x): Ken Perlin's
// improved noise (2002: quintic fade, his permutation, the four diagonal
// gradients of 2-D noise) at (x, x), mapped from [−1, 1] to [0, 1]. Every
// product is rounded on its own, so it gives the same values everywhere.
func mirrorNoise(xf float32) float32 {
	x := float64(xf)
	fl := perlinFloor(x)
	i := int(int64(fl)) & 255
	f := x - fl
	u := perlinFade(f)
	// On the diagonal both coordinates share a cell and a fraction.
	a, b := perlinPerm[i]+i, perlinPerm[(i+1)&255]+i
	n00 := perlinGrad(perlinPerm[a&255], f, f)
	n10 := perlinGrad(perlinPerm[b&255], f-1, f)
	n01 := perlinGrad(perlinPerm[(a+1)&255], f, f-1)
	n11 := perlinGrad(perlinPerm[(b+1)&255], f-1, f-1)
	n := perlinLerp(u, perlinLerp(u, n00, n10), perlinLerp(u, n01, n11))
	return float32(float64(n+1) / 2)
}

func perlinFloor(x float64) float64 {
	t := float64(int64(x))
	if t > x {
		t--
	}
	return t
}

func perlinFade(t float64) float64 {
	return float64(float64(t*t) * float64(t*float64(float64(t*float64(float64(t*6)-15))+10)))
}

func perlinLerp(t, a, b float64) float64 { return a + float64(t*(b-a)) }

// perlinGrad returns the dot product of (x, y) with one of the four diagonal
// gradients, chosen by the hash h.
func perlinGrad(h int, x, y float64) float64 {
	if h&1 != 0 {
		x = -x
	}
	if h&2 != 0 {
		y = -y
	}
	return x + y
}

// perlinPerm is Ken Perlin's reference permutation of 0..255.
var perlinPerm = [256]int{151, 160, 137, 91, 90, 15, 131, 13, 201, 95, 96, 53, 194, 233, 7, 225, 140, 36, 103, 30, 69, 142,
	8, 99, 37, 240, 21, 10, 23, 190, 6, 148, 247, 120, 234, 75, 0, 26, 197, 62, 94, 252, 219, 203, 117, 35, 11, 32, 57, 177,
	33, 88, 237, 149, 56, 87, 174, 20, 125, 136, 171, 168, 68, 175, 74, 165, 71, 134, 139, 48, 27, 166, 77, 146, 158, 231,
	83, 111, 229, 122, 60, 211, 133, 230, 220, 105, 92, 41, 55, 46, 245, 40, 244, 102, 143, 54, 65, 25, 63, 161, 1, 216, 80,
	73, 209, 76, 132, 187, 208, 89, 18, 169, 200, 196, 135, 130, 116, 188, 159, 86, 164, 100, 109, 198, 173, 186, 3, 64, 52,
	217, 226, 250, 124, 123, 5, 202, 38, 147, 118, 126, 255, 82, 85, 212, 207, 206, 59, 227, 47, 16, 58, 17, 182, 189, 28, 42,
	223, 183, 170, 213, 119, 248, 152, 2, 44, 154, 163, 70, 221, 153, 101, 155, 167, 43, 172, 9, 129, 22, 39, 253, 19, 98,
	108, 110, 79, 113, 224, 232, 178, 185, 112, 104, 218, 246, 97, 228, 251, 34, 242, 193, 238, 210, 144, 12, 191, 179, 162,
	241, 81, 51, 145, 235, 249, 14, 239, 107, 49, 192, 214, 31, 181, 199, 106, 157, 184, 84, 204, 176, 115, 121, 50, 45, 127,
	4, 150, 254, 138, 236, 205, 93, 222, 114, 67, 29, 24, 72, 243, 141, 128, 195, 78, 66, 215, 61, 156, 180}
