package engine

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
	due = T + float64(mq.sim.latency(T, d))
	msg := mirrorSimMsg{id: id, due: due}
	if reliable {
		mq.q = append(mq.q, msg)
		return due, true
	}
	if mq.sim.drop(d) {
		return due, false
	}
	i := mq.sim.insertAt(len(mq.q), d)
	mq.q = append(mq.q, mirrorSimMsg{})
	copy(mq.q[i+1:], mq.q[i:])
	mq.q[i] = msg
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
