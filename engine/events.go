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
// the same order. They sit in a ring whose length is a power of two,
// doubled when full, so that neither end ever moves the others.
type arrivalQueue struct {
	buf  []arrival // the ring: buf[(head+i)&(len(buf)-1)] is the i-th to arrive, i < n
	head int
	n    int
}

// before reports whether a is delivered before b.
func (a *arrival) before(b *arrival) bool {
	return a.t < b.t || a.t == b.t && a.seq < b.seq
}

// reset empties the queue, keeping its memory.
func (q *arrivalQueue) reset() { q.head, q.n = 0, 0 }

// next returns the time of the earliest arrival in flight, +Inf if none.
func (q *arrivalQueue) next() float64 {
	if q.n == 0 {
		return math.Inf(1)
	}
	return q.buf[q.head].t
}

// push puts a in flight.
func (q *arrivalQueue) push(a arrival) {
	if q.n == len(q.buf) {
		q.grow()
	}
	buf, mask := q.buf, len(q.buf)-1
	i := q.head + q.n
	for j := 0; j < q.n && a.before(&buf[(i-1)&mask]); j++ {
		buf[i&mask] = buf[(i-1)&mask]
		i--
	}
	buf[i&mask] = a
	q.n++
}

// grow doubles the ring (makes one of 8 at first), the arrivals in flight
// moved to its front in order.
func (q *arrivalQueue) grow() {
	buf := make([]arrival, max(8, 2*len(q.buf)))
	for i := range q.n {
		buf[i] = q.buf[(q.head+i)&(len(q.buf)-1)]
	}
	q.buf, q.head = buf, 0
}

// pop takes out the earliest arrival; the queue must not be empty.
func (q *arrivalQueue) pop() arrival {
	a := q.buf[q.head]
	q.head = (q.head + 1) & (len(q.buf) - 1)
	q.n--
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
