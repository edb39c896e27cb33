package engine

import "math"

// arrival is a packet copy in flight: it reaches the client at t and carries
// the state of the server tick at tick.
type arrival struct {
	t    float64
	tick float64
	seq  int
}

// arrivalHeap is a binary min-heap of arrivals by time, then by sequence, so
// that equal arrival times are delivered in the order they were sent.
type arrivalHeap []arrival

func (h arrivalHeap) less(i, j int) bool {
	if h[i].t != h[j].t {
		return h[i].t < h[j].t
	}
	return h[i].seq < h[j].seq
}

// next returns the time of the earliest arrival in flight, +Inf if none.
func (h arrivalHeap) next() float64 {
	if len(h) == 0 {
		return math.Inf(1)
	}
	return h[0].t
}

func (h *arrivalHeap) push(a arrival) {
	*h = append(*h, a)
	s := *h
	for i := len(s) - 1; i > 0; {
		p := (i - 1) / 2
		if !s.less(i, p) {
			break
		}
		s[i], s[p] = s[p], s[i]
		i = p
	}
}

func (h *arrivalHeap) pop() arrival {
	s := *h
	top := s[0]
	last := len(s) - 1
	s[0] = s[last]
	s = s[:last]
	for i := 0; ; {
		l, r, m := 2*i+1, 2*i+2, i
		if l < len(s) && s.less(l, m) {
			m = l
		}
		if r < len(s) && s.less(r, m) {
			m = r
		}
		if m == i {
			break
		}
		s[i], s[m] = s[m], s[i]
		i = m
	}
	*h = s
	return top
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
