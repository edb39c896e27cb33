package engine

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestArrivalQueueOrder checks that the arrival queue delivers, through
// any mix of pushes and pops, the earliest arrival in flight each time,
// equal times in send order, without growing beyond what is in flight.
func TestArrivalQueueOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 32))
	var q arrivalQueue
	var ref []arrival // in flight, unordered
	for step, seq := 0, 0; step < 20000; step++ {
		if len(ref) == 0 || len(ref) < 12 && r.IntN(2) == 0 {
			// A send: one copy, or two (a duplicate), at times drawn from a
			// coarse grid so that ties are common and jitter reorders.
			for range 1 + r.IntN(2) {
				a := arrival{t: float64(seq/4 + r.IntN(6)), tick: float64(seq), seq: seq}
				q.push(a)
				ref = append(ref, a)
			}
			seq++
			continue
		}
		best := 0
		for i := range ref {
			if ref[i].before(&ref[best]) {
				best = i
			}
		}
		if got := q.next(); got != ref[best].t {
			t.Fatalf("step %d: next() = %v, want %v", step, got, ref[best].t)
		}
		if got := q.pop(); got != ref[best] {
			t.Fatalf("step %d: pop() = %+v, want %+v", step, got, ref[best])
		}
		ref = append(ref[:best], ref[best+1:]...)
	}
	for len(ref) > 0 {
		q.pop()
		ref = ref[1:]
	}
	if got := q.next(); !math.IsInf(got, 1) {
		t.Errorf("empty queue: next() = %v, want +Inf", got)
	}
	if c := cap(q.buf); c > 32 {
		t.Errorf("queue grew to room for %d arrivals, with at most 13 in flight", c)
	}
}
