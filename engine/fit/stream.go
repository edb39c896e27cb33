package fit

import (
	"math"
	"slices"

	"interplab/engine"
)

// stream is one entity's sends in sequence order, the unit every part of
// the fit reads: a lost send (a row with Arrive NaN, or a gap in the
// sequence numbers) is a send with no copy.
type stream struct {
	t0     float64   // the first send's time, s: the origin of the fit's timeline
	sent   []float64 // send time of each send, s from t0
	first  []float64 // first arrival minus send time, s; NaN if lost
	copies []int32   // copies that arrived
	// delays of every copy that arrived (a duplicate's own delay too), with
	// the index of its send: the delay fit's sample.
	delay []float64
	of    []int32
	gaps  int // sends that left no row (sequence gaps)
}

// newStream reads entity e's sends from t (valid). Sends missing from the
// sequence are placed between their neighbours at the neighbours' pace.
func newStream(t *engine.Trace, e int) *stream {
	s := &stream{t0: math.NaN()}
	lastSeq := -1
	for i := range t.Packets {
		p := &t.Packets[i]
		if p.Entity != e {
			continue
		}
		if math.IsNaN(s.t0) {
			s.t0 = p.Sent
		}
		rel := p.Sent - s.t0
		if lastSeq >= 0 && p.Seq == lastSeq {
			// Another copy of the same send.
			k := len(s.sent) - 1
			if !math.IsNaN(p.Arrive) {
				d := p.Arrive - p.Sent
				s.copies[k]++
				if math.IsNaN(s.first[k]) || d < s.first[k] {
					s.first[k] = d
				}
				s.delay = append(s.delay, d)
				s.of = append(s.of, int32(k))
			}
			continue
		}
		if lastSeq >= 0 && p.Seq > lastSeq+1 {
			prev := s.sent[len(s.sent)-1]
			n := p.Seq - lastSeq
			for j := 1; j < n; j++ {
				s.sent = append(s.sent, prev+(rel-prev)*float64(j)/float64(n))
				s.first = append(s.first, math.NaN())
				s.copies = append(s.copies, 0)
				s.gaps++
			}
		}
		lastSeq = p.Seq
		k := len(s.sent)
		s.sent = append(s.sent, rel)
		if math.IsNaN(p.Arrive) {
			s.first = append(s.first, math.NaN())
			s.copies = append(s.copies, 0)
			continue
		}
		d := p.Arrive - p.Sent
		s.first = append(s.first, d)
		s.copies = append(s.copies, 1)
		s.delay = append(s.delay, d)
		s.of = append(s.of, int32(k))
	}
	return s
}

// span returns the time from the first send to the last, s.
func (s *stream) span() float64 {
	if len(s.sent) == 0 {
		return 0
	}
	return s.sent[len(s.sent)-1]
}

// quantile returns the nearest-rank q-quantile of x, which it sorts.
func quantile(x []float64, q float64) float64 {
	slices.Sort(x)
	i := int(math.Ceil(q*float64(len(x)))) - 1
	return x[max(0, min(len(x)-1, i))]
}

// median returns the median of x, which it sorts.
func median(x []float64) float64 {
	slices.Sort(x)
	n := len(x)
	if n%2 == 1 {
		return x[n/2]
	}
	return (x[n/2-1] + x[n/2]) / 2
}
