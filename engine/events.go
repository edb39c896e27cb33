package engine

import "math"

// arrival is a packet copy in flight: it reaches the client at t and carries
// the state of the server tick at tick.
type arrival struct {
	t    float64
	tick float64
	seq  int
}

// arrivalQueue holds the arrivals in flight in the order they are
// delivered: by time, then by sequence, so that equal arrival times are
// delivered in the order they were sent. A link has a few in flight (its
// delay times the send rate), and jitter reorders only some of them, so an
// arrival mostly goes in at the end after a comparison or two, and the
// next one leaves from the front: cheaper than a binary heap's sifts, with
// the same order.
type arrivalQueue struct {
	buf  []arrival // buf[head:] is in flight, in delivery order
	head int
}

// before reports whether a is delivered before b.
func (a *arrival) before(b *arrival) bool {
	return a.t < b.t || a.t == b.t && a.seq < b.seq
}

// reset empties the queue, keeping its memory.
func (q *arrivalQueue) reset() { q.buf, q.head = q.buf[:0], 0 }

// next returns the time of the earliest arrival in flight, +Inf if none.
func (q *arrivalQueue) next() float64 {
	if q.head == len(q.buf) {
		return math.Inf(1)
	}
	return q.buf[q.head].t
}

// push puts a in flight.
func (q *arrivalQueue) push(a arrival) {
	if q.head > 0 && len(q.buf) == cap(q.buf) { // slide to the front rather than grow
		q.buf = q.buf[:copy(q.buf, q.buf[q.head:])]
		q.head = 0
	}
	q.buf = append(q.buf, a)
	i := len(q.buf) - 1
	for i > q.head && a.before(&q.buf[i-1]) {
		q.buf[i] = q.buf[i-1]
		i--
	}
	q.buf[i] = a
}

// pop takes out the earliest arrival; the queue must not be empty.
func (q *arrivalQueue) pop() arrival {
	a := q.buf[q.head]
	if q.head++; q.head == len(q.buf) {
		q.reset()
	}
	return a
}

// recordRing keeps the last len(buf) records pushed and remembers how far a
// reader has drained them.
type recordRing[T any] struct {
	buf     []T
	pushed  int
	drained int
}

func newRecordRing[T any](n int) recordRing[T] { return recordRing[T]{buf: make([]T, n)} }

// push keeps v; a ring of no capacity (a quiet Sim's) keeps nothing.
func (r *recordRing[T]) push(v T) {
	if len(r.buf) == 0 {
		return
	}
	r.buf[r.pushed%len(r.buf)] = v
	r.pushed++
}

// drain appends the records pushed since the last drain, oldest first; those
// overwritten in between are lost.
func (r *recordRing[T]) drain(dst []T) []T {
	for i := max(r.drained, r.pushed-len(r.buf)); i < r.pushed; i++ {
		dst = append(dst, r.buf[i%len(r.buf)])
	}
	r.drained = r.pushed
	return dst
}
